#pragma once
// A master's replicas (docs/REPLICATION.md): the journal's one order of records is the
// replication stream; this hub counts its bytes (master_repl_offset) and hands them to
// each replica's connection on that connection's own thread.
//
//   any thread, under the journal's mutex: Feed ─▶ each replica's queue
//   the replica's thread (a task posted once per batch): the queue ─▶ its connection
//
// A replica joins at a snapshot's point (Attach: its stream starts at the offset there)
// and is fed from then on; its queue is held back until the snapshot itself went out
// (Online), so the bytes reach it in order: snapshot, then what followed the point.

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "shard/runtime/aof_journal.h"

namespace rc {

class ShardSet;
struct ServerState;

class ReplicationHub final : public RecordTap {
 public:
  ReplicationHub(ShardSet& shards, const ServerState* server) : shards_(shards), server_(server) {}

  // RecordTap: under the journal's mutex.
  void Feed(std::string_view records) override;
  // Bytes ever fed: master_repl_offset.
  int64_t offset() const { return offset_.load(std::memory_order_relaxed); }

  // Under the journal's mutex (a snapshot's point, AofJournal::AppendToTap's caller
  // holds none: Attach is called from the point, where no command runs): replica
  // `id`, whose connection lives on `thread`, gets the stream from here on. Returns the
  // offset there.
  int64_t Attach(uint64_t id, uint32_t thread, std::string ip, int port);
  // The replica's thread: its snapshot is out; what queued since the point follows.
  void Online(uint64_t id);
  // Its connection closed, or its sync failed.
  void Detach(uint64_t id);
  // This server became a replica itself: its replicas are closed (their data would
  // no longer follow it), as Redis closes them.
  void DisconnectAll();
  // REPLCONF ACK from the replica.
  void Ack(uint64_t id, int64_t offset, int64_t now_ms);
  bool any() const { return count_.load(std::memory_order_relaxed) > 0; }
  // Worker 0's cron: a PING into the stream every repl-ping-replica-period (10 s), so an
  // idle master's replicas know it is there (their repl-timeout).
  void PingIfDue(AofJournal& journal, int64_t now_ms);

  struct View {
    std::string ip;
    int port = 0;
    bool online = false;
    int64_t ack_offset = 0;
    int64_t ack_ms = 0;
  };
  // INFO's slaveN lines and ROLE, in the order they attached.
  std::vector<View> List() const;

 private:
  struct Replica {
    uint32_t thread = 0;
    View view;
    std::string queued;
    bool delivery_posted = false;
  };
  // Under mu_: a task on the replica's thread takes its queue to the connection.
  void PostDelivery(uint64_t id, Replica& r);
  void Deliver(uint64_t id);

  ShardSet& shards_;
  const ServerState* server_;  // null in tests without one: no wake-ups
  mutable std::mutex mu_;
  std::map<uint64_t, Replica> replicas_;  // by client id: attach order
  std::atomic<int64_t> offset_{0};
  std::atomic<int> count_{0};
  int64_t last_ping_ms_ = 0;  // worker 0's
};

}  // namespace rc
