// libFuzzer target for command dispatch (tests/fuzz/run.sh builds and runs it).
//
// Real shards on real threads (tests/shard/shard_harness.h, 3 shards, manual clock) run
// pipelines of real command names with fuzzer-chosen arguments, as one connection on a
// fuzzer-chosen thread. Every command must answer with exactly one well-formed RESP reply
// (checked by a strict reply parser), whatever its arguments, on whichever shard its keys
// land; ASan and UBSan watch the shard code meanwhile.
//
// Input, consumed byte by byte: [home thread] then per command
//   [name index] [argc] per argument [kind] [payload...]
// where kind picks a key (a few names, some under one {hash tag}), a number (edge values
// included), a keyword commands take (NX, WITHSCORES, LIMIT..., Lua script bodies,
// function libraries, a FUNCTION DUMP payload), or raw fuzzer bytes.
// Subscribe commands get exactly one channel from a namespace nothing else publishes
// to, so they also answer exactly once; SHUTDOWN (no reply), SAVE, BGSAVE,
// BGREWRITEAOF, PSYNC and SYNC (snapshots) and REPLCONF (its ACK answers nothing, as in
// Redis) are left out.

#include <cctype>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <iterator>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "core/rdb.h"
#include "shard/command/blocking_call.h"
#include "shard/scripting/function_registry.h"
#include "tests/shard/shard_harness.h"

