// Reading values (rdbLoadObject), every type and encoding a Redis 7.0 server loads but
// streams and modules. Each blob is checked whole before or while its elements are used,
// and every read is bounded by the input: a count that lies ends at the input's end, and
// nothing is allocated from a count alone.

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>

#include "core/intset.h"
#include "core/listpack.h"
#include "core/numbers.h"
#include "core/rdb_value.h"
#include "core/strings.h"
#include "core/ziplist.h"
#include "core/zset.h"

namespace rc {

namespace {

using listpack::Element;

// One value being read: the input, the limits and where the error goes.
class ObjectReader {
 public:
  ObjectReader(RdbReader& in, const RdbLimits& limits, RdbObject* out, std::string* error)
      : in_(in), limits_(limits), out_(out), error_(error) {}

  bool Read(uint8_t type);

 private:
  bool Fail(std::string_view why) {
    error_->assign(why);
    return false;
  }
  bool Short() { return Fail("unexpected end of data or bad string encoding"); }
  // Redis refuses an empty collection (RESTORE: Bad data format; a file: the key is
  // skipped), so the caller is told which it was.
  bool Empty() {
    out_->empty = true;
    return Fail("empty value");
  }
  bool String(std::string_view* v, std::string* scratch) {
    return in_.ReadStringView(v, scratch) || Short();
  }

  bool ReadList(uint8_t type);
  bool ReadSet();
  bool ReadIntset();
  bool ReadZSet(uint8_t type);
  bool ReadZSetPairs(uint8_t type);
  bool ReadHash();
  bool ReadHashPairs(uint8_t type);

  template <typename T>
  T* Make() {
    out_->obj = Value(std::make_unique<T>());
    return out_->obj.get<T>();
  }

