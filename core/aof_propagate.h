#pragma once
// What a command that changed the data set writes to the append-only file, as Redis 7.0.15
// propagates it (its rewriteClientCommandVector/alsoPropagate calls): replaying the file
// must give the same data set, whatever the time of loading (nothing expires while it
// loads) and without chance (SPOP's members). Pure: depends on nothing but its arguments;
// any thread.
//
//   EXPIRE/PEXPIRE/EXPIREAT/PEXPIREAT  ─▶ PEXPIREAT key <abs ms>, or DEL key when past
//   SET ... EX|PX|EXAT|PXAT, SETEX, PSETEX ─▶ SET key value PXAT <abs ms>; SET ... GET
//                                             loses GET
//   GETEX ─▶ PEXPIREAT / DEL / PERSIST       GETDEL ─▶ DEL
//   INCRBYFLOAT ─▶ SET key <result> KEEPTTL  HINCRBYFLOAT ─▶ HSET key field <result>
//   SPOP ─▶ SREM key <popped...>, or DEL key when it emptied the set
//   BLPOP/BRPOP/BZPOPMIN/BZPOPMAX ─▶ LPOP/RPOP/ZPOPMIN/ZPOPMAX <the key served>
//   LMPOP/BLMPOP/ZMPOP/BZMPOP ─▶ LPOP/RPOP/ZPOPMIN/ZPOPMAX <key> <how many came back>
//   BLMOVE ─▶ LMOVE; BRPOPLPUSH ─▶ RPOPLPUSH
//   RESTORE key <rel ttl> ─▶ RESTORE key <abs ttl> ... ABSTTL; ABSTTL past ─▶ DEL
//   MIGRATE (not COPY) answered +OK ─▶ DEL <its keys>
//   anything else ─▶ as sent

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/types/span.h"

namespace rc {

// Appends to `out` the RESP multibulk record(s) replaying `argv` (the command as the
// client sent it; argv[0] in any case) must write so that replaying the file gives the
// same data set, given that the command ran at `now_ms` (unix ms) and answered `reply`
// (the RESP bytes it sent, RESP2 or RESP3). Called only when the command changed
// something. Appends nothing when the change cannot be told from `reply` (an unreadable
// reply to SPOP or a blocking pop: their form as sent would not replay the same).
void AofPropagate(absl::Span<const std::string_view> argv, std::string_view reply, int64_t now_ms,
                  std::string* out);

}  // namespace rc
