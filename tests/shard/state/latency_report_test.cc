// The latency monitor's per-second history and the DOCTOR / GRAPH texts built from it.

#include "shard/state/latency_report.h"

#include <gtest/gtest.h>

#include <string>

namespace rc {
namespace {

TEST(LatencyMonitorTest, OneSamplePerSecondKeepsTheWorst) {
  LatencyMonitor m;
  m.Add("command", 20, 1000);
  m.Add("command", 50, 1000);
  m.Add("command", 30, 1000);
  m.Add("command", 7, 1001);
  LatencyEvents events = m.Snapshot();
  const LatencyMonitor::Event& e = events.at("command");
  auto h = e.History();
  ASSERT_EQ(h.size(), 2u);
  EXPECT_EQ(h[0].unix_seconds, 1000);
  EXPECT_EQ(h[0].ms, 50u);
  EXPECT_EQ(h[1].ms, 7u);
  EXPECT_EQ(e.Latest().ms, 7u);
  EXPECT_EQ(e.max_ms, 50u);
}

TEST(LatencyMonitorTest, HistoryKeepsTheLast160SecondsOldestFirst) {
  LatencyMonitor m;
  for (int64_t t = 1; t <= 200; ++t) m.Add("fast-command", uint64_t(t), t);
  auto h = m.Snapshot().at("fast-command").History();
  ASSERT_EQ(h.size(), LatencyMonitor::kHistory);
  EXPECT_EQ(h.front().unix_seconds, 41);
  EXPECT_EQ(h.back().unix_seconds, 200);
  EXPECT_EQ(m.Reset({"fast-command", "nosuch"}), 1u);
  EXPECT_TRUE(m.Snapshot().empty());
}

TEST(LatencyReportTest, DoctorSummarisesEachEvent) {
  LatencyMonitor m;
  m.Add("command", 50, 100);
  m.Add("command", 30, 101);
  m.Add("command", 10, 102);
  m.Add("fast-command", 4, 102);
  std::string r = LatencyDoctor(m.Snapshot(), 1, 10000, 103);
  // avg 30, mean deviation (20+0+20)/3 = 13, period (103-100)/3 = 1.00.
  EXPECT_NE(r.find("1. command: 3 latency spikes (average 30ms, mean deviation 13ms, period "
                   "1.00 sec). Worst all time event 50ms.\n"),
            std::string::npos)
      << r;
  EXPECT_NE(r.find("2. fast-command: 1 latency spikes (average 4ms, mean deviation 0ms, "
                   "period 1.00 sec)"),
            std::string::npos)
      << r;
  EXPECT_NE(r.find("did not get the CPU"), std::string::npos);
  EXPECT_NE(r.find("'CONFIG SET slowlog-log-slower-than 1000'"), std::string::npos);
  EXPECT_EQ(LatencyDoctor({}, 1, 10000, 103).substr(0, 37),
            "Dave, no latency spike was observed d");
  EXPECT_EQ(LatencyDoctor({}, 0, 10000, 103).substr(0, 34), "I'm sorry, Dave, I can't do that. ");
}

TEST(LatencyReportTest, GraphDrawsAColumnPerSample) {
  LatencyMonitor m;
  m.Add("command", 10, 100);
  m.Add("command", 50, 130);
  m.Add("command", 30, 190);
  std::string g = LatencyGraph("command", m.Snapshot().at("command"), 200);
  EXPECT_EQ(g, "command - high 50 ms, low 10 ms (all time high 50 ms)\n" + std::string(80, '-') +
                   "\n"
                   " | \n"
                   " | \n"
                   " ||\n"
                   "_||\n"
                   "111\n"
                   "mm0\n"
                   "  s\n");
}

}  // namespace
}  // namespace rc
