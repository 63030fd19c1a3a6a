// CLIENT: the connection's own settings (ID, GETNAME, SETNAME, SETINFO, REPLY, NO-EVICT)
// run on its thread against its ClientState; LIST and KILL fan out to every thread,
// where each reads or closes only its own connections (ClientRegistry); PAUSE/UNPAUSE
// set the server-wide ClientPause that every connection checks before a command.

#include <algorithm>
#include <memory>
#include <optional>

#include "core/numbers.h"
#include "core/strings.h"
#include "shard/command/arg_parser.h"
#include "shard/command/blocking_call.h"
#include "shard/command/deferred_reply.h"
#include "shard/command/dispatcher.h"
#include "shard/command/errors.h"
#include "shard/runtime/fanout.h"
#include "shard/state/client_registry.h"
#include "shard/state/server_state.h"
#include "shard/wire/client_state.h"
#include "timers/clock.h"

namespace rc {

namespace {

// Redis's getClientInfoString flags, in its order; 'N' when none apply.
std::string Flags(const ClientState& c, const ClientBuffers& b) {
  std::string f;
  if (c.monitor) f += 'O';
  if (c.Subscriptions() > 0) f += 'P';
  if (c.multi || c.exec_nested) f += 'x';
  if (b.blocked) f += 'b';
  // A watched key changed: the next EXEC will abort (Redis's CLIENT_DIRTY_CAS).
  if (c.watching.state && c.watching.state->dirty.load(std::memory_order_relaxed)) f += 'd';
  if (c.close_after_reply) f += 'c';
  if (c.no_evict) f += 'e';
  return f.empty() ? "N" : f;
}

// One CLIENT LIST line, fields in Redis 7.0's order (lib-name and lib-ver are 7.2's,
// appended as 7.2 does). `argv_mem`: argument bytes of the command running now.
std::string ClientLine(ClientHandle& h, const std::vector<std::string>& cmd_names,
                       int64_t now_unix_ms, int64_t now_mono_ms, size_t argv_mem) {
  ClientState& c = h.client();
  ClientBuffers b = h.Buffers();
  // Run inside EXEC (only the client itself can see that): Redis still shows EXEC as
  // the command and the transaction as queued.
  std::string cmd = c.exec_nested ? "exec"
                    : c.last_cmd >= 0 && size_t(c.last_cmd) < cmd_names.size()
                        ? cmd_names[size_t(c.last_cmd)]
                        : "NULL";
  const int64_t multi = c.multi         ? int64_t(c.multi->queued.size())
                        : c.exec_nested ? c.exec_count
                                        : -1;
  const size_t multi_mem = c.multi ? MultiMem(c.multi->queued) : c.exec_nested ? c.exec_mem : 0;
  const size_t tot_mem = ClientMemory(b, c) + argv_mem;
  return StrCat("id=", c.id, " addr=", c.addr, " laddr=", c.laddr, " fd=", c.fd, " name=", c.name,
                " age=", (now_unix_ms - c.created_ms) / 1000,
                " idle=", std::max<int64_t>(0, now_mono_ms - b.last_active_ms) / 1000,
                " flags=", Flags(c, b), " db=0 sub=", c.channels.size(),
                " psub=", c.patterns.size(), " ssub=0 multi=", multi, " qbuf=", b.qbuf,
                " qbuf-free=", b.qbuf_free, " argv-mem=", argv_mem, " multi-mem=", multi_mem,
                " rbs=", b.rbs, " rbp=", b.rbp, " obl=", b.obl, " oll=", b.oll, " omem=", b.omem,
                " tot-mem=", tot_mem, " events=", b.writing ? "rw" : "r", " cmd=", cmd,
                " user=default redir=-1 resp=", c.resp3 ? 3 : 2, " lib-name=", c.lib_name,
                " lib-ver=", c.lib_ver, "\n");
}

size_t ArgBytes(ArgList args) {
  size_t n = 0;
  for (auto a : args) n += a.size();
  return n;
}

// Which clients a LIST or KILL names. Empty optionals match everything.
struct ClientFilter {
  std::vector<uint64_t> ids;
  int type = -1;  // 0 normal, 1 pubsub, 2 master/replica (none here)
  std::string addr, laddr;
  uint64_t skip_id = 0;  // SKIPME: the caller

