#include "shard/persist/stream_applier.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <memory>
#include <utility>

#include "core/aof_reader.h"
#include "core/log.h"
#include "core/reply_builder.h"
#include "core/strings.h"
#include "shard/command/dispatcher.h"
#include "shard/persist/rdb_load.h"
#include "shard/runtime/shard_set.h"
#include "shard/state/server_state.h"

namespace rc {

namespace {

// Commands one task runs before worker 0's loop turns (its own clients and the other
// workers' answers come through that turn).
constexpr int kAppliedPerTurn = 256;
// Commands in flight at most, as a pipelining client has.
constexpr size_t kApplyingAtMost = 4096;
// Errors the master's commands got here are logged up to this many per sync.
constexpr int64_t kMasterErrorsLogged = 10;

}  // namespace

StreamApplier::StreamApplier(ShardSet& shards, ServerState& server, const Dispatcher& dispatcher,
                             int wake_fd)
    : shards_(shards), server_(server), dispatcher_(dispatcher), wake_fd_(wake_fd) {
  client_.authenticated = true;
  client_.is_master = true;
  client_.name = "master";
}

size_t StreamApplier::Feed(std::string_view bytes) {
  bool post = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    inbox_.append(bytes);
    post = !step_posted_;
    step_posted_ = true;
  }
  const size_t queued = queued_.fetch_add(bytes.size()) + bytes.size();
  if (post) PostStep();
  return queued;
}

size_t StreamApplier::Queued() const { return queued_.load(); }

void StreamApplier::PostStep() {
  std::vector<Message> batch;
  batch.emplace_back([this] { Step(); });
  if (shards_.thread(0).inbox().PushBatch(&batch) && server_.wake_all) server_.wake_all();
}

std::future<SnapshotLoad> StreamApplier::Load(std::string path) {
  auto promise = std::make_shared<std::promise<SnapshotLoad>>();
  std::future<SnapshotLoad> done = promise->get_future();
  std::vector<Message> batch;
  batch.emplace_back([this, promise, path = std::move(path)]() mutable {
    {
      std::lock_guard<std::mutex> lock(mu_);
      inbox_.clear();
    }
    buf_.clear();
    pos_ = 0;
    queued_.store(0);
    client_.multi.reset();
    errors_ = 0;
    ReloadRdbFile(shards_.thread(0), shards_, server_, client_, *this, std::move(path),
                  ReloadOptions{.flush = true, .merge = false}, nullptr,
                  [promise](bool ok, const LoadStats& stats, const std::string& error) {
                    promise->set_value(SnapshotLoad{ok, stats.keys, error});
                  });
  });
  if (shards_.thread(0).inbox().PushBatch(&batch) && server_.wake_all) server_.wake_all();
  return done;
}

std::future<void> StreamApplier::Drop(bool full) {
  auto promise = std::make_shared<std::promise<void>>();
  std::future<void> done = promise->get_future();
  std::vector<Message> batch;
  batch.emplace_back([this, promise, full] {
    {
      std::lock_guard<std::mutex> lock(mu_);
      inbox_.clear();
    }
    buf_.clear();
    pos_ = 0;
    queued_.store(0);
    if (full) client_.multi.reset();
    broken_.store(false);
    promise->set_value();
  });
  if (shards_.thread(0).inbox().PushBatch(&batch) && server_.wake_all) server_.wake_all();
  return done;
}

void StreamApplier::Step() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    buf_.append(inbox_);
    inbox_.clear();
    step_posted_ = false;
  }
  if (waiting_ || broken_.load()) return;
  ShardThread& self = shards_.thread(0);
  ReplicationState& repl = server_.replication;
  for (int n = 0; n < kAppliedPerTurn; ++n) {
    AofCommandReader reader(std::string_view(buf_).substr(pos_));
    const AofCommandReader::Result result = reader.Next(&argv_);
    if (result == AofCommandReader::Result::kCorrupt) {
      Log(LogLevel::kWarning, "Protocol error in the master's stream at offset ",
          repl.offset.load(), ": the link to the master is closed");
      broken_.store(true);
      const uint64_t one = 1;
      (void)::write(wake_fd_, &one, sizeof(one));
      return;
    }
    if (result != AofCommandReader::Result::kCommand) {
      // The rest is a command still arriving.
      buf_.erase(0, pos_);
      pos_ = 0;
      return;
    }
    const size_t bytes = reader.valid_end();
    if (argv_.size() == 2 && EqualsIgnoreCase(argv_[0], "select") && argv_[1] != "0") {
      // Writes to another database would land in the only one here: the link ends
      // before any does, and stays down while the master uses it (its snapshot is then
      // refused too).
      Log(LogLevel::kWarning, "The master selected database ", argv_[1],
          ": ringcache has database 0 only; the link to the master is closed");
      broken_.store(true);
      const uint64_t one = 1;
      (void)::write(wake_fd_, &one, sizeof(one));
      return;
    }
    if (!argv_.empty() && EqualsIgnoreCase(argv_[0], "replconf")) {
      // Only the link answers the master (REPLCONF ACK), never a reply of the applier.
      if (argv_.size() >= 2 && EqualsIgnoreCase(argv_[1], "getack")) {
        ack_requested_.store(true);
        const uint64_t one = 1;
        (void)::write(wake_fd_, &one, sizeof(one));
      }
    } else if (!argv_.empty()) {
      const ArgList args(argv_.data(), argv_.size());
      const Dispatcher::Admission admitted = dispatcher_.Admit(client_, args, outstanding_ > 0);
      // A pause (CLIENT PAUSE) holds clients, never the master, as in Redis.
      if (outstanding_ > 0 && (outstanding_ >= kApplyingAtMost ||
                               admitted.hold == Dispatcher::Hold::kForLocks ||
                               admitted.hold == Dispatcher::Hold::kForEarlier)) {
        waiting_ = true;
        return;
      }
      out_.clear();
      ReplyBuilder rb(&out_);
      dispatcher_.Dispatch(self, client_, *this, rb, args, admitted.command);
      Note(out_);
    }
    pos_ += bytes;
    queued_.fetch_sub(bytes);
    repl.offset.fetch_add(int64_t(bytes));
  }
  PostStep();
}

uint64_t StreamApplier::Defer() {
  ++outstanding_;
  return next_slot_++;
}

void StreamApplier::Fulfill(uint64_t, std::string resp) {
  --outstanding_;
  Note(resp);
  if (outstanding_ > 0 || !waiting_) return;
  waiting_ = false;
  PostStep();
}

void StreamApplier::Note(std::string_view reply) {
  if (reply.empty() || reply[0] != '-') return;
  if (++errors_ > kMasterErrorsLogged) return;
  while (!reply.empty() && (reply.back() == '\n' || reply.back() == '\r')) reply.remove_suffix(1);
  Log(LogLevel::kWarning, "A command from the master got an error here: ", reply.substr(1));
}

}  // namespace rc
