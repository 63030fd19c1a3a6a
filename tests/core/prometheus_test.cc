#include "core/prometheus.h"

#include <string>

#include "gtest/gtest.h"

namespace rc {
namespace {

TEST(InfoToPrometheus, NumbersCompositesAndText) {
  std::string info =
      "# Server\r\nredis_version:7.0.15\r\nuptime_in_seconds:12\r\n\r\n"
      "# Memory\r\nused_memory:1024\r\nused_memory_human:1.00K\r\n"
      "mem_fragmentation_ratio:1.25\r\n\r\n"
      "# Stats\r\ntotal_commands_processed:7\r\nkeyspace_hits:3\r\n\r\n"
      "# Commandstats\r\ncmdstat_get:calls=3,usec=9,usec_per_call=3.00,rejected_calls=0,"
      "failed_calls=1\r\ncmdstat_config|get:calls=1,usec=2,usec_per_call=2.00,"
      "rejected_calls=0,failed_calls=0\r\n\r\n"
      "# Errorstats\r\nerrorstat_ERR:count=2\r\n\r\n"
      "# Latencystats\r\nlatency_percentiles_usec_get:p50=1.003,p99=2.007,p99.9=3.1\r\n\r\n"
      "# Keyspace\r\ndb0:keys=5,expires=1,avg_ttl=0\r\n";
  std::string out = InfoToPrometheus(info);
  for (const char* want : {
           "ringcache_info{redis_version=\"7.0.15\"} 1\n",
           "# TYPE ringcache_uptime_in_seconds gauge\nringcache_uptime_in_seconds 12\n",
           "ringcache_used_memory 1024\n",
           "ringcache_mem_fragmentation_ratio 1.25\n",
           "# TYPE ringcache_total_commands_processed counter\n"
           "ringcache_total_commands_processed 7\n",
           "# TYPE ringcache_keyspace_hits counter\n",
           "ringcache_cmdstat_calls{cmd=\"config|get\"} 1\n",
           "ringcache_cmdstat_calls{cmd=\"get\"} 3\n",
           "ringcache_cmdstat_failed_calls{cmd=\"get\"} 1\n",
           "ringcache_cmdstat_usec_per_call{cmd=\"get\"} 3.00\n",
           "ringcache_errorstat_count{error=\"ERR\"} 2\n",
           "ringcache_latency_percentiles_usec{cmd=\"get\",quantile=\"0.5\"} 1.003\n",
           "ringcache_latency_percentiles_usec{cmd=\"get\",quantile=\"0.999\"} 3.1\n",
           "ringcache_keyspace_keys{db=\"0\"} 5\n",
           "ringcache_keyspace_expires{db=\"0\"} 1\n",
       }) {
    EXPECT_NE(out.find(want), std::string::npos) << "missing: " << want << "\nin:\n" << out;
  }
  // The _human copy of a number is not exported as text.
  EXPECT_EQ(out.find("1.00K"), std::string::npos) << out;
  // One TYPE line per family.
  size_t first = out.find("# TYPE ringcache_cmdstat_calls ");
  ASSERT_NE(first, std::string::npos);
  EXPECT_EQ(out.find("# TYPE ringcache_cmdstat_calls ", first + 1), std::string::npos);
}

TEST(InfoToPrometheus, EscapesLabelValues) {
  std::string out = InfoToPrometheus("executable:/a \"b\"\\c\r\n");
  EXPECT_NE(out.find("executable=\"/a \\\"b\\\"\\\\c\""), std::string::npos) << out;
}

}  // namespace
}  // namespace rc
