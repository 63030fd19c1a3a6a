#pragma once
// A replica's side of the master's command stream (replica_link.h): the link thread
// feeds bytes in, worker 0 runs the commands through the dispatcher, pipelined as a
// client's are, and counts the replication offset as it goes.

#include <atomic>
#include <cstdint>
#include <future>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "shard/wire/client_state.h"
#include "shard/wire/reply_sink.h"

namespace rc {

class Dispatcher;
class ShardSet;
struct ServerState;

struct SnapshotLoad {
  bool ok = false;
  int64_t keys = 0;
  std::string error;
};

class StreamApplier final : public ReplySink {
 public:
  // `wake_fd`: an eventfd the link thread polls; written when the master asked for an ACK.
  StreamApplier(ShardSet& shards, ServerState& server, const Dispatcher& dispatcher, int wake_fd);

  // ---- The link thread.
  // Queues stream bytes for worker 0; returns how many are queued and not applied yet.
  size_t Feed(std::string_view bytes);
  size_t Queued() const;
  // Worker 0 replaces the keyspace with the snapshot at `path` (a full sync): any
  // transaction the old stream left open is dropped, and so is what was queued.
  std::future<SnapshotLoad> Load(std::string path);
  // The link is lost: what was queued and not applied is dropped, so the offset is
  // exactly what ran (a partial resync asks for what follows it). `full`: the next
  // sync is a full one, which drops an open transaction too.
  std::future<void> Drop(bool full);
  // Whether the master asked for an ACK since the last call.
  bool TakeAckRequest() { return ack_requested_.exchange(false); }
  // Whether the stream held something the applier could not parse: the link must end.
  bool Broken() const { return broken_.load(); }

  // ---- ReplySink, worker 0: the master reads no replies; errors are counted.
  uint64_t Defer() override;
  void Fulfill(uint64_t slot, std::string resp) override;
  void Resume() override {}
  void Push(std::string) override {}

 private:
  // Worker 0.
  void Step();
  void PostStep();
  void Note(std::string_view reply);

  ShardSet& shards_;
  ServerState& server_;
  const Dispatcher& dispatcher_;
  const int wake_fd_;

  mutable std::mutex mu_;
  std::string inbox_;          // guarded by mu_: fed and not yet taken by worker 0
  bool step_posted_ = false;   // guarded by mu_
  std::atomic<size_t> queued_{0};  // inbox_ plus buf_'s unapplied bytes
  std::atomic<bool> ack_requested_{false};
  std::atomic<bool> broken_{false};

  // Worker 0 only.
  ClientState client_;
  std::string buf_;  // taken from inbox_; commands from pos_ on not run yet
  size_t pos_ = 0;
  std::vector<std::string_view> argv_;
  std::string out_;
  uint64_t next_slot_ = 0;
  size_t outstanding_ = 0;
  bool waiting_ = false;  // for outstanding replies before the next command may go
  int64_t errors_ = 0;
};

}  // namespace rc
