#include "shard/persist/aof_replay.h"

#include <unistd.h>

#include <fstream>
#include <future>
#include <memory>
#include <sstream>
#include <utility>

#include "core/aof_reader.h"
#include "core/log.h"
#include "core/reply_builder.h"
#include "core/strings.h"
#include "shard/command/dispatcher.h"
#include "shard/runtime/shard_set.h"
#include "shard/state/server_state.h"
#include "shard/wire/client_state.h"
#include "shard/wire/reply_sink.h"

namespace rc {

namespace {

// How many commands one task replays before it lets worker 0's loop turn (the other
// workers' answers arrive through it).
constexpr int kCommandsPerTurn = 256;
// Commands in flight at most, as a pipelining client has.
constexpr size_t kMaxOutstanding = 4096;

struct Outcome {
  bool ok = true;
  std::string error;
  int64_t commands = 0;
};

// Worker 0 only, from its first Step to Finish; the main thread waits meanwhile.
class Replayer final : public ReplySink {
 public:
  Replayer(ShardSet& shards, ServerState& server, const Dispatcher& dispatcher, std::string path,
           std::string data, bool last)
      : shards_(shards),
        server_(server),
        dispatcher_(dispatcher),
        path_(std::move(path)),
        data_(std::move(data)),
        last_(last),
        reader_(data_) {
    client_.authenticated = true;
    client_.name = "aof-loader";
  }

  std::future<Outcome> outcome() { return promise_.get_future(); }

  void Step() {
    ShardThread& self = shards_.thread(0);
    for (int n = 0; n < kCommandsPerTurn; ++n) {
      if (!have_) {
        const size_t start = reader_.valid_end();
        result_ = reader_.Next(&argv_);
        if (result_ == AofCommandReader::Result::kCommand && !argv_.empty() &&
            EqualsIgnoreCase(argv_[0], "multi")) {
          before_multi_ = start;
        }
        have_ = true;
      }
      // The file's end (its results repeat): once every command before it answered.
      if (result_ != AofCommandReader::Result::kCommand) {
        if (outstanding_ > 0) return Wait();
        return End();
      }
      if (argv_.empty()) {
        have_ = false;
        continue;
      }
      // Pipelined as a client's commands are, with a connection's holds: a command
      // waits for the multi-shard commands still locking its keys, and for the answers
      // before it where it must (Dispatcher::Admit).
      const ArgList args(argv_.data(), argv_.size());
      const Dispatcher::Admission admitted = dispatcher_.Admit(client_, args, outstanding_ > 0);
      // Nothing pauses clients before the log is replayed: that hold cannot come up.
      if (outstanding_ > 0 && (outstanding_ >= kMaxOutstanding ||
                               admitted.hold == Dispatcher::Hold::kForLocks ||
                               admitted.hold == Dispatcher::Hold::kForEarlier)) {
        return Wait();
      }
      have_ = false;
      out_.clear();
      ReplyBuilder rb(&out_);
      ++outcome_.commands;
      dispatcher_.Dispatch(self, client_, *this, rb, args, admitted.command);
      if (!Check(out_)) return ReportFailure();
    }
    self.Post(self.id(), [this] { Step(); });
  }

  void Wait() { waiting_ = true; }

  void End() {
    if (result_ == AofCommandReader::Result::kEnd) {
      if (client_.multi != nullptr) return Truncated(before_multi_);
      return Finish();
    }
    if (result_ == AofCommandReader::Result::kTruncated) {
      // As Redis: cut at the last whole command, inside an open MULTI too (its commands
      // do not run; the next start reverts the MULTI, a clean end inside one).
      return Truncated(reader_.valid_end());
    }
    Fail(StrCat("Bad file format reading the append only file ", path_, " at offset ",
                reader_.error_offset()));
    ReportFailure();
  }

  // ReplySink: worker 0.
  uint64_t Defer() override {
    ++outstanding_;
    return next_slot_++;
  }
  void Fulfill(uint64_t, std::string resp) override {
    --outstanding_;
    if (!Check(resp)) return ReportFailure();
    if (outstanding_ > 0 || !waiting_) return;
    waiting_ = false;
    ShardThread& self = shards_.thread(0);
    self.Post(self.id(), [this] { Step(); });
  }
  void Resume() override {}
  void Push(std::string) override {}

