// LCS key1 key2 [LEN] [IDX] [MINMATCHLEN len] [WITHMATCHLEN]: the longest common
// subsequence of two strings (a missing key reads as ""), its length, or the matching
// ranges, as Redis 7.0 computes them: the O(n·m) table of LCS lengths, walked back from
// the end, so ties and the order of ranges are Redis's.
//
// Keys on two shards: with both locked, each shard copies its string out and the
// connection's thread computes the answer (LockedFanOut).

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "shard/command/arg_parser.h"
#include "shard/command/deferred_reply.h"
#include "shard/command/errors.h"
#include "shard/command/key_groups.h"
#include "shard/command/multi_shard.h"
#include "shard/runtime/shard.h"
#include "shard/state/server_state.h"

namespace rc {

namespace {

constexpr std::string_view kLcsTypeErr = "ERR The specified keys must contain string values";
constexpr std::string_view kLcsBothErr =
    "ERR If you want both the length and indexes, please just use IDX.";
constexpr std::string_view kLcsTooLongErr = "ERR String too long for LCS";
constexpr std::string_view kLcsMemoryErr =
    "ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len";

struct LcsOptions {
  bool len = false;
  bool idx = false;
  bool with_match_len = false;
  int64_t min_match_len = 0;
  std::string error;  // replied only if both keys hold strings, as Redis checks types first
};

LcsOptions ParseLcs(ArgList args) {
  LcsOptions o;
  ArgParser p(args, 3);
  while (p.HasNext()) {
    if (p.Flag("IDX")) {
      o.idx = true;
    } else if (p.Flag("LEN")) {
      o.len = true;
    } else if (p.Flag("WITHMATCHLEN")) {
      o.with_match_len = true;
    } else if (p.Option("MINMATCHLEN")) {
      o.min_match_len = std::max<int64_t>(p.Next<int64_t>(), 0);
    } else {
      p.Fail(err::kSyntax);
    }
  }
  if (!p.Finish()) {
    o.error = p.error();
  } else if (o.idx && o.len) {
    o.error = kLcsBothErr;
  }
  return o;
}

struct Range {
  uint32_t a_start, a_end, b_start, b_end;
};

void ReplyRange(ReplyBuilder& rb, const Range& r, bool with_len) {
  rb.ArrayLen(with_len ? 3 : 2);
  rb.ArrayLen(2);
  rb.Integer(r.a_start);
  rb.Integer(r.a_end);
  rb.ArrayLen(2);
  rb.Integer(r.b_start);
  rb.Integer(r.b_end);
  if (with_len) rb.Integer(int64_t(r.a_end) - r.a_start + 1);
}

void ReplyLcs(std::string_view a, std::string_view b, const LcsOptions& o, int64_t max_bulk_len,
              ReplyBuilder& rb) {
  if (!o.error.empty()) return rb.Error(o.error);
  if (a.size() >= UINT32_MAX - 1 || b.size() >= UINT32_MAX - 1) return rb.Error(kLcsTooLongErr);
  const size_t alen = a.size(), blen = b.size();
  const uint64_t cells = uint64_t(alen + 1) * (blen + 1);
  if (cells * sizeof(uint32_t) > uint64_t(max_bulk_len)) return rb.Error(kLcsMemoryErr);
  // table[i][j]: the LCS length of a[0, i) and b[0, j).
  std::vector<uint32_t> table(cells, 0);
  auto at = [&](size_t i, size_t j) -> uint32_t& { return table[i * (blen + 1) + j]; };
  for (size_t i = 1; i <= alen; ++i) {
    for (size_t j = 1; j <= blen; ++j) {
      at(i, j) = a[i - 1] == b[j - 1] ? at(i - 1, j - 1) + 1 : std::max(at(i - 1, j), at(i, j - 1));
    }
  }
  const uint32_t total = at(alen, blen);
  if (o.len && !o.idx) return rb.Integer(total);

  // Walk back from the end: a match extends the current range downwards, a step that
  // matches nothing closes it (kept if long enough).
  std::string common(total, '\0');
  std::vector<Range> ranges;
  bool open = false;
  Range cur{};
  size_t i = alen, j = blen, k = total;
  while (i > 0 && j > 0) {
    bool close = false;
    if (a[i - 1] == b[j - 1]) {
      common[--k] = a[i - 1];
      if (!open) {
        cur = Range{uint32_t(i - 1), uint32_t(i - 1), uint32_t(j - 1), uint32_t(j - 1)};
        open = true;
      } else {
        cur.a_start = uint32_t(i - 1);
        cur.b_start = uint32_t(j - 1);
      }
      // A range that reached the start of either string is complete.
      close = cur.a_start == 0 || cur.b_start == 0;
      --i;
      --j;
    } else {
      if (at(i - 1, j) > at(i, j - 1)) {
        --i;
      } else {
        --j;
      }
      close = open;
    }
    if (close) {
      if (int64_t(cur.a_end - cur.a_start + 1) >= o.min_match_len) ranges.push_back(cur);
      open = false;
    }
  }
  if (!o.idx) return rb.Bulk(common);
  rb.MapLen(2);
  rb.Bulk("matches");
  rb.ArrayLen(ranges.size());
  for (const Range& r : ranges) ReplyRange(rb, r, o.with_match_len);
  rb.Bulk("len");
  rb.Integer(total);
}

// A key's string for LCS: "" when missing; nullopt when it holds another type.
std::optional<std::string_view> LcsInput(Shard& shard, std::string_view key) {
  const Entry* e = shard.FindForRead(key);
  if (e == nullptr) return std::string_view();
  if (e->type() != ValueType::kString) return std::nullopt;
  return e->str();
}

void Lcs(ShardCmd& cmd) {
  const std::optional<std::string_view> a = LcsInput(cmd.shard, cmd.args[1]);
  const std::optional<std::string_view> b = LcsInput(cmd.shard, cmd.args[2]);
  if (!a || !b) return cmd.reply.Error(kLcsTypeErr);
  ReplyLcs(*a, *b, ParseLcs(cmd.args), cmd.server.config.proto_max_bulk_len, cmd.reply);
}

// The two keys live on different shards.
void LcsCoord(CoordCmd& cmd) {
  auto opts = std::make_shared<const LcsOptions>(ParseLcs(cmd.args));
  const int64_t max_bulk_len = cmd.server.config.proto_max_bulk_len;
  auto groups = std::make_shared<const KeyGroups>(cmd.shards, cmd.args.subspan(0, 3), 1, 1);
  DeferredReply out(cmd);
  LockedFanOut<std::optional<std::string>>(
      cmd, LockKeys(groups),
      [groups](Shard& shard, size_t gi) -> std::optional<std::string> {
        std::optional<std::string_view> s = LcsInput(shard, groups->Args(gi)[0]);
        if (!s) return std::nullopt;
        return std::string(*s);
      },
      [groups, opts, max_bulk_len, out](std::vector<std::optional<std::string>>& parts) {
        // One key per group; group order is shard order, not argument order.
        const size_t first = groups->Items(0)[0] == 0 ? 0 : 1;
        const std::optional<std::string>& a = parts[first];
        const std::optional<std::string>& b = parts[1 - first];
        out.Send([&](ReplyBuilder& rb) {
          if (!a || !b) return rb.Error(kLcsTypeErr);
          ReplyLcs(*a, *b, *opts, max_bulk_len, rb);
        });
      });
}

}  // namespace

void RegisterLcsCommands(CommandTable& t) {
  CommandTable::Family f = t.StartFamily("@string");
  f.Add({.name = "lcs",
         .arity = -3,
         .flags = kCmdReadOnly,
         .keys = {1, 2, 1},
         .on_shard = Lcs,
         .on_coord = LcsCoord});
}

}  // namespace rc
