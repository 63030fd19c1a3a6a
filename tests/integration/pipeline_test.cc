// Pipelining: thousands of mixed commands on keys spread over every shard, sent in one
// write or split at random points over many writes; the replies must come back complete,
// in request order, and equal to redis-server's for the same bytes. ECHO markers check the
// order independently of the oracle.

#include <cstdlib>
#include <future>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "tests/integration/fixtures.h"

namespace rc::it {
namespace {

class PipelineTest : public DiffTest {
 protected:
  // `n` commands over 64 keys (spread over all shards) plus counters; every 10th command is
  // ECHO "#<index>" so each reply's position can be checked without the oracle.
  static std::vector<Args> MixedCommands(int n, uint32_t seed) {
    std::mt19937 rng(seed);
    auto key = [&] { return absl::StrCat("pk", rng() % 64); };
    std::vector<Args> cmds;
    for (int i = 0; i < n; ++i) {
      if (i % 10 == 0) {
        cmds.push_back({"ECHO", absl::StrCat("#", i)});
        continue;
      }
      switch (rng() % 8) {
        case 0:
          cmds.push_back({"SET", key(), absl::StrCat("v", i)});
          break;
        case 1:
          cmds.push_back({"GET", key()});
          break;
        case 2:
          cmds.push_back({"INCR", absl::StrCat("ctr", rng() % 8)});
          break;
        case 3:
          cmds.push_back({"PING"});
          break;
        case 4:
          cmds.push_back({"MGET", key(), key(), key(), key()});
          break;
        case 5:
          cmds.push_back({"MSET", key(), absl::StrCat("m", i), key(), "x"});
          break;
        case 6:
          cmds.push_back({"DEL", key(), key()});
          break;
        default:
          cmds.push_back({"EXISTS", key(), key(), key()});
          break;
      }
    }
    return cmds;
  }

  // Sends `chunks` (from another thread, so neither side can stall on a full socket buffer)
  // and reads `n` replies.
  std::vector<std::string> Roundtrip(int port, const std::vector<std::string>& chunks, size_t n) {
    auto conn = NewRaw(port);
    if (!conn) return {};
    std::thread sender([&] {
      for (const std::string& c : chunks) {
        if (!conn->Send(c)) break;
      }
    });
    std::vector<std::string> replies = conn->ReadReplies(n, std::chrono::seconds(30));
    sender.join();
    return replies;
  }

