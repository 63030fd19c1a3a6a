#include "shard/wire/command_stats.h"

#include <algorithm>
#include <cmath>

namespace rc {

uint64_t LatencyHistogram::UpperBound(int i) {
  if (i < kSub) return uint64_t(i);
  int msb = i / kSub + kSubBits - 1;
  uint64_t sub = uint64_t(i % kSub);
  uint64_t lo = (uint64_t(kSub) | sub) << (msb - kSubBits);
  return lo + (uint64_t(1) << (msb - kSubBits)) - 1;
}

void LatencyHistogram::Merge(const LatencyHistogram& o) {
  for (int i = 0; i < kBuckets; ++i) counts_[i] += o.counts_[i];
  total_ += o.total_;
}

uint64_t LatencyHistogram::Percentile(double p) const {
  if (total_ == 0) return 0;
  // As HdrHistogram: the value at or below which p% of the calls fall.
  uint64_t want = uint64_t(std::ceil(double(total_) * p / 100.0));
  if (want == 0) want = 1;
  uint64_t seen = 0;
  for (int i = 0; i < kBuckets; ++i) {
    seen += counts_[i];
    if (seen >= want) return UpperBound(i);
  }
  return UpperBound(kBuckets - 1);
}

std::vector<std::pair<uint64_t, uint64_t>> LatencyHistogram::PowerOfTwoBuckets() const {
  // Redis reports cumulative counts at 1, 2, 4, ... µs, from the first power of two that
  // holds a call to the first that holds them all.
  std::vector<std::pair<uint64_t, uint64_t>> out;
  if (total_ == 0) return out;
  uint64_t seen = 0;
  int i = 0;
  for (uint64_t bound_us = 1;; bound_us *= 2) {
    uint64_t bound_ns = bound_us * 1000;
    while (i < kBuckets && UpperBound(i) <= bound_ns) seen += counts_[i++];
    if (seen > 0) out.emplace_back(bound_us, seen);
    if (seen == total_ || i >= kBuckets) break;
  }
  return out;
}

CommandStat& CommandStat::operator=(const CommandStat& o) {
  calls = o.calls;
  nanos = o.nanos;
  rejected = o.rejected;
  failed = o.failed;
  hist = o.hist ? std::make_unique<LatencyHistogram>(*o.hist) : nullptr;
  return *this;
}

void CommandStats::ErrorReply(std::string_view line) {
  ++total_errors_;
  std::string_view code = line.substr(0, line.find(' '));
  // Redis keeps at most 128 distinct codes, so a client inventing codes cannot grow it.
  auto it = errors_.find(std::string(code));
  if (it != errors_.end()) {
    ++it->second;
  } else if (errors_.size() < 128) {
    errors_.emplace(std::string(code), 1);
  }
}

void CommandStats::Merge(const CommandStats& o) {
  if (o.commands_.size() > commands_.size()) commands_.resize(o.commands_.size());
  for (size_t i = 0; i < o.commands_.size(); ++i) {
    const CommandStat& from = o.commands_[i];
    CommandStat& to = commands_[i];
    to.calls += from.calls;
    to.nanos += from.nanos;
    to.rejected += from.rejected;
    to.failed += from.failed;
    if (from.hist) {
      if (!to.hist) to.hist = std::make_unique<LatencyHistogram>();
      to.hist->Merge(*from.hist);
    }
  }
  for (const auto& [code, n] : o.errors_) errors_[code] += n;
  total_errors_ += o.total_errors_;
}

void CountCommand(CommandStats& stats, uint32_t stat_id, uint64_t ns, const std::string& out,
                  size_t from, bool track_latency) {
  bool failed = out.size() > from && (out[from] == '-' || out[from] == '!');
  stats.Called(stat_id, ns, failed, track_latency);
  if (!failed) return;
  std::string_view line(out.data() + from + 1, out.size() - from - 1);
  stats.ErrorReply(line.substr(0, line.find('\r')));
}

}  // namespace rc
