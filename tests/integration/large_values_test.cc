// Big requests and replies: a 100 MB value round-trips byte for byte, and one MSET of
// 100k keys (spread over every shard) is applied whole and read back by one MGET. Against
// a sanitizer build's server a quarter of each (Scaled): 25 MB and 25k keys, far past the
// server's buffer sizes all the same (the only limits above them: 512 MB bulk, 1 GB query
// buffer).

#include <cstring>
#include <random>
#include <string>

#include "absl/strings/str_cat.h"
#include "tests/integration/fixtures.h"

namespace rc::it {
namespace {

class LargeValuesTest : public RingcacheTest {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(RingcacheTest::SetUp());
    std::string error;
    big_ = Client::Connect(rc_->port(), &error, std::chrono::seconds(60));
    ASSERT_TRUE(big_) << error;
  }
  void TearDown() override { big_.reset(); }
  std::unique_ptr<Client> big_;
};

TEST_P(LargeValuesTest, HundredMegabyteValueRoundTrips) {
  const size_t kSize = Scaled(size_t{100} << 20);
  std::string value(kSize, '\0');
  std::mt19937_64 rng(42);
  for (size_t i = 0; i + 8 <= kSize; i += 8) {
    uint64_t r = rng();
    std::memcpy(&value[i], &r, 8);
  }
  value.replace(kSize - 4, 4, "\r\nE\n");
  ASSERT_EQ(big_->Cmd({"SET", "big", value}), "+OK");
  EXPECT_EQ(big_->Cmd({"STRLEN", "big"}), absl::StrCat(":", kSize));
  Client::ReplyPtr r = big_->RawCmd({"GET", "big"});
  ASSERT_TRUE(r) << big_->ctx()->errstr;
  ASSERT_EQ(r->type, REDIS_REPLY_STRING);
  ASSERT_EQ(r->len, kSize);
  EXPECT_TRUE(std::memcmp(r->str, value.data(), kSize) == 0) << "value corrupted";
  r.reset();
  EXPECT_EQ(big_->Cmd({"GETRANGE", "big", "-4", "-1"}), "$\\x0d\\x0aE\\x0a");
  EXPECT_EQ(big_->Cmd({"APPEND", "big", "tail"}), absl::StrCat(":", kSize + 4));
  EXPECT_EQ(big_->Cmd({"GETRANGE", "big", "-8", "-1"}), "$\\x0d\\x0aE\\x0atail");
  EXPECT_EQ(big_->Cmd({"DEL", "big"}), ":1");
  EXPECT_EQ(rcc_->Cmd({"PING"}), "+PONG");
}

TEST_P(LargeValuesTest, MsetOfHundredThousandKeysInOneCommand) {
  const int kKeys = Scaled(100000);
  Args mset = {"MSET"}, mget = {"MGET"};
  std::vector<int> per_shard(size_t(threads()), 0);
  for (int i = 0; i < kKeys; ++i) {
    std::string key = absl::StrCat("mk:", i);
    ++per_shard[size_t(ShardOf(key, threads()))];
    mset.insert(mset.end(), {key, absl::StrCat("value-", i)});
    mget.push_back(std::move(key));
  }
  for (int n : per_shard) ASSERT_GT(n, 0);
  ASSERT_EQ(big_->Cmd(mset), "+OK");
  EXPECT_EQ(big_->Cmd({"DBSIZE"}), absl::StrCat(":", kKeys));
  mget.push_back("mk:missing");
  Client::ReplyPtr r = big_->RawCmd(mget);
  ASSERT_TRUE(r) << big_->ctx()->errstr;
  ASSERT_EQ(r->type, REDIS_REPLY_ARRAY) << Canon(r.get()).substr(0, 200);
  ASSERT_EQ(r->elements, size_t(kKeys) + 1);
  int wrong = 0;
  for (int i = 0; i < kKeys; ++i) {
    std::string want = absl::StrCat("$value-", i);
    if (Canon(r->element[i]) != want && ++wrong <= 5) {
      ADD_FAILURE() << "MGET element " << i << ": " << Canon(r->element[i]) << " != " << want;
    }
  }
  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(Canon(r->element[kKeys]), "(nil)");
  r.reset();
  Args del = mget;
  del[0] = "DEL";
  EXPECT_EQ(big_->Cmd(del), absl::StrCat(":", kKeys));
  EXPECT_EQ(big_->Cmd({"DBSIZE"}), ":0");
}

INSTANTIATE_TEST_SUITE_P(Threads, LargeValuesTest, ::testing::Values(3), ThreadsName);

}  // namespace
}  // namespace rc::it
