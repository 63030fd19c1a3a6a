#pragma once
// Error texts of scripting, Redis 7.0's where Redis has them (script.c, eval.c,
// script_lua.c), as error lines without the leading '-'.

#include <string_view>

namespace rc::script_err {

inline constexpr std::string_view kNoScript = "NOSCRIPT No matching script. Please use EVAL.";
inline constexpr std::string_view kNegativeKeys = "ERR Number of keys can't be negative";
inline constexpr std::string_view kTooManyKeys =
    "ERR Number of keys can't be greater than number of args";
inline constexpr std::string_view kUnknownCommand = "ERR Unknown Redis command called from script";
inline constexpr std::string_view kWrongArity =
    "ERR Wrong number of args calling Redis command from script";
inline constexpr std::string_view kNotAllowed = "ERR This Redis command is not allowed from script";
inline constexpr std::string_view kWriteInReadOnly =
    "ERR Write commands are not allowed from read-only scripts.";
inline constexpr std::string_view kNoArgs =
    "ERR Please specify at least one argument for this redis lib call";
inline constexpr std::string_view kBadArgType =
    "ERR Lua redis lib command arguments must be strings or integers";
inline constexpr std::string_view kWriteFromRo =
    "ERR Can not execute a script with write flag using *_ro command.";
inline constexpr std::string_view kNoCluster =
    "ERR Can not run script on cluster, 'no-cluster' flag is set.";

// Functions (functions.c, function_lua.c). Redis 7.0 names libraries in the error for a
// bad function name too.
inline constexpr std::string_view kBadLibraryName =
    "ERR Library names can only contain letters, numbers, or underscores(_) and must be at "
    "least one character long";
inline constexpr std::string_view kFunctionNotFound = "ERR Function not found";
inline constexpr std::string_view kBadFunctionNumKeys = "ERR Bad number of keys provided";
inline constexpr std::string_view kLibraryNotFound = "ERR Library not found";
inline constexpr std::string_view kNoFunctions = "ERR No functions registered";

// ringcache's own: a server built without scripting (tests' shards without a registry).
inline constexpr std::string_view kNotReady = "ERR scripting is not available";

// SCRIPT KILL and FUNCTION KILL (busy-reply-threshold).
inline constexpr std::string_view kNotBusy = "NOTBUSY No scripts in execution right now.";
inline constexpr std::string_view kUnkillable =
    "UNKILLABLE Sorry the script already executed write commands against the dataset. You can "
    "either wait the script termination or kill the server in a hard way using the SHUTDOWN "
    "NOSAVE command.";
// The error a killed script ends with (a Lua error: the script's line is added).
inline constexpr std::string_view kKilled = "ERR Script killed by user with SCRIPT KILL...";

// ringcache's own: the rules for keys on a sharded server (docs/SCRIPTING.md).
inline constexpr std::string_view kOtherShardKey =
    "ERR Script attempted to access a key of another shard, not declared in KEYS: ";
inline constexpr std::string_view kLockedKey =
    "ERR Script attempted to access an undeclared key that a multi-shard command holds: ";
inline constexpr std::string_view kCannotWait =
    "ERR Script attempted to reach another shard inside pcall, a metamethod or a coroutine "
    "(redis.pcall can): '";
inline constexpr std::string_view kUndeclaredAcross =
    "ERR Script attempted a command over keys of several shards with a key not declared in "
    "KEYS: ";
inline constexpr std::string_view kAllShards =
    "ERR This command needs every shard and cannot run inside a script on a multi-threaded "
    "server: '";

}  // namespace rc::script_err
