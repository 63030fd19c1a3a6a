// RESP request parsing throughput on a typical pipeline: 1000 commands alternating
// `SET key:NNNNNNNN <32-byte value>` and `GET key:NNNNNNNN`.
//
// Reports time per command and decimal GB/s. "Whole" hands the parser the entire pipeline, the
// best case after one large read; "Reads4K" delivers it in 4KB reads the way a socket
// would, so requests straddling a read boundary pay for kNeedMore and resumption.

#include <benchmark/benchmark.h>

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "net/resp_parser.h"

namespace rc::net {
namespace {

constexpr int kCommands = 1000;

void AppendBulk(std::string* out, std::string_view s) {
  out->append("$").append(std::to_string(s.size())).append("\r\n").append(s);
  *out += "\r\n";
}

std::string MultibulkPipeline() {
  std::string out;
  const std::string value(32, 'v');
  for (int i = 0; i < kCommands; ++i) {
    char key[16];
    std::snprintf(key, sizeof(key), "key:%08d", i / 2);
    if (i % 2 == 0) {
      out += "*3\r\n";
      AppendBulk(&out, "SET");
      AppendBulk(&out, key);
      AppendBulk(&out, value);
    } else {
      out += "*2\r\n";
      AppendBulk(&out, "GET");
      AppendBulk(&out, key);
    }
  }
  return out;
}

std::string InlinePipeline() {
  std::string out;
  const std::string value(32, 'v');
  for (int i = 0; i < kCommands; ++i) {
    char key[16];
    std::snprintf(key, sizeof(key), "key:%08d", i / 2);
    out += i % 2 == 0 ? "SET " + std::string(key) + " " + value + "\r\n"
                      : "GET " + std::string(key) + "\r\n";
  }
  return out;
}

void SetCounters(benchmark::State& state, size_t bytes) {
  state.SetItemsProcessed(state.iterations() * kCommands);
  state.SetBytesProcessed(state.iterations() * bytes);
  // Printed as "per_cmd=27.1ns" and "throughput=1.85G/s" (decimal GB, unlike
  // bytes_per_second, which is GiB).
  state.counters["per_cmd"] = benchmark::Counter(
      kCommands, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  state.counters["throughput"] =
      benchmark::Counter(static_cast<double>(bytes), benchmark::Counter::kIsIterationInvariantRate);
}

// Parses every request in `pipeline` handed over in one piece.
void ParseWhole(benchmark::State& state, const std::string& pipeline) {
  RespParser parser;
  std::vector<std::string_view> args;
  for (auto _ : state) {
    std::string_view rest = pipeline;
    size_t consumed = 0;
    int parsed = 0;
    while (parser.Parse(rest, &consumed, &args) == RespParser::Status::kOk) {
      benchmark::DoNotOptimize(args.data());
      rest.remove_prefix(consumed);
      ++parsed;
    }
    if (parsed != kCommands || !rest.empty()) state.SkipWithError("pipeline did not parse");
  }
  SetCounters(state, pipeline.size());
}

void BM_ParseMultibulkWhole(benchmark::State& state) { ParseWhole(state, MultibulkPipeline()); }
BENCHMARK(BM_ParseMultibulkWhole);

void BM_ParseInlineWhole(benchmark::State& state) { ParseWhole(state, InlinePipeline()); }
BENCHMARK(BM_ParseInlineWhole);

// The unconsumed tail of each 4KB read is parsed in place as the next read extends it: the
// view simply grows, as it would in a connection buffer that appends.
void BM_ParseMultibulkReads4K(benchmark::State& state) {
  const std::string pipeline = MultibulkPipeline();
  constexpr size_t kRead = 4096;
  RespParser parser;
  std::vector<std::string_view> args;
  for (auto _ : state) {
    size_t head = 0, received = 0, consumed = 0;
    int parsed = 0;
    while (received < pipeline.size()) {
      received = std::min(received + kRead, pipeline.size());
      std::string_view window(pipeline.data() + head, received - head);
      while (parser.Parse(window, &consumed, &args) == RespParser::Status::kOk) {
        benchmark::DoNotOptimize(args.data());
        window.remove_prefix(consumed);
        head += consumed;
        ++parsed;
      }
    }
    if (parsed != kCommands) state.SkipWithError("pipeline did not parse");
  }
  SetCounters(state, pipeline.size());
}
BENCHMARK(BM_ParseMultibulkReads4K);

}  // namespace
}  // namespace rc::net
