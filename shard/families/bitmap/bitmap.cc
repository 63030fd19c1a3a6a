// Bitmap commands on string values: SETBIT, GETBIT, BITCOUNT, BITPOS; BITFIELD is in
// bitfield.cc, BITOP (keys on any shards) in bitop.cc. A bitmap is a string: GET, APPEND
// and SETRANGE see the same bytes, bit 0 being the top bit of byte 0.

#include <string_view>

#include "core/bitops.h"
#include "core/numbers.h"
#include "shard/command/arg_parser.h"
#include "shard/command/errors.h"
#include "shard/command/typed_lookup.h"
#include "shard/families/bitmap/bit_args.h"
#include "shard/families/string/string_space.h"
#include "shard/runtime/notify.h"
#include "shard/runtime/shard.h"
#include "shard/state/server_state.h"

namespace rc {

void RegisterBitfieldCommands(CommandTable& t);
void RegisterBitopCommands(CommandTable& t);

namespace {

constexpr std::string_view kBitValueErr = "ERR bit is not an integer or out of range";
constexpr std::string_view kBitArgErr = "ERR The bit argument must be 1 or 0.";

const uint8_t* Bytes(std::string_view s) { return reinterpret_cast<const uint8_t*>(s.data()); }

void SetBit(ShardCmd& cmd) {
  uint64_t offset;
  if (!ParseBitOffset(cmd.args[2], 0, cmd.server.config.proto_max_bulk_len, &offset)) {
    return cmd.reply.Error(err::kBitOffset);
  }
  int64_t on;
  if (!ParseInt64(cmd.args[3], &on) || (on & ~int64_t(1)) != 0) {
    return cmd.reply.Error(kBitValueErr);
  }
  Entry* e;
  if (!FindTyped(cmd.shard, cmd.args[1], ValueType::kString, Access::kWrite, cmd.reply, &e)) return;
  const size_t len = size_t(offset >> 3) + 1;
  const bool grows = e == nullptr || e->str().size() < len;
  e = GrowZeroed(cmd.shard, cmd.args[1], e, len);
  uint8_t& byte = reinterpret_cast<uint8_t*>(e->MutableStr())[offset >> 3];
  const uint8_t mask = uint8_t(0x80u >> (offset & 7));
  const bool was = byte & mask;
  // As Redis 7.0.15: a bit that already had the value changes nothing, unless the string
  // grew to hold it.
  if (grows || was != (on == 1)) {
    byte = on ? uint8_t(byte | mask) : uint8_t(byte & ~mask);
    cmd.shard.KeyModified(cmd.args[1]);
    cmd.shard.Notify(kNotifyString, "setbit", cmd.args[1]);
  }
  cmd.reply.Integer(was ? 1 : 0);
}

void GetBit(ShardCmd& cmd) {
  uint64_t offset;
  if (!ParseBitOffset(cmd.args[2], 0, cmd.server.config.proto_max_bulk_len, &offset)) {
    return cmd.reply.Error(err::kBitOffset);
  }
  Entry* e;
  if (!FindTyped(cmd.shard, cmd.args[1], ValueType::kString, Access::kRead, cmd.reply, &e)) return;
  if (e == nullptr || (offset >> 3) >= e->str().size()) return cmd.reply.Integer(0);
  cmd.reply.Integer((uint8_t(e->str()[offset >> 3]) >> (7 - (offset & 7))) & 1);
}

// BITCOUNT's and BITPOS's trailing BYTE|BIT.
bool ParseUnit(std::string_view arg, bool* bit_unit) {
  if (EqualsIgnoreCase(arg, "bit")) {
    *bit_unit = true;
  } else if (EqualsIgnoreCase(arg, "byte")) {
    *bit_unit = false;
  } else {
    return false;
  }
  return true;
}

// BITCOUNT key [start end [BYTE|BIT]]. As Redis 7.0, a missing key answers 0 before the
// arguments are looked at.
void BitCount(ShardCmd& cmd) {
  Entry* e;
  if (!FindTyped(cmd.shard, cmd.args[1], ValueType::kString, Access::kRead, cmd.reply, &e)) return;
  if (e == nullptr) return cmd.reply.Integer(0);
  const std::string_view s = e->str();
  const size_t argc = cmd.args.size();
  if (argc == 2) return cmd.reply.Integer(int64_t(bits::PopCount(Bytes(s), s.size())));
  if (argc != 4 && argc != 5) return cmd.reply.Error(err::kSyntax);
  int64_t start, end;
  if (!ParseInt64(cmd.args[2], &start) || !ParseInt64(cmd.args[3], &end)) {
    return cmd.reply.Error(err::kNotInteger);
  }
  bool bit_unit = false;
  if (argc == 5 && !ParseUnit(cmd.args[4], &bit_unit)) return cmd.reply.Error(err::kSyntax);
  if (start < 0 && end < 0 && start > end) return cmd.reply.Integer(0);
  const int64_t len = int64_t(s.size()) * (bit_unit ? 8 : 1);
  int64_t first, last;
  if (!ClampRange(start, end, len, &first, &last)) return cmd.reply.Integer(0);
  if (!bit_unit) {
    first *= 8;
    last = last * 8 + 7;
  }
  cmd.reply.Integer(int64_t(bits::PopCountRange(Bytes(s), uint64_t(first), uint64_t(last))));
}

// BITPOS key bit [start [end [BYTE|BIT]]].
void BitPos(ShardCmd& cmd) {
  int64_t bit;
  if (!ParseInt64(cmd.args[2], &bit)) return cmd.reply.Error(err::kNotInteger);
  if (bit != 0 && bit != 1) return cmd.reply.Error(kBitArgErr);
  Entry* e;
  if (!FindTyped(cmd.shard, cmd.args[1], ValueType::kString, Access::kRead, cmd.reply, &e)) return;
  // A missing key is an endless run of zeros.
  if (e == nullptr) return cmd.reply.Integer(bit ? -1 : 0);
  const std::string_view s = e->str();
  const size_t argc = cmd.args.size();
  if (argc > 6) return cmd.reply.Error(err::kSyntax);
  int64_t start = 0, end = -1;
  bool bit_unit = false;
  const bool end_given = argc >= 5;
  if (argc >= 4 && !ParseInt64(cmd.args[3], &start)) return cmd.reply.Error(err::kNotInteger);
  if (argc == 6 && !ParseUnit(cmd.args[5], &bit_unit)) return cmd.reply.Error(err::kSyntax);
  if (end_given && !ParseInt64(cmd.args[4], &end)) return cmd.reply.Error(err::kNotInteger);
  const int64_t len = int64_t(s.size()) * (bit_unit ? 8 : 1);
  int64_t first, last;
  if (!ClampRange(start, end_given ? end : len - 1, len, &first, &last)) {
    return cmd.reply.Integer(-1);
  }
  if (!bit_unit) {
    first *= 8;
    last = last * 8 + 7;
  }
  int64_t pos = bits::FindBit(Bytes(s), uint64_t(first), uint64_t(last), bit == 1);
  // No clear bit in the string: without an end, the zeros past it count, as in Redis.
  if (pos < 0 && bit == 0 && !end_given) pos = last + 1;
  cmd.reply.Integer(pos);
}

}  // namespace

void RegisterBitmapCommands(CommandTable& t) {
  CommandTable::Family f = t.StartFamily("@bitmap");
  f.Add({.name = "setbit",
         .arity = 4,
         .flags = kCmdWrite | kCmdDenyOom,
         .keys = {1, 1, 1},
         .on_shard = SetBit});
  f.Add({.name = "getbit",
         .arity = 3,
         .flags = kCmdReadOnly | kCmdFast,
         .keys = {1, 1, 1},
         .on_shard = GetBit});
  f.Add({.name = "bitcount",
         .arity = -2,
         .flags = kCmdReadOnly,
         .keys = {1, 1, 1},
         .on_shard = BitCount});
  f.Add({.name = "bitpos",
         .arity = -3,
         .flags = kCmdReadOnly,
         .keys = {1, 1, 1},
         .on_shard = BitPos});
  RegisterBitfieldCommands(t);
  RegisterBitopCommands(t);
}

}  // namespace rc
