#pragma once
// A replica's link to its master (docs/REPLICATION.md), in Redis 7.0's protocol, so the
// master may be redis-server or ringcache:
//
//   link thread: connect ─▶ PING, AUTH, REPLCONF listening-port / capa, PSYNC
//     +FULLRESYNC: the snapshot to a temp file ($len, or diskless $EOF:<mark>) ─▶
//       worker 0 loads it (ReloadRdbFile: every shard held, flushed, loaded) ─▶ stream
//     +CONTINUE: the stream goes on from the offset this server applied
//   stream: bytes from the socket ─▶ worker 0's applier, which runs each command through
//     the dispatcher as a client's (multi-shard commands and MULTI/EXEC keep their
//     atomicity), counts the offset, and asks the link to answer REPLCONF GETACK
//   link thread: REPLCONF ACK <offset> each second and when asked; a lost link retries
//     each second with PSYNC <replid> <offset + 1>.
//
// One link thread for the server's life; REPLICAOF only changes its target.

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace rc {

class Dispatcher;
class ShardSet;
struct ServerState;
class StreamApplier;
class MasterSocket;

class ReplicaLink {
 public:
  ReplicaLink(ShardSet& shards, ServerState& server, const Dispatcher& dispatcher);
  // Stops the thread; the workers must be gone already (nothing waits on them then).
  ~ReplicaLink();
  ReplicaLink(const ReplicaLink&) = delete;
  ReplicaLink& operator=(const ReplicaLink&) = delete;

  // Any thread (REPLICAOF host port): follow this master from now on; a link to another
  // one ends first. Returns false when it already follows exactly this one.
  bool Follow(const std::string& host, int port);
  // Any thread (REPLICAOF NO ONE): the link ends; the data stays.
  void Unfollow();
  // The server is stopping: sessions end and no new one starts.
  void Stop();

 private:
  struct Target {
    uint64_t generation = 0;
    std::string host;
    int port = 0;
  };
  void Run();
  // One connection's life, from connect to its loss or a new target.
  void Session(const Target& target);
  // After +FULLRESYNC: the snapshot to a file, then worker 0 loads it. False when the
  // link broke or the file did not load.
  bool FullSync(MasterSocket& sock, const std::function<bool()>& alive,
                const std::function<bool()>& stopping);
  // The command stream to the applier, and the ACKs back, until the link ends.
  void Stream(MasterSocket& sock, const std::function<bool()>& alive);
  bool Current(uint64_t generation) const;

  ShardSet& shards_;
  ServerState& server_;
  std::unique_ptr<StreamApplier> applier_;  // worker 0's side; lives as long as this
  mutable std::mutex mu_;
  std::condition_variable changed_;
  Target target_;  // guarded by mu_; port 0: follow nobody
  bool stopping_ = false;
  int wake_fd_ = -1;  // an eventfd: the applier asks for an ACK, a target changes
  std::thread thread_;
};

}  // namespace rc
