// TTL commands against redis-server (1, 2 and 3 threads): EXPIRE PEXPIRE EXPIREAT PEXPIREAT
// with NX XX GT LT, TTL PTTL EXPIRETIME PEXPIRETIME, PERSIST, SETEX PSETEX, GETEX, SET's
// expiry options; every error reply; which writes keep or clear a TTL; RENAME keeping it;
// and keys whose deadline already passed being invisible to every command.
//
// Replies that depend on the moment a command ran (TTL, PTTL, EXPIRETIME after a relative
// expire) are compared with a tolerance (SameTtl); everything else byte for byte. Absolute
// deadlines use fixed timestamps in the year 2100, so EXPIRETIME/PEXPIRETIME compare exactly.
// No test here waits for a deadline: "already expired" keys are made with PXAT 1.

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/integration/fixtures.h"
#include "tests/integration/polling.h"

namespace rc::it {
namespace {

// 2100-01-01T00:00:00Z and a few later instants, in seconds and in milliseconds.
constexpr int64_t kT1 = 4102444800;
constexpr int64_t kT2 = kT1 + 100;
constexpr int64_t kT3 = kT1 + 200;
const std::string kT1s = std::to_string(kT1);
const std::string kT2s = std::to_string(kT2);
const std::string kT3s = std::to_string(kT3);

class DiffExpireTest : public DiffTest {
 protected:
  // Sends a TTL-like command to both servers. Negative replies (-1 no TTL, -2 no key) and
  // errors must be equal; non-negative ones within `slack` of each other (the two servers
  // saw the command at slightly different moments). Returns ringcache's value.
  int64_t SameTtl(const Args& cmd, int64_t slack) {
    std::string want = redisc_->Cmd(cmd);
    std::string got = rcc_->Cmd(cmd);
    int64_t w = AsInt(want), g = AsInt(got);
    if (w >= 0 && g >= 0) {
      EXPECT_LE(std::llabs(w - g), slack) << "reply differs from redis-server by more than "
                                          << slack << "\n  command:   " << Describe(cmd)
                                          << "\n  redis:     " << want << "\n  ringcache: " << got;
    } else if (got != want) {
      ADD_FAILURE() << "reply differs from redis-server\n  command:   " << Describe(cmd)
                    << "\n  redis:     " << want << "\n  ringcache: " << got;
    }
    return g;
  }
  // TTL (1 s slack) and PTTL (1000 ms slack) of `key` on both servers.
  int64_t SameTtl(const std::string& key) {
    SameTtl({"PTTL", key}, 1000);
    return SameTtl({"TTL", key}, 1);
  }
  // `what` on ringcache, in [lo, hi].
  void ExpectBetween(const Args& cmd, int64_t lo, int64_t hi) {
    std::string got = rcc_->Cmd(cmd);
    int64_t v = AsInt(got);
    EXPECT_TRUE(v >= lo && v <= hi)
        << Describe(cmd) << " -> " << got << ", want [" << lo << ", " << hi << "]";
  }
  // A key on another shard than `key` (the same shard with one thread).
  std::string OtherShardKey(const std::string& prefix, const std::string& key) {
    int shard = (ShardOf(key, threads()) + 1) % threads();
    return KeysOnShard(prefix, shard, threads(), 1)[0];
  }
  void SameInfoInt(const std::string& section, const std::string& field) {
    EXPECT_EQ(InfoInt(*rcc_, section, field), InfoInt(*redisc_, section, field))
        << "INFO " << section << " " << field;
  }
};

TEST_P(DiffExpireTest, ArityOfTtlCommands) {
  for (const char* name : {"EXPIRE", "PEXPIRE", "EXPIREAT", "PEXPIREAT", "TTL", "PTTL",
                           "EXPIRETIME", "PEXPIRETIME", "PERSIST", "SETEX", "PSETEX", "GETEX"}) {
    Same({name});
  }
  Script({
      {"EXPIRE", "k"},
      {"pexpire", "k"},
      {"EXPIREAT", "k"},
      {"PEXPIREAT", "k"},
      {"TTL", "k", "x"},
      {"PTTL", "k", "x"},
      {"EXPIRETIME", "k", "x"},
      {"PEXPIRETIME", "k", "x"},
      {"PERSIST", "k", "x"},
      {"SETEX", "k", "10"},
      {"SETEX", "k", "10", "v", "x"},
      {"PSETEX", "k", "10"},
      {"PSETEX", "k", "10", "v", "x"},
  });
}

TEST_P(DiffExpireTest, ExpireOptionAndArgumentErrors) {
  Same({"SET", "k", "v"});
  for (const char* name : {"EXPIRE", "PEXPIRE", "EXPIREAT", "PEXPIREAT"}) {
    std::string n = name;
    Script({
        // Not an integer, on an existing and on a missing key.
        {n, "k", "abc"},
        {n, "k", "1.5"},
        {n, "k", ""},
        {n, "k", " 100"},
        {n, "k", "100 "},
        {n, "k", "0x10"},
        {n, "k", "+100"},
        {n, "k", "0100"},
        {n, "k", "-0"},
        {n, "k", "1e3"},
        {n, "k", "9223372036854775808"},
        {n, "missing", "abc"},
        // Options are checked before the number and before the key.
        {n, "k", "100", "FOO"},
        {n, "k", "abc", "FOO"},
        {n, "missing", "100", "bar"},
        {n, "k", "100", "NX", "XX"},
        {n, "k", "100", "XX", "NX"},
        {n, "k", "100", "NX", "GT"},
        {n, "k", "100", "lt", "nx"},
        {n, "k", "100", "GT", "LT"},
        {n, "k", "100", "LT", "GT"},
        {n, "k", "100", "XX", "GT", "LT"},
        {n, "k", "abc", "NX", "XX"},
        {n, "k", "abc", "GT", "LT"},
        {n, "missing", "100", "NX", "XX"},
        {n, "k", "100", "NX", "FOO"},
        {n, "k", "100", "FOO", "NX", "XX"},
        {n, "k", "100", "KEEPTTL"},
        {n, "k", "100", "EX"},
        {n, "k", "100", ""},
        {"TTL", "k"},
    });
  }
}

TEST_P(DiffExpireTest, ExpireOverflowNegativeAndZero) {
  Script({
      {"SET", "k", "v"},
      // Overflow in the unit conversion or when adding the current time.
      {"EXPIRE", "k", "9223372036854775807"},
      {"EXPIRE", "k", "9223372036854776"},
      {"EXPIRE", "k", "9223372036854775"},
      {"EXPIRE", "k", "-9223372036854775808"},
      {"EXPIRE", "k", "-9223372036854776"},
      {"PEXPIRE", "k", "9223372036854775807"},
      {"PEXPIRE", "k", "9223372036854775000"},
      {"EXPIREAT", "k", "9223372036854775807"},
      {"EXPIREAT", "k", "9223372036854776"},
      {"EXPIREAT", "k", "-9223372036854775808"},
      {"EXPIRE", "missing", "9223372036854775807"},
      {"EXPIRE", "k", "9223372036854775807", "NX"},
      {"TTL", "k"},
      {"EXISTS", "k"},
      // The largest deadlines that do not overflow are accepted.
      {"PEXPIREAT", "k", "9223372036854775807"},
      {"PEXPIRETIME", "k"},
      {"EXPIREAT", "k", "9223372036854775"},
      {"EXPIRETIME", "k"},
      {"PEXPIRETIME", "k"},
  });
  SameTtl("k");
  // Zero and negative relative values, and absolute ones in the past, delete the key.
  for (const Args& expire :
       {Args{"EXPIRE", "k", "0"}, Args{"EXPIRE", "k", "-1"}, Args{"PEXPIRE", "k", "0"},
        Args{"PEXPIRE", "k", "-100"}, Args{"EXPIRE", "k", "-9223372036854775"},
        Args{"PEXPIRE", "k", "-9223372036854775808"}, Args{"EXPIREAT", "k", "0"},
        Args{"EXPIREAT", "k", "1"}, Args{"EXPIREAT", "k", "-5"}, Args{"PEXPIREAT", "k", "0"},
        Args{"PEXPIREAT", "k", "1"}, Args{"PEXPIREAT", "k", "-9223372036854775808"}}) {
    Script({{"SET", "k", "v"}, expire, {"EXISTS", "k"}, {"GET", "k"}, {"TTL", "k"}, expire});
  }
}

TEST_P(DiffExpireTest, ExpireNxXxGtLt) {
  Script({
      {"EXPIREAT", "missing", kT1s},
      {"EXPIREAT", "missing", kT1s, "NX"},
      {"EXPIREAT", "missing", kT1s, "LT"},
      {"SET", "k", "v"},
      // No TTL: XX and GT fail (no TTL counts as infinite), NX and LT succeed.
      {"EXPIREAT", "k", kT2s, "XX"},
      {"EXPIREAT", "k", kT2s, "GT"},
      {"EXPIREAT", "k", kT2s, "XX", "LT"},
      {"TTL", "k"},
      {"EXPIREAT", "k", kT2s, "LT"},
      {"EXPIRETIME", "k"},
      {"PERSIST", "k"},
      {"EXPIREAT", "k", kT2s, "nx"},
      {"EXPIRETIME", "k"},
      // With a TTL.
      {"EXPIREAT", "k", kT1s, "NX"},
      {"EXPIREAT", "k", kT1s, "GT"},
      {"EXPIREAT", "k", kT2s, "GT"},
      {"EXPIREAT", "k", kT3s, "GT"},
      {"EXPIRETIME", "k"},
      {"EXPIREAT", "k", kT3s, "LT"},
      {"EXPIREAT", "k", kT3s, "Lt"},
      {"EXPIREAT", "k", kT1s, "LT"},
      {"EXPIRETIME", "k"},
      {"EXPIREAT", "k", kT2s, "XX"},
      {"EXPIREAT", "k", kT1s, "XX", "GT"},
      {"EXPIREAT", "k", kT3s, "XX", "GT"},
      {"EXPIREAT", "k", kT3s, "GT", "XX"},
      {"EXPIREAT", "k", kT1s, "XX", "LT"},
      {"EXPIREAT", "k", kT1s, "XX", "XX"},
      {"EXPIREAT", "k", kT2s, "GT", "GT"},
      {"EXPIRETIME", "k"},
      {"PEXPIRETIME", "k"},
      // Relative forms agree with the absolute ones.
      {"PEXPIREAT", "k", absl::StrCat(kT1, "000"), "LT"},
      {"PEXPIRE", "k", "100000000000000", "LT"},
      {"EXPIRE", "k", "100000000000", "GT"},
  });
  SameTtl({"EXPIRETIME", "k"}, 1);
  Script({
      {"EXPIRE", "k", "100", "NX"},
      {"EXPIRE", "k", "100", "XX"},
  });
  SameTtl("k");
  Script({
      {"PEXPIRE", "k", "200000", "GT"},
      {"PEXPIRE", "k", "50000", "GT"},
  });
  SameTtl("k");
  Script({
      {"PEXPIRE", "k", "500000", "LT"},
      {"PEXPIRE", "k", "50000", "LT"},
  });
  SameTtl("k");
  Script({
      // A past deadline that passes the condition deletes the key; one that fails keeps it.
      {"EXPIRE", "k", "-1", "GT"},
      {"EXPIRE", "k", "-1", "NX"},
      {"EXISTS", "k"},
      {"EXPIRE", "k", "-1", "LT"},
      {"EXISTS", "k"},
      {"SET", "k", "v"},
      {"EXPIRE", "k", "-1", "XX"},
      {"EXPIRE", "k", "-1", "GT"},
      {"EXISTS", "k"},
      {"EXPIREAT", "k", "1", "LT"},
      {"EXISTS", "k"},
      {"SET", "k", "v"},
      {"PEXPIRE", "k", "-1", "NX"},
      {"EXISTS", "k"},
  });
}

TEST_P(DiffExpireTest, ExpireInThePastDeletesWithoutCountingAsExpired) {
  std::string other = OtherShardKey("o", "k");
  Script({
      {"SET", "k", "v"},
      {"SET", other, "v", "EX", "1000"},
      {"EXPIRE", "k", "-10"},
      {"EXPIRE", other, "0"},
      {"DBSIZE"},
      {"KEYS", "*"},
      {"GET", "k"},
      {"GET", other},
      {"EXPIRE", "k", "-10"},
      {"TTL", "k"},
      {"PTTL", other},
  });
  // Redis counts a key deleted by EXPIRE as deleted, not as expired.
  SameInfoInt("stats", "expired_keys");
}

TEST_P(DiffExpireTest, TtlAndPttlReplies) {
  Script({
      {"TTL", "missing"},
      {"PTTL", "missing"},
      {"EXPIRETIME", "missing"},
      {"PEXPIRETIME", "missing"},
      {"SET", "k", "v"},
      {"TTL", "k"},
      {"PTTL", "k"},
      {"EXPIRETIME", "k"},
      {"PEXPIRETIME", "k"},
      {"EXPIRE", "k", "100"},
  });
  SameTtl("k");
  ExpectBetween({"TTL", "k"}, 98, 100);
  ExpectBetween({"PTTL", "k"}, 98000, 100000);
  int64_t now_s = NowUnixMs() / 1000;
  SameTtl({"EXPIRETIME", "k"}, 1);
  ExpectBetween({"EXPIRETIME", "k"}, now_s + 98, now_s + 102);
  Same({"PEXPIRE", "k", "3000"});
  SameTtl("k");
  ExpectBetween({"PTTL", "k"}, 1, 3000);
  Same({"PEXPIRE", "k", "100000"});
  SameTtl({"PEXPIRETIME", "k"}, 1000);
}

TEST_P(DiffExpireTest, ExpireTimeOfFixedDeadlines) {
  Script({
      {"SET", "k", "v"},
      {"EXPIREAT", "k", kT1s},
      {"EXPIRETIME", "k"},
      {"PEXPIRETIME", "k"},
      {"PEXPIREAT", "k", absl::StrCat(kT2, "000")},
      {"EXPIRETIME", "k"},
      {"PEXPIRETIME", "k"},
      {"SET", "s", "v", "EXAT", kT3s},
      {"EXPIRETIME", "s"},
      {"PEXPIRETIME", "s"},
      {"SET", "s", "v", "PXAT", absl::StrCat(kT3, "007")},
      {"PEXPIRETIME", "s"},
      {"EXPIRETIME", "s"},
  });
}

// EXPIRETIME is the deadline in milliseconds rounded to the nearest second (Redis's
// ttlGenericCommand: (expire + 500) / 1000), not truncated.
TEST_P(DiffExpireTest, ExpireTimeRoundsToNearestSecond) {
  for (const char* ms : {"000", "001", "499", "500", "501", "999"}) {
    std::string at = absl::StrCat(kT1, ms);
    Script({
        {"SET", "k", "v", "PXAT", at},
        {"PEXPIRETIME", "k"},
        {"EXPIRETIME", "k"},
        {"PEXPIREAT", "k", at},
        {"EXPIRETIME", "k"},
    });
  }
}

TEST_P(DiffExpireTest, Persist) {
  std::string other = OtherShardKey("o", "k");
  Script({
      {"PERSIST", "missing"},
      {"SET", "k", "v"},
      {"PERSIST", "k"},
      {"EXPIREAT", "k", kT1s},
      {"PERSIST", "k"},
      {"TTL", "k"},
      {"EXPIRETIME", "k"},
      {"PERSIST", "k"},
      {"GET", "k"},
      {"SET", other, "v", "PX", "100000"},
      {"PERSIST", other},
      {"PTTL", other},
      {"SET", "k", "v", "PXAT", "1"},
      {"PERSIST", "k"},
      {"EXISTS", "k"},
  });
}

TEST_P(DiffExpireTest, SetexAndPsetex) {
  Script({
      {"SETEX", "k", "0", "v"},
      {"SETEX", "k", "-1", "v"},
      {"SETEX", "k", "-9223372036854775808", "v"},
      {"SETEX", "k", "abc", "v"},
      {"SETEX", "k", "1.5", "v"},
      {"SETEX", "k", "", "v"},
      {"SETEX", "k", "9223372036854775807", "v"},
      {"SETEX", "k", "9223372036854776", "v"},
      {"SETEX", "k", "9223372036854775", "v"},
      {"SETEX", "k", "9223372036854775808", "v"},
      {"PSETEX", "k", "0", "v"},
      {"PSETEX", "k", "-1", "v"},
      {"PSETEX", "k", "abc", "v"},
      {"PSETEX", "k", "9223372036854775807", "v"},
      {"PSETEX", "k", "9223372036854775000", "v"},
      {"EXISTS", "k"},
      {"setex", "k", "100", "v1"},
      {"GET", "k"},
  });
  SameTtl("k");
  ExpectBetween({"TTL", "k"}, 98, 100);
  // An error leaves the key and its TTL alone.
  Script({{"SETEX", "k", "0", "v2"}, {"GET", "k"}});
  SameTtl("k");
  Script({{"PSETEX", "k", "300000", "v3"}, {"GET", "k"}});
  SameTtl("k");
  ExpectBetween({"TTL", "k"}, 298, 300);
  Script({{"SET", "k", "v4"}, {"TTL", "k"}, {"PSETEX", "k", "200000", "v5"}});
  SameTtl("k");
  // The largest values that do not overflow.
  Script({{"PSETEX", "big", "9223300000000000000", "v"}, {"GET", "big"}});
  SameTtl({"PTTL", "big"}, 1000);
  Script({{"SETEX", "big", "9223300000000000", "v"}, {"GET", "big"}});
  SameTtl({"PTTL", "big"}, 1000);
}

TEST_P(DiffExpireTest, SetExpiryOptions) {
  Script({
      {"SET", "k", "v", "EX", "100"},
      {"GET", "k"},
  });
  SameTtl("k");
  ExpectBetween({"TTL", "k"}, 98, 100);
  Script({{"SET", "k", "v", "px", "200000"}});
  SameTtl("k");
  ExpectBetween({"TTL", "k"}, 198, 200);
  Script({
      {"SET", "k", "v", "EXAT", kT1s},
      {"EXPIRETIME", "k"},
      {"SET", "k", "v", "PXAT", absl::StrCat(kT2, "250")},
      {"PEXPIRETIME", "k"},
      {"SET", "k", "v2", "KEEPTTL"},
      {"PEXPIRETIME", "k"},
      {"SET", "k", "v3", "XX", "KEEPTTL", "GET"},
      {"PEXPIRETIME", "k"},
      {"SET", "k", "v4", "EX", "100", "EX", "200"},
      {"SET", "k", "v5", "EXAT", kT1s, "EXAT", kT2s},
      {"EXPIRETIME", "k"},
      {"SET", "k", "v6", "GET", "EXAT", kT3s, "XX"},
      {"EXPIRETIME", "k"},
      {"SET", "k", "v7", "NX", "EXAT", kT1s},
      {"EXPIRETIME", "k"},
      {"SET", "new", "v", "NX", "PXAT", absl::StrCat(kT1, "999"), "GET"},
      {"PEXPIRETIME", "new"},
      {"SET", "k", "v8"},
      {"TTL", "k"},
      // Overflowing and extreme deadlines.
      {"SET", "k", "v", "PXAT", "9223372036854775807"},
      {"PEXPIRETIME", "k"},
      {"SET", "k", "v", "EXAT", "9223372036854775"},
      {"PEXPIRETIME", "k"},
      {"SET", "k", "v", "EXAT", "9223372036854776"},
      {"SET", "k", "v", "EX", "9223372036854776"},
      {"SET", "k", "v", "PX", "9223372036854775000"},
      {"SET", "k", "v", "EXAT", "-1"},
      {"SET", "k", "v", "PX", "-9223372036854775808"},
      {"SET", "k", "v", "EX", "0x10"},
      {"SET", "k", "v", "KEEPTTL", "PXAT", "100"},
      {"SET", "k", "v", "PXAT", "100", "KEEPTTL"},
      {"SET", "k", "v", "EX", "100", "PXAT", "100"},
      {"SET", "k", "v", "EXAT", "100", "PX", "100"},
      {"SET", "k", "v", "PX"},
      {"SET", "k", "v", "EXAT"},
      {"PEXPIRETIME", "k"},
  });
}

// A deadline in the past is accepted by SET: the key is written, already expired.
TEST_P(DiffExpireTest, SetWithPastDeadline) {
  std::string other = OtherShardKey("o", "k");
  Script({
      {"SET", "k", "old"},
      {"SET", "k", "v", "EXAT", "1"},
      {"GET", "k"},
      {"EXISTS", "k"},
      {"SET", "k", "new"},
      {"SET", "k", "v", "PXAT", "1000", "GET"},
      {"GET", "k"},
      {"SET", other, "v", "EXAT", absl::StrCat(NowUnixMs() / 1000 - 10)},
      {"GET", other},
      {"TTL", other},
      {"SET", "k", "v", "PXAT", "1", "NX"},
      {"SET", "k", "v", "PXAT", "1", "XX"},
      {"GET", "k"},
  });
  SameInfoInt("stats", "expired_keys");
}

TEST_P(DiffExpireTest, GetexOptions) {
  Script({
      {"GETEX", "missing"},
      {"GETEX", "missing", "PERSIST"},
      {"GETEX", "missing", "EX", "100"},
      {"SET", "k", "v"},
      {"GETEX", "k"},
      {"TTL", "k"},
      {"GETEX", "k", "PERSIST"},
      {"TTL", "k"},
      {"GETEX", "k", "EX", "100"},
  });
  SameTtl("k");
  ExpectBetween({"TTL", "k"}, 98, 100);
  Script({{"GETEX", "k"}});
  SameTtl("k");
  Script({{"GETEX", "k", "px", "300000"}});
  SameTtl("k");
  ExpectBetween({"TTL", "k"}, 298, 300);
  Script({
      {"GETEX", "k", "EXAT", kT1s},
      {"EXPIRETIME", "k"},
      {"GETEX", "k", "PXAT", absl::StrCat(kT2, "123")},
      {"PEXPIRETIME", "k"},
      {"GETEX", "k", "EX", "100", "EX", "200"},
  });
  SameTtl("k");
  Script({
      {"GETEX", "k", "EXAT", kT1s, "EXAT", kT3s},
      {"EXPIRETIME", "k"},
      {"GETEX", "k", "PXAT", "9223372036854775807"},
      {"PEXPIRETIME", "k"},
      {"GETEX", "k", "persist"},
      {"TTL", "k"},
      {"GETEX", "k", "PERSIST"},
      {"TTL", "k"},
      // An absolute deadline in the past returns the value and deletes the key.
      {"GETEX", "k", "EXAT", "1"},
      {"EXISTS", "k"},
      {"GETEX", "k"},
      {"SET", "k", "v2", "EX", "1000"},
      {"GETEX", "k", "PXAT", "1"},
      {"GET", "k"},
      {"SET", "k", "v3"},
      {"GETEX", "k", "PXAT", absl::StrCat(NowUnixMs() - 1000)},
      {"GET", "k"},
  });
  SameInfoInt("stats", "expired_keys");
}

TEST_P(DiffExpireTest, GetexErrors) {
  Script({
      {"SET", "k", "v", "EX", "1000"},
      {"GETEX", "k", "EX"},
      {"GETEX", "k", "PX"},
      {"GETEX", "k", "EXAT"},
      {"GETEX", "k", "PXAT"},
      {"GETEX", "k", "EX", "10", "PX", "10"},
      {"GETEX", "k", "PX", "10", "EX", "10"},
      {"GETEX", "k", "EXAT", "10", "PXAT", "10"},
      {"GETEX", "k", "EX", "10", "PERSIST"},
      {"GETEX", "k", "PERSIST", "EX", "10"},
      {"GETEX", "k", "PERSIST", "PXAT", "10"},
      {"GETEX", "k", "KEEPTTL"},
      {"GETEX", "k", "NX"},
      {"GETEX", "k", "XX"},
      {"GETEX", "k", "GET"},
      {"GETEX", "k", "FOO"},
      {"GETEX", "k", "EX", "10", "FOO"},
      {"GETEX", "k", "EX", "0"},
      {"GETEX", "k", "EX", "-1"},
      {"GETEX", "k", "PX", "0"},
      {"GETEX", "k", "PX", "-100"},
      {"GETEX", "k", "EXAT", "0"},
      {"GETEX", "k", "PXAT", "-5"},
      {"GETEX", "k", "EX", "abc"},
      {"GETEX", "k", "PX", "1.5"},
      {"GETEX", "k", "EXAT", ""},
      {"GETEX", "k", "EX", "9223372036854775807"},
      {"GETEX", "k", "EX", "9223372036854776"},
      {"GETEX", "k", "EX", "9223372036854775"},
      {"GETEX", "k", "PX", "9223372036854775807"},
      {"GETEX", "k", "EXAT", "9223372036854775807"},
      {"GETEX", "k", "EX", "9223372036854775808"},
      {"GETEX", "k", "EX", "+10"},
      {"GETEX", "k", "PX", "010"},
      {"GETEX", "k", "EX", "10", "EXAT"},
      {"GETEX", "k", "ex", "10", "pX", "10"},
      {"GET", "k"},
  });
  SameTtl("k");
  ExpectBetween({"TTL", "k"}, 998, 1000);
}

// GETEX looks the key up before it validates the expire argument: a missing key answers
// nil whatever the number (only the option syntax is checked first).
TEST_P(DiffExpireTest, GetexOnMissingKeyChecksSyntaxOnly) {
  Script({
      {"GETEX", "missing", "EX", "0"},
      {"GETEX", "missing", "PX", "-1"},
      {"GETEX", "missing", "EXAT", "0"},
      {"GETEX", "missing", "EX", "abc"},
      {"GETEX", "missing", "EX", "9223372036854775807"},
      {"GETEX", "missing", "FOO"},
      {"GETEX", "missing", "EX"},
      {"GETEX", "missing", "EX", "1", "PX", "1"},
  });
}

// Redis's GETEX accepts PERSIST more than once (its flag check does not exclude itself).
TEST_P(DiffExpireTest, GetexRepeatedPersist) {
  Script({
      {"SET", "k", "v", "EX", "1000"},
      {"GETEX", "k", "PERSIST", "PERSIST"},
      {"TTL", "k"},
  });
}

// Which writes keep a key's TTL: the class (-2 gone, -1 none, positive) must match Redis,
// and so must the value within a second.
TEST_P(DiffExpireTest, WritesClearOrKeepTheTtl) {
  enum Want { kKeep, kClear, kNew, kGone };
  std::string other = OtherShardKey("o", "k");
  const std::string big(3000, 'x');
  struct Case {
    Args cmd;
    Want want;
  };
  const Case cases[] = {
      {{"SET", "k", "v"}, kClear},
      {{"SET", "k", "11"}, kClear},  // same size as the old value
      {{"SET", "k", big}, kClear},
      {{"SET", "k", "12", "KEEPTTL"}, kKeep},
      {{"SET", "k", big, "KEEPTTL"}, kKeep},
      {{"SET", "k", "v", "XX"}, kClear},
      {{"SET", "k", "v", "NX"}, kKeep},
      {{"SET", "k", "v", "GET"}, kClear},
      {{"SET", "k", "v", "XX", "KEEPTTL", "GET"}, kKeep},
      {{"SET", "k", "13", "EX", "50"}, kNew},
      {{"SET", "k", "v", "PX", "50000"}, kNew},
      {{"SETNX", "k", "v"}, kKeep},
      {{"GETSET", "k", "v"}, kClear},
      {{"GETSET", "k", "14"}, kClear},
      {{"MSET", "k", "v"}, kClear},
      {{"MSET", "k", "v", other, "x"}, kClear},
      {{"MSET", other, "x", "k", "15"}, kClear},
      {{"MSETNX", "k", "v"}, kKeep},
      {{"MSETNX", "k", "v", other, "x"}, kKeep},
      {{"INCR", "k"}, kKeep},
      {{"DECR", "k"}, kKeep},
      {{"INCRBY", "k", "5"}, kKeep},
      {{"INCRBY", "k", "100000000000"}, kKeep},
      {{"DECRBY", "k", "5"}, kKeep},
      {{"INCRBYFLOAT", "k", "1.5"}, kKeep},
      {{"APPEND", "k", "x"}, kKeep},
      {{"APPEND", "k", big}, kKeep},  // grows the allocation
      {{"SETRANGE", "k", "1", "x"}, kKeep},
      {{"SETRANGE", "k", "5000", "x"}, kKeep},
      {{"SETRANGE", "k", "0", ""}, kKeep},
      {{"GET", "k"}, kKeep},
      {{"GETRANGE", "k", "0", "-1"}, kKeep},
      {{"STRLEN", "k"}, kKeep},
      {{"EXISTS", "k"}, kKeep},
      {{"TYPE", "k"}, kKeep},
      {{"TOUCH", "k", other}, kKeep},
      {{"MGET", "k", other}, kKeep},
      {{"GETEX", "k"}, kKeep},
      {{"GETEX", "k", "PERSIST"}, kClear},
      {{"PERSIST", "k"}, kClear},
      {{"SETEX", "k", "50", "v"}, kNew},
      {{"PSETEX", "k", "50000", "v"}, kNew},
      {{"RENAME", "k", "k"}, kKeep},
      {{"RENAMENX", "k", "k"}, kKeep},
      {{"GETDEL", "k"}, kGone},
      {{"DEL", "k", other}, kGone},
      {{"UNLINK", "k"}, kGone},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(Describe(c.cmd));
    Same({"SET", "k", "10", "EX", "1000"});
    Same(c.cmd);
    int64_t ttl = SameTtl("k");
    switch (c.want) {
      case kKeep:
        EXPECT_TRUE(ttl >= 998 && ttl <= 1000) << "TTL " << ttl << ", want it kept (1000)";
        break;
      case kClear:
        EXPECT_EQ(ttl, -1) << "want the TTL cleared";
        break;
      case kNew:
        EXPECT_TRUE(ttl >= 48 && ttl <= 50) << "TTL " << ttl << ", want the new one (50)";
        break;
      case kGone:
        EXPECT_EQ(ttl, -2) << "want the key gone";
        break;
    }
    Same({"DEL", "k", other});
  }
}

// RENAME and RENAMENX move the source's TTL (or its absence) to the destination, on one
// shard and across shards.
TEST_P(DiffExpireTest, RenameMovesTheTtl) {
  for (const std::string& dst : {std::string("{k}dst"), OtherShardKey("dst", "k")}) {
    SCOPED_TRACE("destination " + dst);
    // Source with a TTL, no destination.
    Script({{"SET", "k", "v", "EXAT", kT1s},
            {"RENAME", "k", dst},
            {"EXPIRETIME", dst},
            {"TTL", "k"},
            {"GET", dst}});
    // Source with a TTL onto a destination without one.
    Script({{"SET", "k", "v", "EXAT", kT2s},
            {"SET", dst, "old"},
            {"RENAME", "k", dst},
            {"EXPIRETIME", dst},
            {"GET", dst}});
    // Source without a TTL onto a destination with one: the destination loses it.
    Script({{"SET", "k", "v"},
            {"SET", dst, "old", "EXAT", kT1s},
            {"RENAME", "k", dst},
            {"TTL", dst},
            {"GET", dst}});
    // Both with TTLs: the source's wins.
    Script({{"SET", "k", "v", "PXAT", absl::StrCat(kT3, "042")},
            {"SET", dst, "old", "EXAT", kT1s},
            {"RENAME", "k", dst},
            {"PEXPIRETIME", dst}});
    // RENAMENX.
    Script({{"DEL", dst},
            {"SET", "k", "v", "EXAT", kT2s},
            {"RENAMENX", "k", dst},
            {"EXPIRETIME", dst},
            {"EXISTS", "k"},
            {"SET", "k", "w", "EXAT", kT3s},
            {"RENAMENX", "k", dst},
            {"EXPIRETIME", "k"},
            {"EXPIRETIME", dst}});
    // A relative TTL keeps running under the new name.
    Script({{"SET", "k", "v", "PX", "100000"}, {"RENAME", "k", dst}});
    SameTtl(dst);
    ExpectBetween({"PTTL", dst}, 90000, 100000);
    // A source whose deadline passed is gone.
    Script({{"SET", "k", "v", "PXAT", "1"},
            {"RENAME", "k", dst},
            {"RENAMENX", "k", dst},
            {"GET", dst}});
    Same({"DEL", "k", dst});
  }
}

// Keys whose deadline passed (written with PXAT 1) are invisible to every command, which
// treats them as missing, whether or not active expiry got to them first.
TEST_P(DiffExpireTest, KeysPastTheirDeadlineAreMissingEverywhere) {
  Same({"SET", "live", "v"});
  auto expired = [&](const std::string& key) { Same({"SET", key, "5", "PXAT", "1"}); };
  for (const char* k : {"a", "b", "c"}) expired(k);
  Script({
      {"KEYS", "*"},
      {"EXISTS", "a", "b", "c", "live"},
      {"MGET", "a", "b", "live"},
      {"GET", "a"},
      {"TYPE", "b"},
      {"STRLEN", "c"},
      {"TTL", "a"},
      {"PTTL", "b"},
      {"EXPIRETIME", "c"},
  });
  EXPECT_EQ(rcc_->Cmd({"SCAN", "0", "COUNT", "1000"}).find("$a"), std::string::npos);
  std::vector<std::string> scanned = ScanAll(*rcc_, {"COUNT", "3"});
  EXPECT_EQ(scanned, std::vector<std::string>{"live"});
  Script({{"DEL", "live"}, {"RANDOMKEY"}});
  for (const char* k : {"a", "b", "c"}) expired(k);
  Same({"RANDOMKEY"});

  // Each command on a fresh expired key.
  const Args cmds[] = {
      {"GETRANGE", "k", "0", "-1"},
      {"GETDEL", "k"},
      {"GETEX", "k", "PERSIST"},
      {"GETEX", "k", "EX", "100"},
      {"GETSET", "k", "v"},
      {"SET", "k", "v", "XX"},
      {"SET", "k", "v", "NX"},
      {"SET", "k", "v", "GET"},
      {"SET", "k", "v", "KEEPTTL"},
      {"SETNX", "k", "v"},
      {"MSETNX", "k", "v"},
      {"INCR", "k"},
      {"INCRBYFLOAT", "k", "1.5"},
      {"APPEND", "k", "x"},
      {"SETRANGE", "k", "2", "x"},
      {"DEL", "k"},
      {"UNLINK", "k"},
      {"TOUCH", "k"},
      {"PERSIST", "k"},
      {"EXPIRE", "k", "100"},
      {"PEXPIREAT", "k", "1"},
      {"RENAME", "k", "dst"},
      {"RENAMENX", "k", "dst"},
      {"EXISTS", "dst"},
  };
  for (const Args& cmd : cmds) {
    SCOPED_TRACE(Describe(cmd));
    expired("k");
    Script({cmd, {"GET", "k"}, {"TTL", "k"}});
    Same({"DEL", "k"});
  }
  // Every one of them counted once as expired, by lazy or by active expiry.
  PollUntil([&] { return IntCmd(*rcc_, {"DBSIZE"}) == 0; });
  PollUntil([&] { return IntCmd(*redisc_, {"DBSIZE"}) == 0; });
  SameInfoInt("stats", "expired_keys");
}

TEST_P(DiffExpireTest, InfoKeyspaceCountsKeysWithTtl) {
  Same({"INFO", "keyspace"});
  for (int i = 0; i < 10; ++i) {
    std::string key = absl::StrCat("key", i);
    if (i % 3 == 0) {
      Same({"SET", key, "v", "EX", absl::StrCat(1000 + i)});
    } else {
      Same({"SET", key, "v"});
    }
  }
  auto want = KeyspaceDb0(*redisc_), got = KeyspaceDb0(*rcc_);
  EXPECT_EQ(got["keys"], want["keys"]);
  EXPECT_EQ(got["expires"], want["expires"]);
  EXPECT_EQ(got["expires"], 4);
  // avg_ttl is an estimate (Redis updates it during active expiry): just plausible.
  EXPECT_GE(got["avg_ttl"], 0);
  EXPECT_LE(got["avg_ttl"], 1010 * 1000);
  Script({{"PERSIST", "key0"}, {"EXPIRE", "key1", "100"}, {"DEL", "key3"}});
  want = KeyspaceDb0(*redisc_);
  got = KeyspaceDb0(*rcc_);
  EXPECT_EQ(got["keys"], want["keys"]);
  EXPECT_EQ(got["expires"], want["expires"]);
  Same({"FLUSHALL"});
  Same({"INFO", "keyspace"});
  EXPECT_EQ(InfoInt(*rcc_, "stats", "expired_keys"), 0);
}

// COMMAND INFO of the TTL and pub/sub commands: name, arity, key positions and the flags
// below as in Redis.
TEST_P(DiffExpireTest, CommandInfoOfNewCommands) {
  for (const char* name :
       {"expire", "pexpire", "expireat", "pexpireat", "ttl", "pttl", "expiretime", "pexpiretime",
        "persist", "setex", "psetex", "getex", "subscribe", "psubscribe", "unsubscribe",
        "punsubscribe", "publish", "pubsub"}) {
    SCOPED_TRACE(name);
    Client::ReplyPtr want = redisc_->RawCmd({"COMMAND", "INFO", name});
    Client::ReplyPtr got = rcc_->RawCmd({"COMMAND", "INFO", name});
    ASSERT_TRUE(want && got);
    ASSERT_EQ(got->type, REDIS_REPLY_ARRAY) << Canon(got.get());
    ASSERT_EQ(got->elements, 1u) << Canon(got.get());
    const redisReply* g = got->element[0];
    const redisReply* w = want->element[0];
    ASSERT_EQ(g->type, REDIS_REPLY_ARRAY) << Canon(got.get());
    ASSERT_GE(g->elements, 6u) << Canon(got.get());
    for (size_t i : {0, 1, 3, 4, 5}) {
      EXPECT_EQ(Canon(g->element[i]), Canon(w->element[i]))
          << "field " << i << "\n  redis:     " << Canon(w) << "\n  ringcache: " << Canon(g);
    }
    std::vector<std::string> gf = Strings(g->element[2]), wf = Strings(w->element[2]);
    for (const char* flag :
         {"write", "readonly", "fast", "denyoom", "pubsub", "noscript", "loading", "stale"}) {
      EXPECT_EQ(std::count(gf.begin(), gf.end(), flag), std::count(wf.begin(), wf.end(), flag))
          << "flag " << flag << "\n  redis:     " << Canon(w->element[2])
          << "\n  ringcache: " << Canon(g->element[2]);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Threads, DiffExpireTest, ::testing::Values(1, 2, 3), ThreadsName);

}  // namespace
}  // namespace rc::it
