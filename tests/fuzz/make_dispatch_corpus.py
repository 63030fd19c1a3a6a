#!/usr/bin/env python3
"""Writes the dispatch_fuzz seed corpus: small pipelines of real commands, encoded the way
dispatch_fuzz.cc decodes its input. Command indices come from the binary itself
(DISPATCH_FUZZ_NAMES=1), so rerun this when commands are added:

    tests/fuzz/make_dispatch_corpus.py build-fuzz/tests/fuzz/dispatch_fuzz tests/fuzz/corpus/dispatch
"""
import os
import subprocess
import sys

# Must match dispatch_fuzz.cc.
KEYS = ["k", "k2", "{t}a", "{t}b", "{t}c", "key:1", "z", ""]
NUMBERS = ["0", "1", "-1", "2", "3", "10", "-10", "100", "1.5", "-0", "inf", "-inf", "+inf",
           "nan", "1e3", "(1", "(2", "[a", "(a", "-", "+", "0x10", " 1",
           "9223372036854775807", "-9223372036854775808", "9223372036854775808",
           "4294967296", "1048577", "99999999999"]
WORDS = ["NX", "XX", "GT", "LT", "CH", "INCR", "EX", "PX", "EXAT", "PXAT", "KEEPTTL", "GET",
         "PERSIST", "WITHSCORES", "LIMIT", "BYSCORE", "BYLEX", "REV", "COUNT", "MATCH", "TYPE",
         "string", "zset", "*", "ASYNC", "SYNC", "WEIGHTS", "AGGREGATE", "SUM", "MIN", "MAX",
         "STORE", "ALPHA", "SET", "GETNAME", "ID", "SETNAME", "NUMSUB", "CHANNELS", "INFO",
         "requirepass", "notify-keyspace-events", "KEA", "Ex", "hz", "timeout", "maxclients",
         "proto-max-bulk-len", "client-output-buffer-limit", "normal 1 1 1", "yes", "no"]
SCRIPTS = [
    "return redis.call('GET', KEYS[1])",
    "local n = redis.call('INCR', KEYS[1]) redis.call('EXPIRE', KEYS[1], ARGV[1]) return n",
    "return redis.call('SET', KEYS[1], ARGV[1], 'GET')",
    "return redis.call('MSET', KEYS[1], 1, KEYS[2], 2)",
    "return redis.pcall(unpack(ARGV))",
    "return {KEYS[1], ARGV[1], 1.5, true, false, {ok='OK'}, {err='E x'}}",
    "redis.setresp(3) return redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')",
    "return redis.call('GET', 'k2')",
    "return redis.call('KEYS', '*')",
    "#!lua flags=no-writes\nreturn redis.call('SET', KEYS[1], 1)",
    "return cjson.encode({KEYS, ARGV}) .. cmsgpack.pack(ARGV)",
    "error('oops')",
    "d3c21d0c2b9ca22f82737626a27bcaf5d288f99f"]
LIBRARY = ("#!lua name=fz\n"
           "redis.register_function('fzget', function(keys, args) return redis.call('GET', keys[1]) "
           "end)\n"
           "redis.register_function{function_name='fzro', callback=function(keys, args) return "
           "redis.call('SET', keys[1], args[1]) end, flags={'no-writes'}, description='refused'}\n"
           "redis.register_function('fzerr', function() error('oops') end)\n"
           "redis.register_function('fzmulti', function(keys) redis.setresp(3) return "
           "redis.call('MGET', unpack(keys)) end)")
LIBRARY2 = ("#!lua name=fz2\nredis.register_function{function_name='fzget', callback=function() "
            "return 1 end, flags={'allow-oom'}}")
DUMP = "@dump-of-fz"  # FUNCTION DUMP's payload of LIBRARY, made by the harness
SCRIPTS += [LIBRARY, LIBRARY2, "fzget", "fzro", "fzerr", "fzmulti", "fz", "REPLACE", "WITHCODE",
            "LIBRARYNAME", "APPEND", "FLUSH", DUMP]
SUBSCRIBE = {"subscribe", "psubscribe", "unsubscribe", "punsubscribe", "ssubscribe",
             "sunsubscribe"}


def arg(a):
    for kind, table in ((0, KEYS), (2, NUMBERS), (3, WORDS + SCRIPTS)):
        if a in table:
            return bytes([kind, table.index(a)])
    if set(a) == {"v"} and len(a) < 256:
        return bytes([4, len(a)])
    assert len(a) < 24, a
    return bytes([5, len(a)]) + a.encode()


