// The cross-shard hop machinery alone, in ns per command: a connection on thread 0
// dispatches pipelines of GETs whose keys live on shard 1. One benchmark thread plays both
// worker threads (flush 0's outbox, run 1's inbox, flush 1's, run 0's), so the figure is
// the CPU the hop itself costs, without wake-ups or cross-core cache traffic. Baseline:
// the same GETs on keys of shard 0, which run inline.
//
//   build/bench/hop_bench

#include <cstdint>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "shard/command/dispatcher.h"
#include "shard/families/families.h"
#include "shard/runtime/shard_set.h"
#include "shard/state/server_state.h"
#include "shard/wire/client_state.h"
#include "shard/wire/reply_sink.h"
#include "timers/clock.h"

namespace rc {
namespace {

class CountingSink final : public ReplySink {
 public:
  uint64_t Defer() override { return next_++; }
  void Fulfill(uint64_t, std::string resp) override { bytes += resp.size(); }
  void FulfillFrom(uint64_t, std::string_view resp) override { bytes += resp.size(); }
  void Resume() override {}
  void Push(std::string) override {}
  size_t bytes = 0;

 private:
  uint64_t next_ = 0;
};

class NoWaker final : public Waker {
 public:
  void Wake(uint32_t) override {}
};

class TwoShards {
 public:
  TwoShards()
      : table_(BuildCommandTable()), shards_(2, &server_), dispatcher_(table_, shards_, server_) {
    server_.clock = &clock_;
    server_.commands = &table_;
    // 1000 keys on each shard, each holding a 32-byte value.
    for (int i = 0; keys_[0].size() < 1000 || keys_[1].size() < 1000; ++i) {
      std::string key = "key:" + std::to_string(i);
      uint32_t owner = shards_.ShardOf(key);
      if (keys_[owner].size() >= 1000) continue;
      shards_.thread(owner).shard().SetString(key, std::string(32, 'v'));
      keys_[owner].push_back(key);
    }
  }

  // A pipeline of `n` GETs on shard `target`'s keys from a connection on thread 0, until
  // every reply is back.
  void Pipeline(uint32_t target, size_t n) {
    std::string out;
    ReplyBuilder rb(&out, false);
    for (size_t i = 0; i < n; ++i) {
      const std::string& key = keys_[target][next_++ % keys_[target].size()];
      std::string_view args[] = {"GET", key};
      const ArgList list(args, 2);
      dispatcher_.Dispatch(shards_.thread(0), client_, sink_, rb, list,
                           dispatcher_.Admit(client_, list, true).command);
    }
    shards_.FlushOutbox(0, waker_);
    shards_.thread(1).RunInbox();
    shards_.FlushOutbox(1, waker_);
    shards_.thread(0).RunInbox();
    benchmark::DoNotOptimize(out);
  }

  size_t reply_bytes() const { return sink_.bytes; }

 private:
  ManualClock clock_;
  ServerState server_;
  CommandTable table_;
  ShardSet shards_;
  Dispatcher dispatcher_;
  ClientState client_;
  CountingSink sink_;
  NoWaker waker_;
  std::vector<std::string> keys_[2];
  size_t next_ = 0;
};

void BM_Get(benchmark::State& state, uint32_t target) {
  TwoShards s;
  const size_t pipeline = size_t(state.range(0));
  for (auto _ : state) s.Pipeline(target, pipeline);
  state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(pipeline));
}

void BM_LocalGet(benchmark::State& state) { BM_Get(state, 0); }
void BM_HopGet(benchmark::State& state) { BM_Get(state, 1); }

BENCHMARK(BM_LocalGet)->Arg(1)->Arg(16);
BENCHMARK(BM_HopGet)->Arg(1)->Arg(16);

}  // namespace
}  // namespace rc
