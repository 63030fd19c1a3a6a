// BITFIELD key [GET type offset] [SET type offset value] [INCRBY type offset increment]
// [OVERFLOW WRAP|SAT|FAIL] ... and BITFIELD_RO (GETs only): integers of 1 to 64 bits
// (unsigned up to 63) at any bit offset of a string, "#n" meaning the n-th field of that
// width. Every operation is parsed before any runs, as in Redis, so a bad one changes
// nothing; the string grows once, to the furthest bit written.

#include <string_view>
#include <vector>

#include "core/bitops.h"
#include "core/numbers.h"
#include "core/strings.h"
#include "shard/command/errors.h"
#include "shard/command/typed_lookup.h"
#include "shard/families/bitmap/bit_args.h"
#include "shard/families/string/string_space.h"
#include "shard/runtime/notify.h"
#include "shard/runtime/shard.h"
#include "shard/state/server_state.h"

namespace rc {

namespace {

constexpr std::string_view kTypeErr =
    "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but "
    "i64 is.";
constexpr std::string_view kOverflowErr = "ERR Invalid OVERFLOW type specified";
constexpr std::string_view kReadOnlyErr = "ERR BITFIELD_RO only supports the GET subcommand";

struct FieldOp {
  enum Kind { kGet, kSet, kIncrBy } kind;
  bool is_signed;
  unsigned width;
  uint64_t offset;
  int64_t value;  // SET's value, INCRBY's increment
  bits::Overflow overflow;
};

// "i1".."i64" or "u1".."u63".
bool ParseFieldType(std::string_view arg, bool* is_signed, unsigned* width) {
  if (arg.empty() || (arg[0] != 'i' && arg[0] != 'u')) return false;
  *is_signed = arg[0] == 'i';
  int64_t w;
  if (!ParseInt64(arg.substr(1), &w) || w < 1 || w > (*is_signed ? 64 : 63)) return false;
  *width = unsigned(w);
  return true;
}

// Parses every operation into `ops`; replies the first error Redis would and returns
// false.
bool ParseOps(ShardCmd& cmd, std::vector<FieldOp>* ops) {
  bits::Overflow overflow = bits::Overflow::kWrap;
  const ArgList args = cmd.args;
  for (size_t j = 2; j < args.size(); ++j) {
    const size_t more = args.size() - j - 1;
    FieldOp op{};
    if (EqualsIgnoreCase(args[j], "get") && more >= 2) {
      op.kind = FieldOp::kGet;
    } else if (EqualsIgnoreCase(args[j], "set") && more >= 3) {
      op.kind = FieldOp::kSet;
    } else if (EqualsIgnoreCase(args[j], "incrby") && more >= 3) {
      op.kind = FieldOp::kIncrBy;
    } else if (EqualsIgnoreCase(args[j], "overflow") && more >= 1) {
      std::string_view how = args[++j];
      if (EqualsIgnoreCase(how, "wrap")) {
        overflow = bits::Overflow::kWrap;
      } else if (EqualsIgnoreCase(how, "sat")) {
        overflow = bits::Overflow::kSat;
      } else if (EqualsIgnoreCase(how, "fail")) {
        overflow = bits::Overflow::kFail;
      } else {
        cmd.reply.Error(kOverflowErr);
        return false;
      }
      continue;
    } else {
      cmd.reply.Error(err::kSyntax);
      return false;
    }
    if (!ParseFieldType(args[j + 1], &op.is_signed, &op.width)) {
      cmd.reply.Error(kTypeErr);
      return false;
    }
    if (!ParseBitOffset(args[j + 2], op.width, cmd.server.config.proto_max_bulk_len, &op.offset)) {
      cmd.reply.Error(err::kBitOffset);
      return false;
    }
    if (op.kind != FieldOp::kGet && !ParseInt64(args[j + 3], &op.value)) {
      cmd.reply.Error(err::kNotInteger);
      return false;
    }
    op.overflow = overflow;
    ops->push_back(op);
    j += op.kind == FieldOp::kGet ? 2 : 3;
  }
  return true;
}

// Runs a SET or INCRBY on `p` (long enough) and replies its result, or nil when OVERFLOW
// FAIL refused it. Returns whether it wrote.
bool RunWrite(const FieldOp& op, uint8_t* p, size_t len, ReplyBuilder& reply) {
  const uint64_t raw = bits::GetField(p, len, op.offset, op.width);
  const int64_t incr = op.kind == FieldOp::kIncrBy ? op.value : 0;
  if (op.is_signed) {
    const int64_t old = bits::SignExtend(raw, op.width);
    int64_t next;
    if (!bits::AddSigned(op.kind == FieldOp::kIncrBy ? old : op.value, incr, op.width, op.overflow,
                         &next)) {
      reply.NullBulk();
      return false;
    }
    bits::SetField(p, op.offset, op.width, uint64_t(next));
    reply.Integer(op.kind == FieldOp::kIncrBy ? next : old);
    return true;
  }
  uint64_t next;
  if (!bits::AddUnsigned(op.kind == FieldOp::kIncrBy ? raw : uint64_t(op.value), incr, op.width,
                         op.overflow, &next)) {
    reply.NullBulk();
    return false;
  }
  bits::SetField(p, op.offset, op.width, next);
  reply.Integer(int64_t(op.kind == FieldOp::kIncrBy ? next : raw));
  return true;
}

void BitFieldGeneric(ShardCmd& cmd, bool read_only) {
  std::vector<FieldOp> ops;
  if (!ParseOps(cmd, &ops)) return;
  uint64_t furthest = 0;  // highest bit a write reaches, plus one
  for (const FieldOp& op : ops) {
    if (op.kind != FieldOp::kGet) furthest = std::max(furthest, op.offset + op.width);
  }
  const bool writes = furthest > 0;
  if (writes && read_only) return cmd.reply.Error(kReadOnlyErr);
  Entry* e;
  const Access access = writes ? Access::kWrite : Access::kRead;
  if (!FindTyped(cmd.shard, cmd.args[1], ValueType::kString, access, cmd.reply, &e)) return;
  // The string is created or padded even if OVERFLOW FAIL then refuses every write:
  // Redis grows it before running them. Only writes that happened signal a change.
  if (writes) e = GrowZeroed(cmd.shard, cmd.args[1], e, size_t((furthest - 1) >> 3) + 1);
  cmd.reply.ArrayLen(ops.size());
  size_t changes = 0;
  for (const FieldOp& op : ops) {
    if (op.kind != FieldOp::kGet) {
      changes +=
          RunWrite(op, reinterpret_cast<uint8_t*>(e->MutableStr()), e->str().size(), cmd.reply);
      continue;
    }
    const std::string_view s = e != nullptr ? e->str() : std::string_view();
    const uint64_t raw =
        bits::GetField(reinterpret_cast<const uint8_t*>(s.data()), s.size(), op.offset, op.width);
    cmd.reply.Integer(op.is_signed ? bits::SignExtend(raw, op.width) : int64_t(raw));
  }
  if (changes > 0) {
    cmd.shard.KeyModified(cmd.args[1]);
    cmd.shard.Notify(kNotifyString, "setbit", cmd.args[1]);
  }
}

void BitField(ShardCmd& cmd) { BitFieldGeneric(cmd, false); }
void BitFieldRo(ShardCmd& cmd) { BitFieldGeneric(cmd, true); }

}  // namespace

void RegisterBitfieldCommands(CommandTable& t) {
  CommandTable::Family f = t.StartFamily("@bitmap");
  f.Add({.name = "bitfield",
         .arity = -2,
         .flags = kCmdWrite | kCmdDenyOom,
         .keys = {1, 1, 1},
         .on_shard = BitField});
  f.Add({.name = "bitfield_ro",
         .arity = -2,
         .flags = kCmdReadOnly | kCmdFast,
         .keys = {1, 1, 1},
         .on_shard = BitFieldRo});
}

}  // namespace rc
