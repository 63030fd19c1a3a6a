#include "shard/state/introspection.h"

#include <algorithm>
#include <cstdio>

#include "core/strings.h"
#include "shard/wire/command.h"

namespace rc {

namespace {
constexpr size_t kMaxArgs = 32;     // Redis's SLOWLOG_ENTRY_MAX_ARGC
constexpr size_t kMaxString = 128;  // Redis's SLOWLOG_ENTRY_MAX_STRING
}  // namespace

void SlowLog::Add(ArgList args, uint64_t micros, int64_t unix_seconds, const std::string& addr,
                  const std::string& name, size_t max_len) {
  SlowLogEntry e;
  e.unix_seconds = unix_seconds;
  e.micros = micros;
  e.addr = addr;
  e.name = name;
  size_t argc = std::min(args.size(), kMaxArgs);
  for (size_t i = 0; i < argc; ++i) {
    if (argc != args.size() && i == argc - 1) {
      e.args.push_back(StrCat("... (", args.size() - argc + 1, " more arguments)"));
    } else if (args[i].size() > kMaxString) {
      e.args.push_back(StrCat(args[i].substr(0, kMaxString), "... (", args[i].size() - kMaxString,
                              " more bytes)"));
    } else {
      e.args.emplace_back(args[i]);
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  e.id = next_id_++;
  entries_.push_front(std::move(e));
  while (entries_.size() > max_len) entries_.pop_back();
}

std::vector<SlowLogEntry> SlowLog::Get(int64_t count) const {
  std::lock_guard<std::mutex> lock(mu_);
  size_t n = count < 0 ? entries_.size() : std::min(entries_.size(), size_t(count));
  return std::vector<SlowLogEntry>(entries_.begin(), entries_.begin() + ptrdiff_t(n));
}

size_t SlowLog::Len() const {
  std::lock_guard<std::mutex> lock(mu_);
  return entries_.size();
}

void SlowLog::Reset() {
  std::lock_guard<std::mutex> lock(mu_);
  entries_.clear();
}

void SlowLog::Trim(size_t max_len) {
  std::lock_guard<std::mutex> lock(mu_);
  while (entries_.size() > max_len) entries_.pop_back();
}

std::string MonitorLine(int64_t unix_us, std::string_view addr, ArgList args) {
  char head[64];
  std::snprintf(head, sizeof(head), "+%lld.%06lld [0 ", (long long)(unix_us / 1000000),
                (long long)(unix_us % 1000000));
  std::string out = StrCat(head, addr, "]");
  for (std::string_view a : args) {
    out += " \"";
    for (unsigned char c : a) {
      switch (c) {
        case '\\':
          out += "\\\\";
          break;
        case '"':
          out += "\\\"";
          break;
        case '\n':
          out += "\\n";
          break;
        case '\r':
          out += "\\r";
          break;
        case '\t':
          out += "\\t";
          break;
        case '\a':
          out += "\\a";
          break;
        case '\b':
          out += "\\b";
          break;
        default:
          if (c >= 0x20 && c < 0x7f) {
            out += char(c);
          } else {
            char hex[8];
            std::snprintf(hex, sizeof(hex), "\\x%02x", c);
            out += hex;
          }
      }
    }
    out += '"';
  }
  out += "\r\n";
  return out;
}

void LatencyMonitor::Add(const std::string& event, uint64_t ms, int64_t unix_seconds) {
  std::lock_guard<std::mutex> lock(mu_);
  Event& e = events_[event];
  e.max_ms = std::max(e.max_ms, ms);
  Sample& last = e.samples[(e.next + kHistory - 1) % kHistory];
  if (last.unix_seconds == unix_seconds) {
    last.ms = std::max(last.ms, ms);
    return;
  }
  e.samples[e.next] = Sample{unix_seconds, ms};
  e.next = (e.next + 1) % kHistory;
}

std::vector<LatencyMonitor::Sample> LatencyMonitor::Event::History() const {
  std::vector<Sample> out;
  for (size_t j = 0; j < kHistory; ++j) {
    const Sample& s = samples[(next + j) % kHistory];
    if (s.unix_seconds != 0) out.push_back(s);
  }
  return out;
}

std::map<std::string, LatencyMonitor::Event> LatencyMonitor::Snapshot() const {
  std::lock_guard<std::mutex> lock(mu_);
  return events_;
}

size_t LatencyMonitor::Reset(const std::vector<std::string>& events) {
  std::lock_guard<std::mutex> lock(mu_);
  if (events.empty()) {
    size_t n = events_.size();
    events_.clear();
    return n;
  }
  size_t n = 0;
  for (const auto& name : events) n += events_.erase(name);
  return n;
}

void ClientPause::Pause(int64_t end_ms, Mode mode) {
  std::lock_guard<std::mutex> lock(mu_);
  int64_t old_end = end_ms_.load();
  int old_mode = mode_.load();
  mode_.store(std::max<int>(old_mode, mode), std::memory_order_release);
  end_ms_.store(std::max(old_end, end_ms), std::memory_order_release);
}

bool ClientPause::HoldsSlow(uint32_t cmd_flags, int64_t now_ms, int64_t end) const {
  if (now_ms >= end) return false;
  int mode = mode_.load(std::memory_order_acquire);
  if (mode == kAll) return true;
  // Redis holds may-replicate commands (PUBLISH) with the writes.
  return mode == kWrite && (cmd_flags & (kCmdWrite | kCmdMayReplicate));
}

}  // namespace rc
