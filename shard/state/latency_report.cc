#include "shard/state/latency_report.h"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace rc {

namespace {

// Redis's analyzeLatencyForEvent: integer average and mean absolute deviation over the
// samples kept, and the seconds since the oldest one (at least 1).
struct EventStats {
  uint64_t samples = 0;
  uint64_t avg = 0;
  uint64_t mad = 0;
  int64_t period = 0;
};

EventStats Analyze(const LatencyMonitor::Event& e, int64_t now) {
  EventStats st;
  std::vector<LatencyMonitor::Sample> history = e.History();
  if (history.empty()) return st;
  uint64_t sum = 0;
  int64_t oldest = history.front().unix_seconds;
  for (const auto& s : history) {
    sum += s.ms;
    oldest = std::min(oldest, s.unix_seconds);
  }
  st.samples = history.size();
  st.avg = sum / st.samples;
  st.period = std::max<int64_t>(now - oldest, 1);
  uint64_t dev = 0;
  for (const auto& s : history) dev += s.ms > st.avg ? s.ms - st.avg : st.avg - s.ms;
  st.mad = dev / st.samples;
  return st;
}

std::string Ago(int64_t seconds) {
  if (seconds < 60) return absl::StrCat(seconds, "s");
  if (seconds < 3600) return absl::StrCat(seconds / 60, "m");
  if (seconds < 86400) return absl::StrCat(seconds / 3600, "h");
  return absl::StrCat(seconds / 86400, "d");
}

}  // namespace

std::string LatencyDoctor(const LatencyEvents& events, int64_t threshold_ms,
                          int64_t slowlog_slower_than_us, int64_t now) {
  if (events.empty() && threshold_ms == 0) {
    return "I'm sorry, Dave, I can't do that. Latency monitoring is disabled in this Redis "
           "instance. You may use \"CONFIG SET latency-monitor-threshold <milliseconds>.\" in "
           "order to enable it. If we weren't in a deep space mission I'd suggest to take a "
           "look at https://redis.io/topics/latency-monitor.\n";
  }
  std::string out;
  bool slowlog_enable = false, slowlog_tuning = false, slow_commands = false;
  bool scheduler = false;
  int n = 0;
  for (const auto& [name, e] : events) {
    if (++n == 1) {
      out +=
          "Dave, I have observed latency spikes in this Redis instance. You don't mind "
          "talking about it, do you Dave?\n\n";
    }
    EventStats st = Analyze(e, now);
    absl::StrAppendFormat(&out,
                          "%d. %s: %d latency spikes (average %ums, mean deviation %ums, "
                          "period %.2f sec). Worst all time event %ums.\n",
                          n, name, st.samples, st.avg, st.mad,
                          st.samples ? double(st.period) / double(st.samples) : 0.0, e.max_ms);
    if (name == "command") {
      if (slowlog_slower_than_us < 0) {  // the slow log is off
        slowlog_enable = true;
      } else if (slowlog_slower_than_us / 1000 > threshold_ms) {
        slowlog_tuning = true;
      }
      slow_commands = true;
    } else if (name == "fast-command") {
      scheduler = true;
    }
  }
  if (n == 0) {
    return "Dave, no latency spike was observed during the lifetime of this Redis instance, "
           "not in the slightest bit. I honestly think you ought to sit down calmly, take a "
           "stress pill, and think things over.\n";
  }
  if (!slow_commands && !scheduler) {
    out +=
        "\nWhile there are latency events logged, I'm not able to suggest any easy fix. "
        "Please use the Redis community to get some help, providing this report in your "
        "help request.\n";
    return out;
  }
  out += "\nI have a few advices for you:\n\n";
  if (slowlog_enable) {
    absl::StrAppend(&out,
                    "- There are latency issues with potentially slow commands you are using. "
                    "Try to enable the Slow Log Redis feature using the command 'CONFIG SET "
                    "slowlog-log-slower-than ",
                    threshold_ms * 1000,
                    "'. If the Slow log is disabled Redis is not able to log slow commands "
                    "execution for you.\n");
  }
  if (slowlog_tuning) {
    absl::StrAppend(&out,
                    "- Your current Slow Log configuration only logs events that are slower "
                    "than your configured latency monitor threshold. Please use 'CONFIG SET "
                    "slowlog-log-slower-than ",
                    threshold_ms * 1000, "'.\n");
  }
  if (slow_commands) {
    out +=
        "- Check your Slow Log to understand what are the commands you are running which "
        "are too slow to execute. Please check https://redis.io/commands/slowlog for more "
        "information.\n";
  }
  if (scheduler) {
    // ringcache's own wording: its fast commands have no allocator or fork to blame.
    out +=
        "- Commands that should take microseconds took milliseconds: the worker threads "
        "did not get the CPU. Lower the machine's load, keep other busy processes off the "
        "server's cores (taskset), and check for a noisy neighbour on a shared VM.\n";
  }
  if (slow_commands) {
    out +=
        "- Deleting, expiring or evicting (because of maxmemory policy) large objects is "
        "a blocking operation. If you have very large objects that are often deleted, "
        "expired, or evicted, try to fragment those objects into multiple smaller "
        "objects.\n";
  }
  return out;
}

std::string LatencyGraph(const std::string& name, const LatencyMonitor::Event& event, int64_t now) {
  std::vector<LatencyMonitor::Sample> history = event.History();
  uint64_t low = history.empty() ? 0 : history.front().ms, high = low;
  for (const auto& s : history) {
    low = std::min(low, s.ms);
    high = std::max(high, s.ms);
  }
  std::string out = absl::StrFormat("%s - high %u ms, low %u ms (all time high %u ms)\n", name,
                                    high, low, event.max_ms);
  constexpr size_t kColumns = 80;
  constexpr int kRows = 4;
  out.append(kColumns, '-');
  out += '\n';
  // Each sample's height in half rows, 1..2*kRows: the lowest sample still shows.
  auto height = [&](uint64_t ms) {
    if (high == low) return 2 * kRows;
    return 1 + int((ms - low) * (2 * kRows - 1) / (high - low));
  };
  for (size_t from = 0; from < history.size(); from += kColumns) {
    size_t to = std::min(history.size(), from + kColumns);
    if (from > 0) out += '\n';
    for (int row = kRows - 1; row >= 0; --row) {
      for (size_t i = from; i < to; ++i) {
        int h = height(history[i].ms);
        out += h >= 2 * row + 2 ? '|' : h == 2 * row + 1 ? '_' : ' ';
      }
      out += '\n';
    }
    // Labels written downwards under their columns.
    std::vector<std::string> labels;
    size_t longest = 0;
    for (size_t i = from; i < to; ++i) {
      labels.push_back(Ago(std::max<int64_t>(now - history[i].unix_seconds, 0)));
      longest = std::max(longest, labels.back().size());
    }
    for (size_t line = 0; line < longest; ++line) {
      for (const auto& l : labels) out += line < l.size() ? l[line] : ' ';
      out += '\n';
    }
  }
  return out;
}

}  // namespace rc
