#pragma once
// INFO text to the Prometheus text exposition format (version 0.0.4), so the metrics
// endpoint shows exactly the counters INFO shows, under the same names:
//
//   used_memory:1048576                 ringcache_used_memory 1048576
//   cmdstat_get:calls=3,usec=9,...      ringcache_cmdstat_calls{cmd="get"} 3, ...
//   errorstat_ERR:count=2               ringcache_errorstat_count{error="ERR"} 2
//   db0:keys=5,expires=1,avg_ttl=0      ringcache_keyspace_keys{db="0"} 5, ...
//   latency_percentiles_usec_get:p50=1.003,p99=2.007
//                                       ringcache_latency_percentiles_usec{cmd="get",
//                                         quantile="0.5"} 1.003, ...
//   redis_version:7.0.15 (text)         ringcache_info{redis_version="7.0.15",...} 1
//
// Fields named total_* and a few other monotonic counts are typed counter, the rest gauge.

#include <string>
#include <string_view>

namespace rc {

std::string InfoToPrometheus(std::string_view info);

}  // namespace rc
