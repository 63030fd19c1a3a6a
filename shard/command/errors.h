#pragma once
// Redis's error texts, byte for byte: clients match on them.

#include <string_view>

namespace rc::err {

inline constexpr std::string_view kSyntax = "ERR syntax error";
inline constexpr std::string_view kWrongType =
    "WRONGTYPE Operation against a key holding the wrong kind of value";
inline constexpr std::string_view kNotInteger = "ERR value is not an integer or out of range";
inline constexpr std::string_view kNotFloat = "ERR value is not a valid float";
inline constexpr std::string_view kOverflow = "ERR increment or decrement would overflow";
inline constexpr std::string_view kNoSuchKey = "ERR no such key";
inline constexpr std::string_view kInvalidCursor = "ERR invalid cursor";
inline constexpr std::string_view kDbIndexRange = "ERR DB index is out of range";
inline constexpr std::string_view kOffsetRange = "ERR offset is out of range";
inline constexpr std::string_view kStringTooLong =
    "ERR string exceeds maximum allowed size (proto-max-bulk-len)";
inline constexpr std::string_view kNanOrInf = "ERR increment would produce NaN or Infinity";

inline constexpr std::string_view kNoMulti = "ERR Command not allowed inside a transaction";
inline constexpr std::string_view kOom = "OOM command not allowed when used memory > 'maxmemory'.";
inline constexpr std::string_view kReadOnlyReplica =
    "READONLY You can't write against a read only replica.";
inline constexpr std::string_view kMisconf =
    "MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist "
    "to disk. Commands that may modify the data set are disabled, because this instance is "
    "configured to report errors during writes if RDB snapshotting fails "
    "(stop-writes-on-bgsave-error option). Please check the Redis logs for details about the "
    "RDB error.";

// A script (an FCALL's function) has run past busy-reply-threshold.
inline constexpr std::string_view kBusyScript =
    "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.";
inline constexpr std::string_view kBusyFunction =
    "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.";

inline constexpr std::string_view kNoAuth = "NOAUTH Authentication required.";
inline constexpr std::string_view kWrongPass =
    "WRONGPASS invalid username-password pair or user is disabled.";
inline constexpr std::string_view kAuthNoPassword =
    "ERR AUTH <password> called without any password configured for the default user. "
    "Are you sure your configuration is correct?";
// HELLO without its AUTH option from a client that must authenticate first.
inline constexpr std::string_view kHelloNoAuth =
    "NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO "
    "AUTH <user> <pass> option can be used to authenticate the client and select the RESP "
    "protocol version at the same time";
// Redis Cluster (docs/CLUSTER.md). MOVED is built per request: "MOVED <slot> <ip>:<port>".
inline constexpr std::string_view kCrossSlot =
    "CROSSSLOT Keys in request don't hash to the same slot";
inline constexpr std::string_view kClusterDown = "CLUSTERDOWN Hash slot not served";
inline constexpr std::string_view kClusterDisabled =
    "ERR This instance has cluster support disabled";

}  // namespace rc::err
