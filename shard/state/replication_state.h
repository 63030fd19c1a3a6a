#pragma once
// What REPLICAOF, ROLE, INFO replication and the dispatcher's READONLY check read about
// this server's place in replication (docs/REPLICATION.md). The master link's thread
// (shard/persist/replica_link.h) writes the link's progress; REPLICAOF writes the rest.

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>

namespace rc {

class ReplicaLink;

// 40 random hex digits: a run id, or a new replication history's id (Redis's form).
std::string RandomReplicationId();

// The link's states as ROLE names them (Redis's repl_state): connect, connecting,
// handshake, sync (the snapshot is coming or loading), connected.
enum class LinkState : int { kNone, kConnect, kConnecting, kHandshake, kSync, kConnected };

struct ReplicationState {
  // REPLICAOF host port is in effect: this server is a replica. Any thread reads it.
  std::atomic<bool> replica{false};
  std::atomic<LinkState> link{LinkState::kNone};

  // Guarded by mu: where the master is, and the replication history's ids. A replica
  // takes its master's id at a full sync; REPLICAOF NO ONE starts a new one and keeps the
  // old as replid2, as Redis does.
  mutable std::mutex mu;
  std::string master_host;
  int master_port = 0;
  std::string replid;
  std::string replid2 = std::string(40, '0');
  int64_t second_offset = -1;  // replid2's end (+1), INFO's second_repl_offset

  // The master's stream: the offset of the last command this server applied (INFO's
  // master_repl_offset and slave_repl_offset, REPLCONF ACK), and of the last byte read.
  std::atomic<int64_t> offset{0};
  std::atomic<int64_t> read_offset{0};
  // Unix milliseconds of the link's last byte from the master; of the link going down.
  std::atomic<int64_t> last_io_ms{0};
  std::atomic<int64_t> down_since_ms{0};
  // The snapshot being received: its size (-1 when sent without one, diskless) and
  // what has come; sync_start_ms is when it began.
  std::atomic<int64_t> sync_total{0};
  std::atomic<int64_t> sync_read{0};
  std::atomic<int64_t> sync_start_ms{0};
  std::atomic<int64_t> full_syncs{0};
  std::atomic<int64_t> partial_syncs{0};

  // The master link's thread owner (net/server.cc): null in tests without one, where
  // REPLICAOF host port answers an error.
  ReplicaLink* link_thread = nullptr;
};

}  // namespace rc