  void CheckReplies(const std::vector<Args>& cmds, const std::vector<std::string>& got,
                    const std::vector<std::string>& want) {
    ASSERT_EQ(want.size(), cmds.size()) << "redis-server did not answer every command";
    ASSERT_EQ(got.size(), cmds.size()) << "ringcache answered only " << got.size() << " of "
                                       << cmds.size() << " pipelined commands";
    int reported = 0;
    for (size_t i = 0; i < cmds.size() && reported < 10; ++i) {
      if (cmds[i][0] == "ECHO") {
        EXPECT_EQ(got[i], "$" + cmds[i][1]) << "reply " << i;
      }
      if (got[i] != want[i]) {
        ++reported;
        ADD_FAILURE() << "reply " << i << " to " << Describe(cmds[i])
                      << "\n  redis:     " << want[i] << "\n  ringcache: " << got[i];
      }
    }
  }
};

TEST_P(PipelineTest, ThousandsOfCommandsInOneWrite) {
  std::vector<Args> cmds = MixedCommands(5000, 7);
  std::string stream;
  for (const Args& c : cmds) stream += EncodeCommand(c);
  std::vector<std::string> want = Roundtrip(redis_->port(), {stream}, cmds.size());
  std::vector<std::string> got = Roundtrip(rc_->port(), {stream}, cmds.size());
  CheckReplies(cmds, got, want);
  Same({"MGET", "pk0", "pk1", "pk2", "pk3", "ctr0", "ctr7"});
}

TEST_P(PipelineTest, BytesSplitAtRandomPointsOverManyWrites) {
  std::vector<Args> cmds = MixedCommands(3000, 11);
  std::string stream;
  for (const Args& c : cmds) stream += EncodeCommand(c);
  std::mt19937 rng(5);
  std::vector<std::string> chunks;
  for (size_t at = 0; at < stream.size();) {
    size_t len = 1 + rng() % (rng() % 4 == 0 ? 3 : 200);  // Many 1-3 byte pieces too.
    chunks.push_back(stream.substr(at, len));
    at += len;
  }
  std::vector<std::string> want = Roundtrip(redis_->port(), chunks, cmds.size());
  std::vector<std::string> got = Roundtrip(rc_->port(), chunks, cmds.size());
  CheckReplies(cmds, got, want);
}

TEST_P(PipelineTest, HiredisPipelineOfCrossShardWrites) {
  // Each SET is followed by a GET of the same key and an MGET that spans shards; the
  // replies must reflect the writes before them in the pipeline.
  constexpr int kRounds = 2000;
  for (int i = 0; i < kRounds; ++i) {
    std::string k = absl::StrCat("h", i);
    rcc_->Append({"SET", k, std::to_string(i)});
    rcc_->Append({"GET", k});
    rcc_->Append({"MGET", k, absl::StrCat("h", i / 2), "missing"});
    rcc_->Append({"INCR", k});
  }
  for (int i = 0; i < kRounds; ++i) {
    ASSERT_EQ(rcc_->GetReply(), "+OK") << i;
    ASSERT_EQ(rcc_->GetReply(), absl::StrCat("$", i)) << i;
    // h<i/2> was set (and, if i/2 < i, incremented) earlier in this pipeline.
    std::string half = i / 2 == i ? std::to_string(i) : std::to_string(i / 2 + 1);
    ASSERT_EQ(rcc_->GetReply(), absl::StrCat("*[$", i, ",$", half, ",(nil)]")) << i;
    ASSERT_EQ(rcc_->GetReply(), absl::StrCat(":", i + 1)) << i;
  }
}

// hiredis and redis-py write a whole pipeline before reading any reply. The server must
// keep reading and running requests while the replies pile up unread, as Redis does: a
// server that stops reading when its replies cannot be sent deadlocks with such clients.
// 16 MB of replies are four times what the kernel buffers for the socket (tcp_wmem's 4 MB
// at most, and the unread side does not grow its window), so most of it waits in the
// server: every GET must have run (INFO commandstats) before the client reads a byte.
TEST_P(PipelineTest, ClientWritesWholePipelineBeforeReadingLargeReplies) {
  const std::string value(16 * 1024, 'v');
  constexpr int kGets = 1000;
  std::string stream;
  for (int i = 0; i < kGets; ++i) stream += EncodeCommand({"GET", "big"});
  for (ServerProcess* server : {redis_.get(), rc_.get()}) {
    SCOPED_TRACE(server->name());
    std::string error;
    auto observer = Client::Connect(server->port(), &error);
    ASSERT_TRUE(observer) << error;
    auto conn = NewRaw(server->port());
    ASSERT_TRUE(conn);
    ASSERT_TRUE(conn->Send(EncodeCommand({"SET", "big", value})));
    ASSERT_EQ(conn->ReadReply(), "+OK");
    ASSERT_EQ(observer->Cmd({"CONFIG", "RESETSTAT"}), "+OK");
    std::promise<bool> sent;
    std::future<bool> sent_future = sent.get_future();
    std::thread sender([&] { sent.set_value(conn->Send(stream)); });
    const std::string all_ran = absl::StrCat("calls=", kGets, ",");
    EXPECT_TRUE(PollUntil([&] {
      return InfoFields(*observer, "commandstats")["cmdstat_get"].rfind(all_ran, 0) == 0;
    })) << "the server stopped running the pipeline while its replies were unread: "
        << InfoFields(*observer, "commandstats")["cmdstat_get"];
    // The backlog waits in the server, where CLIENT LIST reports it (the reply list).
    Client::ReplyPtr list = observer->RawCmd({"CLIENT", "LIST"});
    absl::string_view lines;
    if (list && list->type == REDIS_REPLY_STRING) lines = absl::string_view(list->str, list->len);
    int64_t omem = -1;
    for (absl::string_view line : absl::StrSplit(lines, '\n')) {
      if (!absl::StrContains(line, " cmd=get ")) continue;
      size_t at = line.find(" omem=");
      if (at != absl::string_view::npos) omem = std::strtoll(line.data() + at + 6, nullptr, 10);
    }
    EXPECT_GT(omem, 8 << 20) << "CLIENT LIST's omem for 16 MB of unread replies";
    std::vector<std::string> replies = conn->ReadReplies(kGets, std::chrono::seconds(30));
    sender.join();
    EXPECT_TRUE(sent_future.get());
    ASSERT_EQ(replies.size(), size_t(kGets));
    for (const std::string& r : replies) ASSERT_EQ(r, "$" + value);
  }
}

INSTANTIATE_TEST_SUITE_P(Threads, PipelineTest, ::testing::Values(1, 2, 3), ThreadsName);

}  // namespace
}  // namespace rc::it
