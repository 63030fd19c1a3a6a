#pragma once
// Commands sent to the shard that owns their keys travel in batches. Every command a
// thread sends to one owner during a loop turn joins one HopBatch: a record per command
// and all their arguments in one buffer. The batch is one task to the owner, which runs
// the commands in order and writes every reply into one buffer of the same batch, and one
// task back, where each reply goes to its connection. Batches are then kept for reuse, so
// once warm a hop allocates nothing.
//
//   home thread   Dispatcher::RunRemote: HopLanes::Open(owner) gives the batch still
//                 open for that owner (a new one goes into the outbox now, at the
//                 position of its first command), the command is appended
//   owner thread  Dispatcher::RunBatch: each command runs, or waits behind multi-shard
//                 key locks with a copy of its arguments and answers on its own later
//   home thread   Dispatcher::DeliverBatch: replies to their slots; HopLanes::Recycle
//
// Order. A batch stays open only while nothing else is posted to its owner: any other
// task for that owner (a lock step, a fan-out, WATCH) seals it first, and so does the
// end of the turn (ShardThread::Post, ShardSet::FlushOutbox). Commands therefore reach
// each shard in the order they were dispatched, as with one task per command.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "shard/wire/command.h"

namespace rc {

class ReplySink;
struct ClientState;

// One command in a batch.
struct HopRequest {
  // The connection that waits for the reply: dereferenced on the home thread only.
  ReplySink* sink;
  ClientState* client;
  const CommandSpec* spec;
  uint64_t slot;  // the connection's reply slot
  KeySpan keys;
  uint32_t first_len;  // the command's first argument length in HopBatch::arg_lens
  uint32_t argc;
  size_t first_byte;  // where its arguments start in HopBatch::arg_bytes
  bool resp3;
  // Set on the owner: ran now (reply in HopBatch::replies up to reply_end), or waits
  // behind key locks and replies on its own.
  bool waiting = false;
  bool refused = false;    // answered -BUSY without running (busy_refusal.h)
  bool delivered = false;  // its reply left early, while a script after it was busy
  bool slow = false;       // the slow log wants it: logged back home (invoke.h)
  size_t reply_end = 0;
  uint64_t ns = 0;  // run time, for the slow log back home
};

class HopBatch {
 public:
  uint32_t home = 0;   // the connections' thread
  uint32_t owner = 0;  // the keys' thread

  // Home thread: appends a command; its arguments are copied.
  void Add(const HopRequest& request, ArgList args);
  // The arguments of `r`, as views into this batch (valid until Clear).
  ArgList Args(const HopRequest& r, std::vector<std::string_view>* scratch) const;
  // Argument i of `r` alone (i < r.argc), as prefetching needs only the keys.
  std::string_view Arg(const HopRequest& r, uint32_t i) const {
    const char* p = arg_bytes_.data() + r.first_byte;
    for (uint32_t k = 0; k < i; ++k) p += arg_lens_[r.first_len + k];
    return std::string_view(p, arg_lens_[r.first_len + i]);
  }
  // Ready for reuse, keeping the buffers' capacity.
  void Clear();
  // Bytes the buffers hold, to drop batches grown by a burst.
  size_t Capacity() const;

  std::vector<HopRequest>& requests() { return requests_; }
  const std::vector<HopRequest>& requests() const { return requests_; }
  std::string& replies() { return replies_; }
  bool empty() const { return requests_.empty(); }

 private:
  std::vector<HopRequest> requests_;
  std::vector<uint32_t> arg_lens_;
  std::string arg_bytes_;
  std::string replies_;
};

// One thread's batches, per owner. Owner thread only (the thread whose ShardThread holds
// it); a batch in flight belongs to its task.
class HopLanes {
 public:
  explicit HopLanes(size_t threads) : open_(threads, nullptr) {}

  // The batch for `owner` that commands may still join, or nullptr.
  HopBatch* open(uint32_t owner) const { return open_[owner]; }
  void set_open(uint32_t owner, HopBatch* batch) { open_[owner] = batch; }
  // No more commands join the open batch for `owner` / for anyone.
  void Seal(uint32_t owner) { open_[owner] = nullptr; }
  void SealAll();
  // An empty batch, reused when one came back.
  std::unique_ptr<HopBatch> Take();
  void Recycle(std::unique_ptr<HopBatch> batch);
  // Room for one command's argument views while it runs (HopBatch::Args).
  std::vector<std::string_view>& scratch() { return scratch_; }
  // The batch this thread, as owner, is running, and its command running now (a script
  // may turn busy in it: Dispatcher::AnswerAroundBusyScript); null between batches.
  struct Running {
    HopBatch* batch = nullptr;
    size_t index = 0;
  };
  Running& running() { return running_; }

 private:
  Running running_;
  std::vector<HopBatch*> open_;
  std::vector<std::unique_ptr<HopBatch>> spare_;
  std::vector<std::string_view> scratch_;
};

}  // namespace rc
