#include "net/connection.h"

#include <unistd.h>

#include <algorithm>
#include <utility>

#include "core/log.h"
#include "net/reactor.h"
#include "net/resp_peek.h"
#include "shard/command/blocking_call.h"
#include "shard/command/dispatcher.h"
#include "shard/state/auth.h"

namespace rc::net {

Connection::Connection(Reactor& reactor, int fd, uint64_t id, ParserLimits limits)
    : reactor_(reactor), fd_(fd), parser_(limits), reply_buffer_(reactor.now_ms()) {
  client_.id = id;
  client_.fd = fd;
}

Connection::~Connection() {
  if (fd_ >= 0) ::close(fd_);
}

void Connection::OnData(const char* data, size_t len) {
  if (closing_ || close_after_flush_ || doomed_) return;
  has_read_ = true;
  if (in_.empty() && !held_) {
    size_t used = ParseAndRun(data, len);
    if (used < len && !close_after_flush_ && !doomed_) in_.assign(data + used, len - used);
  } else {
    in_.append(data, len);
    ProcessBuffered();
  }
  CheckQueryLimit();
}

void Connection::ProcessBuffered() {
  if (in_.empty() || held_) return;
  size_t used = ParseAndRun(in_.data(), in_.size());
  if (close_after_flush_ || doomed_) {
    in_.clear();
    return;
  }
  in_.erase(0, used);
  // A large bulk in flight: grow once to its full size instead of doubling repeatedly,
  // but never past what client-query-buffer-limit lets the client send.
  size_t need = parser_.BytesNeeded();
  if (need > in_.capacity() &&
      need <= size_t(reactor_.server().config.client_query_buffer_limit.get())) {
    in_.reserve(need);
  }
}

// Redis closes a client whose query buffer outgrew client-query-buffer-limit (a bulk
// arriving, or requests piling up behind one that waits for locks).
void Connection::CheckQueryLimit() {
  if (in_.size() <= size_t(reactor_.server().config.client_query_buffer_limit.get())) return;
  Doom("max query buffer length");
}

void Connection::RefreshParserLimits() {
  const ServerState& server = reactor_.server();
  ParserLimits limits = parser_.limits();
  limits.max_bulk_len = server.config.proto_max_bulk_len;
  limits.unauthenticated = AuthRequired(server, client_);
  parser_.set_limits(limits);
}

// client-output-buffer-limit for the client's class (pubsub while subscribed, else
// normal): at or over `hard` bytes pending, or at or over `soft` for longer than
// `soft_seconds`, the client is closed. Checked whenever output is appended, as Redis.
void Connection::CheckOutputLimit() {
  if (doomed_) return;
  const Config& config = reactor_.server().config;
  const Config::OutputLimit& limit =
      config.output_limits[client_.Subscriptions() > 0 ? Config::kPubSub : Config::kNormal];
  const int64_t hard = limit.hard, soft = limit.soft;
  if (hard == 0 && soft == 0) return;
  const int64_t used = int64_t(PendingOutput());
  bool over = hard > 0 && used >= hard;
  if (!over && soft > 0 && used >= soft) {
    const int64_t now = reactor_.now_ms();
    if (soft_limit_since_ms_ < 0) {
      soft_limit_since_ms_ = now;
    } else {
      over = now - soft_limit_since_ms_ > limit.soft_seconds.get() * 1000;
    }
  } else if (!over) {
    soft_limit_since_ms_ = -1;
  }
  if (over) Doom("output buffer limits");
}

void Connection::Doom(std::string_view why) {
  if (doomed_) return;
  doomed_ = true;
  Log(LogLevel::kWarning, "Client id=", client_.id,
      " scheduled to be closed ASAP for overcoming of ", why, ".");
  // Nothing more will be sent: release the output now. (in_ may be what the running
  // command's arguments view; it goes when the connection is freed.)
  out_.clear();
  out_.shrink_to_fit();
  std::string().swap(held_bytes_);
  slot_bytes_ = 0;
  reactor_.CloseAsync(this);
}

void Connection::PushSlot(std::string_view data, bool push) {
  slots_.push_back(Slot{held_bytes_.size(), data.size(), true, false, push});
  held_bytes_.append(data);
  slot_bytes_ += data.size();
}

size_t Connection::ParseAndRun(const char* buf, size_t len) {
  in_parse_ = true;
  parsing_ = len;
  size_t off = 0;
  size_t peeked = 0;  // requests before this offset had their keys prefetched
  while (off < len && !held_ && !close_after_flush_ && !closing_ && !doomed_) {
    if (off >= peeked) peeked = off + PrefetchAhead(std::string_view(buf + off, len - off));
    size_t used = 0;
    RefreshParserLimits();
    auto status = parser_.Parse(std::string_view(buf + off, len - off), &used, &args_);
    if (status == RespParser::Status::kNeedMore) break;
    if (status == RespParser::Status::kError) {
      // One error line, then this connection alone closes.
      std::string line = "-ERR " + parser_.error() + "\r\n";
      if (slots_.empty()) {
        out_ += line;
      } else {
        PushSlot(std::move(line));
      }
      close_after_flush_ = true;
      off = len;
      MarkDirty();
      break;
    }
    if (args_.empty()) {
      off += used;
      continue;
    }
    const Dispatcher::Admission admitted =
        reactor_.dispatcher().Admit(client_, args_, outstanding_ > 0);
    if (admitted.hold != Dispatcher::Hold::kNone) {
      // Keep the request's bytes unconsumed: they are parsed again when the hold ends
      // (Resume(); FillSlot once the last owed reply arrives; the reactor once the pause
      // ends).
      held_ = true;
      if (admitted.hold == Dispatcher::Hold::kForEarlier) awaiting_earlier_ = true;
      parser_.Reset();
      if (admitted.hold == Dispatcher::Hold::kForPause) {
        parked_ = true;
        reactor_.Park(this);
      }
      break;
    }
    off += used;
    RunCommand(admitted.command);
    // A blocking command waits: what the client sent after it stays unparsed until it is
    // answered (BlockedCall::Finish resumes), as Redis reads nothing from a blocked client.
    if (client_.blocked != nullptr) held_ = true;
  }
  in_parse_ = false;
  parsing_ = 0;
  return off;
}

size_t Connection::PrefetchAhead(std::string_view buf) {
  constexpr size_t kWindow = 16;
  std::string_view keys[kWindow];
  size_t end = 0;
  const size_t n = PeekSecondArgs(buf, keys, kWindow, &end);
  // A lone request gains nothing: its lookup would wait on the hint at once.
  if (n >= 2) reactor_.dispatcher().Prefetch(reactor_.shard_thread(), keys, n);
  return end > 0 ? end : buf.size();
}

void Connection::RunCommand(const Dispatcher::Resolved& command) {
  ShardThread& self = reactor_.shard_thread();
  if (slots_.empty() && client_.reply_bits == 0) {
    // Common case: nothing pending, the reply goes straight to the output buffer.
    ReplyBuilder rb(&out_, client_.resp3);
    dispatching_ = true;
    reactor_.dispatcher().Dispatch(self, client_, *this, rb, args_, command);
    dispatching_ = false;
    // CLIENT REPLY OFF/SKIP answer nothing themselves; SKIP arms the next command.
    if (client_.reply_bits != 0) Silenced();
  } else {
    scratch_.clear();
    ReplyBuilder rb(&scratch_, client_.resp3);
    uint64_t slots_before = first_slot_ + slots_.size();
    dispatching_ = true;
    reactor_.dispatcher().Dispatch(self, client_, *this, rb, args_, command);
    dispatching_ = false;
    if (Silenced()) {
      // CLIENT REPLY OFF/SKIP: drop this command's reply, inline or still to come.
      scratch_.clear();
      for (uint64_t i = std::max(slots_before, first_slot_); i < first_slot_ + slots_.size(); ++i) {
        Slot& s = slots_[i - first_slot_];
        s.discard = !s.push;
      }
    }
    if (!scratch_.empty()) {
      if (slots_.empty()) {
        out_ += scratch_;
      } else {
        PushSlot(scratch_);
      }
    }
  }
  if (!slots_.empty()) DrainReadySlots();
  if (!monitor_after_reply_.empty()) Push(std::exchange(monitor_after_reply_, std::string()));
  if (client_.close_after_reply) close_after_flush_ = true;
  CheckOutputLimit();
  MarkDirty();
}

bool Connection::Silenced() {
  // Redis's resetClient: SKIP lasts until a command other than CLIENT; SKIP_NEXT turns
  // into SKIP after the command that set it.
  uint8_t& bits = client_.reply_bits;
  bool silent = bits & (ClientState::kReplyOff | ClientState::kReplySkip);
  if (!(bits & ClientState::kReplyWasClient)) bits &= uint8_t(~ClientState::kReplySkip);
  if (bits & ClientState::kReplySkipNext) {
    bits = uint8_t((bits | ClientState::kReplySkip) & ~ClientState::kReplySkipNext);
  }
  bits &= uint8_t(~ClientState::kReplyWasClient);
  return silent;
}

uint64_t Connection::Defer() {
  slots_.push_back(Slot{});
  ++outstanding_;
  return first_slot_ + slots_.size() - 1;
}

void Connection::Fulfill(uint64_t slot, std::string resp) { FillSlot(slot, resp, &resp); }

void Connection::FulfillFrom(uint64_t slot, std::string_view resp) {
  FillSlot(slot, resp, nullptr);
}

void Connection::FillSlot(uint64_t slot, std::string_view resp, std::string* owned) {
  --outstanding_;
  if (closing_ || doomed_) {
    // Nobody will read it; the reactor frees the connection once nothing is in flight.
    if (Freeable()) reactor_.ScheduleFree(this);
    return;
  }
  Slot& s = slots_[slot - first_slot_];
  // Answered while its own command still runs (EXEC, fan-outs that stay on this thread):
  // whether CLIENT REPLY drops it is known once Dispatch returns; RunCommand sends it.
  if (slot == first_slot_ && !dispatching_) {
    // The reply everything else waits for: straight out, then whatever was behind it.
    if (s.discard) {
      // CLIENT REPLY OFF/SKIP was on when its command ran.
    } else if (out_.empty() && owned != nullptr) {
      out_.swap(*owned);
    } else {
      out_.append(resp);
    }
    slots_.pop_front();
    ++first_slot_;
    DrainReadySlots();
  } else {
    s.offset = held_bytes_.size();
    s.len = resp.size();
    s.ready = true;
    held_bytes_.append(resp);
    slot_bytes_ += resp.size();
  }
  CheckOutputLimit();
  MarkDirty();
  if (awaiting_earlier_ && outstanding_ == 0) {
    awaiting_earlier_ = false;
    Resume();
  }
}

void Connection::DrainReadySlots() {
  while (!slots_.empty() && slots_.front().ready) {
    const Slot& s = slots_.front();
    if (!s.discard) out_.append(held_bytes_, s.offset, s.len);
    slot_bytes_ -= s.len;
    slots_.pop_front();
    ++first_slot_;
  }
  if (slot_bytes_ == 0) {
    // Nothing waits in it any more: start over (a big one-off answer gives its memory back).
    if (held_bytes_.capacity() > (1 << 20)) {
      std::string().swap(held_bytes_);
    } else {
      held_bytes_.clear();
    }
  } else if (held_bytes_.size() > (64 << 10) && slot_bytes_ < held_bytes_.size() / 2) {
    // A client that never lets its pipeline drain: keep only the bytes still waiting.
    std::string kept;
    kept.reserve(slot_bytes_);
    for (Slot& s : slots_) {
      if (!s.ready) continue;
      kept.append(held_bytes_, s.offset, s.len);
      s.offset = kept.size() - s.len;
    }
    held_bytes_.swap(kept);
  }
}

void Connection::Push(std::string resp) {
  if (closing_ || doomed_) return;
  // Pub/sub frames are built once for every subscriber as RESP2 arrays; a RESP3 client
  // gets the same frame typed as a push.
  if (client_.resp3 && !resp.empty() && resp[0] == '*') resp[0] = '>';
  if (slots_.empty()) {
    out_ += resp;
  } else {
    PushSlot(resp, /*push=*/true);
  }
  CheckOutputLimit();
  MarkDirty();
}

void Connection::PushMonitorLine(std::string line) {
  // The line of this connection's own command waits for that command's reply, which
  // RunCommand may append only once Dispatch returns.
  if (dispatching_) {
    monitor_after_reply_ += line;
    return;
  }
  Push(std::move(line));
}

void Connection::Resume() {
  if (!held_ || client_.blocked != nullptr) return;
  held_ = false;
  // Inside the parse loop the loop itself carries on; from a task, resume here.
  if (!in_parse_ && !closing_ && !doomed_) ProcessBuffered();
}

std::string& Connection::StartSend() {
  reply_buffer_.Sending(out_.size(), reactor_.now_ms());
  send_buf_.swap(out_);
  out_.clear();
  send_offset_ = 0;
  sending_ = true;
  return send_buf_;
}

void Connection::FinishSend() {
  sending_ = false;
  send_offset_ = 0;
  // Keep a modest buffer for the next reply; drop what a huge reply left behind.
  if (send_buf_.capacity() > (64 << 10)) {
    std::string().swap(send_buf_);
  } else {
    send_buf_.clear();
  }
}

ClientBuffers Connection::Buffers() const {
  ClientBuffers b;
  // Redis's query buffer holds the whole read while its commands run, in an allocation
  // of 20474 bytes (jemalloc's class for the 16 KiB it reads at once), which its cron
  // frees once the client has been idle for more than 2 s (whole seconds).
  constexpr size_t kQueryBufAlloc = 20474;
  const int64_t now_ms = reactor_.now_ms();
  b.qbuf = parsing_ > 0 ? parsing_ : in_.size();
  const bool kept = has_read_ && (b.qbuf > 0 || now_ms - idle.last_active_ms < 3000);
  b.qbuf_free = kept ? kQueryBufAlloc - std::min(b.qbuf, kQueryBufAlloc) : 0;
  b.rbs = reply_buffer_.size(now_ms);
  // Redis puts a reply's first bytes in its reply buffer (rbs) and the rest, like replies
  // behind one still pending, in a list of 16 KiB nodes: monitoring reads a client's
  // backlog from omem.
  constexpr size_t kReplyNode = 16 << 10;
  const size_t unsent = out_.size() + (sending_ ? send_buf_.size() - send_offset_ : 0);
  b.obl = std::min(unsent, b.rbs);
  b.omem = unsent - b.obl + slot_bytes_;
  b.oll = (unsent - b.obl + kReplyNode - 1) / kReplyNode + slots_.size();
  b.rbp = reply_buffer_.peak(now_ms);
  b.last_active_ms = idle.last_active_ms;
  b.writing = sending_;
  b.blocked = parked_ || BlockedWaiting(client_);
  return b;
}

void Connection::Kill(bool after_reply) {
  if (after_reply) {
    // Killing itself: the reply to CLIENT KILL goes out first, as in Redis.
    client_.close_after_reply = true;
    close_after_flush_ = true;
    MarkDirty();
    return;
  }
  reactor_.Close(this);
}

void Connection::Unpark() {
  if (!parked_) return;
  parked_ = false;
  Resume();
}

void Connection::MarkDirty() {
  if (!dirty && !out_.empty()) {
    dirty = true;
    reactor_.MarkDirty(this);
  }
}

}  // namespace rc::net
