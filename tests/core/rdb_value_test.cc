// The RDB value codec (core/rdb_value.h) against redis-server 7.0.15: DUMP payloads it
// made (golden bytes, each with the commands that made it) read back to the same values
// and are what ringcache writes for those values; payloads in the encodings older Redis
// versions wrote (ziplist, zipmap, quicklist 1, zset with string scores), which
// redis-server 7.0.15 RESTOREs, read back too; and every type and encoding round-trips.
// Malformed input: rdb_value_malformed_test.cc.
#include "core/rdb_value.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "core/entry.h"
#include "core/numbers.h"
#include "core/zset.h"
#include "tests/core/rdb_test_util.h"

namespace rc {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// The values of the golden payloads, built through the types' own APIs.
EntryPtr String(std::string_view v) { return Entry::MakeString("k", v); }
EntryPtr ListOf(const std::vector<std::string>& elems) {
  Value v = Value::Make<List>();
  for (const auto& e : elems) v.get<List>()->Push(e, List::End::kTail, {});
  return Entry::MakeValue("k", std::move(v));
}
EntryPtr SetOf(const std::vector<std::string>& members) {
  Value v(std::unique_ptr<MemberSet>(MemberSet::ForMember(members[0])));
  for (const auto& m : members) v.get<MemberSet>()->Add(m, {});
  return Entry::MakeValue("k", std::move(v));
}
EntryPtr HashOf(const std::vector<std::pair<std::string, std::string>>& pairs) {
  Value v = Value::Make<Hash>();
  for (const auto& [f, val] : pairs) v.get<Hash>()->Set(f, val, {});
  return Entry::MakeValue("k", std::move(v));
}
EntryPtr ZSetOf(const std::vector<std::pair<std::string, double>>& members) {
  Value v = Value::Make<ZSet>();
  for (const auto& [m, s] : members) v.get<ZSet>()->Add(m, s);
  return Entry::MakeValue("k", std::move(v));
}

struct Golden {
  const char* made_by;  // the redis-cli commands before DUMP k
  const char* hex;
  EntryPtr (*value)();
  const char* encoding;  // OBJECT ENCODING there and here
};

// DUMP k from redis-server 7.0.15 (Debian) after each set of commands.
const Golden kGolden[] = {
    {"SET k hello", "000568656c6c6f0a006372df766534200a", [] { return String("hello"); }, "embstr"},
    {"SET k 12345", "00c139300a009d94ea2793fc08b9", [] { return String("12345"); }, "int"},
    {"SET k 123456789012", "000c3132333435363738393031320a00911001b1d116e7ac",
     [] { return String("123456789012"); }, "int"},
    {"SET k <'a' x 100>", "00c3094064016161e057000161610a00e8a3b507b06df271",
     [] { return String(std::string(100, 'a')); }, "raw"},
    {"RPUSH k a 1 -1 300 -5000 70000 -9000000 3000000000 'hello world'",
     "120102383800000009008161020101dfff02c12c02f178ec03f270110104f3c0ab76ff05f4005ed0b2000000"
     "00098b68656c6c6f20776f726c640cff0a000d171ec8ab3d0794",
     [] {
       return ListOf(
           {"a", "1", "-1", "300", "-5000", "70000", "-9000000", "3000000000", "hello world"});
     },
     "quicklist"},
    {"SADD k 1 2 -3 100000",
     "0b180400000004000000fdffffff0100000002000000a08601000a00e56f68d5ee10feb5",
     [] {
       return SetOf({"1", "2", "-3", "100000"});
     },
     "intset"},
    {"SADD k 1 5000000000",
     "0b180800000002000000010000000000000000f2052a010000000a0054f5a26ae707b5fc",
     [] {
       return SetOf({"1", "5000000000"});
     },
     "intset"},
    {"SADD k a", "020101610a006296e97e44d21a6d", [] { return SetOf({"a"}); }, "hashtable"},
    {"ZADD k 1 a 1.5 b -0 c 1e17 d inf e 12 13",
     "1132320000000c008163020001816102010181620283312e35040d010c01816402f400008a5d784563010981"
     "650283696e6604ff0a00e3051bfa51e110cc",
     // A listpack keeps an integral score as an integer: -0 reads back as 0.
     [] {
       return ZSetOf({{"a", 1}, {"b", 1.5}, {"c", 0}, {"d", 1e17}, {"e", kInfinity}, {"13", 12}});
     },
     "listpack"},
    {"ZADD k 1.1 a 5e18 b 1e300 c -4e18 e 0.1 f",
     "11c3404a40691a690000000a00816502f40000706231257dc80981660293302e3130e005000631148161029231"
     "e007171131138162028535652b31380681630297312ee00536083031652b33303018ff0a005514f05137b611"
     "fd",
     [] {
       return ZSetOf({{"a", 1.1}, {"b", 5e18}, {"c", 1e300}, {"e", -4e18}, {"f", 0.1}});
     },
     "listpack"},
    {"ZADD k -0 a", "110c0c00000002008161020001ff0a00b6d868235c4c3737",
     [] {
       return ZSetOf({{"a", 0}});
     },
     "listpack"},
    {"HSET k f v n 123 big -70000",
     "101c1c0000000600816602817602816e027b018362696704f290eefe04ff0a00741d1c90baffea40",
     [] {
       return HashOf({{"f", "v"}, {"n", "123"}, {"big", "-70000"}});
     },
     "listpack"},
    {"HSET k f <'v' x 70>", "04010166c3094046017676e039000176760a00f21bfa0a02f2749c",
     [] {
       return HashOf({{"f", std::string(70, 'v')}});
     },
     "hashtable"},
    {"ZADD k 1 <'a' x 70> 2 b",
     "050201620000000000000040c3094046016161e03900016161000000000000f03f0a007533cff52ba36f43",
     [] {
       return ZSetOf({{std::string(70, 'a'), 1}, {"b", 2}});
     },
     "skiplist"},
};

TEST(RdbValueTest, RedisPayloadsReadBackAndAreWhatWeWrite) {
  for (const Golden& g : kGolden) {
    SCOPED_TRACE(g.made_by);
    const std::string payload = FromHex(g.hex);
    Decoded d = DecodePayload(payload);
    ASSERT_TRUE(d.ok) << d.error;
    const EntryPtr want = g.value();
    EXPECT_EQ(Describe(*d.entry), Describe(*want));
    EXPECT_EQ(EncodingOf(*d.entry), g.encoding);
    EXPECT_EQ(EncodingOf(*want), g.encoding);
    EXPECT_EQ(ToHex(RdbDumpPayload(*want, true)), g.hex);
  }
}

// Payloads in the encodings of Redis before 7.0, made by tests/core/rdb_test_util.h's
// description of each format; redis-server 7.0.15 RESTOREs every one of them to the
// value given (its TYPE, contents and OBJECT ENCODING afterwards).
struct Legacy {
  const char* what;
  const char* hex;
  const char* described;
  const char* encoding;
};
const Legacy kLegacy[] = {
    {"list ziplist (10): a 5 -200 70000 2^40 <'x' x 70> 300 -1",
     "0a4073730000006f000000080000016103f602c038ff04f070110105e000000000000100000a404678787878"
     "7878787878787878787878787878787878787878787878787878787878787878787878787878787878787878"
     "7878787878787878787878787878787878787878787849c02c0104feffff09009b1de1e45bafa27d",
     "list[a,5,-200,70000,1099511627776,xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
     "xxxxxxxxxxxxxxxxx,300,-1]",
     "quicklist"},
    {"list quicklist (14) of two ziplists: [a 1] [b 2]",
     "0e0210100000000d000000020000016103f2ff10100000000d000000020000016203f3ff09003d043e950e63"
     "20b7",
     "list[a,1,b,2]", "quicklist"},
    {"hash ziplist (13): f1 v1 f2 7",
     "0d191900000016000000040000026631040276310402663204f8ff0900cfa9dae931825f96",
     "hash{f1=v1,f2=7}", "listpack"},
    {"zset ziplist (12): m1 1 m2 '2.5'",
     "0c1a1a00000014000000040000026d3104f202026d320403322e35ff0900e6433025a7ddf923",
     "zset[m1:1,m2:2.5]", "listpack"},
    {"hash zipmap (9): f1 v1 f2 v2", "0910020266310200763102663202007632ff0900b74965a97fda143a",
     "hash{f1=v1,f2=v2}", "listpack"},
    {"zset (3), string scores: a 1.5, b +inf, c -inf",
     "0303016103312e350162fe0163ff0900d624e41d4f566bfe", "zset[c:-inf,a:1.5,b:inf]", "listpack"},
    {"list (1): x 7", "01020178c00709005871e3cc6c107a7e", "list[x,7]", "quicklist"},
};

TEST(RdbValueTest, OlderEncodingsReadAsRedis70LoadsThem) {
  for (const Legacy& l : kLegacy) {
    SCOPED_TRACE(l.what);
    Decoded d = DecodePayload(FromHex(l.hex));
    ASSERT_TRUE(d.ok) << d.error;
    EXPECT_EQ(Describe(*d.entry), l.described);
    EXPECT_EQ(EncodingOf(*d.entry), l.encoding);
  }
}

// Writes `e`, reads it back, and checks contents, encoding and that the body was read to
// its end; RdbSkipObject must land on the same place.
void RoundTrip(const Entry& e, const RdbLimits& limits = {}) {
  for (bool compress : {true, false}) {
    std::string body;
    RdbAppendObject(e, compress, &body);
    body += "tail";
    const uint8_t type = RdbObjectType(e);
    ASSERT_TRUE(RdbIsObjectType(type));
    RdbReader in(body);
    RdbObject obj;
    std::string error;
    ASSERT_TRUE(RdbReadObject(type, in, limits, &obj, &error)) << error;
    EXPECT_EQ(in.remaining(), 4u);
    EntryPtr back = ToEntry(std::move(obj));
    EXPECT_EQ(Describe(*back), Describe(e));
    EXPECT_EQ(EncodingOf(*back), EncodingOf(e));
    RdbReader skip(body);
    ASSERT_TRUE(RdbSkipObject(type, skip));
    EXPECT_EQ(skip.remaining(), 4u);
  }
}

std::vector<std::string> Numbered(std::string_view prefix, int n, size_t pad = 0) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i)
    out.push_back(std::string(prefix) + std::to_string(i) + std::string(pad, 'p'));
  return out;
}