  RdbReader& in_;
  const RdbLimits& limits_;
  RdbObject* out_;
  std::string* error_;
  std::string scratch_, scratch2_;
};

// zzlStrtod: a score kept as a string in a listpack, read as strtod reads it (at most
// 127 bytes of it, as Redis copies it into its buffer).
double ParseListpackScore(const Element& e) {
  if (e.is_int) return double(e.value);
  char buf[128];
  const size_t n = std::min(e.str.size(), sizeof buf - 1);
  std::memcpy(buf, e.str.data(), n);
  buf[n] = '\0';
  return std::strtod(buf, nullptr);
}

// Visits the elements of a list blob (a listpack, or a ziplist for the older types).
bool ForEachElement(bool ziplist, std::string_view blob,
                    absl::FunctionRef<bool(const Element&)> fn) {
  return ziplist ? ziplist::ForEach(blob, fn) : listpack::ForEach(blob, fn);
}

bool ObjectReader::ReadList(uint8_t type) {
  List* list = Make<List>();
  char buf[kMaxInt64Chars];
  auto push = [&](const Element& e) {
    list->Push(e.View(buf), List::End::kTail, limits_.list);
    return true;
  };
  std::string_view v;
  if (type == kRdbTypeListZiplist) {
    if (!String(&v, &scratch_)) return false;
    if (!ziplist::ForEach(v, push)) return Fail("List ziplist integrity check failed");
    return list->size() > 0 || Empty();
  }
  uint64_t n = 0;
  if (!in_.ReadLength(&n)) return Short();
  if (n == 0) return Empty();
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t container = 2;
    if (type == kRdbTypeListQuicklist2) {
      if (!in_.ReadLength(&container)) return Short();
      if (container != 1 && container != 2) return Fail("Quicklist integrity check failed");
    }
    if (!String(&v, &scratch_)) return false;
    if (type == kRdbTypeList || container == 1) {
      if (type != kRdbTypeList && v.empty()) return Fail("Quicklist integrity check failed");
      list->Push(v, List::End::kTail, limits_.list);
      continue;
    }
    // A node with no elements is skipped, as Redis does; an empty list is refused below.
    if (v.empty()) return Fail("Quicklist integrity check failed");
    if (!ForEachElement(type == kRdbTypeListQuicklist, v, push)) {
      return Fail(type == kRdbTypeListQuicklist ? "Ziplist integrity check failed"
                                                : "Listpack integrity check failed");
    }
  }
  return list->size() > 0 || Empty();
}

bool ObjectReader::ReadSet() {
  uint64_t n = 0;
  if (!in_.ReadLength(&n)) return Short();
  if (n == 0) return Empty();
  // rdbLoadObject: an intset while the count allows one, converted by the first member
  // that is not an integer.
  out_->obj = Value(std::make_unique<MemberSet>(n <= limits_.set.max_intset_entries));
  MemberSet* set = out_->obj.get<MemberSet>();
  std::string_view m;
  for (uint64_t i = 0; i < n; ++i) {
    if (!String(&m, &scratch_)) return false;
    if (!set->Add(m, limits_.set)) return Fail("Duplicate set members detected");
  }
  return true;
}

bool ObjectReader::ReadIntset() {
  std::string_view blob;
  if (!String(&blob, &scratch_)) return false;
  out_->obj = Value(std::make_unique<MemberSet>(true));
  MemberSet* set = out_->obj.get<MemberSet>();
  char buf[kMaxInt64Chars];
  // The check sees them ascending and distinct; Add converts past set-max-intset-entries.
  const bool ok = intset::ForEach(blob, [&](int64_t v) {
    set->Add(std::string_view(buf, size_t(FormatInt64(v, buf) - buf)), limits_.set);
    return true;
  });
  return ok || Fail("Intset integrity check failed");
}

bool ObjectReader::ReadZSet(uint8_t type) {
  uint64_t n = 0;
  if (!in_.ReadLength(&n)) return Short();
  if (n == 0) return Empty();
  ZSet* zset = Make<ZSet>();
  std::string_view m;
  for (uint64_t i = 0; i < n; ++i) {
    double score = 0;
    if (!String(&m, &scratch_)) return false;
    const bool read =
        type == kRdbTypeZSet2 ? in_.ReadBinaryDouble(&score) : in_.ReadStringDouble(&score);
    if (!read) return Short();
    if (std::isnan(score)) return Fail("Zset with NAN score detected");
    if (zset->Add(m, score, limits_.zset) != ZSet::AddResult::kAdded) {
      return Fail("Duplicate zset fields detected");
    }
  }
  return true;
}

bool ObjectReader::ReadZSetPairs(uint8_t type) {
  std::string_view blob;
  if (!String(&blob, &scratch_)) return false;
  ZSet* zset = Make<ZSet>();
  char buf[kMaxInt64Chars];
  std::string_view member;
  bool have_member = false, refused = false;
  const bool ok = ForEachElement(type == kRdbTypeZSetZiplist, blob, [&](const Element& e) {
    if (!have_member) {
      member = e.View(buf);
      have_member = true;
      return true;
    }
    have_member = false;
    const double score = ParseListpackScore(e);
    refused =
        std::isnan(score) || zset->Add(member, score, limits_.zset) != ZSet::AddResult::kAdded;
    return !refused;
  });
  if (refused) return Fail("Duplicate zset fields or NAN score detected");
  if (!ok || have_member) return Fail("Zset listpack integrity check failed");
  return zset->size() > 0 || Empty();
}

bool ObjectReader::ReadHash() {
  uint64_t n = 0;
  if (!in_.ReadLength(&n)) return Short();
  if (n == 0) return Empty();
  Hash* hash = Make<Hash>();
  std::string_view field, value;
  for (uint64_t i = 0; i < n; ++i) {
    if (!String(&field, &scratch_) || !String(&value, &scratch2_)) return false;
    if (!hash->Set(field, value, limits_.hash)) return Fail("Duplicate hash fields detected");
  }
  return true;
}

bool ObjectReader::ReadHashPairs(uint8_t type) {
  std::string_view blob;
  if (!String(&blob, &scratch_)) return false;
  Hash* hash = Make<Hash>();
  bool refused = false;
  if (type == kRdbTypeHashZipmap) {
    // Redis converts a zipmap by the value limit too (its maxlen check).
    const bool ok = zipmap::ForEach(blob, [&](std::string_view f, std::string_view v) {
      refused = !hash->Set(f, v, limits_.hash);
      return !refused;
    });
    if (refused) return Fail("Hash zipmap with dup elements");
    return ok || Fail("Zipmap integrity check failed");
  }
  // A listpack or ziplist hash stays compact whatever its values' lengths; only the
  // field count converts it (rdbLoadObject checks hash-max-listpack-entries alone).
  const Hash::Limits keep{limits_.hash.max_entries, std::numeric_limits<size_t>::max()};
  char fbuf[kMaxInt64Chars], vbuf[kMaxInt64Chars];
  std::string_view field;
  bool have_field = false;
  const bool ok = ForEachElement(type == kRdbTypeHashZiplist, blob, [&](const Element& e) {
    if (!have_field) {
      field = e.View(fbuf);
      have_field = true;
      return true;
    }
    have_field = false;
    refused = !hash->Set(field, e.View(vbuf), keep);
    return !refused;
  });
  if (refused) return Fail("Duplicate hash fields detected");
  if (!ok || have_field) return Fail("Hash listpack integrity check failed");
  return hash->size() > 0 || Empty();
}

bool ObjectReader::Read(uint8_t type) {
  out_->empty = false;
  out_->obj.Reset();
  switch (type) {
    case kRdbTypeString:
      out_->type = ValueType::kString;
      return in_.ReadString(&out_->str) || Short();
    case kRdbTypeList:
    case kRdbTypeListZiplist:
    case kRdbTypeListQuicklist:
    case kRdbTypeListQuicklist2:
      out_->type = ValueType::kList;
      return ReadList(type);
    case kRdbTypeSet:
      out_->type = ValueType::kSet;
      return ReadSet();
    case kRdbTypeSetIntset:
      out_->type = ValueType::kSet;
      return ReadIntset();
    case kRdbTypeZSet:
    case kRdbTypeZSet2:
      out_->type = ValueType::kZSet;
      return ReadZSet(type);
    case kRdbTypeZSetZiplist:
    case kRdbTypeZSetListpack:
      out_->type = ValueType::kZSet;
      return ReadZSetPairs(type);
    case kRdbTypeHash:
      out_->type = ValueType::kHash;
      return ReadHash();
    case kRdbTypeHashZipmap:
    case kRdbTypeHashZiplist:
    case kRdbTypeHashListpack:
      out_->type = ValueType::kHash;
      return ReadHashPairs(type);
    default:
      return Fail(StrCat("unknown or unsupported RDB object type ", int(type)));
  }
}

}  // namespace

bool RdbReadObject(uint8_t type, RdbReader& in, const RdbLimits& limits, RdbObject* out,
                   std::string* error) {
  if (ObjectReader(in, limits, out, error).Read(type)) return true;
  out->obj.Reset();
  return false;
}

}  // namespace rc