def encode(cmd, names, subs):
    name = cmd[0].lower()
    idx = names.index(name)
    out = bytes([idx])
    rest = cmd[1:]
    if name in SUBSCRIBE:
        return out + bytes([["zzz1", "zzz2", "zzz?"].index(rest[0])])
    if subs[idx] and rest:
        sub = rest[0].lower()
        for shape in range(64):
            if subs[idx][shape % len(subs[idx])] == sub and shape % 8 == len(rest) - 1:
                return out + bytes([shape]) + b"".join(arg(a) for a in rest[1:])
        raise ValueError(cmd)
    assert len(rest) < 8, cmd
    return out + bytes([0x40 | len(rest)]) + b"".join(arg(a) for a in rest)


SEEDS = [
    [["SET", "k", "vvv"], ["GET", "k"], ["APPEND", "k", "vv"], ["STRLEN", "k"]],
    [["SET", "k", "1"], ["INCR", "k"], ["INCRBY", "k", "10"], ["DECRBY", "k", "-1"]],
    [["INCRBYFLOAT", "k", "1.5"], ["GETRANGE", "k", "0", "-1"], ["SETRANGE", "k", "3", "vv"]],
    [["MSET", "{t}a", "1", "{t}b", "2"], ["MGET", "{t}a", "{t}b", "k"], ["MSETNX", "k", "1", "k2", "2"]],
    [["SET", "k", "v", "EX", "10"], ["TTL", "k"], ["PERSIST", "k"], ["PTTL", "k"]],
    [["SET", "k", "v", "NX", "GET"], ["SET", "k", "v", "XX", "KEEPTTL"], ["GETDEL", "k"]],
    [["EXPIRE", "k", "10", "NX"], ["EXPIREAT", "k", "100"], ["EXPIRETIME", "k"], ["GETEX", "k", "PX", "100"]],
    [["DEL", "k", "k2", "z"], ["EXISTS", "k", "k"], ["UNLINK", "{t}a"], ["TOUCH", "k"]],
    [["RENAME", "k", "k2"], ["RENAMENX", "{t}a", "{t}b"], ["TYPE", "k2"], ["COPY", "k", "z"]],
    [["KEYS", "*"], ["SCAN", "0", "MATCH", "*", "COUNT", "10"], ["DBSIZE"], ["RANDOMKEY"]],
    [["FLUSHALL", "ASYNC"], ["FLUSHDB", "SYNC"]],
    [["ZADD", "z", "1", "a", "2", "b"], ["ZRANGE", "z", "0", "-1", "WITHSCORES"], ["ZCARD", "z"]],
    [["ZADD", "z", "GT", "CH", "INCR", "1", "a"], ["ZSCORE", "z", "a"], ["ZINCRBY", "z", "inf", "a"]],
    [["ZADD", "z", "1", "a"], ["ZRANGEBYSCORE", "z", "-inf", "+inf", "LIMIT", "0", "1"], ["ZREVRANGE", "z", "0", "-1"]],
    [["ZADD", "z", "0", "a", "0", "b"], ["ZRANGEBYLEX", "z", "[a", "+"], ["ZLEXCOUNT", "z", "-", "+"]],
    [["ZADD", "{t}a", "1", "x"], ["ZADD", "{t}b", "2", "x"], ["ZUNIONSTORE", "{t}c", "2", "{t}a", "{t}b", "WEIGHTS", "1", "2"]],
    [["ZINTER", "2", "{t}a", "{t}b", "AGGREGATE", "MAX"], ["ZDIFF", "2", "{t}a", "z", "WITHSCORES"]],
    [["ZRANGESTORE", "{t}c", "{t}a", "0", "-1"], ["ZPOPMIN", "{t}c", "2"], ["ZPOPMAX", "z"]],
    [["ZRANK", "z", "a"], ["ZREM", "z", "a"], ["ZREMRANGEBYSCORE", "z", "(1", "inf"], ["ZMSCORE", "z", "a", "b"]],
    [["ZRANDMEMBER", "z", "-10", "WITHSCORES"], ["ZSCAN", "z", "0"], ["ZCOUNT", "z", "0", "10"]],
    [["MULTI"], ["SET", "k", "v"], ["INCR", "k"], ["EXEC"]],
    [["WATCH", "k", "{t}a"], ["MULTI"], ["GET", "k"], ["DISCARD"], ["UNWATCH"]],
    [["MULTI"], ["NOSUCH"], ["EXEC"]],
    [["SUBSCRIBE", "zzz1"], ["PING"], ["GET", "k"], ["UNSUBSCRIBE", "zzz1"]],
    [["PSUBSCRIBE", "zzz?"], ["PUBLISH", "k", "v"], ["PUNSUBSCRIBE", "zzz?"], ["PUBSUB", "NUMSUB", "k"]],
    [["CONFIG", "GET", "*"], ["CONFIG", "SET", "hz", "100"], ["CONFIG", "RESETSTAT"]],
    [["CONFIG", "SET", "requirepass", "k"], ["GET", "k"], ["AUTH", "k"], ["GET", "k"]],
    [["CONFIG", "SET", "notify-keyspace-events", "KEA"], ["SET", "k", "v", "PX", "1"], ["GET", "k"]],
    [["CLIENT", "SETNAME", "k"], ["CLIENT", "GETNAME"], ["CLIENT", "ID"], ["ECHO", "k"]],
    [["COMMAND", "INFO", "k"], ["COMMAND", "COUNT"], ["TIME"], ["SELECT", "0"]],
    [["INFO"], ["PING", "k"], ["QUIT"], ["RESET"]],
    [["AUTH", "k"], ["AUTH", "default", "k"], ["HELLO"]],
    [["EVAL", SCRIPTS[0], "1", "k"], ["EVALSHA", SCRIPTS[-1], "1", "k"],
     ["SCRIPT", "EXISTS", SCRIPTS[-1]], ["SCRIPT", "FLUSH", "ASYNC"], ["EVALSHA", SCRIPTS[-1], "0"]],
    [["EVAL", SCRIPTS[1], "1", "k", "10"], ["EVAL_RO", SCRIPTS[9], "1", "{t}a"],
     ["EVAL", SCRIPTS[4], "0", "SET", "k", "v"], ["EVAL", SCRIPTS[5], "1", "z", "v"]],
    [["MULTI"], ["EVAL", SCRIPTS[3], "2", "{t}a", "{t}b"], ["EVAL", SCRIPTS[2], "1", "k", "v"],
     ["EXEC"]],
    [["SCRIPT", "LOAD", SCRIPTS[11]], ["EVAL", SCRIPTS[8], "0"], ["EVAL", SCRIPTS[7], "1", "k"],
     ["EVAL", SCRIPTS[6], "1", "z"], ["EVAL", SCRIPTS[10], "0", "v"]],
    [["FUNCTION", "LOAD", LIBRARY], ["FCALL", "fzget", "1", "k"],
     ["FCALL_RO", "fzro", "1", "k", "v"], ["FCALL", "fzmulti", "3", "{t}a", "k", "z"],
     ["FCALL", "fzerr", "0"],
     ["FUNCTION", "LIST", "WITHCODE"]],
    [["FUNCTION", "LOAD", LIBRARY], ["FUNCTION", "LOAD", LIBRARY2],
     ["FUNCTION", "LOAD", "REPLACE", LIBRARY], ["FUNCTION", "STATS"], ["FUNCTION", "DELETE", "fz"],
     ["FCALL", "fzget", "0"]],
    [["FUNCTION", "RESTORE", DUMP], ["FUNCTION", "RESTORE", DUMP, "APPEND"], ["FUNCTION", "DUMP"],
     ["FUNCTION", "RESTORE", DUMP, "FLUSH"], ["FCALL", "fzget", "1", "{t}b"], ["FUNCTION", "KILL"]],
    [["MULTI"], ["FUNCTION", "LOAD", LIBRARY], ["FCALL", "fzmulti", "2", "{t}a", "{t}b"],
     ["EXEC"], ["FUNCTION", "LIST", "LIBRARYNAME", "fz"], ["FUNCTION", "FLUSH", "ASYNC"]],
]

