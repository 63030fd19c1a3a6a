// AUTH (shard/auth.h). Runs on the connection's thread.

#include "shard/state/auth.h"

#include <algorithm>
#include <mutex>

#include "shard/command/dispatcher.h"
#include "shard/command/errors.h"
#include "shard/wire/command.h"

namespace rc {

namespace {

// Compares in time that depends only on the lengths, as Redis's time_independent_strcmp,
// so response timing does not reveal how much of a guess was right.
bool SamePassword(std::string_view a, std::string_view b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  const size_t n = std::max(a.size(), b.size());
  for (size_t i = 0; i < n; ++i) {
    unsigned char x = i < a.size() ? static_cast<unsigned char>(a[i]) : 0;
    unsigned char y = i < b.size() ? static_cast<unsigned char>(b[i]) : 0;
    diff |= x ^ y;
  }
  return diff == 0;
}

void Auth(CoordCmd& cmd) {
  const size_t argc = cmd.args.size();
  if (argc > 3) return cmd.reply.Error(err::kSyntax);
  // AUTH <password> means the default user; with no password set Redis refuses it
  // outright, while AUTH default <anything> succeeds (the user has nopass).
  if (argc == 2 && !AuthEnabled(cmd.server)) return cmd.reply.Error(err::kAuthNoPassword);
  std::string_view user = argc == 3 ? cmd.args[1] : std::string_view("default");
  std::string_view why = TryAuthenticate(cmd.server, cmd.client, user, cmd.args.back());
  if (!why.empty()) return cmd.reply.Error(why);
  cmd.reply.Ok();
}

}  // namespace

std::string_view TryAuthenticate(ServerState& server, ClientState& client, std::string_view user,
                                 std::string_view password) {
  // User names are case-sensitive in Redis: "Default" is another (unknown) user.
  if (user != "default") return err::kWrongPass;
  bool ok;
  {
    std::lock_guard<std::mutex> lock(server.config_mu);
    ok = server.config.requirepass.empty() || SamePassword(server.config.requirepass, password);
  }
  if (!ok) return err::kWrongPass;
  client.authenticated = true;
  return {};
}

void RegisterAuthCommands(CommandTable& t) {
  CommandTable::Family f = t.StartFamily("@connection");
  f.Add({.name = "auth",
         .arity = -2,
         .flags = kCmdNoScript | kCmdLoading | kCmdStale | kCmdFast | kCmdNoAuth | kCmdAllowBusy,
         .on_coord = Auth});
}

}  // namespace rc
