#pragma once
// The one entry point the network layer calls: checks a parsed command against the
// table and runs it where its keys live.
//
//   Dispatch (connection's thread)
//     ├─ unknown name / bad arity ──────────────▶ error reply inline
//     ├─ keys all on this thread's shard ───────▶ on_shard inline
//     ├─ keys all on one other shard ───────────▶ post to owner ─▶ on_shard ─▶ post reply back
//     └─ keyless, or keys on several shards ────▶ on_coord inline (may fan out)

#include <memory>
#include <string>

#include "absl/functional/any_invocable.h"
#include "shard/command.h"
#include "shard/owned_args.h"
#include "shard/shard_set.h"

namespace rc {

class Dispatcher {
 public:
  Dispatcher(const CommandTable& table, ShardSet& shards, ServerState& server)
      : table_(table), shards_(shards), server_(server) {}

  // Runs on `self`, the connection's thread. The reply goes through `reply` when it is
  // ready now, or through `sink` when another thread must answer.
  void Dispatch(ShardThread& self, ClientState& client, ReplySink& sink, ReplyBuilder& reply,
                ArgList args) const;

  // Connection's thread, before Dispatch: true when this command must not run yet
  // because an earlier multi-shard command of the same client is still taking locks on
  // keys it names. The connection stops reading there (keeping the bytes) until
  // ReplySink::Resume.
  bool MustWait(const ClientState& client, ArgList args) const;

  const CommandTable& table() const { return table_; }

 private:
  void RunRemote(ShardThread& self, uint32_t owner, const CommandSpec& spec, ReplySink& sink,
                 bool resp3, ArgList args) const;
  // On the shard's thread: runs the command now, or once multi-shard commands have released
  // its keys; `deliver` gets the reply bytes on this thread.
  void RunWhenFree(Shard& shard, const CommandSpec& spec, std::unique_ptr<OwnedArgs> owned,
                   bool resp3, absl::AnyInvocable<void(std::string)> deliver) const;

  const CommandTable& table_;
  ShardSet& shards_;
  ServerState& server_;
};

// Redis's reply for a name it does not know, quoting the first arguments.
std::string UnknownCommandError(ArgList args);
std::string WrongArityError(std::string_view command_name);

}  // namespace rc
