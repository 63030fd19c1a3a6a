// Helpers for the integration tests: start the real ringcache binary (or a reference
// redis-server) as a child process, talk to it through hiredis or a raw socket, and render
// replies to one canonical string so that two servers' answers compare with ==.
//
// Call flow of a test:
//   ServerProcess::StartRingcache(3) -> fork/exec, read stdout until "port=<N>"
//   Client::Connect(port)->Cmd({"SET","k","v"}) == "+OK"
//   ~ServerProcess                   -> SIGTERM, wait; a slow or unclean exit fails the test
//
// Everything here runs on the test's thread, except the per-process thread that drains
// the child's stdout+stderr into a buffer (so a chatty server never blocks on a full pipe).

#ifndef RINGCACHE_TESTS_INTEGRATION_SERVER_PROCESS_H_
#define RINGCACHE_TESTS_INTEGRATION_SERVER_PROCESS_H_

#include <hiredis/hiredis.h>
#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace rc::it {

using Args = std::vector<std::string>;
using std::chrono::milliseconds;

// The ringcache binary the tests start: $RINGCACHE_SERVER when set (CI runs these tests
// against a sanitizer build's server with them), else the one built beside the tests.
std::string RingcacheBinary();

// A TCP port on 127.0.0.1 that was free a moment ago (bind port 0, read it, close).
int PickFreePort();

// Redis Cluster hash slot of `key` (CRC16/XMODEM of the {tag} if any, mod 16384): the same
// routing function the server uses, so tests can pick keys that land on each shard.
int KeySlot(std::string_view key);
// Each shard owns a contiguous slot range; shard i's starts at round(i * 16384 / threads),
// as redis-cli --cluster create splits slots (shard/runtime/shard_set.h).
inline int ShardOf(std::string_view key, int threads) {
  const int slot = KeySlot(key);
  int shard = 0;
  while (shard + 1 < threads && (2 * (shard + 1) * 16384 + threads) / (2 * threads) <= slot) {
    ++shard;
  }
  return shard;
}
// `count` distinct keys "<prefix><i>" whose shard (for `threads`) is `shard`.
std::vector<std::string> KeysOnShard(std::string_view prefix, int shard, int threads, int count);

// Restrictions put on a child between fork and exec.
enum class Sandbox {
  kNone,
  // A seccomp filter makes io_uring_setup fail with ENOSYS, as on a kernel without io_uring
  // or under a container runtime's default profile.
  kNoIoUring,
};

class ServerProcess {
 public:
  // Starts RingcacheBinary() with `--port 0 --threads N`, then
  // `--io-engine $RINGCACHE_IO_ENGINE` when that is set, then `--save ""` (no snapshots)
  // and `--dir` a fresh temporary directory removed once the process is gone (no stray
  // dump.rdb is loaded, none is left behind), each unless `extra` names it, then `extra`
  // flags, and waits for its ready line. On failure returns null and sets `*error` (with the server's output);
  // also when the server runs another engine than RINGCACHE_IO_ENGINE names, but for
  // io_uring's fallback to epoll (io_uring_fell_back()).
  static std::unique_ptr<ServerProcess> StartRingcache(int threads, const Args& extra,
                                                       std::string* error,
                                                       Sandbox sandbox = Sandbox::kNone);
  // Starts `redis-server --port <free> --save '' --appendonly no` plus `extra` flags and
  // waits until it answers PING.
  static std::unique_ptr<ServerProcess> StartRedis(std::string* error, const Args& extra = {});

  // Sends SIGTERM unless the process already exited, then waits. A process that takes
  // longer than kStopTimeout (then SIGKILLed), exits non-zero or dies by a signal fails
  // the current test with its output.
  ~ServerProcess();
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  int port() const { return port_; }
  pid_t pid() const { return pid_; }
  const std::string& name() const { return name_; }
  // True when RINGCACHE_IO_ENGINE=io_uring asked for io_uring and the server fell back
  // to epoll (this host has none): the test did not run what it was meant to.
  bool io_uring_fell_back() const { return io_uring_fell_back_; }