TEST(RdbValueTest, EveryTypeAndEncodingRoundTrips) {
  for (const std::string& s :
       std::vector<std::string>{"", "x", "-1", "2147483648", "007", std::string(5000, 'z')}) {
    RoundTrip(*String(s));
  }
  RoundTrip(*ListOf({"one"}));
  RoundTrip(*ListOf(Numbered("e", 5000)));                                     // many nodes
  RoundTrip(*ListOf(Numbered("", 3000)));                                      // integers
  RoundTrip(*ListOf({std::string(20000, 'b'), "s", std::string(9000, 'c')}));  // big ones
  RoundTrip(*SetOf(Numbered("", 500)));                                        // intset
  RoundTrip(*SetOf({"-9223372036854775808", "9223372036854775807", "0"}));
  RoundTrip(*SetOf(Numbered("m", 100)));   // compact hashtable
  RoundTrip(*SetOf(Numbered("m", 2000)));  // big hashtable
  RoundTrip(*HashOf({{"a", "1"}, {"b", ""}, {"", "c"}}));
  std::vector<std::pair<std::string, std::string>> fields;
  for (int i = 0; i < 1000; ++i) fields.push_back({"f" + std::to_string(i), std::to_string(i)});
  RoundTrip(*HashOf(fields));  // hashtable
  std::vector<std::pair<std::string, double>> members;
  for (int i = 0; i < 300; ++i) members.push_back({"m" + std::to_string(i), i * 0.25 - 7});
  RoundTrip(*ZSetOf(members));  // skiplist
  members.resize(100);
  RoundTrip(*ZSetOf(members));  // listpack
  RoundTrip(*ZSetOf({{"a", -kInfinity}, {"b", 4.7e-310}, {"c", 1e200}, {"d", 0.5}}));
}