namespace {

using rc::testing::ShardHarness;

[[noreturn]] void Fail(const char* what, const std::string& detail) {
  __builtin_fprintf(stderr, "dispatch_fuzz: %s\n%s\n", what, detail.c_str());
  std::abort();
}

// Input bytes; past the end every read is 0, so any input decodes to something.
class Reader {
 public:
  Reader(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t Byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  bool Done() const { return pos_ >= size_; }
  std::string Bytes(size_t n) {
    std::string s;
    while (n-- > 0 && !Done()) s.push_back(char(Byte()));
    return s;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

struct Vocabulary {
  std::vector<std::string> names;  // every command but those left out
  std::vector<std::vector<std::string>> subcommands;
};

const Vocabulary& Commands() {
  static const Vocabulary v = [] {
    Vocabulary out;
    rc::CommandTable table = rc::BuildCommandTable();
    table.ForEach([&out](const rc::CommandSpec& spec) {
      // SHUTDOWN and REPLCONF ACK answer nothing; snapshots (a log rewrite and a
      // replica's sync are ones) end on a writer thread writing files, outside what the
      // harness drives (tests/integration/test_persistence.py, test_aof.py and
      // test_replication.py cover them).
      if (spec.name == "shutdown" || spec.name == "save" || spec.name == "bgsave" ||
          spec.name == "bgrewriteaof" || spec.name == "psync" || spec.name == "sync" ||
          spec.name == "replconf") {
        return;
      }
      out.names.push_back(spec.name);
      std::vector<std::string> subs;
      for (const rc::CommandSpec& s : spec.subcommands) subs.push_back(s.name);
      out.subcommands.push_back(std::move(subs));
    });
    return out;
  }();
  return v;
}

bool IsSubscribeFamily(std::string_view name) {
  return name == "subscribe" || name == "psubscribe" || name == "unsubscribe" ||
         name == "punsubscribe" || name == "ssubscribe" || name == "sunsubscribe";
}

const char* const kKeys[] = {"k", "k2", "{t}a", "{t}b", "{t}c", "key:1", "z", ""};
const char* const kNumbers[] = {"0",
                                "1",
                                "-1",
                                "2",
                                "3",
                                "10",
                                "-10",
                                "100",
                                "1.5",
                                "-0",
                                "inf",
                                "-inf",
                                "+inf",
                                "nan",
                                "1e3",
                                "(1",
                                "(2",
                                "[a",
                                "(a",
                                "-",
                                "+",
                                "0x10",
                                " 1",
                                "9223372036854775807",
                                "-9223372036854775808",
                                "9223372036854775808",
                                "4294967296",
                                "1048577",
                                "99999999999"};
const char* const kWords[] = {"NX",
                              "XX",
                              "GT",
                              "LT",
                              "CH",
                              "INCR",
                              "EX",
                              "PX",
                              "EXAT",
                              "PXAT",
                              "KEEPTTL",
                              "GET",
                              "PERSIST",
                              "WITHSCORES",
                              "LIMIT",
                              "BYSCORE",
                              "BYLEX",
                              "REV",
                              "COUNT",
                              "MATCH",
                              "TYPE",
                              "string",
                              "zset",
                              "*",
                              "ASYNC",
                              "SYNC",
                              "WEIGHTS",
                              "AGGREGATE",
                              "SUM",
                              "MIN",
                              "MAX",
                              "STORE",
                              "ALPHA",
                              "SET",
                              "GETNAME",
                              "ID",
                              "SETNAME",
                              "NUMSUB",
                              "CHANNELS",
                              "INFO",
                              "requirepass",
                              "notify-keyspace-events",
                              "KEA",
                              "Ex",
                              "hz",
                              "timeout",
                              "maxclients",
                              "proto-max-bulk-len",
                              "client-output-buffer-limit",
                              "normal 1 1 1",
                              "yes",
                              "no"};
// Script bodies (EVAL, SCRIPT LOAD), the SHA-1 of the first (EVALSHA), function
// libraries (FUNCTION LOAD: the second registers a name the first has), the names of
// their functions and libraries (FCALL, FUNCTION DELETE), FUNCTION's options, and
// kDumpWord, which stands for FUNCTION DUMP's payload of the first library (FUNCTION
// RESTORE): words too. Every function ends.
constexpr const char* kDumpWord = "@dump-of-fz";
constexpr const char* kLibrary =
    "#!lua name=fz\n"
    "redis.register_function('fzget', function(keys, args) return redis.call('GET', keys[1]) "
    "end)\n"
    "redis.register_function{function_name='fzro', callback=function(keys, args) return "
    "redis.call('SET', keys[1], args[1]) end, flags={'no-writes'}, description='refused'}\n"
    "redis.register_function('fzerr', function() error('oops') end)\n"
    "redis.register_function('fzmulti', function(keys) redis.setresp(3) return "
    "redis.call('MGET', unpack(keys)) end)";
const char* const kScripts[] = {
    "return redis.call('GET', KEYS[1])",
    "local n = redis.call('INCR', KEYS[1]) redis.call('EXPIRE', KEYS[1], ARGV[1]) return n",
    "return redis.call('SET', KEYS[1], ARGV[1], 'GET')",
    "return redis.call('MSET', KEYS[1], 1, KEYS[2], 2)",
    "return redis.pcall(unpack(ARGV))",
    "return {KEYS[1], ARGV[1], 1.5, true, false, {ok='OK'}, {err='E x'}}",
    "redis.setresp(3) return redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')",
    "return redis.call('GET', 'k2')",
    "return redis.call('KEYS', '*')",
    "#!lua flags=no-writes\nreturn redis.call('SET', KEYS[1], 1)",
    "return cjson.encode({KEYS, ARGV}) .. cmsgpack.pack(ARGV)",
    "error('oops')",
    "d3c21d0c2b9ca22f82737626a27bcaf5d288f99f",
    kLibrary,
    "#!lua name=fz2\nredis.register_function{function_name='fzget', callback=function() return "
    "1 end, flags={'allow-oom'}}",
    "fzget",
    "fzro",
    "fzerr",
    "fzmulti",
    "fz",
    "REPLACE",
    "WITHCODE",
    "LIBRARYNAME",
    "APPEND",
    "FLUSH",
    kDumpWord};
const char* const kChannels[] = {"zzz1", "zzz2", "zzz?"};

const char* Word(uint8_t pick) {
  const size_t i = pick % (std::size(kWords) + std::size(kScripts));
  return i < std::size(kWords) ? kWords[i] : kScripts[i - std::size(kWords)];
}

// FUNCTION DUMP's payload of kLibrary, as a server makes it (core/rdb.h).
const std::string& DumpPayload() {
  static const std::string payload = [] {
    std::string p(1, char(rc::kRdbOpcodeFunction2));
    rc::RdbAppendString(kLibrary, &p);
    rc::AppendDumpFooter(&p);
    return p;
  }();
  return payload;
}

std::string Argument(Reader& in) {
  const uint8_t kind = in.Byte();
  const uint8_t pick = in.Byte();
  switch (kind % 6) {
    case 0:
    case 1:
      return kKeys[pick % std::size(kKeys)];
    case 2:
      return kNumbers[pick % std::size(kNumbers)];
    case 3: {
      std::string word = Word(pick);
      return word == kDumpWord ? DumpPayload() : word;
    }
    case 4:
      return std::string(pick % 300, 'v');  // a value of some size
    default: {
      std::string raw = in.Bytes(pick % 24);
      // Nothing may publish to the subscribers' namespace (it would add replies).
      if (raw.rfind("zzz", 0) == 0) raw[0] = 'y';
      return raw;
    }
  }
}

bool IsScriptBodyArg(const std::vector<std::string>& cmd) {
  return cmd.size() > 1 &&
         (cmd[0] == "eval" || cmd[0] == "eval_ro" || cmd[0] == "EVAL" || cmd[0] == "EVAL_RO");
}

// A script from raw bytes that could run for ever or eat the memory (Redis would run it
// too, until SCRIPT KILL): replaced by one that ends.
void TameScript(std::string* body) {
  for (const char* word : {"while", "repeat", "for", "function", "rep", "load"}) {
    if (body->find(word) != std::string::npos) {
      *body = "return 1";
      return;
    }
  }
}

// Strict RESP2/RESP3 reply reader: returns the end of the reply starting at `pos`, or
// npos when it is malformed or incomplete.
size_t ReplyEnd(std::string_view s, size_t pos, int depth = 0) {
  constexpr size_t npos = std::string_view::npos;
  if (pos >= s.size() || depth > 64) return npos;
  const size_t cr = s.find("\r\n", pos);
  if (cr == npos) return npos;
  const std::string_view line = s.substr(pos + 1, cr - pos - 1);
  const size_t next = cr + 2;
  auto number = [&line](int64_t* out) {
    if (line.empty() || line.size() > 20) return false;
    char* end = nullptr;
    std::string copy(line);
    *out = std::strtoll(copy.c_str(), &end, 10);
    return end == copy.c_str() + copy.size();
  };
  if (line.find('\n') != npos || line.find('\r') != npos) return npos;
  int64_t n = 0;
  switch (s[pos]) {
    case '+':
    case ':':
    case ',':
    case '#':
    case '(':
    case '_':
      return next;
    case '-':
      return line.empty() ? npos : next;
    case '$':
    case '=':
    case '!':
      if (!number(&n) || n < -1) return npos;
      if (n == -1) return next;
      if (s.size() < next + size_t(n) + 2 || s.substr(next + size_t(n), 2) != "\r\n") return npos;
      return next + size_t(n) + 2;
    case '*':
    case '~':
    case '>':
    case '%':
    case '|': {
      if (!number(&n) || n < -1) return npos;
      if (s[pos] == '%' || s[pos] == '|') n *= 2;
      size_t p = next;
      for (int64_t i = 0; i < n; ++i) {
        p = ReplyEnd(s, p, depth + 1);
        if (p == npos) return npos;
      }
      return p;
    }
    default:
      return npos;
  }
}

ShardHarness& Harness() {
  static ShardHarness* h = new ShardHarness(3);  // lives for the whole process
  return *h;
}

void ResetServer(ShardHarness& h) {
  rc::ServerState& server = h.server();
  {
    std::lock_guard<std::mutex> lock(server.config_mu);
    server.config = rc::Config();
    // Bounded values: a 512MB SETRANGE would only measure the allocator.
    server.config.proto_max_bulk_len = 1 << 20;
  }
  server.scripts->Flush();  // each input starts with no script and no function loaded
  server.scripts->functions().Flush();
}

// Empties every shard. Run at the end of each input, so that LeakSanitizer's check after it
// sees no sorted set: an entry keeps its ZSet* at an unaligned offset (core/entry.h packs
// key and value bytes), where LSan's scan cannot see it, so a live set would be reported
// as leaked.
void Flush(ShardHarness& h) {
  if (h.Run({"FLUSHALL"}) != "+OK\r\n") Fail("FLUSHALL failed", "");
}

// Runs the pipeline as `client`. A blocking command that blocks is ended the two ways a
// real one ends without a push, taking turns: its deadline passes on the manual clock,
// or CLIENT UNBLOCK (timeout 0 blocks until then). A command can also block after an
// earlier one was ended, so this repeats until every reply is in.
std::string RunToEnd(ShardHarness& h, ShardHarness::Client& client,
                     const std::vector<std::vector<std::string>>& pipeline) {
  std::future<std::string> out = h.Start(client, pipeline);
  for (int round = 0; out.wait_for(std::chrono::milliseconds(2)) != std::future_status::ready;
       ++round) {
    if (round % 2 == 0) {
      h.AdvanceMillis(1000);
      h.FireBlockedTimeouts();
    } else {
      h.OnThread(client.home, [&client, round](rc::ShardThread&) {
        return rc::UnblockClient(*client.state, /*error=*/(round & 2) != 0);
      });
    }
  }
  return out.get();
}

}  // namespace

// DISPATCH_FUZZ_NAMES=1: print "index name subcommand..." per command and exit, for
// tests/fuzz/make_dispatch_corpus.py.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (std::getenv("DISPATCH_FUZZ_NAMES") != nullptr) {
    const Vocabulary& v = Commands();
    for (size_t i = 0; i < v.names.size(); ++i) {
      std::string line = std::to_string(i) + " " + v.names[i];
      for (const auto& s : v.subcommands[i]) line += " " + s;
      std::puts(line.c_str());
    }
    std::exit(0);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ShardHarness& h = Harness();
  ResetServer(h);
  const Vocabulary& vocab = Commands();
  Reader in(data, size);
  auto client = h.Connect(in.Byte() % 3);
  std::vector<std::vector<std::string>> pipeline;
  while (!in.Done() && pipeline.size() < 64) {
    const size_t index = in.Byte() % vocab.names.size();
    std::string name = vocab.names[index];
    const uint8_t shape = in.Byte();
    if (shape & 0x80) {
      for (char& c : name) c = char(std::toupper(static_cast<unsigned char>(c)));
    }
    std::vector<std::string> cmd = {name};
    if (IsSubscribeFamily(vocab.names[index])) {
      cmd.push_back(kChannels[shape % std::size(kChannels)]);
    } else {
      const auto& subs = vocab.subcommands[index];
      if (!subs.empty() && (shape & 0x40) == 0) cmd.push_back(subs[shape % subs.size()]);
      const int argc = shape % 8;
      for (int i = 0; i < argc; ++i) cmd.push_back(Argument(in));
      if (IsScriptBodyArg(cmd)) TameScript(&cmd[1]);
    }
    pipeline.push_back(std::move(cmd));
  }
  if (pipeline.empty()) return 0;
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  static const bool verbose = std::getenv("DISPATCH_FUZZ_VERBOSE") != nullptr;
  if (verbose) {  // to read what a crashing input runs
    for (const auto& cmd : pipeline) {
      std::string line = ">";
      for (const auto& a : cmd) line += " " + a.substr(0, 60);
      std::puts(line.c_str());
    }
  }
  const std::string out = RunToEnd(h, client, pipeline);
  // The connection goes away as a closing one does: subscriptions, watches, MULTI.
  h.Run(client, {"RESET"});
  ResetServer(h);  // a requirepass the input set would refuse FLUSHALL
  Flush(h);

  size_t pos = 0, replies = 0;
  while (pos < out.size()) {
    const size_t end = ReplyEnd(out, pos);
    if (end == std::string_view::npos) {
      Fail("malformed reply", out.substr(pos, 300));
    }
    pos = end;
    ++replies;
  }
  if (replies != pipeline.size()) {
    std::string detail;
    for (const auto& cmd : pipeline) {
      for (const auto& a : cmd) detail += a.substr(0, 40) + " ";
      detail += "\n";
    }
    Fail(
        ("expected " + std::to_string(pipeline.size()) + " replies, got " + std::to_string(replies))
            .c_str(),
        detail + "--- replies:\n" + out.substr(0, 2000));
  }
  return 0;
}
