#pragma once
// Per-command counters behind INFO commandstats / errorstats / latencystats and LATENCY
// HISTOGRAM. Each worker thread owns one CommandStats and counts the commands that
// execute on it (a GET whose key lives on another shard is counted on the owner's
// thread, where it ran), without atomics; INFO merges every thread's copy by fan-out.
//
// A command's slot is its CommandSpec::stat_id (subcommands have their own:
// "config|get"), so counting is an array index, no hashing.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace rc {

// Log-linear latency histogram in nanoseconds: exact below 16 ns, then 16 buckets per
// power of two (≤ 6.25 % relative error), up to 2^40 ns (18 minutes); 4.9 KB.
class LatencyHistogram {
 public:
  static constexpr int kSubBits = 4;
  static constexpr int kSub = 1 << kSubBits;
  static constexpr int kMaxPow = 40;
  static constexpr int kBuckets = (kMaxPow - kSubBits + 1) * kSub;

  void Record(uint64_t ns) {
    ++counts_[Index(ns)];
    ++total_;
  }
  void Merge(const LatencyHistogram& o);
  uint64_t total() const { return total_; }
  // The smallest recorded-bucket upper bound at or above the p-th percentile (0..100), in ns.
  uint64_t Percentile(double p) const;
  // Calls at or below each power-of-two microsecond bound, for LATENCY HISTOGRAM:
  // (bound_us, cumulative count) from the first bucket with a call to the last.
  std::vector<std::pair<uint64_t, uint64_t>> PowerOfTwoBuckets() const;

  static int Index(uint64_t ns) {
    if (ns < kSub) return int(ns);
    int msb = 63 - __builtin_clzll(ns);
    if (msb > kMaxPow) return kBuckets - 1;
    return (msb - kSubBits + 1) * kSub + int((ns >> (msb - kSubBits)) & (kSub - 1));
  }
  // The largest value that lands in bucket i.
  static uint64_t UpperBound(int i);

 private:
  uint64_t counts_[kBuckets] = {};
  uint64_t total_ = 0;
};

struct CommandStat {
  uint64_t calls = 0;
  uint64_t nanos = 0;
  uint64_t rejected = 0;  // refused before running (arity, unknown subcommand, context)
  uint64_t failed = 0;    // ran and replied an error
  // Allocated on a command's first call: most of the table is never used.
  std::unique_ptr<LatencyHistogram> hist;

  CommandStat() = default;
  CommandStat(const CommandStat& o) { *this = o; }
  CommandStat& operator=(const CommandStat& o);
};

class CommandStats {
 public:
  // Owner thread. `id` is a CommandSpec stat id; the vector grows on first use.
  // `track_latency`: the latency-tracking setting (a histogram per command).
  void Called(uint32_t id, uint64_t ns, bool failed, bool track_latency) {
    CommandStat& s = At(id);
    ++s.calls;
    s.nanos += ns;
    if (failed) ++s.failed;
    if (track_latency) {
      if (!s.hist) s.hist = std::make_unique<LatencyHistogram>();
      s.hist->Record(ns);
    }
  }
  void Rejected(uint32_t id) { ++At(id).rejected; }
  // Every error reply (rejections included), keyed by its first word: "ERR", "WRONGTYPE".
  void ErrorReply(std::string_view resp_error_line);

  // INFO's side: merge another thread's copy into this one.
  void Merge(const CommandStats& o);
  void Reset() { *this = CommandStats(); }

  const std::vector<CommandStat>& commands() const { return commands_; }
  const std::map<std::string, uint64_t>& errors() const { return errors_; }
  uint64_t total_error_replies() const { return total_errors_; }

 private:
  CommandStat& At(uint32_t id) {
    if (id >= commands_.size()) commands_.resize(id + 1);
    return commands_[id];
  }

  std::vector<CommandStat> commands_;
  std::map<std::string, uint64_t> errors_;
  uint64_t total_errors_ = 0;
};

// Counts one executed command whose reply bytes are out[from...]: a call, its time, and
// a failure (with its error code) when the reply is an error. Owner thread.
void CountCommand(CommandStats& stats, uint32_t stat_id, uint64_t ns, const std::string& out,
                  size_t from, bool track_latency);

}  // namespace rc
