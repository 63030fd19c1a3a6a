#pragma once
// Per-thread counters behind INFO. The owning thread increments them without atomics;
// INFO reads them by running a task on each thread.

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace rc {

// The largest figure seen in each of the last kSeconds whole seconds (Redis's
// CLIENTS_PEAK_MEM_USAGE_SLOTS), for INFO's client_recent_max_input/output_buffer.
struct RecentPeak {
  static constexpr int kSeconds = 8;
  size_t max[kSeconds] = {};
  int64_t second[kSeconds] = {};

  void Note(int64_t now_sec, size_t value) {
    const int i = int(now_sec % kSeconds);
    if (second[i] != now_sec) {
      second[i] = now_sec;
      max[i] = 0;
    }
    max[i] = std::max(max[i], value);
  }
  size_t Max(int64_t now_sec) const {
    size_t m = 0;
    for (int i = 0; i < kSeconds; ++i) {
      if (now_sec - second[i] < kSeconds) m = std::max(m, max[i]);
    }
    return m;
  }
};

struct ThreadStats {
  uint64_t connections_received = 0;
  uint64_t connected_clients = 0;
  uint64_t rejected_connections = 0;
  uint64_t commands_processed = 0;
  uint64_t net_input_bytes = 0;
  uint64_t net_output_bytes = 0;
  // Socket reads and writes that moved bytes (INFO total_reads/writes_processed): bytes per
  // write says whether pipelined replies leave in one send.
  uint64_t reads_processed = 0;
  uint64_t writes_processed = 0;
  // Commands sent to the thread owning their keys (one hop each): INFO forwarded_commands.
  uint64_t remote_commands = 0;
  // Connections CLIENT PAUSE holds and clients waiting in a blocking command (INFO's
  // blocked_clients, as Redis counts them); those of the latter with a timeout.
  uint64_t blocked_clients = 0;
  uint64_t clients_in_timeout_table = 0;
  // The largest query buffer (its allocation, as Redis counts it) and queued output of
  // this thread's clients lately (monotonic seconds), from the reactor's cron.
  RecentPeak recent_input;
  RecentPeak recent_output;

  // instantaneous_ops_per_sec, as Redis computes it: the mean rate over the last 16
  // samples, one taken per cron tick.
  static constexpr int kOpsSamples = 16;
  double ops_samples[kOpsSamples] = {};
  int ops_sample_idx = 0;
  int64_t last_sample_ns = 0;
  uint64_t last_sample_ops = 0;

  void SampleOps(int64_t now_ns) {
    if (last_sample_ns != 0 && now_ns > last_sample_ns) {
      double secs = double(now_ns - last_sample_ns) / 1e9;
      ops_samples[ops_sample_idx] = double(commands_processed - last_sample_ops) / secs;
      ops_sample_idx = (ops_sample_idx + 1) % kOpsSamples;
    }
    last_sample_ns = now_ns;
    last_sample_ops = commands_processed;
  }
  double InstantaneousOps() const {
    double sum = 0;
    for (double s : ops_samples) sum += s;
    return sum / kOpsSamples;
  }
  // CONFIG RESETSTAT: counters go to zero; gauges (connected and blocked clients, the
  // recent buffer peaks) stay.
  void Reset() {
    uint64_t clients = connected_clients, blocked = blocked_clients;
    uint64_t timed = clients_in_timeout_table;
    const RecentPeak input = recent_input, output = recent_output;
    *this = ThreadStats();
    connected_clients = clients;
    blocked_clients = blocked;
    clients_in_timeout_table = timed;
    recent_input = input;
    recent_output = output;
  }
};

}  // namespace rc