 private:
  // Redis stops on a command it does not know; other errors (a WRONGTYPE the original
  // client got too) replay as they happened.
  bool Check(std::string_view reply) {
    static constexpr std::string_view kUnknown = "-ERR unknown command";
    if (failed_ || reply.substr(0, kUnknown.size()) != kUnknown) return !failed_;
    std::string_view why = reply.substr(1);
    while (!why.empty() && (why.back() == '\n' || why.back() == '\r')) why.remove_suffix(1);
    Fail(StrCat("Unknown command reading the append only file ", path_, ": ", why));
    return false;
  }

  void Truncated(size_t valid) {
    if (!last_ || !server_.config.aof_load_truncated.get()) {
      Fail(StrCat("Unexpected end of file reading the append only file ", path_,
                               ". You can: 1) Make a backup of your AOF file, then use "
                               "./redis-check-aof --fix <filename.manifest>. 2) Alternatively "
                               "you can set the 'aof-load-truncated' configuration option to "
                               "yes and restart the server."));
      return ReportFailure();
    }
    Log(LogLevel::kWarning, "!!! Warning: short read while loading the AOF file ", path_, "!!!");
    if (::truncate(path_.c_str(), off_t(valid)) != 0) {
      Fail(StrCat("Error truncating the AOF file ", path_));
      return ReportFailure();
    }
    Log(LogLevel::kWarning, "AOF ", path_, " loaded anyway because aof-load-truncated is enabled");
    client_.multi.reset();
    Finish();
  }

  void Fail(std::string why) {
    failed_ = true;
    outcome_.ok = false;
    outcome_.error = std::move(why);
    pending_failure_ = true;
  }

  // Once no reply is owed any more: the main thread may then free this.
  void ReportFailure() {
    if (!pending_failure_ || outstanding_ > 0) return;
    pending_failure_ = false;
    promise_.set_value(std::move(outcome_));
  }

  void Finish() { promise_.set_value(std::move(outcome_)); }

  ShardSet& shards_;
  ServerState& server_;
  const Dispatcher& dispatcher_;
  const std::string path_;
  const std::string data_;
  const bool last_;
  AofCommandReader reader_;
  ClientState client_;
  std::vector<std::string_view> argv_;
  std::string out_;
  std::promise<Outcome> promise_;
  Outcome outcome_;
  uint64_t next_slot_ = 0;
  size_t outstanding_ = 0;
  size_t before_multi_ = 0;
  AofCommandReader::Result result_ = AofCommandReader::Result::kCommand;
  bool have_ = false;  // argv_ holds a command read and not yet dispatched
  bool waiting_ = false;
  bool failed_ = false;
  bool pending_failure_ = false;
};

}  // namespace

bool ReadWholeFile(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  *out = std::move(ss).str();
  return true;
}

bool ReplayAofFiles(ShardSet& shards, ServerState& server, const Dispatcher& dispatcher,
                    const std::vector<std::string>& paths, std::string* error) {
  for (size_t i = 0; i < paths.size(); ++i) {
    std::string data;
    if (!ReadWholeFile(paths[i], &data)) {
      *error = StrCat("Can't open the append-only file ", paths[i]);
      return false;
    }
    if (data.empty()) continue;
    auto replayer = std::make_unique<Replayer>(shards, server, dispatcher, paths[i],
                                               std::move(data), i + 1 == paths.size());
    std::future<Outcome> done = replayer->outcome();
    Replayer* r = replayer.get();
    std::vector<Message> batch;
    batch.emplace_back([r] { r->Step(); });
    shards.thread(0).inbox().PushBatch(&batch);
    if (server.wake_all) server.wake_all();
    Outcome outcome = done.get();
    if (!outcome.ok) {
      *error = outcome.error;
      return false;
    }
    Log(LogLevel::kNotice, "DB loaded from incr file ", paths[i], ": ", outcome.commands,
        " commands");
  }
  return true;
}

}  // namespace rc
