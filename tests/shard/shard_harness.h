#pragma once
// Tier-2 test fixture: real shards on real threads, in process, without sockets. Each
// worker thread runs the same loop the reactor does (run posted tasks, flush posts to
// other threads, sleep until woken) with a condition variable in place of the ring, and
// the clock is a ManualClock, so tests drive time instead of sleeping.
//
//   ShardHarness h(3);
//   EXPECT_EQ(h.Run({"SET", "k", "v"}), "+OK\r\n");

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "shard/command/dispatcher.h"
#include "shard/families/families.h"
#include "shard/runtime/shard_set.h"
#include "shard/scripting/script_registry.h"
#include "shard/state/server_state.h"
#include "shard/wire/client_state.h"
#include "shard/wire/command.h"
#include "shard/wire/reply_sink.h"
#include "timers/clock.h"

namespace rc::testing {

// A RESP2 bulk string reply, as the expected side of a comparison.
inline std::string Bulk(std::string_view s) {
  return "$" + std::to_string(s.size()) + "\r\n" + std::string(s) + "\r\n";
}

// Collects replies in request order the way a connection does. Used on its home thread.
class RecordingSink final : public ReplySink {
 public:
  uint64_t Defer() override {
    slots_.push_back({});
    return first_ + slots_.size() - 1;
  }
  void Fulfill(uint64_t slot, std::string resp) override {
    auto& s = slots_[slot - first_];
    s.data = std::move(resp);
    s.ready = true;
    while (!slots_.empty() && slots_.front().ready) {
      out += slots_.front().data;
      slots_.pop_front();
      ++first_;
    }
  }
  void Resume() override {
    if (!held_) return;
    held_ = false;
    if (on_release) std::exchange(on_release, nullptr)();
  }
  void Hold() { held_ = true; }
  // Pub/sub messages land here (and in `out` after any reply already owed).
  void Push(std::string resp) override {
    {
      std::lock_guard<std::mutex> lock(pushed_mu);
      pushed.push_back(resp);
    }
    if (slots_.empty()) {
      out += resp;
    } else {
      slots_.push_back({std::move(resp), true});
    }
  }
  std::vector<std::string> Pushed() {
    std::lock_guard<std::mutex> lock(pushed_mu);
    return pushed;
  }
  std::mutex pushed_mu;
  std::vector<std::string> pushed;
  bool Idle() const { return slots_.empty(); }
  bool held() const { return held_; }

  std::string out;
  // Runs when a hold is released: the rest of the pipeline.
  std::function<void()> on_release;

 private:
  struct Slot {
    std::string data;
    bool ready = false;
  };
  std::deque<Slot> slots_;
  uint64_t first_ = 0;
  bool held_ = false;
};

class ShardHarness final : public Waker {
 public:
  explicit ShardHarness(size_t threads)
      : table_(BuildCommandTable()),
        shards_(threads, &server_),
        dispatcher_(table_, shards_, server_),
        scripts_(shards_, server_, table_),
        wake_(threads) {
    server_.clock = &clock_;
    server_.commands = &table_;
    server_.scripts = &scripts_;
    for (size_t i = 0; i < threads; ++i) {
      wake_[i] = std::make_unique<WakeState>();
      threads_.emplace_back([this, i] { Loop(uint32_t(i)); });
    }
  }
  ~ShardHarness() override {
    stop_.store(true);
    for (size_t i = 0; i < threads_.size(); ++i) Wake(uint32_t(i));
    for (auto& t : threads_) t.join();
  }

  // A connection that lives across several Run calls (a pub/sub subscriber, say).
  struct Client {
    uint32_t home = 0;
    std::shared_ptr<RecordingSink> sink = std::make_shared<RecordingSink>();
    std::shared_ptr<ClientState> state = std::make_shared<ClientState>();
  };
  Client Connect(uint32_t home) {
    Client c;
    c.home = home;
    return c;
  }

  // Dispatches one command as a connection on thread `home` would, and waits for its
  // complete reply (RESP bytes).
  std::string Run(std::vector<std::string> args, uint32_t home = 0) {
    return RunPipeline({std::move(args)}, home);
  }
  std::string Run(Client& c, std::vector<std::string> args) {
    return RunPipeline({std::move(args)}, c);
  }

  // Several commands from one connection, back to back, replies concatenated in order.
  std::string RunPipeline(std::vector<std::vector<std::string>> cmds, uint32_t home = 0) {
    Client c = Connect(home);
    return RunPipeline(std::move(cmds), c);
  }
  std::string RunPipeline(std::vector<std::vector<std::string>> cmds, Client& c) {
    auto done = std::make_shared<std::promise<std::string>>();
    auto result = done->get_future();
    auto sink = c.sink;
    auto client = c.state;
    uint32_t home = c.home;
    auto pipeline = std::make_shared<Pipeline>(Pipeline{std::move(cmds), home, sink, client, done});
    Inject(home, [this, pipeline] { Continue(pipeline, 0); });
    return result.get();
  }