# Inputs that once failed, kept under their names: (home thread, pipeline).
NAMED = {
    # Keys on several shards, waiting forever: ended by CLIENT UNBLOCK.
    "bzpop-many-shards-blocks": (0, [["LINDEX"], ["BZPOPMIN", "{t}a", "{t}b", "key:1", "k", "0"],
                                     ["GET", "1", "a", ""]]),
    # Two blocking commands in one pipeline: the second waits until the first is answered.
    "two-blocked-in-one-pipeline": (0, [
        ["PEXPIREAT"], ["BZPOPMIN", "XX", "XX", "vvv", "key:1", "{t}a", "9223372036854775807", "0"],
        ["HINCRBYFLOAT"], ["BZPOPMIN", "XX", "XX", "vvv", "key:1", "k", "10", "1"]]),
}


def main():
    binary, out_dir = sys.argv[1], sys.argv[2]
    listing = subprocess.run([binary], env=dict(os.environ, DISPATCH_FUZZ_NAMES="1"),
                             capture_output=True, text=True, check=True).stdout
    names, subs = [], []
    for line in listing.splitlines():
        words = line.split()
        names.append(words[1])
        subs.append(words[2:])
    os.makedirs(out_dir, exist_ok=True)
    written = 0
    seeds = [("seed%02d" % i, i % 3, seed) for i, seed in enumerate(SEEDS)]
    seeds += [(name, home, seed) for name, (home, seed) in NAMED.items()]
    for name, home, seed in seeds:
        try:
            data = bytes([home]) + b"".join(encode(c, names, subs) for c in seed)
        except ValueError:
            continue  # a command this build lacks
        with open(os.path.join(out_dir, name), "wb") as f:
            f.write(data)
        written += 1
    print("wrote %d seeds to %s" % (written, out_dir))


if __name__ == "__main__":
    main()
