#pragma once
// MIGRATE's exchange with its target, as Redis's migrateCommand does it: [AUTH], [SELECT
// db], then one RESTORE per key with its remaining TTL and DUMP payload, every reply read
// back. It blocks on the network, so it runs only on ServerState::network_io's thread,
// never on a reactor (shard/families/dump/migrate.cc hands it over and takes the result
// back to the client's thread).
//
// Connections are cached per host:port as Redis's migrate_cached_sockets are (closed
// after 10 s unused), so a MIGRATE per key does not pay a connect each; that thread
// alone touches the cache, which is why the pool has one thread.

#include <cstdint>
#include <string>
#include <vector>

namespace rc {

struct MigrateRequest {
  std::string host;
  std::string port;
  int64_t timeout_ms = 1000;
  int64_t db = 0;
  bool auth = false;
  std::string username;  // empty: AUTH password
  std::string password;
  bool replace = false;
  bool asking = false;  // RESTORE-ASKING, as a cluster node sends
  struct Item {
    std::string key;
    int64_t ttl_ms = 0;  // 0: none
    std::string payload;
  };
  std::vector<Item> items;
};

struct MigrateResult {
  // The reply: empty for +OK, else the whole error line without its '-'.
  std::string error;
  // Per item: the target acknowledged its RESTORE (so the key may go here).
  std::vector<bool> acked;
};

// Network thread only. Never throws; every failure is in the result.
MigrateResult RunMigrate(const MigrateRequest& request);

}  // namespace rc