  // Starts `cmds` as connection `c` and returns at once: the replies come through the
  // future, once all are in (a blocking command's when it is served or times out).
  std::future<std::string> Start(Client& c, std::vector<std::vector<std::string>> cmds) {
    auto done = std::make_shared<std::promise<std::string>>();
    auto result = done->get_future();
    auto pipeline =
        std::make_shared<Pipeline>(Pipeline{std::move(cmds), c.home, c.sink, c.state, done});
    Inject(c.home, [this, pipeline] { Continue(pipeline, 0); });
    return result;
  }
  // Runs `fn(thread)` on worker thread `i` and returns what it returns.
  template <typename Fn>
  auto OnThread(uint32_t i, Fn fn) {
    using R = decltype(fn(shards_.thread(i)));
    auto done = std::make_shared<std::promise<R>>();
    auto result = done->get_future();
    Inject(i, [this, i, fn, done]() mutable { done->set_value(fn(shards_.thread(i))); });
    return result.get();
  }
  // Fires blocked clients' timeouts on every thread, as each reactor does per loop turn.
  void FireBlockedTimeouts() {
    for (uint32_t i = 0; i < shards_.size(); ++i) {
      OnThread(i, [this](ShardThread& t) {
        t.blocked().FireDue(clock_.NowUnixMillis());
        return true;
      });
    }
  }

  ManualClock& clock() { return clock_; }
  void AdvanceMillis(int64_t ms) { clock_.AdvanceMillis(ms); }

  // Runs active expiry on every shard, as each reactor does once per loop turn, and
  // returns how many keys expired. Checks each shard's TTL bookkeeping afterwards.
  size_t ExpireDueEverywhere(size_t max_keys_per_shard = SIZE_MAX) {
    size_t total = 0;
    for (uint32_t i = 0; i < shards_.size(); ++i) {
      std::promise<size_t> done;
      auto result = done.get_future();
      Inject(i, [this, i, max_keys_per_shard, &done] {
        Shard& s = shards_.thread(i).shard();
        size_t n = s.ExpireDue(s.NowMs(), max_keys_per_shard);
        s.VerifyTtl();
        done.set_value(n);
      });
      total += result.get();
    }
    return total;
  }
  ServerState& server() { return server_; }
  ShardSet& shards() { return shards_; }

  // Wakes thread `dest`. Called on worker threads by their outboxes, and by the test.
  void Wake(uint32_t dest) override {
    WakeState& w = *wake_[dest];
    std::lock_guard<std::mutex> lock(w.mu);
    w.woken = true;
    w.cv.notify_one();
  }

 private:
  struct WakeState {
    std::mutex mu;
    std::condition_variable cv;
    bool woken = false;
  };

  // Runs `task` on thread `dest`, from the test thread.
  void Inject(uint32_t dest, Task task) {
    std::vector<Message> batch;
    batch.emplace_back(std::move(task));
    shards_.thread(dest).inbox().PushBatch(&batch);
    Wake(dest);
  }

  struct Pipeline {
    std::vector<std::vector<std::string>> cmds;
    uint32_t home;
    std::shared_ptr<RecordingSink> sink;
    std::shared_ptr<ClientState> client;
    std::shared_ptr<std::promise<std::string>> done;
  };

  // Home thread: runs commands from `next` on, stopping while a command holds the
  // connection, as net::Connection does: an earlier command still taking its locks, or a
  // blocking command that waits (nothing behind it runs until it is answered; its
  // BlockedCall::Finish resumes). Any resume re-checks both, as Connection::Resume does.
  void Continue(std::shared_ptr<Pipeline> p, size_t next) {
    for (size_t i = next; i < p->cmds.size(); ++i) {
      std::vector<std::string_view> views(p->cmds[i].begin(), p->cmds[i].end());
      const Dispatcher::Admission admitted = dispatcher_.Admit(*p->client, views, false);
      if (p->client->blocked != nullptr || admitted.hold == Dispatcher::Hold::kForLocks) {
        p->sink->Hold();
        p->sink->on_release = [this, p, i] { Continue(p, i); };
        return;
      }
      std::string inline_out;
      ReplyBuilder rb(&inline_out);
      // Inline replies go behind any pending slot, exactly as a connection orders them.
      uint64_t slot = p->sink->Defer();
      dispatcher_.Dispatch(shards_.thread(p->home), *p->client, *p->sink, rb, views,
                           admitted.command);
      p->sink->Fulfill(slot, std::move(inline_out));
    }
    WatchUntilIdle(p->home, p->sink, p->done);
  }

  // Re-checks on the home thread until every deferred reply has arrived.
  void WatchUntilIdle(uint32_t home, std::shared_ptr<RecordingSink> sink,
                      std::shared_ptr<std::promise<std::string>> done) {
    if (sink->Idle()) {
      done->set_value(std::exchange(sink->out, std::string()));
      return;
    }
    shards_.thread(home).Post(home, [this, home, sink, done] { WatchUntilIdle(home, sink, done); });
  }

  void Loop(uint32_t id) {
    ShardThread& self = shards_.thread(id);
    self.shard().thread_check().Bind();
    while (!stop_.load()) {
      self.RunInbox();
      self.events().Flush(self, shards_);
      shards_.FlushOutbox(id, *this);
      if (!self.inbox().PrepareToSleep()) continue;
      WakeState& w = *wake_[id];
      std::unique_lock<std::mutex> lock(w.mu);
      w.cv.wait(lock, [&] { return w.woken || stop_.load(); });
      w.woken = false;
      lock.unlock();
      self.inbox().Awake();
    }
  }

  ManualClock clock_;
  ServerState server_;
  CommandTable table_;
  ShardSet shards_;
  Dispatcher dispatcher_;
  ScriptRegistry scripts_;  // the threads' Lua engines, destroyed after the threads stop
  std::vector<std::unique_ptr<WakeState>> wake_;
  std::vector<std::thread> threads_;
  std::atomic<bool> stop_{false};
};

}  // namespace rc::testing
