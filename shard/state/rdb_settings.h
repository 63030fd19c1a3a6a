#pragma once
// The settings RDB reading and writing take from the configuration: the encoding limits
// values are loaded with (hash-max-listpack-*, set-max-intset-entries,
// list-max-listpack-size, zset-max-listpack-*; Redis's loading converts by them) and
// whether strings and blobs are LZF-compressed (rdbcompression). DUMP / RESTORE / MIGRATE
// and the snapshot use them. Any thread: Tunable reads.

#include "core/rdb_value.h"
#include "shard/state/server_state.h"

namespace rc {

inline RdbLimits RdbLimitsOf(const ServerState& server) {
  RdbLimits l;
  l.hash = {size_t(server.config.hash_max_listpack_entries.get()),
            size_t(server.config.hash_max_listpack_value.get())};
  l.set = {size_t(server.config.set_max_intset_entries.get())};
  l.list = {server.config.list_max_listpack_size.get()};
  l.zset = {size_t(server.config.zset_max_listpack_entries.get()),
            size_t(server.config.zset_max_listpack_value.get())};
  return l;
}

inline bool RdbCompression(const ServerState& server) { return server.config.rdbcompression.get(); }

}  // namespace rc
