// BITOP AND|OR|XOR|NOT destkey key [key ...]: the bytes of the source strings combined
// (a missing or shorter source reads as zeros), stored under destkey; an empty result
// deletes destkey. Replies the result's length.
//
// All keys on one shard: one step there, reading the sources in place. Keys on several
// shards: atomic as ZUNIONSTORE is (multi_shard.h): with every key locked, each shard
// copies its sources out, the connection's thread combines them, and the destination's
// shard stores the result.

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/bitops.h"
#include "core/strings.h"
#include "shard/command/deferred_reply.h"
#include "shard/command/errors.h"
#include "shard/command/key_groups.h"
#include "shard/command/multi_shard.h"
#include "shard/command/typed_lookup.h"
#include "shard/runtime/notify.h"
#include "shard/runtime/shard.h"

namespace rc {

namespace {

constexpr std::string_view kNotArityErr = "ERR BITOP NOT must be called with a single source key.";

// The operation, or an error reply (Redis checks the name, then NOT's key count).
bool ParseOp(ArgList args, bits::BitOpKind* op, ReplyBuilder& reply) {
  const std::string_view name = args[1];
  if (EqualsIgnoreCase(name, "and")) {
    *op = bits::BitOpKind::kAnd;
  } else if (EqualsIgnoreCase(name, "or")) {
    *op = bits::BitOpKind::kOr;
  } else if (EqualsIgnoreCase(name, "xor")) {
    *op = bits::BitOpKind::kXor;
  } else if (EqualsIgnoreCase(name, "not")) {
    *op = bits::BitOpKind::kNot;
  } else {
    reply.Error(err::kSyntax);
    return false;
  }
  if (*op == bits::BitOpKind::kNot && args.size() != 4) {
    reply.Error(kNotArityErr);
    return false;
  }
  return true;
}

size_t ResultLength(const std::vector<std::string_view>& srcs) {
  size_t len = 0;
  for (std::string_view s : srcs) len = std::max(len, s.size());
  return len;
}

std::string BitCombine(bits::BitOpKind op, const std::vector<std::string_view>& srcs) {
  const size_t len = ResultLength(srcs);
  std::string out(len, '\0');
  bits::BitOp(op, srcs, out.data(), len);
  return out;
}

// Stores BITOP's result under `dest`, with Redis's events: "set", or "del" when an empty
// result removed the key.
void StoreResult(Shard& shard, std::string_view dest, const std::string& result) {
  if (!result.empty()) {
    shard.SetString(dest, result);
    shard.Notify(kNotifyString, "set", dest);
  } else if (shard.Delete(dest)) {
    shard.Notify(kNotifyGeneric, "del", dest);
  }
}

// Writes the result straight into the destination's bytes when they can take it: a
// string without a TTL (BITOP clears it) whose allocation fits the result closely (a
// large one is page-rounded, so within 1/16), and that is none of the sources. BITOP into the
// same key again then allocates nothing; a temporary would cost a fresh mapping and its
// page faults per call for a large bitmap (glibc maps blocks past 128 KiB on their own).
bool CombineInPlace(Shard& shard, std::string_view dest, bits::BitOpKind op,
                    const std::vector<std::string_view>& srcs, size_t len) {
  Entry* d = shard.Find(dest);
  if (len == 0 || d == nullptr || d->type() != ValueType::kString || d->has_ttl() ||
      len > d->StrCapacity() || d->StrCapacity() - len > std::max<size_t>(64, len / 16)) {
    return false;
  }
  const char* lo = d->str().data();
  const char* hi = lo + d->StrCapacity();
  for (std::string_view s : srcs) {
    if (!s.empty() && s.data() < hi && s.data() + s.size() > lo) return false;
  }
  bits::BitOp(op, srcs, d->MutableStr(), len);
  d->SetStrLen(len);
  d->Touch();
  shard.KeyModified(dest);
  shard.Notify(kNotifyString, "set", dest);
  return true;
}

void BitOpCmd(ShardCmd& cmd) {
  bits::BitOpKind op;
  if (!ParseOp(cmd.args, &op, cmd.reply)) return;
  std::vector<std::string_view> srcs;
  for (size_t i = 3; i < cmd.args.size(); ++i) {
    // Views stay valid: reading a key never moves another key's entry.
    Entry* e;
    if (!FindTyped(cmd.shard, cmd.args[i], ValueType::kString, Access::kRead, cmd.reply, &e)) {
      return;
    }
    srcs.push_back(e != nullptr ? e->str() : std::string_view());
  }
  const size_t len = ResultLength(srcs);
  if (!CombineInPlace(cmd.shard, cmd.args[2], op, srcs, len)) {
    StoreResult(cmd.shard, cmd.args[2], BitCombine(op, srcs));
  }
  cmd.reply.Integer(int64_t(len));
}

// A source as its shard saw it.
struct Source {
  std::optional<std::string> bytes;  // nullopt: missing
  bool wrongtype = false;
};

struct Result {
  bool wrongtype = false;
  std::string bytes;
};

void BitOpCoord(CoordCmd& cmd) {
  bits::BitOpKind op;
  if (!ParseOp(cmd.args, &op, cmd.reply)) return;
  // Items: the destination (item 0), then the sources.
  auto groups = std::make_shared<const KeyGroups>(cmd.shards, cmd.args, 2, 1);
  DeferredReply out(cmd);
  LockedReadThenWrite(
      cmd, LockKeys(groups),
      [groups](Shard& shard, size_t gi) {
        std::vector<Source> reads(groups->Items(gi).size());
        for (size_t k = 0; k < reads.size(); ++k) {
          if (groups->Items(gi)[k] == 0) continue;
          const Entry* e = shard.FindForRead(groups->Args(gi)[k]);
          if (e == nullptr) continue;
          reads[k].wrongtype = e->type() != ValueType::kString;
          if (!reads[k].wrongtype) reads[k].bytes.emplace(e->str());
        }
        return reads;
      },
      [groups, op](std::vector<std::vector<Source>>& parts) {
        std::vector<std::string_view> srcs(groups->item_count() - 1);
        for (size_t gi = 0; gi < parts.size(); ++gi) {
          for (size_t k = 0; k < parts[gi].size(); ++k) {
            const size_t item = groups->Items(gi)[k];
            if (item == 0) continue;
            const Source& s = parts[gi][k];
            if (s.wrongtype) return Result{true, {}};
            if (s.bytes) srcs[item - 1] = *s.bytes;
          }
        }
        return Result{false, BitCombine(op, srcs)};
      },
      [groups](Shard& shard, size_t gi, const Result& r) {
        // Items are in argument order within a group, so the destination leads its own.
        if (!r.wrongtype && groups->Items(gi)[0] == 0) {
          StoreResult(shard, groups->Args(gi)[0], r.bytes);
        }
      },
      [out](const Result& r) {
        out.Send([&](ReplyBuilder& rb) {
          if (r.wrongtype) return rb.Error(err::kWrongType);
          rb.Integer(int64_t(r.bytes.size()));
        });
      });
}

}  // namespace

void RegisterBitopCommands(CommandTable& t) {
  CommandTable::Family f = t.StartFamily("@bitmap");
  f.Add({.name = "bitop",
         .arity = -4,
         .flags = kCmdWrite | kCmdDenyOom,
         .keys = {2, -1, 1},
         .on_shard = BitOpCmd,
         .on_coord = BitOpCoord});
}

}  // namespace rc