// Redis's rdbLoadObject converts by the loading server's limits, not the writer's.
TEST(RdbValueTest, LoadingConvertsByTheGivenLimits) {
  RdbLimits small;
  small.hash = {.max_entries = 4, .max_value = 3};
  small.set = {.max_intset_entries = 4};
  auto load = [&](const Entry& e) {
    std::string body;
    RdbAppendObject(e, true, &body);
    RdbReader in(body);
    RdbObject obj;
    std::string error;
    EXPECT_TRUE(RdbReadObject(RdbObjectType(e), in, small, &obj, &error)) << error;
    return ToEntry(std::move(obj));
  };
  EXPECT_EQ(EncodingOf(*load(*SetOf({"1", "2", "3", "4"}))), "intset");
  EXPECT_EQ(EncodingOf(*load(*SetOf(Numbered("", 5)))), "hashtable");
  EXPECT_EQ(EncodingOf(*load(*HashOf({{"a", "1"}}))), "listpack");
  EXPECT_EQ(
      EncodingOf(*load(*HashOf({{"a", "1"}, {"b", "2"}, {"c", "3"}, {"d", "4"}, {"e", "5"}}))),
      "hashtable");
  // A listpack hash keeps its long values (only its count converts it), as in Redis;
  // written out as a hashtable, the same hash converts on them.
  EXPECT_EQ(EncodingOf(*load(*HashOf({{"a", "long value"}}))), "listpack");
}

// A list splits into nodes as Redis's quicklist (list-max-listpack-size -2) splits one
// built with RPUSH: for 3000 elements "elem00000".. redis-server 7.0.15's DUMP payload
// (RPUSH k in batches of 100, then DUMP k) had 5 nodes, and its size and footer (whose
// CRC-64 covers every byte) were these, with rdbcompression yes and no.
TEST(RdbValueTest, ListNodesSplitAsRedisSplitsThem) {
  std::vector<std::string> elems;
  char buf[16];
  for (int i = 0; i < 3000; ++i) {
    std::snprintf(buf, sizeof buf, "elem%05d", i);
    elems.push_back(buf);
  }
  const EntryPtr list = ListOf(elems);
  const std::string packed = RdbDumpPayload(*list, true);
  EXPECT_EQ(packed.size(), 14847u);
  EXPECT_EQ(ToHex(packed.substr(packed.size() - 10)), "0a00b0e8fa7fee2357ff");
  const std::string plain = RdbDumpPayload(*list, false);
  EXPECT_EQ(plain.size(), 33062u);
  EXPECT_EQ(ToHex(plain.substr(plain.size() - 10)), "0a005b08643e1e4f52ad");
  RdbReader in(packed);
  uint8_t type = 0;
  uint64_t nodes = 0;
  ASSERT_TRUE(in.ReadByte(&type) && in.ReadLength(&nodes));
  EXPECT_EQ(type, kRdbTypeListQuicklist2);
  EXPECT_EQ(nodes, 5u);
}

}  // namespace
}  // namespace rc
