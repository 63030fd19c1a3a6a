#include "core/aof_propagate.h"

#include <charconv>
#include <initializer_list>
#include <optional>
#include <vector>

#include "core/aof_reader.h"
#include "core/strings.h"

namespace rc {

namespace {

using Args = absl::Span<const std::string_view>;

// ---- Reading the reply ----------------------------------------------------------------

// One RESP2/RESP3 value: a scalar's payload, or an aggregate's elements (a map's keys and
// values alternate). Views into the reply's bytes.
struct RespValue {
  char type = 0;  // the RESP type byte
  bool null = false;
  std::string_view text;
  std::vector<RespValue> items;

  // A string, number, double or boolean: what a rule can log as an argument.
  bool IsScalar() const {
    return !null && std::string_view("+$=:,(#").find(type) != std::string_view::npos;
  }
};

std::optional<int64_t> ToInt(std::string_view s) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

class RespReader {
 public:
  explicit RespReader(std::string_view in) : in_(in) {}

  // False for bytes that are not one whole value.
  bool Read(RespValue* v, int depth = 0) {
    std::string_view line;
    if (depth > kMaxDepth || !Line(&line) || line.empty()) return false;
    *v = RespValue();
    v->type = line[0];
    const std::string_view rest = line.substr(1);
    const auto one_of = [&](std::string_view types) {
      return types.find(v->type) != std::string_view::npos;
    };
    if (one_of("+-:,#(")) {  // the payload is the line
      v->text = rest;
      return true;
    }
    if (v->type == '_') return v->null = true;
    if (one_of("$=!")) return Blob(rest, v);
    if (one_of("*~>%|")) return Aggregate(rest, v, depth);
    return false;
  }

 private:
  // Deeper than any reply the rules read; bounds the recursion on hostile bytes.
  static constexpr int kMaxDepth = 8;

  bool Line(std::string_view* line) {
    const size_t nl = in_.find("\r\n", pos_);
    if (nl == std::string_view::npos) return false;
    *line = in_.substr(pos_, nl - pos_);
    pos_ = nl + 2;
    return true;
  }

  bool Blob(std::string_view len_text, RespValue* v) {
    const std::optional<int64_t> len = ToInt(len_text);
    if (!len) return false;
    if (*len < 0) return v->null = true;  // RESP2's $-1
    const size_t n = size_t(*len);
    if (n > in_.size() - pos_ || in_.substr(pos_ + n, 2) != "\r\n") return false;
    v->text = in_.substr(pos_, n);
    pos_ += n + 2;
    if (v->type == '=') v->text.remove_prefix(std::min<size_t>(4, v->text.size()));  // "txt:"
    return true;
  }

  bool Aggregate(std::string_view len_text, RespValue* v, int depth) {
    const std::optional<int64_t> len = ToInt(len_text);
    if (!len) return false;
    if (*len < 0) return v->null = true;  // RESP2's *-1
    const bool pairs = v->type == '%' || v->type == '|';
    // Each element takes 3 bytes at least: a count past that is a lie, not a reservation.
    if (uint64_t(*len) * (pairs ? 2 : 1) > (in_.size() - pos_) / 3) return false;
    std::vector<RespValue> items(size_t(*len) * (pairs ? 2 : 1));
    for (RespValue& item : items) {
      if (!Read(&item, depth + 1)) return false;
    }
    // RESP3 attributes annotate the value that follows them: that value is the reply.
    if (v->type == '|') return Read(v, depth + 1);
    v->items = std::move(items);
    return true;
  }

