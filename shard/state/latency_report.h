#pragma once
// LATENCY DOCTOR's report and LATENCY GRAPH's chart, built from a snapshot of the latency
// monitor (shard/introspection.h). Pure functions of their arguments: any thread.

#include <cstdint>
#include <map>
#include <string>

#include "shard/state/introspection.h"

namespace rc {

using LatencyEvents = std::map<std::string, LatencyMonitor::Event>;

// Redis's report, word for word where Redis 7.0 has one for ringcache's events: each
// event's spikes, average, mean deviation and period, then the advice that applies.
std::string LatencyDoctor(const LatencyEvents& events, int64_t threshold_ms,
                          int64_t slowlog_slower_than_us, int64_t now_unix_seconds);

// Redis's header (high, low, all-time high) over an ASCII chart: a column per sample,
// oldest first, four rows high, each labelled with how long ago it was (s/m/h/d).
std::string LatencyGraph(const std::string& name, const LatencyMonitor::Event& event,
                         int64_t now_unix_seconds);

}  // namespace rc
