// Hashing a key to its slot (core/key_slot.h), which every command that may hop pays once
// per key and a multi-key command several times, against the bytewise table loop it
// replaced: build/bench/key_slot_bench (docs/PERFORMANCE.md).

#include <benchmark/benchmark.h>

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/key_slot.h"

namespace {

std::vector<std::string> Keys(size_t length) {
  std::vector<std::string> keys;
  for (int i = 0; i < 1024; ++i) {
    std::string k = "key:" + std::to_string(1000000 + i * 7919);
    k.resize(length, 'x');
    keys.push_back(k);
  }
  return keys;
}

uint16_t BytewiseCrc16(std::string_view data) {
  static const std::array<uint16_t, 256> table = [] {
    std::array<uint16_t, 256> t{};
    for (size_t i = 0; i < t.size(); ++i) {
      auto crc = static_cast<uint16_t>(i << 8);
      for (int bit = 0; bit < 8; ++bit) {
        crc = static_cast<uint16_t>((crc & 0x8000) ? (crc << 1) ^ 0x1021 : crc << 1);
      }
      t[i] = crc;
    }
    return t;
  }();
  uint16_t crc = 0;
  for (unsigned char byte : data) {
    crc = static_cast<uint16_t>((crc << 8) ^ table[((crc >> 8) ^ byte) & 0xFF]);
  }
  return crc;
}

void BM_KeySlot(benchmark::State& state) {
  const std::vector<std::string> keys = Keys(size_t(state.range(0)));
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(rc::KeySlot(keys[i++ & 1023]));
  }
}
BENCHMARK(BM_KeySlot)->Arg(16)->Arg(40);

void BM_BytewiseSlot(benchmark::State& state) {
  const std::vector<std::string> keys = Keys(size_t(state.range(0)));
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(BytewiseCrc16(rc::KeyHashPart(keys[i++ & 1023])) & 0x3FFF);
  }
}
BENCHMARK(BM_BytewiseSlot)->Arg(16)->Arg(40);

}  // namespace