  std::string_view in_;
  size_t pos_ = 0;
};

std::optional<RespValue> ParseReply(std::string_view reply) {
  RespValue v;
  if (!RespReader(reply).Read(&v)) return std::nullopt;
  return v;
}

// ---- Writing records ------------------------------------------------------------------

void Record(Args argv, std::string* out) { AofAppendCommand(argv, out); }
void Record(std::initializer_list<std::string_view> argv, std::string* out) {
  Record(Args(argv.begin(), argv.size()), out);
}

// ---- The rules ------------------------------------------------------------------------

struct Call {
  Args argv;
  std::string_view reply;
  int64_t now_ms;
};

void AsSent(const Call& c, std::string* out) { Record(c.argv, out); }

// The unix-ms deadline of an EX/PX/EXAT/PXAT-style `unit` and `value`; nullopt for an
// unknown unit, a non-integer or an overflow (the command failed then: Redis checks).
std::optional<int64_t> Deadline(std::string_view unit, std::string_view value, int64_t now) {
  const std::optional<int64_t> v = ToInt(value);
  if (!v) return std::nullopt;
  const bool secs = EqualsIgnoreCase(unit, "ex") || EqualsIgnoreCase(unit, "exat");
  const bool rel = EqualsIgnoreCase(unit, "ex") || EqualsIgnoreCase(unit, "px");
  if (!secs && !rel && !EqualsIgnoreCase(unit, "pxat")) return std::nullopt;
  int64_t ms = *v;
  if (secs && __builtin_mul_overflow(ms, int64_t{1000}, &ms)) return std::nullopt;
  if (rel && __builtin_add_overflow(ms, now, &ms)) return std::nullopt;
  return ms;
}

// Redis's expireGenericCommand and getexCommand: a deadline already past deleted the key
// (checkAlreadyExpired: when <= now), which replays as DEL; otherwise PEXPIREAT, options
// (NX/XX/GT/LT) dropped since they were decided already.
void ExpireAt(std::string_view key, int64_t at, int64_t now, std::string* out) {
  if (at <= now) return Record({"DEL", key}, out);
  Record({"PEXPIREAT", key, StrCat(at)}, out);
}

template <const char* kUnit>
void Expire(const Call& c, std::string* out) {
  const std::optional<int64_t> at =
      c.argv.size() >= 3 ? Deadline(kUnit, c.argv[2], c.now_ms) : std::nullopt;
  if (!at) return AsSent(c, out);
  ExpireAt(c.argv[1], *at, c.now_ms, out);
}
constexpr char kEx[] = "ex", kPx[] = "px", kExat[] = "exat", kPxat[] = "pxat";

// setGenericCommand: with an expiry, SET key value PXAT <ms> (its five arguments: NX/XX
// held, GET only answered); without, as sent less GET (harmless in Redis, noise here).
void Set(const Call& c, std::string* out) {
  if (c.argv.size() < 3) return AsSent(c, out);
  std::vector<std::string_view> kept(c.argv.begin(), c.argv.begin() + 3);
  for (size_t i = 3; i < c.argv.size(); ++i) {
    if (EqualsIgnoreCase(c.argv[i], "get")) continue;
    if (i + 1 < c.argv.size()) {
      if (std::optional<int64_t> at = Deadline(c.argv[i], c.argv[i + 1], c.now_ms)) {
        return Record({"SET", c.argv[1], c.argv[2], "PXAT", StrCat(*at)}, out);
      }
    }
    kept.push_back(c.argv[i]);
  }
  Record(Args(kept), out);
}

template <const char* kUnit>
void SetEx(const Call& c, std::string* out) {  // SETEX/PSETEX key ttl value
  const std::optional<int64_t> at =
      c.argv.size() == 4 ? Deadline(kUnit, c.argv[2], c.now_ms) : std::nullopt;
  if (!at) return AsSent(c, out);
  Record({"SET", c.argv[1], c.argv[3], "PXAT", StrCat(*at)}, out);
}

// getexCommand: never propagated as is.
void GetEx(const Call& c, std::string* out) {
  if (c.argv.size() == 3 && EqualsIgnoreCase(c.argv[2], "persist")) {
    return Record({"PERSIST", c.argv[1]}, out);
  }
  const std::optional<int64_t> at =
      c.argv.size() == 4 ? Deadline(c.argv[2], c.argv[3], c.now_ms) : std::nullopt;
  if (!at) return AsSent(c, out);
  ExpireAt(c.argv[1], *at, c.now_ms, out);
}

void GetDel(const Call& c, std::string* out) { Record({"DEL", c.argv[1]}, out); }

// incrbyfloatCommand / hincrbyfloatCommand: the result as the reply spelled it, so that
// float formatting and precision cannot differ on replay.
std::optional<std::string_view> ScalarReply(const Call& c) {
  std::optional<RespValue> v = ParseReply(c.reply);
  if (!v || !v->IsScalar()) return std::nullopt;
  return v->text;
}
void IncrByFloat(const Call& c, std::string* out) {
  const std::optional<std::string_view> r = ScalarReply(c);
  if (!r || c.argv.size() != 3) return AsSent(c, out);
  Record({"SET", c.argv[1], *r, "KEEPTTL"}, out);
}
void HIncrByFloat(const Call& c, std::string* out) {
  const std::optional<std::string_view> r = ScalarReply(c);
  if (!r || c.argv.size() != 4) return AsSent(c, out);
  Record({"HSET", c.argv[1], c.argv[2], *r}, out);
}

// spopCommand / spopWithCountCommand: SREM of what was popped; a count the set could not
// fill emptied it, which Redis propagates as DEL. Redis 7.0 sends one SREM per member in
// a MULTI; one SREM of all is as atomic without a MULTI, which could not nest inside the
// caller's EXEC. Unreadable reply: nothing (SPOP as sent would pop others).
void SPop(const Call& c, std::string* out) {
  std::optional<RespValue> v = ParseReply(c.reply);
  if (!v || v->null) return;
  std::vector<std::string_view> srem = {"SREM", c.argv[1]};
  if (v->IsScalar()) srem.push_back(v->text);
  for (const RespValue& m : v->items) {
    if (!m.IsScalar()) return;
    srem.push_back(m.text);
  }
  if (srem.size() == 2) return;
  const std::optional<int64_t> count = c.argv.size() == 3 ? ToInt(c.argv[2]) : std::nullopt;
  if (count && int64_t(srem.size() - 2) < *count) return Record({"DEL", c.argv[1]}, out);
  Record(Args(srem), out);
}

// The key a pop served, first of its reply ([key, ...]); blocking pops are never logged
// as sent (a replay must not block), so an unreadable reply logs nothing.
std::optional<std::string_view> ServedKey(const RespValue& v) {
  if (v.items.empty() || !v.items[0].IsScalar()) return std::nullopt;
  return v.items[0].text;
}

// blockingPopGenericCommand / serveClientBlockedOnList: [LR]POP key.
template <const char* kPop>
void BlockingPop(const Call& c, std::string* out) {
  std::optional<RespValue> v = ParseReply(c.reply);
  std::optional<std::string_view> key = v ? ServedKey(*v) : std::nullopt;
  if (key) Record({kPop, *key}, out);
}
constexpr char kLpop[] = "LPOP", kRpop[] = "RPOP", kZpopmin[] = "ZPOPMIN", kZpopmax[] = "ZPOPMAX";

void BlMove(const Call& c, std::string* out) {  // BLMOVE src dst from to timeout
  if (c.argv.size() != 6) return;
  Record({"LMOVE", c.argv[1], c.argv[2], c.argv[3], c.argv[4]}, out);
}
void BRPopLPush(const Call& c, std::string* out) {  // BRPOPLPUSH src dst timeout
  if (c.argv.size() != 4) return;
  Record({"RPOPLPUSH", c.argv[1], c.argv[2]}, out);
}

// mpopGenericCommand / genericZpopCommand: [LR]POP or ZPOP{MIN,MAX} key <n>, n what came
// back ([key, [elements]]; a sorted set's elements are [member, score] pairs, or flat).
// `numkeys_at`: 1 for LMPOP/ZMPOP, 2 after BLMPOP's and BZMPOP's timeout.
void MPop(const Call& c, size_t numkeys_at, bool blocking, std::string* out) {
  const int64_t numkeys = ToInt(c.argv[numkeys_at]).value_or(0);  // min_args: it is there
  const size_t where = numkeys_at + 1 + size_t(numkeys);
  std::optional<RespValue> v = ParseReply(c.reply);
  std::optional<std::string_view> key = v ? ServedKey(*v) : std::nullopt;
  if (numkeys <= 0 || where >= c.argv.size() || !key || v->items.size() != 2) {
    if (!blocking) AsSent(c, out);  // LMPOP/ZMPOP replay the same on the same data
    return;
  }
  const std::string_view side = c.argv[where];
  const std::vector<RespValue>& elems = v->items[1].items;
  const bool nested = !elems.empty() && !elems[0].items.empty();
  const bool zset = EqualsIgnoreCase(side, "min") || EqualsIgnoreCase(side, "max");
  const size_t n = zset && !nested ? elems.size() / 2 : elems.size();
  const std::string_view pop = EqualsIgnoreCase(side, "left")    ? kLpop
                               : EqualsIgnoreCase(side, "right") ? kRpop
                               : EqualsIgnoreCase(side, "min")   ? kZpopmin
                                                                 : kZpopmax;
  Record({pop, *key, StrCat(n)}, out);
}
void LMPop(const Call& c, std::string* out) { MPop(c, 1, false, out); }
void BLMPop(const Call& c, std::string* out) { MPop(c, 2, true, out); }

// restoreCommand: a relative TTL becomes absolute, ABSTTL appended, the rest (REPLACE,
// IDLETIME, FREQ) kept as Redis keeps them; an ABSTTL already past only deleted the key
// REPLACE found (checkAlreadyExpired), which replays as DEL.
void Restore(const Call& c, std::string* out) {
  const std::optional<int64_t> ttl = c.argv.size() >= 4 ? ToInt(c.argv[2]) : std::nullopt;
  if (!ttl || *ttl <= 0) return AsSent(c, out);
  bool absttl = false;
  for (size_t i = 4; i < c.argv.size(); ++i) absttl |= EqualsIgnoreCase(c.argv[i], "absttl");
  if (absttl) return *ttl <= c.now_ms ? Record({"DEL", c.argv[1]}, out) : AsSent(c, out);
  int64_t at = 0;
  if (__builtin_add_overflow(*ttl, c.now_ms, &at)) return AsSent(c, out);
  const std::string at_text = StrCat(at);
  std::vector<std::string_view> v(c.argv.begin(), c.argv.end());
  v[2] = at_text;
  v.push_back("ABSTTL");
  Record(Args(v), out);
}

// migrateCommand: the keys the target took are deleted here, "Translate MIGRATE as DEL".
// Only +OK says which (all of them); a partial failure answers an error that does not, so
// the MIGRATE handler must log its own DELs then. Never as sent: a replay would connect.
// MIGRATE host port key|"" db timeout [COPY] [REPLACE] [AUTH pw] [AUTH2 user pw] [KEYS k..]
void Migrate(const Call& c, std::string* out) {
  if (c.reply != "+OK\r\n" || c.argv.size() < 6) return;
  std::vector<std::string_view> del = {"DEL"};
  if (!c.argv[3].empty()) del.push_back(c.argv[3]);
  for (size_t i = 6; i < c.argv.size(); ++i) {
    if (EqualsIgnoreCase(c.argv[i], "copy")) return;  // nothing was deleted
    if (EqualsIgnoreCase(c.argv[i], "auth")) {
      i += 1;
    } else if (EqualsIgnoreCase(c.argv[i], "auth2")) {
      i += 2;
    } else if (EqualsIgnoreCase(c.argv[i], "keys")) {
      del.insert(del.end(), c.argv.begin() + i + 1, c.argv.end());
      break;
    }
  }
  if (del.size() > 1) Record(Args(del), out);
}

struct Rule {
  std::string_view name;  // lower case
  size_t min_args;        // fewer: as sent (the command failed; keeps the rules simple)
  void (*fn)(const Call&, std::string*);
};

constexpr Rule kRules[] = {
    {"expire", 3, Expire<kEx>},
    {"pexpire", 3, Expire<kPx>},
    {"expireat", 3, Expire<kExat>},
    {"pexpireat", 3, Expire<kPxat>},
    {"set", 3, Set},
    {"setex", 4, SetEx<kEx>},
    {"psetex", 4, SetEx<kPx>},
    {"getex", 3, GetEx},
    {"getdel", 2, GetDel},
    {"incrbyfloat", 3, IncrByFloat},
    {"hincrbyfloat", 4, HIncrByFloat},
    {"spop", 2, SPop},
    {"blpop", 3, BlockingPop<kLpop>},
    {"brpop", 3, BlockingPop<kRpop>},
    {"bzpopmin", 3, BlockingPop<kZpopmin>},
    {"bzpopmax", 3, BlockingPop<kZpopmax>},
    {"blmove", 6, BlMove},
    {"brpoplpush", 4, BRPopLPush},
    {"lmpop", 4, LMPop},
    {"zmpop", 4, LMPop},
    {"blmpop", 5, BLMPop},
    {"bzmpop", 5, BLMPop},
    {"restore", 4, Restore},
    {"restore-asking", 4, Restore},
    {"migrate", 6, Migrate},
};

}  // namespace

void AofPropagate(Args argv, std::string_view reply, int64_t now_ms, std::string* out) {
  if (argv.empty()) return;
  const Call call{argv, reply, now_ms};
  for (const Rule& rule : kRules) {
    if (EqualsIgnoreCase(argv[0], rule.name) && argv.size() >= rule.min_args) {
      return rule.fn(call, out);
    }
  }
  AsSent(call, out);
}

}  // namespace rc
