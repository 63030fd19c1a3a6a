// Writing values (rdbSaveObject's bytes), the type table and skipping. Reading is
// rdb_value_read.cc.

#include "core/rdb_value.h"

#include "absl/container/inlined_vector.h"
#include "core/entry.h"
#include "core/intset.h"
#include "core/listpack.h"
#include "core/numbers.h"
#include "core/zset.h"

namespace rc {

namespace {

// Redis's quicklist node with list-max-listpack-size -2 (optimization_level[1]), and its
// estimate of what one element adds (SIZE_ESTIMATE_OVERHEAD): a node takes the next
// element while its bytes + the element's + 8 stay within 8 KiB.
constexpr size_t kNodeLimit = 8192;
constexpr size_t kNodeOverhead = 8;
// packed_threshold: an element this big is a node of its own, stored as it is (PLAIN).
constexpr size_t kPlainThreshold = size_t(1) << 30;
constexpr uint64_t kContainerPlain = 1;
constexpr uint64_t kContainerPacked = 2;

// The listpacks of a value are built here, then written as one RDB string (LZF needs them
// whole). One per thread: a snapshot thread and a DUMP may run at once.
std::string& Scratch() {
  thread_local std::string scratch;
  scratch.clear();
  return scratch;
}

// A list's nodes, as quicklistPushTail would have made them: `fn(first, count, plain)`
// for each, in order.
template <typename Fn>
void SplitList(const List& list, Fn&& fn) {
  size_t first = 0, count = 0, bytes = 0, i = 0;
  auto close = [&] {
    if (count > 0) fn(first, count, false);
    count = 0;
  };
  if (list.size() == 0) return;
  list.Walk(0, false, [&](std::string_view v) {
    if (v.size() >= kPlainThreshold) {
      close();
      fn(i, 1, true);
    } else if (count > 0 && bytes + v.size() + kNodeOverhead <= kNodeLimit) {
      bytes += listpack::EntryBytes(v);
      ++count;
    } else {
      close();
      first = i;
      count = 1;
      bytes = listpack::kEmptyBytes + listpack::EntryBytes(v);
    }
    ++i;
    return true;
  });
  close();
}

void AppendList(const List& list, bool compress, std::string* out) {
  struct Node {
    size_t count;
    bool plain;
  };
  // The number of nodes comes first: one pass finds them, a second writes them.
  absl::InlinedVector<Node, 4> nodes;
  SplitList(list, [&](size_t, size_t count, bool plain) { nodes.push_back({count, plain}); });
  RdbAppendLength(nodes.size(), out);
  if (nodes.empty()) return;
  std::string& lp = Scratch();
  listpack::Writer w(&lp);
  size_t node = 0, left = nodes[0].count;
  list.Walk(0, false, [&](std::string_view v) {
    if (nodes[node].plain) {
      RdbAppendLength(kContainerPlain, out);
      RdbAppendString(v, out, compress);
    } else {
      w.Add(v);
      if (left > 1) {
        --left;
        return true;
      }
      w.Finish();
      RdbAppendLength(kContainerPacked, out);
      RdbAppendString(lp, out, compress);
      lp.clear();
      w = listpack::Writer(&lp);
    }
    if (++node < nodes.size()) left = nodes[node].count;
    return true;
  });
}

void AppendHash(const Hash& hash, bool compress, std::string* out) {
  if (hash.compact()) {
    std::string& lp = Scratch();
    listpack::Writer w(&lp);
    hash.ForEach([&](std::string_view field, std::string_view value) {
      w.Add(field);
      w.Add(value);
    });
    w.Finish();
    return RdbAppendString(lp, out, compress);
  }
  RdbAppendLength(hash.size(), out);
  hash.ForEach([&](std::string_view field, std::string_view value) {
    RdbAppendString(field, out, compress);
    RdbAppendString(value, out, compress);
  });
}

void AppendSet(const MemberSet& set, bool compress, std::string* out) {
  if (set.intset()) {
    std::string& blob = Scratch();
    intset::Append(set.ints(), &blob);
    return RdbAppendString(blob, out, compress);
  }
  RdbAppendLength(set.size(), out);
  set.ForEach([&](std::string_view m) { RdbAppendString(m, out, compress); });
}

void AppendZSet(const ZSet& zset, bool compress, std::string* out) {
  if (zset.compact()) {
    // zzlInsertAt: the member, then the score as an integer when double2ll takes it (an
    // integral value within ±LLONG_MAX/2, -0 included), else as d2string spells it.
    std::string& lp = Scratch();
    listpack::Writer w(&lp);
    char buf[kMaxDoubleChars];
    for (auto it = zset.AtRank(0); it.Valid(); it.Next()) {
      w.Add(it.member());
      const double score = it.score();
      constexpr double kLimit = double(INT64_MAX / 2);
      if (score >= -kLimit && score <= kLimit && double(int64_t(score)) == score) {
        w.AddInt(int64_t(score));
      } else {
        w.Add(std::string_view(buf, size_t(FormatDouble(score, buf) - buf)));
      }
    }
    w.Finish();
    return RdbAppendString(lp, out, compress);
  }
  // Highest first, as Redis walks its skiplist from the tail, so a loader inserting each
  // member at the front of its order does no search.
  RdbAppendLength(zset.size(), out);
  for (auto it = zset.AtRank(zset.size() - 1); it.Valid(); it.Prev()) {
    RdbAppendString(it.member(), out, compress);
    RdbAppendBinaryDouble(it.score(), out);
  }
}

}  // namespace

bool RdbIsObjectType(uint8_t type) {
  return type <= kRdbTypeZSet2 || (type >= kRdbTypeHashZipmap && type <= kRdbTypeListQuicklist) ||
         (type >= kRdbTypeHashListpack && type <= kRdbTypeListQuicklist2);
}

uint8_t RdbObjectType(const Entry& e) {
  switch (e.type()) {
    case ValueType::kString:
      return kRdbTypeString;
    case ValueType::kList:
      return kRdbTypeListQuicklist2;
    case ValueType::kSet:
      return e.object<MemberSet>()->intset() ? kRdbTypeSetIntset : kRdbTypeSet;
    case ValueType::kZSet:
      return e.object<ZSet>()->compact() ? kRdbTypeZSetListpack : kRdbTypeZSet2;
    case ValueType::kHash:
      return e.object<Hash>()->compact() ? kRdbTypeHashListpack : kRdbTypeHash;
  }
  return kRdbTypeString;
}

void RdbAppendObject(const Entry& e, bool compress, std::string* out) {
  switch (e.type()) {
    case ValueType::kString:
      return RdbAppendString(e.str(), out, compress);
    case ValueType::kList:
      return AppendList(*e.object<List>(), compress, out);
    case ValueType::kSet:
      return AppendSet(*e.object<MemberSet>(), compress, out);
    case ValueType::kZSet:
      return AppendZSet(*e.object<ZSet>(), compress, out);
    case ValueType::kHash:
      return AppendHash(*e.object<Hash>(), compress, out);
  }
}

std::string RdbDumpPayload(const Entry& e, bool compress) {
  std::string out;
  out.push_back(char(RdbObjectType(e)));
  RdbAppendObject(e, compress, &out);
  AppendDumpFooter(&out);
  return out;
}

bool RdbSkipObject(uint8_t type, RdbReader& in) {
  uint64_t n = 0;
  std::string_view skipped;
  // Each element read consumes input, so a lying count ends at the input's end.
  auto strings = [&](uint64_t per) {
    for (uint64_t i = 0; i < n; ++i) {
      for (uint64_t k = 0; k < per; ++k) {
        if (!in.SkipString()) return false;
      }
    }
    return true;
  };
  switch (type) {
    case kRdbTypeString:
    case kRdbTypeHashZipmap:
    case kRdbTypeListZiplist:
    case kRdbTypeSetIntset:
    case kRdbTypeZSetZiplist:
    case kRdbTypeHashZiplist:
    case kRdbTypeHashListpack:
    case kRdbTypeZSetListpack:
      return in.SkipString();
    case kRdbTypeList:
    case kRdbTypeSet:
    case kRdbTypeListQuicklist:
      return in.ReadLength(&n) && strings(1);
    case kRdbTypeHash:
      return in.ReadLength(&n) && strings(2);
    case kRdbTypeZSet:
      if (!in.ReadLength(&n)) return false;
      for (uint64_t i = 0; i < n; ++i) {
        double score;
        if (!in.SkipString() || !in.ReadStringDouble(&score)) return false;
      }
      return true;
    case kRdbTypeZSet2:
      if (!in.ReadLength(&n)) return false;
      for (uint64_t i = 0; i < n; ++i) {
        if (!in.SkipString() || !in.ReadRaw(8, &skipped)) return false;
      }
      return true;
    case kRdbTypeListQuicklist2:
      if (!in.ReadLength(&n)) return false;
      for (uint64_t i = 0; i < n; ++i) {
        uint64_t container = 0;
        if (!in.ReadLength(&container) || !in.SkipString()) return false;
      }
      return true;
    default:
      return false;
  }
}

}  // namespace rc
