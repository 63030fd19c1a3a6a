// MIGRATE from ringcache (1, 2 and 3 threads) to redis-server 7.0.15 and to another
// ringcache: every type arrives equal with its TTL, the keys go here only once the target
// acknowledged them (COPY keeps them), KEYS moves keys of several shards, REPLACE, AUTH
// and AUTH2 reach the target, and the target's errors, a closed port and a stalled target
// give Redis's replies. Replies ringcache and redis-server both give as sources are
// compared. While the target stalls, the source's threads keep serving and the migrating
// keys wait: no client sees them half moved.

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/integration/dump_test_util.h"
#include "tests/integration/fixtures.h"

namespace rc::it {
namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

// A TCP port that accepts connections (the kernel completes them into the backlog) and
// never answers: a stalled target.
class SilentPort {
 public:
  SilentPort() {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    bind(fd_, reinterpret_cast<sockaddr*>(&a), len);
    listen(fd_, 16);
    getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
  }
  ~SilentPort() { close(fd_); }
  std::string port() const { return std::to_string(port_); }

 private:
  int fd_ = -1;
  int port_ = 0;
};

// A port nothing listens on (bound, then closed).
std::string ClosedPort() {
  SilentPort p;
  return p.port();
}

class MigrateTest : public DiffTest {
 protected:
  // MIGRATE keeps its connection to the target for 10 s, as Redis's does: a shared
  // redis-server as the target could not be put back for the next test.
  bool FreshServer() const override { return true; }
  Args Migrate(int port, const std::string& key, Args more = {}) {
    Args a = {"MIGRATE", "127.0.0.1", std::to_string(port), key, "0", "5000"};
    a.insert(a.end(), more.begin(), more.end());
    return a;
  }
  // Builds the same keys of every type here and on redis-server.
  void Populate(const std::string& prefix) {
    Script({
        {"SET", prefix + "str", "hello", "PX", "100000"},
        {"SET", prefix + "int", "42"},
        {"RPUSH", prefix + "list", "a", "1", std::string(10000, 'x')},
        {"SADD", prefix + "ints", "1", "2", "3"},
        {"SADD", prefix + "set", "a", "b", "c"},
        {"ZADD", prefix + "zset", "1.5", "a", "-2", "b"},
        {"HSET", prefix + "hash", "f", "v", "g", "1"},
    });
  }
  std::vector<std::string> Kinds(const std::string& prefix) {
    std::vector<std::string> out;
    for (const char* k : {"str", "int", "list", "ints", "set", "zset", "hash"}) {
      out.push_back(prefix + k);
    }
    return out;
  }
};

TEST_P(MigrateTest, EveryTypeToRedisServer) {
  Populate("src:");
  std::vector<std::string> want;
  for (const std::string& k : Kinds("src:")) want.push_back(ValueOf(*rcc_, k));
  // The reference holds them under other names: MIGRATE puts ours there.
  const std::vector<std::string> keys = Kinds("src:");
  for (const std::string& k : keys) redisc_->Cmd({"RENAME", k, "ref:" + k});
  for (size_t i = 0; i < keys.size(); ++i) {
    SCOPED_TRACE(keys[i]);
    EXPECT_EQ(rcc_->Cmd(Migrate(redis_->port(), keys[i])), "+OK");
    EXPECT_EQ(rcc_->Cmd({"EXISTS", keys[i]}), ":0");
    EXPECT_EQ(ValueOf(*redisc_, keys[i]), want[i]);
    EXPECT_EQ(redisc_->Cmd({"OBJECT", "ENCODING", keys[i]}),
              redisc_->Cmd({"OBJECT", "ENCODING", "ref:" + keys[i]}));
  }
  const int64_t ttl = IntCmd(*redisc_, {"PTTL", "src:str"});
  EXPECT_GT(ttl, 90000);
  EXPECT_LE(ttl, 100000);
}

TEST_P(MigrateTest, KeysCopyReplaceAndTargetErrors) {
  // Keys on every shard, some missing: those there move, in one exchange.
  Args keys = {"KEYS"};
  for (int i = 0; i < 12; ++i) {
    EXPECT_EQ(rcc_->Cmd({"SET", absl::StrCat("many", i), absl::StrCat("v", i)}), "+OK");
    keys.push_back(absl::StrCat("many", i));
  }
  keys.push_back("missing");
  EXPECT_EQ(rcc_->Cmd(Migrate(redis_->port(), "", keys)), "+OK");
  for (int i = 0; i < 12; ++i) {
    EXPECT_EQ(rcc_->Cmd({"EXISTS", absl::StrCat("many", i)}), ":0");
    EXPECT_EQ(redisc_->Cmd({"GET", absl::StrCat("many", i)}), absl::StrCat("$v", i));
  }
  EXPECT_EQ(rcc_->Cmd(Migrate(redis_->port(), "", {"KEYS", "missing", "gone"})), "+NOKEY");
  EXPECT_EQ(rcc_->Cmd(Migrate(redis_->port(), "missing")), "+NOKEY");

  // COPY keeps the key; a second COPY finds it there; REPLACE overwrites.
  EXPECT_EQ(rcc_->Cmd({"SET", "c", "1"}), "+OK");
  EXPECT_EQ(rcc_->Cmd(Migrate(redis_->port(), "c", {"COPY"})), "+OK");
  EXPECT_EQ(rcc_->Cmd({"GET", "c"}), "$1");
  EXPECT_EQ(rcc_->Cmd({"SET", "c", "2"}), "+OK");
  EXPECT_EQ(rcc_->Cmd(Migrate(redis_->port(), "c", {"COPY"})),
            "-ERR Target instance replied with error: BUSYKEY Target key name already exists.");
  EXPECT_EQ(redisc_->Cmd({"GET", "c"}), "$1");
  EXPECT_EQ(rcc_->Cmd(Migrate(redis_->port(), "c", {"COPY", "REPLACE"})), "+OK");
  EXPECT_EQ(redisc_->Cmd({"GET", "c"}), "$2");
  EXPECT_EQ(rcc_->Cmd(Migrate(redis_->port(), "c", {"REPLACE"})), "+OK");
  EXPECT_EQ(rcc_->Cmd({"EXISTS", "c"}), ":0");

  // A refused key stays; the others of the same MIGRATE move.
  EXPECT_EQ(redisc_->Cmd({"SET", "taken", "theirs"}), "+OK");
  EXPECT_EQ(rcc_->Cmd({"MSET", "taken", "ours", "free", "ours"}), "+OK");
  EXPECT_EQ(rcc_->Cmd(Migrate(redis_->port(), "", {"KEYS", "taken", "free"})),
            "-ERR Target instance replied with error: BUSYKEY Target key name already exists.");
  EXPECT_EQ(rcc_->Cmd({"EXISTS", "taken", "free"}), ":1");
  EXPECT_EQ(redisc_->Cmd({"GET", "free"}), "$ours");

  // Another database of the target.
  EXPECT_EQ(rcc_->Cmd({"SET", "db", "x"}), "+OK");
  EXPECT_EQ(rcc_->Cmd({"MIGRATE", "127.0.0.1", std::to_string(redis_->port()), "db", "3", "5000"}),
            "+OK");
  EXPECT_EQ(redisc_->Cmd({"SELECT", "3"}), "+OK");
  EXPECT_EQ(redisc_->Cmd({"GET", "db"}), "$x");
  EXPECT_EQ(redisc_->Cmd({"FLUSHDB"}), "+OK");
  EXPECT_EQ(redisc_->Cmd({"SELECT", "0"}), "+OK");
}

// The same errors from both servers as sources.
TEST_P(MigrateTest, ErrorsAsRedisGivesThem) {
  Same({"SET", "k", "v"});
  const std::string closed = ClosedPort();
  Script({
      {"MIGRATE", "127.0.0.1", closed, "k", "0", "1000"},
      {"MIGRATE", "127.0.0.1", closed, "missing", "0", "1000"},
      {"MIGRATE", "127.0.0.1", closed, "k", "0", "x"},
      {"MIGRATE", "127.0.0.1", closed, "k", "x", "1000"},
      {"MIGRATE", "127.0.0.1", closed, "k", "0", "1000", "NOSUCH"},
      {"MIGRATE", "127.0.0.1", closed, "k", "0", "1000", "AUTH"},
      {"MIGRATE", "127.0.0.1", closed, "k", "0", "1000", "AUTH2", "user"},
      {"MIGRATE", "127.0.0.1", closed, "k", "0", "1000", "KEYS", "k"},
      {"MIGRATE", "127.0.0.1", closed, "", "0", "1000", "KEYS"},
      {"MIGRATE", "127.0.0.1", closed, "", "0", "1000", "COPY", "REPLACE", "KEYS", "a", "b"},
      {"MIGRATE", "127.0.0.1", closed, "k", "0"},
      {"EXISTS", "k"},
  });
}

TEST_P(MigrateTest, ToRingcacheWithAuth) {
  std::string error;
  auto target = ServerProcess::StartRingcache(2, {"--requirepass", "secret"}, &error);
  ASSERT_TRUE(target) << error;
  auto tc = Client::Connect(target->port(), &error);
  ASSERT_TRUE(tc) << error;
  ASSERT_EQ(tc->Cmd({"AUTH", "secret"}), "+OK");
  Populate("r:");
  const std::vector<std::string> keys = Kinds("r:");
  std::vector<std::string> want;
  for (const std::string& k : keys) want.push_back(ValueOf(*rcc_, k));
  EXPECT_EQ(rcc_->Cmd(Migrate(target->port(), "r:str")),
            "-ERR Target instance replied with error: NOAUTH Authentication required.");
  EXPECT_EQ(rcc_->Cmd(Migrate(target->port(), "r:str", {"AUTH", "wrong"})),
            "-ERR Target instance replied with error: WRONGPASS invalid username-password pair "
            "or user is disabled.");
  EXPECT_EQ(rcc_->Cmd({"EXISTS", "r:str"}), ":1");
  Args more = {"AUTH2", "default", "secret", "KEYS"};
  more.insert(more.end(), keys.begin(), keys.end());
  EXPECT_EQ(rcc_->Cmd(Migrate(target->port(), "", more)), "+OK");
  for (size_t i = 0; i < keys.size(); ++i) {
    EXPECT_EQ(rcc_->Cmd({"EXISTS", keys[i]}), ":0");
    EXPECT_EQ(ValueOf(*tc, keys[i]), want[i]) << keys[i];
  }
  EXPECT_GT(IntCmd(*tc, {"PTTL", "r:str"}), 90000);
}

// While the target never answers, the thread serving the MIGRATE client serves others at
// once, and a read of a migrating key waits until MIGRATE has answered: the key is there
// or gone, never both.
TEST_P(MigrateTest, AStalledTargetBlocksNoThreadAndHoldsItsKeys) {
  SilentPort silent;
  ASSERT_EQ(rcc_->Cmd({"SET", "held", "v"}), "+OK");
  const int thread = int(IntCmd(*rcc_, {"DEBUG", "THREAD"}));
  std::unique_ptr<Client> same_thread = ClientOnThread(thread);
  std::unique_ptr<Client> reader = NewClient();
  ASSERT_TRUE(same_thread && reader);
  const auto start = Clock::now();
  std::future<std::string> migrated = std::async(std::launch::async, [&] {
    return rcc_->Cmd({"MIGRATE", "127.0.0.1", silent.port(), "held", "0", "600"});
  });
  std::this_thread::sleep_for(milliseconds(150));  // the MIGRATE is waiting on the target
  const auto ping_start = Clock::now();
  EXPECT_EQ(same_thread->Cmd({"PING"}), "+PONG");
  EXPECT_LT(Clock::now() - ping_start, milliseconds(100));
  EXPECT_EQ(reader->Cmd({"GET", "held"}), "$v");
  EXPECT_GE(Clock::now() - start, milliseconds(550));
  EXPECT_EQ(migrated.get(), "-IOERR error or timeout reading to target instance");
  EXPECT_EQ(rcc_->Cmd({"GET", "held"}), "$v");
}

// Each key moved raises "del" here, as Redis's MIGRATE does; COPY raises nothing.
TEST_P(MigrateTest, RaisesDelForEachKeyMoved) {
  ASSERT_EQ(rcc_->Cmd({"CONFIG", "SET", "notify-keyspace-events", "Eg"}), "+OK");
  std::unique_ptr<RawConn> sub = NewRaw(rc_->port());
  ASSERT_TRUE(sub->Send(EncodeCommand({"SUBSCRIBE", "__keyevent@0__:del"})));
  ASSERT_NE(sub->ReadReply(), "!TIMEOUT");
  EXPECT_EQ(rcc_->Cmd({"MSET", "a", "1", "b", "2", "kept", "3"}), "+OK");
  EXPECT_EQ(rcc_->Cmd(Migrate(redis_->port(), "kept", {"COPY"})), "+OK");
  EXPECT_EQ(rcc_->Cmd(Migrate(redis_->port(), "", {"KEYS", "a", "missing", "b"})), "+OK");
  std::vector<std::string> heard = sub->ReadReplies(2, milliseconds(2000));
  std::sort(heard.begin(), heard.end());
  EXPECT_EQ(heard, (std::vector<std::string>{"*[$message,$__keyevent@0__:del,$a]",
                                             "*[$message,$__keyevent@0__:del,$b]"}));
  EXPECT_EQ(sub->ReadReply(milliseconds(200)), "!TIMEOUT");
}

INSTANTIATE_TEST_SUITE_P(Threads, MigrateTest, ::testing::Values(1, 2, 3), ThreadsName);

}  // namespace
}  // namespace rc::it
