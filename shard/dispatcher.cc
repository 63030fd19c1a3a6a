#include "shard/dispatcher.h"

#include <cctype>
#include <memory>

#include "core/strings.h"
#include "shard/auth.h"
#include "shard/client_state.h"
#include "shard/errors.h"
#include "shard/owned_args.h"
#include "shard/reply_sink.h"

namespace rc {

std::string UnknownCommandError(ArgList args) {
  // Same truncation as Redis: the name to 128 bytes, the quoted arguments to ~128 bytes.
  std::string quoted;
  for (size_t i = 1; i < args.size() && quoted.size() < 128; ++i) {
    StrAppend(&quoted, "'", args[i].substr(0, 128 - quoted.size()), "' ");
  }
  return StrCat("ERR unknown command '", args[0].substr(0, 128),
                      "', with args beginning with: ", quoted);
}

std::string WrongArityError(std::string_view command_name) {
  return StrCat("ERR wrong number of arguments for '", command_name, "' command");
}

bool Dispatcher::MustWait(const ClientState& client, ArgList args) const {
  if (!client.Locking()) return false;
  const CommandSpec* spec = table_.Find(args[0]);
  if (spec == nullptr || !spec->ArityOk(args.size())) return false;  // just an error reply
  // Between MULTI and EXEC commands are only queued; EXEC is what runs them.
  if (client.multi && !(spec->flags & kCmdNotQueued)) return false;
  if (spec->flags & kCmdWaitsForLocks) return true;
  if (spec->first_key <= 0) {
    // Keyless commands that touch the keyspace as a whole (KEYS, FLUSHALL, ...) wait for
    // everything; connection and server commands wait for nothing.
    return (spec->flags & (kCmdWrite | kCmdReadOnly)) != 0;
  }
  // Keys beyond the row's triple (ZUNIONSTORE's follow numkeys) are not known here: such
  // coordinator-only rows wait for everything too.
  if (spec->on_shard == nullptr) return true;
  if (client.locking_whole > 0) return true;
  for (std::string_view k : spec->KeysOf(args)) {
    if (client.locking_keys.contains(absl::string_view(k.data(), k.size()))) return true;
  }
  return false;
}

void Dispatcher::Dispatch(ShardThread& self, ClientState& client, ReplySink& sink,
                          ReplyBuilder& reply, ArgList args) const {
  ++self.stats().commands_processed;
  // A refused command also dooms the transaction being queued, as in Redis.
  auto refuse = [&client, &reply](std::string_view error) {
    if (client.multi) client.multi->aborted = true;
    reply.Error(error);
  };
  const CommandSpec* spec = table_.Find(args[0]);
  if (spec == nullptr) return refuse(UnknownCommandError(args));
  if (!spec->ArityOk(args.size())) return refuse(WrongArityError(spec->name));
  if (!spec->subcommands.empty() && args.size() >= 2) {
    const std::pair<std::string, int>* sub = nullptr;
    for (const auto& s : spec->subcommands) {
      if (EqualsIgnoreCase(s.first, args[1])) sub = &s;
    }
    if (sub == nullptr) {
      std::string upper = spec->name;
      for (char& c : upper) c = char(std::toupper(static_cast<unsigned char>(c)));
      return refuse(StrCat("ERR unknown subcommand '", args[1].substr(0, 128), "'. Try ",
                           upper, " HELP."));
    }
    int arity = sub->second;
    if (arity >= 0 ? args.size() != size_t(arity) : args.size() < size_t(-arity)) {
      return refuse(WrongArityError(spec->FullName(args)));
    }
  }
  // After the name and arity checks, as Redis: an unknown command is reported as such.
  if (!(spec->flags & kCmdNoAuth) && AuthRequired(server_, client)) return refuse(err::kNoAuth);
  if (client.Subscriptions() > 0 && !client.resp3 && !(spec->flags & kCmdSubscribeOk)) {
    return refuse(StrCat("ERR Can't execute '", spec->FullName(args),
                         "': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are "
                         "allowed in this context"));
  }
  if (client.multi && !(spec->flags & kCmdNotQueued)) {
    client.multi->queued.push_back(QueuedCommand{spec, std::make_unique<OwnedArgs>(args)});
    reply.SimpleString("QUEUED");
    return;
  }
  if (spec->on_shard != nullptr && spec->first_key > 0) {
    int last = spec->last_key < 0 ? int(args.size()) + spec->last_key : spec->last_key;
    if (last >= int(args.size())) last = int(args.size()) - 1;
    uint32_t owner = shards_.ShardOf(args[spec->first_key]);
    bool one_shard = true;
    for (int i = spec->first_key + spec->step; one_shard && i <= last; i += spec->step) {
      one_shard = shards_.ShardOf(args[i]) == owner;
    }
    if (one_shard) {
      if (owner != self.id()) return RunRemote(self, owner, *spec, sink, client.resp3, args);
      Shard& shard = self.shard();
      if (shard.locks().Idle()) {
        ShardCmd cmd{shard, args, reply, server_};
        return spec->on_shard(cmd);
      }
      // A multi-shard command holds or awaits some keys here: check ours.
      uint64_t slot = sink.Defer();
      ReplySink* reply_to = &sink;
      RunWhenFree(shard, *spec, std::make_unique<OwnedArgs>(args), client.resp3,
                  [reply_to, slot](std::string out) { reply_to->Fulfill(slot, std::move(out)); });
      return;
    }
  }
  CoordCmd cmd{self, shards_, server_, client, sink, table_, args, reply};
  spec->on_coord(cmd);
}

void Dispatcher::RunWhenFree(Shard& shard, const CommandSpec& spec,
                             std::unique_ptr<OwnedArgs> owned, bool resp3,
                             absl::AnyInvocable<void(std::string)> deliver) const {
  // Keys view owned's buffer, which stays put when `owned` moves into the task.
  KeyLocks& locks = shard.locks();
  KeyLocks::Keys keys;
  if (!locks.Idle()) keys = spec.KeysOf(owned->view());
  const ServerState* server = &server_;
  ShardHandler handler = spec.on_shard;
  auto run = [&shard, server, handler, resp3, owned = std::move(owned),
              deliver = std::move(deliver)]() mutable {
    std::string out;
    ReplyBuilder rb(&out, resp3);
    ShardCmd cmd{shard, owned->view(), rb, *server};
    handler(cmd);
    deliver(std::move(out));
  };
  if (locks.Idle() || locks.MayRun(keys, false)) return run();
  locks.Enqueue(std::move(keys), false, std::move(run));
}

void Dispatcher::RunRemote(ShardThread& self, uint32_t owner, const CommandSpec& spec,
                           ReplySink& sink, bool resp3, ArgList args) const {
  ++self.stats().remote_commands;
  uint64_t slot = sink.Defer();
  const uint32_t home = self.id();
  ShardSet* shards = &shards_;
  const CommandSpec* command = &spec;
  ReplySink* reply_to = &sink;
  self.Post(owner, [this, shards, command, owner, home, slot, reply_to, resp3,
                    owned = std::make_unique<OwnedArgs>(args)]() mutable {
    ShardThread& there = shards->thread(owner);
    RunWhenFree(there.shard(), *command, std::move(owned), resp3,
                [&there, home, reply_to, slot](std::string out) {
                  // reply_to is dereferenced only back on the connection's own thread.
                  there.Post(home, [reply_to, slot, out = std::move(out)]() mutable {
                    reply_to->Fulfill(slot, std::move(out));
                  });
                });
  });
}

}  // namespace rc