  // Waits up to `timeout` for the process to exit; returns its raw wait status, or
  // nullopt if it is still running. Once it returned a status, the destructor only checks.
  std::optional<int> WaitExit(milliseconds timeout);
  // Sends `sig` unless the process already exited and was reaped.
  bool Signal(int sig);
  // True when the process runs with AddressSanitizer or ThreadSanitizer's runtime
  // (RINGCACHE_SERVER may name a sanitizer build's server).
  bool Sanitized() const;
  // Everything the process wrote to stdout and stderr so far.
  std::string Output() const;

  static constexpr milliseconds kReadyTimeout{10000};
  static constexpr milliseconds kStopTimeout{5000};

 private:
  ServerProcess(std::string name, pid_t pid, int pidfd, int out_fd);
  void DrainLoop(int fd);
  // Waits until `pred(output)` or the stream closes or `timeout`; true if pred held.
  template <typename Pred>
  bool WaitOutput(Pred pred, milliseconds timeout);

  std::string name_;
  pid_t pid_;
  int pidfd_;
  int port_ = 0;
  std::string dir_;  // The temporary --dir StartRingcache made, if any: removed at the end.
  std::optional<int> exit_status_;
  bool report_exit_ = true;  // False after a failed start, whose error says it all.
  bool io_uring_fell_back_ = false;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::string output_;
  bool output_closed_ = false;
  std::thread drain_;
};

// Canonical, type-tagged text of a reply, so that replies compare with ==:
//   +OK   -ERR msg   :1   $bulk   (nil)   (nil-array)   *[$a,:1,(nil)]
// (nil) is RESP2's null bulk string $-1, (nil-array) its null array *-1 (for replies read
// by Client and RawConn). In bulk strings, bytes outside printable ASCII and the
// characters `,[]\` are written as \xNN, so arrays stay unambiguous.
std::string Canon(const redisReply* reply);

// A hiredis connection with a reply timeout, so a hung server fails a test, not hangs it.
class Client {
 public:
  static std::unique_ptr<Client> Connect(int port, std::string* error,
                                         milliseconds timeout = milliseconds(10000));
  ~Client();

  // Sends one command, returns the canonical reply, or "!IO: <error>" if the connection
  // failed (after which every call returns that).
  std::string Cmd(const Args& args);
  // Like Cmd but keeps the reply; null on I/O error.
  using ReplyPtr = std::unique_ptr<redisReply, void (*)(void*)>;
  ReplyPtr RawCmd(const Args& args);
  // Pipelining: Append queues commands locally; the first GetReply writes them all in
  // one go and returns the first reply, later calls return the next ones in order.
  void Append(const Args& args);
  std::string GetReply();
  redisContext* ctx() { return ctx_; }

 private:
  explicit Client(redisContext* ctx) : ctx_(ctx) {}
  redisContext* ctx_;
};

// A plain TCP socket for byte-level tests, with a hiredis reader to decode replies.
class RawConn {
 public:
  static std::unique_ptr<RawConn> Connect(int port, std::string* error);
  ~RawConn();

  bool Send(std::string_view bytes);
  // Reads until `n` complete replies arrived (canonical, in order); fewer on timeout,
  // peer close or a reply the reader cannot decode.
  std::vector<std::string> ReadReplies(size_t n, milliseconds timeout = milliseconds(10000));
  // One reply, or "!EOF" / "!TIMEOUT" if none came.
  std::string ReadReply(milliseconds timeout = milliseconds(10000));
  // True once the peer closed the connection (reads until EOF, discarding data, within
  // `timeout`).
  bool WaitClosed(milliseconds timeout = milliseconds(5000));
  int fd() const { return fd_; }

 private:
  explicit RawConn(int fd);
  int fd_;
  redisReader* reader_;
  bool eof_ = false;
};

// The RESP multibulk encoding of a command, as a client sends it.
std::string EncodeCommand(const Args& args);

// "SET k v" rendering of a command for failure messages (long arguments shortened).
std::string Describe(const Args& args);

// The string elements of a flat array reply (bulk or status); empty for anything else.
std::vector<std::string> Strings(const redisReply* reply);

}  // namespace rc::it

#endif  // RINGCACHE_TESTS_INTEGRATION_SERVER_PROCESS_H_