  bool Matches(const ClientState& c) const {
    if (skip_id != 0 && c.id == skip_id) return false;
    if (!ids.empty() && std::find(ids.begin(), ids.end(), c.id) == ids.end()) return false;
    if (type >= 0 && type != (c.Subscriptions() > 0 ? 1 : 0)) return false;
    if (!addr.empty() && c.addr != addr) return false;
    if (!laddr.empty() && c.laddr != laddr) return false;
    return true;
  }
};

// TYPE's value; false with Redis's error when unknown.
bool ParseType(std::string_view v, int* type, std::string* error) {
  std::string t = ToLower(v);
  if (t == "normal") {
    *type = 0;
  } else if (t == "pubsub") {
    *type = 1;
  } else if (t == "master" || t == "replica" || t == "slave") {
    *type = 2;
  } else {
    *error = StrCat("ERR Unknown client type '", v, "'");
    return false;
  }
  return true;
}

void ClientList(CoordCmd& cmd, bool only_self) {
  auto filter = std::make_shared<ClientFilter>();
  if (only_self) {
    filter->ids.push_back(cmd.client.id);
  } else if (cmd.args.size() == 4 && EqualsIgnoreCase(cmd.args[2], "type")) {
    std::string error;
    if (!ParseType(cmd.args[3], &filter->type, &error)) return cmd.reply.Error(error);
  } else if (cmd.args.size() > 3 && EqualsIgnoreCase(cmd.args[2], "id")) {
    for (size_t i = 3; i < cmd.args.size(); ++i) {
      int64_t id;
      if (!ParseInt64(cmd.args[i], &id)) return cmd.reply.Error("ERR Invalid client ID");
      // Ids start at 1: zero or negative names nobody (0 is never an id).
      filter->ids.push_back(id > 0 ? uint64_t(id) : 0);
    }
  } else if (cmd.args.size() != 2) {
    return cmd.reply.Error(err::kSyntax);
  }
  const std::vector<std::string>* names = &cmd.table.stat_names();
  const Clock* clock = cmd.server.clock;
  const uint64_t self_id = cmd.client.id;
  // Inside EXEC Redis still counts EXEC's own argument ("exec": 4 bytes).
  const size_t argv_mem = cmd.client.exec_nested ? 4 : ArgBytes(cmd.args);
  auto work = [filter, names, clock, self_id, argv_mem](ShardThread& t, size_t) {
    std::vector<std::pair<uint64_t, std::string>> lines;
    int64_t now = clock->NowUnixMillis(), mono = MonotonicNanos() / 1'000'000;
    for (const auto& [id, h] : t.clients().all()) {
      if (!filter->Matches(h->client())) continue;
      lines.emplace_back(id, ClientLine(*h, *names, now, mono, id == self_id ? argv_mem : 0));
    }
    return lines;
  };
  if (only_self) {
    // CLIENT INFO: this connection lives on this thread.
    auto lines = work(cmd.self, 0);
    return cmd.reply.Verbatim(lines.empty() ? "" : lines[0].second);
  }
  DeferredReply out(cmd);
  FanOutThreads<std::vector<std::pair<uint64_t, std::string>>>(
      cmd.self, cmd.shards, AllShards(cmd.shards), work, [out](auto& per_thread) {
        std::vector<std::pair<uint64_t, std::string>> all;
        for (auto& v : per_thread) all.insert(all.end(), v.begin(), v.end());
        std::sort(all.begin(), all.end());
        std::string text;
        for (auto& [id, line] : all) text += line;
        out.Send([&](ReplyBuilder& rb) { rb.Verbatim(text); });
      });
}

void Kill(CoordCmd& cmd) {
  auto filter = std::make_shared<ClientFilter>();
  bool old_form = cmd.args.size() == 3;
  if (old_form) {
    filter->addr = std::string(cmd.args[2]);
  } else {
    if (cmd.args.size() % 2 != 0) return cmd.reply.Error(err::kSyntax);
    constexpr std::string_view kBadId = "ERR client-id should be greater than 0";
    bool skipme = true;
    ArgParser p(cmd.args, 2);
    while (p.HasNext()) {
      if (p.Flag("id")) {
        const int64_t id = p.Next<int64_t>(kBadId);
        if (id <= 0) p.Fail(kBadId);
        filter->ids = {uint64_t(id)};
      } else if (p.Flag("type")) {
        std::string error;
        if (!ParseType(p.Next<std::string_view>(), &filter->type, &error)) p.Fail(error);
      } else if (p.Flag("addr")) {
        filter->addr = std::string(p.Next<std::string_view>());
      } else if (p.Flag("laddr")) {
        filter->laddr = std::string(p.Next<std::string_view>());
      } else if (p.Flag("user")) {
        // Only the default user exists: it matches every client.
        std::string_view user = p.Next<std::string_view>();
        if (user != "default") p.Fail(StrCat("ERR No such user '", user, "'"));
      } else if (p.Flag("skipme")) {
        skipme = p.NextOneOf<bool>({{"yes", true}, {"no", false}});
      } else {
        p.Fail(err::kSyntax);
      }
    }
    if (!p.ok()) return cmd.reply.Error(p.error());
    if (skipme) filter->skip_id = cmd.client.id;
  }
  const uint64_t self_id = cmd.client.id;
  DeferredReply out(cmd);
  FanOutThreads<size_t>(
      cmd.self, cmd.shards, AllShards(cmd.shards),
      [filter, self_id](ShardThread& t, size_t) {
        // Collect first: Kill removes the connection from the registry.
        std::vector<ClientHandle*> victims;
        for (const auto& [id, h] : t.clients().all()) {
          if (filter->Matches(h->client())) victims.push_back(h);
        }
        for (ClientHandle* h : victims) h->Kill(/*after_reply=*/h->client().id == self_id);
        return victims.size();
      },
      [out, old_form](std::vector<size_t>& killed) {
        size_t n = 0;
        for (size_t k : killed) n += k;
        out.Send([&](ReplyBuilder& rb) {
          if (!old_form) return rb.Integer(int64_t(n));
          if (n == 0) return rb.Error("ERR No such client");
          rb.Ok();
        });
      });
}

// CLIENT UNBLOCK id [TIMEOUT|ERROR]: ends a blocking command's wait (blocking_call.h) on
// the client's own thread. A client CLIENT PAUSE holds is not blocked in this sense
// (Redis 7.0 would answer it an error and still run its command later, or crash).
void Unblock(CoordCmd& cmd) {
  int64_t id = 0;
  if (!ParseInt64(cmd.args[2], &id)) return cmd.reply.Error(err::kNotInteger);
  bool error = false;
  if (cmd.args.size() == 4) {
    if (EqualsIgnoreCase(cmd.args[3], "error")) {
      error = true;
    } else if (!EqualsIgnoreCase(cmd.args[3], "timeout")) {
      return cmd.reply.Error("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR");
    }
  } else if (cmd.args.size() > 4) {
    return cmd.reply.Error(StrCat("ERR unknown subcommand or wrong number of arguments for '",
                                  cmd.args[1], "'. Try CLIENT HELP."));
  }
  DeferredReply out(cmd);
  FanOutThreads<bool>(
      cmd.self, cmd.shards, AllShards(cmd.shards),
      [id, error](ShardThread& t, size_t) {
        ClientHandle* h = id > 0 ? t.clients().Find(uint64_t(id)) : nullptr;
        return h != nullptr && UnblockClient(h->client(), error);
      },
      [out](std::vector<bool>& unblocked) {
        const bool any = std::find(unblocked.begin(), unblocked.end(), true) != unblocked.end();
        out.Send([&](ReplyBuilder& rb) { rb.Integer(any ? 1 : 0); });
      });
}

void Pause(CoordCmd& cmd) {
  int64_t ms;
  if (!ParseInt64(cmd.args[2], &ms)) {
    return cmd.reply.Error("ERR timeout is not an integer or out of range");
  }
  if (ms < 0) return cmd.reply.Error("ERR timeout is negative");
  ClientPause::Mode mode = ClientPause::kAll;
  if (cmd.args.size() == 4) {
    if (EqualsIgnoreCase(cmd.args[3], "write")) {
      mode = ClientPause::kWrite;
    } else if (!EqualsIgnoreCase(cmd.args[3], "all")) {
      return cmd.reply.Error("ERR CLIENT PAUSE mode must be WRITE or ALL");
    }
  } else if (cmd.args.size() > 4) {
    return cmd.reply.Error(err::kSyntax);
  }
  cmd.server.introspect.pause.Pause(cmd.server.clock->NowUnixMillis() + ms, mode);
  cmd.reply.Ok();
}

void ClientHelp(CoordCmd& cmd) {
  static const char* kLines[] = {
      "CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "GETREDIR",
      "    Return the client ID we are redirecting to when tracking is enabled.",
      "GETNAME",
      "    Return the name of the current connection.",
      "ID",
      "    Return the ID of the current connection.",
      "INFO",
      "    Return information about the current client connection.",
      "KILL <ip:port>",
      "    Kill connection made from <ip:port>.",
      "KILL <option> <value> [<option> <value> [...]]",
      "    Kill connections. Options are:",
      "    * ADDR (<ip:port>|<unixsocket>:0)",
      "      Kill connections made from the specified address",
      "    * LADDR (<ip:port>|<unixsocket>:0)",
      "      Kill connections made to specified local address",
      "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
      "      Kill connections by type.",
      "    * USER <username>",
      "      Kill connections authenticated by <username>.",
      "    * SKIPME (YES|NO)",
      "      Skip killing current connection (default: yes).",
      "LIST [options ...]",
      "    Return information about client connections. Options:",
      "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
      "      Return clients of specified type.",
      "UNPAUSE",
      "    Stop the current client pause, resuming traffic.",
      "PAUSE <timeout> [WRITE|ALL]",
      "    Suspend all, or just write, clients for <timeout> milliseconds.",
      "REPLY (ON|OFF|SKIP)",
      "    Control the replies sent to the current connection.",
      "SETNAME <name>",
      "    Assign the name <name> to the current connection.",
      "UNBLOCK <clientid> [TIMEOUT|ERROR]",
      "    Unblock the specified blocked client.",
      "SETINFO <option> <value>",
      "    Set client meta attr. Options are:",
      "    * LIB-NAME: the client lib name.",
      "    * LIB-VER: the client lib version.",
      "NO-EVICT (ON|OFF)",
      "    Protect current client connection from eviction.",
      "HELP",
      "    Prints this help.",
  };
  cmd.reply.HelpLines(kLines);
}

void Id(CoordCmd& cmd) { cmd.reply.Integer(int64_t(cmd.client.id)); }

void GetName(CoordCmd& cmd) {
  if (cmd.client.name.empty()) return cmd.reply.NullBulk();
  cmd.reply.Bulk(cmd.client.name);
}

void SetName(CoordCmd& cmd) {
  if (!ValidClientField(cmd.args[2])) {
    return cmd.reply.Error(
        "ERR Client names cannot contain spaces, newlines or special characters.");
  }
  cmd.client.name = std::string(cmd.args[2]);
  cmd.reply.Ok();
}

void SetInfo(CoordCmd& cmd) {
  ArgParser p(cmd.args, 2);
  std::optional<bool> lib_name = p.Choice<bool>({{"lib-name", true}, {"lib-ver", false}});
  if (!lib_name) return cmd.reply.Error(StrCat("ERR Unrecognized option '", cmd.args[2], "'"));
  if (!ValidClientField(cmd.args[3])) {
    return cmd.reply.Error(StrCat("ERR ", *lib_name ? "lib-name" : "lib-ver",
                                  " cannot contain spaces, newlines or special characters."));
  }
  (*lib_name ? cmd.client.lib_name : cmd.client.lib_ver) = std::string(cmd.args[3]);
  cmd.reply.Ok();
}

void ListAll(CoordCmd& cmd) { ClientList(cmd, false); }
void ClientInfo(CoordCmd& cmd) { ClientList(cmd, true); }

void Unpause(CoordCmd& cmd) {
  cmd.server.introspect.pause.Unpause();
  // Parked connections on sleeping reactors resume at once, not at the next cron tick.
  if (cmd.server.wake_all) cmd.server.wake_all();
  cmd.reply.Ok();
}

void GetRedir(CoordCmd& cmd) { cmd.reply.Integer(-1); }

void NoEvict(CoordCmd& cmd) {
  ArgParser p(cmd.args, 2);
  const bool on = p.NextOneOf<bool>({{"on", true}, {"off", false}});
  if (!p.ok()) return cmd.reply.Error(p.error());
  cmd.client.no_evict = on;
  cmd.reply.Ok();
}

// ON answers OK; OFF and SKIP answer nothing (their own reply is the first one dropped).
void Reply(CoordCmd& cmd) {
  enum Mode { kOn, kOff, kSkip };
  ArgParser p(cmd.args, 2);
  const Mode mode = p.NextOneOf<Mode>({{"on", kOn}, {"off", kOff}, {"skip", kSkip}});
  if (!p.ok()) return cmd.reply.Error(p.error());
  uint8_t& bits = cmd.client.reply_bits;
  if (mode == kOn) {
    bits &= uint8_t(~(ClientState::kReplyOff | ClientState::kReplySkip));
    return cmd.reply.Ok();
  }
  if (mode == kOff) {
    bits |= ClientState::kReplyOff | ClientState::kReplyWasClient;
  } else if (!(bits & ClientState::kReplyOff)) {
    bits |= ClientState::kReplySkipNext | ClientState::kReplyWasClient;
  }
}

// Every CLIENT subcommand: CLIENT REPLY SKIP lasts across CLIENT commands (Redis's
// resetClient tells them by their handler, clientCommand).
template <CoordHandler kHandler>
void Sub(CoordCmd& cmd) {
  if (cmd.client.reply_bits != 0) cmd.client.reply_bits |= ClientState::kReplyWasClient;
  kHandler(cmd);
}

// MONITOR: from now on this connection also receives every command run anywhere.
void Monitor(CoordCmd& cmd) {
  // EXEC promises one reply per queued command, which a monitor stream would break.
  if (cmd.client.exec_nested) {
    return cmd.reply.Error("ERR MONITOR isn't allowed for DENY BLOCKING client");
  }
  if (cmd.client.monitor) return;  // already monitoring: Redis answers nothing
  ClientHandle* self = cmd.self.clients().Find(cmd.client.id);
  if (self == nullptr) {  // not a network connection (in-process tests): nowhere to stream
    return cmd.reply.Error("ERR MONITOR isn't allowed for DENY BLOCKING client");
  }
  cmd.self.clients().AddMonitor(self, cmd.server.introspect.monitors);
  cmd.client.monitor = true;
  cmd.reply.Ok();
}

}  // namespace

void RegisterClientCommands(CommandTable& t) {
  // Redis 7.0's per-subcommand flags: the ones that act on other clients are admin.
  const uint32_t own = kCmdNoScript | kCmdLoading | kCmdStale;
  const uint32_t admin = own | kCmdAdmin;
  t.StartFamily("@connection")
      .Add({.name = "client",
            .arity = -2,
            .flags = kCmdLoading | kCmdStale,
            .subcommands = {
                {.name = "id", .arity = 2, .flags = own, .on_coord = Sub<Id>},
                {.name = "getname", .arity = 2, .flags = own, .on_coord = Sub<GetName>},
                {.name = "setname", .arity = 3, .flags = own, .on_coord = Sub<SetName>},
                {.name = "setinfo", .arity = 4, .flags = own, .on_coord = Sub<SetInfo>},
                {.name = "list",
                 .arity = -2,
                 .flags = admin | kCmdAllThreads,
                 .on_coord = Sub<ListAll>},
                {.name = "info", .arity = 2, .flags = own, .on_coord = Sub<ClientInfo>},
                {.name = "kill",
                 .arity = -3,
                 .flags = admin | kCmdAllThreads,
                 .on_coord = Sub<Kill>},
                {.name = "pause", .arity = -3, .flags = admin, .on_coord = Sub<Pause>},
                {.name = "unpause", .arity = 2, .flags = admin, .on_coord = Sub<Unpause>},
                {.name = "unblock",
                 .arity = -3,
                 .flags = admin | kCmdAllThreads,
                 .on_coord = Sub<Unblock>},
                {.name = "reply", .arity = 3, .flags = own, .on_coord = Sub<Reply>},
                {.name = "no-evict", .arity = 3, .flags = admin, .on_coord = Sub<NoEvict>},
                {.name = "getredir", .arity = 2, .flags = own, .on_coord = Sub<GetRedir>},
                {.name = "help", .arity = 2, .flags = kHelpFlags, .on_coord = Sub<ClientHelp>},
            }});
  t.StartFamily().Add({.name = "monitor",
                       .arity = 1,
                       .flags = kCmdAdmin | kCmdNoScript | kCmdLoading | kCmdStale,
                       .on_coord = Monitor});
}

}  // namespace rc
