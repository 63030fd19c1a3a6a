#pragma once
// HSCAN, SSCAN and ZSCAN key cursor [MATCH pattern] [COUNT count]: one body over a value
// of type T. The cursor is checked first, then the key's type, then the options, as
// Redis's scanGenericCommand orders its errors; a missing key is an empty last page.
// Owner shard's thread.

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "core/glob.h"
#include "core/numbers.h"
#include "shard/command/arg_parser.h"
#include "shard/command/errors.h"
#include "shard/command/scan_options.h"
#include "shard/command/typed_lookup.h"

namespace rc {

// What one page returns: each matching member, with its value or score when the type
// has one, flattened in reply order.
class ScanPage {
 public:
  explicit ScanPage(const ScanOptions& opts) : opts_(opts) {}
  void Add(std::string_view member) {
    if (Matches(member)) items_.emplace_back(member);
  }
  void Add(std::string_view member, std::string second) {
    if (!Matches(member)) return;
    items_.emplace_back(member);
    items_.push_back(std::move(second));
  }
  const std::vector<std::string>& items() const { return items_; }

 private:
  bool Matches(std::string_view member) const {
    return !opts_.use_pattern || GlobMatch(opts_.pattern, member);
  }
  const ScanOptions& opts_;
  std::vector<std::string> items_;
};

// `step(const T&, cursor, count, ScanPage&)` walks one page and returns the next cursor
// (0 when done).
template <ValueObject T, typename Step>
void ScanValue(ShardCmd& cmd, Step&& step) {
  uint64_t cursor;
  if (!ParseScanCursor(cmd.args[2], &cursor)) return cmd.reply.Error(err::kInvalidCursor);
  bool ok;
  const T* value = ReadObject<T>(cmd, &ok);
  if (!ok) return;
  if (value == nullptr) {
    cmd.reply.ArrayLen(2);
    cmd.reply.Bulk("0");
    return cmd.reply.ArrayLen(0);
  }
  ArgParser p(cmd.args, 3);
  ScanOptions opts;
  ParseScanOptions(p, /*keyspace=*/false, &opts);
  if (!p.ok()) return cmd.reply.Error(p.error());
  ScanPage page(opts);
  const uint64_t next = step(*value, cursor, size_t(opts.count), page);
  cmd.reply.ArrayLen(2);
  char buf[24];
  const int n = std::snprintf(buf, sizeof(buf), "%llu", static_cast<unsigned long long>(next));
  cmd.reply.Bulk(std::string_view(buf, size_t(n)));
  cmd.reply.ArrayLen(page.items().size());
  for (const std::string& item : page.items()) cmd.reply.Bulk(item);
}

}  // namespace rc
