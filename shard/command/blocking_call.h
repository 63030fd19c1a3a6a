#pragma once
// Blocking commands on the client's side (its connection's thread, "home"): the first
// look at the keys, the wait, and every way a wait ends. The key shards' side is
// shard/runtime/blocking.h; docs/BLOCKING.md has the whole picture.
//
//   BlockOn (on_coord handler)
//     ├─ keys on one shard: one task there (inline for this thread's own shard) tries them
//     │  in argument order and, finding nothing, queues the command on them in the same
//     │  step, so no push falls in between
//     └─ keys on several shards: the multi-shard locks (multi_shard.h) hold every key
//        while each shard reports what it has; the first key in argument order with data
//        is popped, or every shard queues the command before the locks go
//   (BLMOVE with its destination on another shard: MoveAcross, under both keys' locks,
//   also each time the source's shard hands the waiter back: Notified)
//   then, until answered, the connection reads nothing more (its pipelined commands
//   wait in order) and the call ends exactly once, whoever claims it (Blocker::Claim):
//     ├─ a key's shard serves it ──────────▶ Served(reply)
//     ├─ its deadline passes ──────────────▶ Expired(): null reply
//     ├─ CLIENT UNBLOCK id [TIMEOUT|ERROR] ▶ UnblockClient
//     └─ the client disconnects ───────────▶ BlockedClientClosed: nothing is left behind
//   Finish fills the held reply slot, lets the connection read on, and tells the shards
//   still listing the command to drop it.
//
// Inside MULTI (EXEC's nested run) a blocking command is its non-blocking form: it tries
// the keys the same way and answers nothing at once.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "shard/runtime/blocked_clients.h"
#include "shard/runtime/blocking.h"
#include "shard/wire/command.h"

namespace rc {

inline constexpr std::string_view kUnblockedError = "UNBLOCKED client unblocked via CLIENT UNBLOCK";

// Redis's getTimeoutFromObjectOrReply in seconds: a float (decimals, exponent, hex as
// strtold reads them) turned into whole milliseconds. 0 waits forever, and so does a
// timeout whose deadline would not fit; a negative one, or one that overflows the
// milliseconds, is "timeout is negative". Sets *deadline_ms (Unix ms, 0 for none) from
// `now_ms`, or returns false with Redis's error text in *error.
bool ParseBlockTimeout(std::string_view arg, int64_t now_ms, int64_t* deadline_ms,
                       std::string_view* error);

// The key shard's thread: tries `keys` in order, as the blocking commands do before they
// wait. The first key that exists answers: popped (kReady), or WRONGTYPE. Returns false,
// having written nothing, when every key is missing. `record`: the pop goes to the
// append-only log here (false inside EXEC, which records the command in its place).
bool TryKeys(Shard& shard, const BlockingOp& op, ArgList keys, ReplyBuilder& reply, bool record);

// A blocking command's non-blocking form on its keys' shard (its on_shard handler, which
// EXEC runs): TryKeys, else the op's empty reply.
void PopOrNothing(ShardCmd& cmd, const BlockingOp& op, ArgList keys);

// Connection's thread, from a blocking command's on_coord handler once its arguments are
// checked: pops now if a key has data, else holds the connection until a key's shard
// serves the command or `deadline_ms` (Unix ms; 0 for none) passes. `keys` may repeat
// and may span shards. Without `may_block` (ZMPOP), inside EXEC and where the client
// denies blocking, it answers the op's empty reply at once instead of waiting.
void BlockOn(CoordCmd& cmd, std::shared_ptr<const BlockingOp> op, ArgList keys, int64_t deadline_ms,
             bool may_block);

// CLIENT UNBLOCK, on the client's thread: ends its wait as a timeout would, or with
// kUnblockedError. False when it does not wait (or a shard is already serving it).
bool UnblockClient(ClientState& client, bool error);
// Reactor::Close, on the client's thread: the client of a blocked command is gone.
void BlockedClientClosed(ClientState& client);
// CLIENT LIST flag b.
bool BlockedWaiting(const ClientState& client);

// One blocked command, as its home thread keeps it. Built by BlockOn.
class BlockedCall final : public Blocker, public std::enable_shared_from_this<BlockedCall> {
 public:
  // Reserves the command's reply slot.
  BlockedCall(std::shared_ptr<const BlockingOp> op, CoordCmd& cmd, int64_t deadline_ms,
              std::vector<uint32_t> shards);

  // Blocker, home thread.
  void Served(uint32_t shard, std::string reply) override {
    Finish(std::move(reply), /*unqueue=*/true, shard);
  }
  void Expired() override;
  void Notified(uint32_t shard, std::string key) override;

  // Home thread, the outcome of the first look at the keys: the command is queued on
  // them, or it was answered at once.
  void Queued();
  void Answered(std::string reply) { Finish(std::move(reply), /*unqueue=*/false); }
  bool Unblock(bool error);
  void ClientClosed();
  // Home thread, a move across shards (BlockingMoveOp): whether it must not move any more
  // (timed out or the client left while a shard handed it home), and its end: answered,
  // or queued on the source again.
  bool Ending() const { return closed_ || expired_; }
  void MoveDone(bool queued, std::string reply);

 private:
  // Answers the command (once): fills the held slot and lets the connection read on;
  // with `unqueue`, has every shard that may list it but `served_by` drop it.
  void Finish(std::string reply, bool unqueue, uint32_t served_by = UINT32_MAX);
  std::string NothingReply() const;

  // The reply a call that ended this way gets: nothing on a closed connection.
  std::string EndReply() const { return closed_ ? std::string() : NothingReply(); }

  ShardThread& self_;
  ShardSet& set_;
  ServerState& server_;
  const CommandTable& table_;
  ClientState& client_;
  ReplySink& sink_;
  const uint64_t slot_;
  const int64_t deadline_ms_;
  const std::vector<uint32_t> shards_;  // where it may be queued
  BlockedClients::Timer timer_;
  bool closed_ = false;        // the client disconnected
  bool expired_ = false;       // the deadline passed while a shard handed it home
  bool home_claimed_ = false;  // this thread claimed it (the client left while it tried)
};

}  // namespace rc
