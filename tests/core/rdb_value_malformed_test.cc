// The RDB value codec on input that is cut short, corrupted or refused by Redis: every
// read fails with an error (never a crash or a read out of bounds: the sanitizer builds
// run these), and the values Redis refuses (duplicates, NaN scores, empty collections)
// are refused here. The fuzz target tests/fuzz/rdb_value_fuzz.cc goes further.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>

#include "core/intset.h"
#include "core/listpack.h"
#include "core/rdb_value.h"
#include "core/ziplist.h"
#include "tests/core/rdb_test_util.h"

namespace rc {
namespace {

bool Reads(uint8_t type, std::string_view body, std::string* error = nullptr,
           bool* empty = nullptr) {
  RdbReader in(body);
  RdbObject obj;
  std::string err;
  const bool ok = RdbReadObject(type, in, {}, &obj, &err);
  if (error != nullptr) *error = err;
  if (empty != nullptr) *empty = obj.empty;
  if (!ok) {
    EXPECT_FALSE(err.empty());
  }
  return ok;
}

std::string Blob(std::string_view bytes) {
  std::string out;
  RdbAppendString(bytes, &out, false);
  return out;
}

std::string Listpack(std::initializer_list<std::string_view> elems) {
  std::string lp;
  listpack::Writer w(&lp);
  for (std::string_view e : elems) w.Add(e);
  w.Finish();
  return lp;
}

// Bodies of every type and encoding (golden payloads of rdb_value_test.cc, less type
// byte and footer).
std::vector<std::pair<uint8_t, std::string>> Samples() {
  const char* payloads[] = {
      "00c3094064016161e057000161610a00e8a3b507b06df271",
      "120102383800000009008161020101dfff02c12c02f178ec03f270110104f3c0ab76ff05f4005ed0b2000000"
      "00098b68656c6c6f20776f726c640cff0a000d171ec8ab3d0794",
      "0b180400000004000000fdffffff0100000002000000a08601000a00e56f68d5ee10feb5",
      "020101610a006296e97e44d21a6d",
      "1132320000000c008163020001816102010181620283312e35040d010c01816402f400008a5d7845630109"
      "81650283696e6604ff0a00e3051bfa51e110cc",
      "101c1c0000000600816602817602816e027b018362696704f290eefe04ff0a00741d1c90baffea40",
      "04010166c3094046017676e039000176760a00f21bfa0a02f2749c",
      "050201620000000000000040c3094046016161e03900016161000000000000f03f0a007533cff52ba36f43",
      "0e0210100000000d000000020000016103f2ff10100000000d000000020000016203f3ff09003d043e950e"
      "6320b7",
      "0d191900000016000000040000026631040276310402663204f8ff0900cfa9dae931825f96",
      "0c1a1a00000014000000040000026d3104f202026d320403322e35ff0900e6433025a7ddf923",
      "0910020266310200763102663202007632ff0900b74965a97fda143a",
      "0303016103312e350162fe0163ff0900d624e41d4f566bfe",
  };
  std::vector<std::pair<uint8_t, std::string>> out;
  for (const char* hex : payloads) {
    const std::string p = FromHex(hex);
    out.push_back({uint8_t(p[0]), p.substr(1, p.size() - 11)});
  }
  return out;
}

TEST(RdbValueMalformedTest, EveryTruncationFails) {
  for (const auto& [type, body] : Samples()) {
    ASSERT_TRUE(Reads(type, body)) << int(type);
    for (size_t cut = 0; cut < body.size(); ++cut) {
      EXPECT_FALSE(Reads(type, body.substr(0, cut))) << int(type) << " cut at " << cut;
      RdbReader skip(std::string_view(body).substr(0, cut));
      EXPECT_FALSE(RdbSkipObject(type, skip)) << int(type) << " cut at " << cut;
    }
  }
}

// Any byte changed: the read may succeed (a changed character) or fail, never misbehave.
TEST(RdbValueMalformedTest, CorruptedBytesNeverMisbehave) {
  for (const auto& [type, body] : Samples()) {
    for (size_t i = 0; i < body.size(); ++i) {
      for (uint8_t flip : {0x01, 0x80, 0xff, 0x3f}) {
        std::string bad = body;
        bad[i] = char(bad[i] ^ flip);
        Reads(type, bad);
        RdbReader skip(bad);
        RdbSkipObject(type, skip);
      }
    }
  }
}

TEST(RdbValueMalformedTest, DuplicatesAreRefused) {
  std::string error;
  EXPECT_FALSE(Reads(kRdbTypeHashListpack, Blob(Listpack({"f", "1", "f", "2"})), &error));
  EXPECT_EQ(error, "Duplicate hash fields detected");
  EXPECT_FALSE(Reads(kRdbTypeZSetListpack, Blob(Listpack({"m", "1", "m", "2"})), &error));
  std::string set;
  RdbAppendLength(2, &set);
  RdbAppendString("7", &set);
  RdbAppendString("7", &set);
  EXPECT_FALSE(Reads(kRdbTypeSet, set, &error));
  EXPECT_EQ(error, "Duplicate set members detected");
  std::string hash;
  RdbAppendLength(2, &hash);
  for (int i = 0; i < 2; ++i) {
    RdbAppendString("f", &hash);
    RdbAppendString("v", &hash);
  }
  EXPECT_FALSE(Reads(kRdbTypeHash, hash, &error));
  // An intset not strictly ascending holds a duplicate or is out of order.
  std::string ints;
  const int64_t twice[] = {3, 3};
  intset::Append(twice, &ints);
  EXPECT_FALSE(Reads(kRdbTypeSetIntset, Blob(ints), &error));
  EXPECT_EQ(error, "Intset integrity check failed");
}

TEST(RdbValueMalformedTest, NanScoresAndOddPairsAreRefused) {
  std::string zset;
  RdbAppendLength(1, &zset);
  RdbAppendString("m", &zset);
  RdbAppendBinaryDouble(std::nan(""), &zset);
  std::string error;
  EXPECT_FALSE(Reads(kRdbTypeZSet2, zset, &error));
  EXPECT_EQ(error, "Zset with NAN score detected");
  std::string old;
  RdbAppendLength(1, &old);
  RdbAppendString("m", &old);
  old.push_back(char(253));  // rdbSaveDoubleValue's NaN
  EXPECT_FALSE(Reads(kRdbTypeZSet, old));
  EXPECT_FALSE(Reads(kRdbTypeZSetListpack, Blob(Listpack({"m", "nan"}))));
  EXPECT_FALSE(Reads(kRdbTypeHashListpack, Blob(Listpack({"f", "v", "g"}))));
  EXPECT_FALSE(Reads(kRdbTypeZSetListpack, Blob(Listpack({"m"}))));
}

TEST(RdbValueMalformedTest, EmptyValuesAreRefusedAndSaySo) {
  std::string zero;
  RdbAppendLength(0, &zero);
  for (uint8_t type : {kRdbTypeList, kRdbTypeSet, kRdbTypeZSet, kRdbTypeZSet2, kRdbTypeHash,
                       kRdbTypeListQuicklist, kRdbTypeListQuicklist2}) {
    bool empty = false;
    EXPECT_FALSE(Reads(type, zero, nullptr, &empty)) << int(type);
    EXPECT_TRUE(empty) << int(type);
  }
  bool empty = false;
  EXPECT_FALSE(Reads(kRdbTypeHashListpack, Blob(Listpack({})), nullptr, &empty));
  EXPECT_TRUE(empty);
  // A quicklist whose only node is an empty listpack is an empty list.
  std::string ql;
  RdbAppendLength(1, &ql);
  RdbAppendLength(2, &ql);
  ql += Blob(Listpack({}));
  EXPECT_FALSE(Reads(kRdbTypeListQuicklist2, ql, nullptr, &empty));
  EXPECT_TRUE(empty);
  // A broken value is not an empty one.
  EXPECT_FALSE(Reads(kRdbTypeHashListpack, Blob("garbage"), nullptr, &empty));
  EXPECT_FALSE(empty);
}

TEST(RdbValueMalformedTest, UnknownTypesAndContainersAreRefused) {
  std::string error;
  for (uint8_t type : {6, 7, 8, 15, 19, 20, 255}) {
    EXPECT_FALSE(RdbIsObjectType(type)) << int(type);
    EXPECT_FALSE(Reads(type, "\x01", &error)) << int(type);
    RdbReader skip("\x01");
    EXPECT_FALSE(RdbSkipObject(type, skip));
  }
  std::string ql;
  RdbAppendLength(1, &ql);
  RdbAppendLength(3, &ql);  // neither PLAIN nor PACKED
  ql += Blob(Listpack({"a"}));
  EXPECT_FALSE(Reads(kRdbTypeListQuicklist2, ql, &error));
  EXPECT_EQ(error, "Quicklist integrity check failed");
}

TEST(RdbValueMalformedTest, ListpackChecks) {
  auto valid = [](std::string_view lp) {
    return listpack::ForEach(lp, [](const listpack::Element&) { return true; });
  };
  const std::string good = Listpack({"abc", "12", std::string(100, 'x')});
  ASSERT_TRUE(valid(good));
  std::string bad = good;
  bad[0] = char(bad[0] + 1);  // total bytes
  EXPECT_FALSE(valid(bad));
  bad = good;
  bad[4] = 2;  // count
  EXPECT_FALSE(valid(bad));
  bad = good;
  bad[6 + 4] = 9;  // the first entry's backlen
  EXPECT_FALSE(valid(bad));
  bad = good;
  bad[6] = char(0xF7);  // no such encoding
  EXPECT_FALSE(valid(bad));
  bad = good;
  bad.back() = 0;  // terminator
  EXPECT_FALSE(valid(bad));
  // A ziplist of "a" and 1, then with its second entry's prevlen or its tail offset
  // lying.
  auto zl_valid = [](std::string_view zl) {
    return ziplist::ForEach(zl, [](const listpack::Element&) { return true; });
  };
  EXPECT_TRUE(
      zl_valid(FromHex("100000000d0000000200000161"
                       "03f2ff")));
  EXPECT_FALSE(
      zl_valid(FromHex("100000000d0000000200000161"
                       "04f2ff")));
  EXPECT_FALSE(
      zl_valid(FromHex("100000000a0000000200000161"
                       "03f2ff")));
}

}  // namespace
}  // namespace rc
