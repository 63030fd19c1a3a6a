#pragma once
// Helpers of the RDB value tests: hex, decoding a DUMP payload into an entry, and a
// value's contents as one comparable string.

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "core/entry.h"
#include "core/numbers.h"
#include "core/rdb_value.h"
#include "core/zset.h"

namespace rc {

inline std::string FromHex(std::string_view hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(char(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  }
  return out;
}

inline std::string ToHex(std::string_view bytes) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  for (char c : bytes) {
    out.push_back(kDigits[uint8_t(c) >> 4]);
    out.push_back(kDigits[uint8_t(c) & 15]);
  }
  return out;
}

inline EntryPtr ToEntry(RdbObject obj) {
  if (obj.type == ValueType::kString) return Entry::MakeString("k", obj.str);
  return Entry::MakeValue("k", std::move(obj.obj));
}

struct Decoded {
  bool ok = false;
  std::string error;
  EntryPtr entry;
};

// A DUMP payload's value, as RESTORE reads it.
inline Decoded DecodePayload(std::string_view payload, const RdbLimits& limits = {}) {
  Decoded d;
  uint16_t version = 0;
  if (!VerifyDumpFooter(payload, &version)) {
    d.error = "footer";
    return d;
  }
  RdbReader in(payload.substr(0, payload.size() - 10));
  uint8_t type = 0;
  RdbObject obj;
  if (!in.ReadByte(&type) || !RdbReadObject(type, in, limits, &obj, &d.error)) return d;
  d.ok = true;
  d.entry = ToEntry(std::move(obj));
  return d;
}

// "bytes" for a string, list[a,b], set{a,b} and hash{f=v} (sorted), zset[m:score] in
// order, -0 as 0 (a listpack keeps an integral score as an integer, as Redis's does).
inline std::string Describe(const Entry& e) {
  std::vector<std::string> parts;
  auto join = [&](std::string_view open, std::string_view close) {
    std::string out(open);
    for (size_t i = 0; i < parts.size(); ++i) out += (i ? "," : "") + parts[i];
    return out + std::string(close);
  };
  switch (e.type()) {
    case ValueType::kString:
      return std::string(e.str());
    case ValueType::kList:
      e.object<List>()->Walk(0, false, [&](std::string_view v) {
        parts.emplace_back(v);
        return true;
      });
      return join("list[", "]");
    case ValueType::kSet:
      e.object<MemberSet>()->ForEach([&](std::string_view m) { parts.emplace_back(m); });
      std::sort(parts.begin(), parts.end());
      return join("set{", "}");
    case ValueType::kHash:
      e.object<Hash>()->ForEach([&](std::string_view f, std::string_view v) {
        parts.push_back(std::string(f) + "=" + std::string(v));
      });
      std::sort(parts.begin(), parts.end());
      return join("hash{", "}");
    case ValueType::kZSet:
      for (auto it = e.object<ZSet>()->AtRank(0); it.Valid(); it.Next()) {
        parts.push_back(std::string(it.member()) + ":" +
                        FormatDouble(it.score() == 0 ? 0.0 : it.score()));
      }
      return join("zset[", "]");
  }
  return "";
}

}  // namespace rc
