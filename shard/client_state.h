#pragma once
// Per-connection state that commands read and change (CLIENT, SELECT, QUIT). Lives in
// the connection, on its thread.

#include <cstdint>
#include <set>
#include <string>

#include "absl/container/flat_hash_map.h"

namespace rc {

struct ClientState {
  uint64_t id = 0;
  std::string name;
  std::string lib_name;
  std::string lib_ver;
  std::string addr;
  std::string laddr;
  int fd = -1;
  int64_t created_ms = 0;
  // Set by QUIT: close once the reply has been written.
  bool close_after_reply = false;

  // Keys of this connection's multi-shard commands that are still taking their locks.
  // A later command of the same connection that names one of them must not run before
  // the locks are in (it could overtake the earlier command on some shard); see
  // Dispatcher::MustWait.
  absl::flat_hash_map<std::string, int> locking_keys;
  int locking_whole = 0;  // whole-shard commands (FLUSHALL, KEYS, DBSIZE) still locking
  bool Locking() const { return locking_whole > 0 || !locking_keys.empty(); }

  // Pub/sub: while a RESP2 client has any subscription it may only (un)subscribe, PING,
  // QUIT and RESET.
  std::set<std::string> channels;
  std::set<std::string> patterns;
  size_t Subscriptions() const { return channels.size() + patterns.size(); }
};

}  // namespace rc
