#pragma once
// requirepass and the default user, as Redis 7 has them without ACL files: one user,
// "default", with no password (anyone is authenticated) or with the one `requirepass`.
//
//   accept ─▶ ClientState::authenticated = !AuthEnabled()   (Reactor::OnAccept)
//   Dispatch: !authenticated && AuthEnabled() && row lacks kCmdNoAuth ─▶ -NOAUTH
//   AUTH [user] pass / HELLO ... AUTH user pass ─▶ TryAuthenticate ─▶ authenticated = true
//
// A client that was authenticated stays so when CONFIG SET requirepass changes the
// password (Redis does the same); RESET makes it a new connection again.

#include <string_view>

#include "shard/state/server_state.h"
#include "shard/wire/client_state.h"

namespace rc {

// Any thread: a password is configured.
inline bool AuthEnabled(const ServerState& server) { return server.config.auth_required; }

// Connection's thread: the client may run only kCmdNoAuth commands (and gets the RESP
// parser's unauthenticated limits).
inline bool AuthRequired(const ServerState& server, const ClientState& client) {
  return !client.authenticated && AuthEnabled(server);
}

// Connection's thread. Checks `user`/`password` against the default user and on success
// marks the client authenticated. On failure returns Redis's error (WRONGPASS) and leaves
// the client as it was: a failed AUTH does not log an authenticated client out.
// For HELLO's AUTH option too: `HELLO 3 AUTH user pass` calls this before answering.
std::string_view TryAuthenticate(ServerState& server, ClientState& client, std::string_view user,
                                 std::string_view password);

}  // namespace rc
