"""FUNCTION, FCALL and FCALL_RO against redis-server 7.0.15, byte for byte, on 1, 2 and 3
threads, RESP2 and RESP3: FUNCTION LOAD's metadata line, its restricted environment and
redis.register_function's errors, REPLACE, DELETE, FLUSH, LIST, STATS, KILL, HELP, DUMP and
RESTORE (payloads made by each server restored into the other, and crafted ones), FCALL's
errors, flags, read-only and OOM rules and conversions, keys on several shards, MULTI/EXEC,
MONITOR, keyspace events and INFO memory's scripting lines. Then ringcache alone with 3
threads in cluster mode, where each thread has a port of its own: a library loaded through
one thread runs from every other, and each change to the libraries is seen by all at once.

Redis lists libraries, and functions within one, in its dict's order, which changes from
run to run; ringcache lists libraries by name and functions as registered. Replies that
list several are compared with their lists sorted.

Run by ctest as `/usr/bin/python3 test_functions_differential.py <path-to-ringcache>`.
"""

from hashlib import sha1
import unittest

import redis

import ringcache_server
from differential_pair import ServersTestCase, StepChecks, parse, per_thread_count
from ringcache_server import Ringcache
from shard_keys import A, B, C


def load(code, replace=False):
    return ("FUNCTION", "LOAD") + (("REPLACE",) if replace else ()) + (code,)


def lib(name, *bodies):
    """A library registering each body (Lua statements) after its metadata line."""
    return "#!lua name=%s\n" % name + "\n".join(bodies)


def fn(name, body, flags=None, description=None):
    """A register_function call for a function whose callback is `body`."""
    if flags is None and description is None:
        return "redis.register_function('%s', function(keys, args) %s end)" % (name, body)
    extra = ""
    if flags is not None:
        extra += ", flags={%s}" % ", ".join("'%s'" % f for f in flags)
    if description is not None:
        extra += ", description='%s'" % description
    return ("redis.register_function{function_name='%s', callback=function(keys, args) %s end%s}"
            % (name, body, extra))


# FUNCTION LOAD's errors, in Redis's order: metadata, name, engine, existing library, the
# code's compile and run, what it registered, clashes with other libraries.
LOAD_CASES = [
    load("return 1"),
    load("#!lua\nreturn 1"),
    load("#!lua name=\nreturn 1"),
    load("#!lua name=a b\nreturn 1"),
    load("#!lua name=a x=1\nreturn 1"),
    load("#!lua name=a name=b\nreturn 1"),
    load('#!lua name="x y"\nreturn 1'),
    load('#!lua name="xy\nreturn 1'),
    load("#!luax name=a\nreturn 1"),
    load("#! name=a\nreturn 1"),
    load("#!lua name=a"),
    load("#!lua name=a\nreturn 1"),
    load("#!lua name=a-b\nreturn 1"),
    load("#!lua name=a\nsyntax error"),
    load("#!lua name=a\n\nerror('boom')"),
    load("#!lua name=a\nredis.call('ping')"),
    load("#!lua name=a\nredis.pcall('ping')"),
    load("#!lua name=a\nredis.setresp(3)"),
    load("#!lua name=a\nredis.sha1hex('x')"),
    load("#!lua name=a\nlocal x = redis.REPL_ALL"),
    load("#!lua name=a\nlocal x = string.len('a')"),
    load("#!lua name=a\nlocal x = KEYS"),
    load("#!lua name=a\nlocal x = _G"),
    load("#!lua name=a\nx = 1"),
    load("#!lua name=a\nredis.x = 1"),
    load("#!lua name=a\nredis.log()"),
    load("#!lua name=a\nredis.log('x', 'y')"),
    load("#!lua name=a\nlocal function f() return 1 + f() end f()"),
    load("#!lua name=a\nredis.register_function()"),
    load("#!lua name=a\nredis.register_function(1, 2, 3)"),
    load("#!lua name=a\nredis.register_function('i')"),
    load("#!lua name=a\nredis.register_function(5)"),
    load("#!lua name=a\nredis.register_function({}, function() end)"),
    load("#!lua name=a\nredis.register_function('i', 5)"),
    load("#!lua name=a\nredis.register_function('h-1', function() end)"),
    load("#!lua name=a\nredis.register_function('', function() end)"),
    load("#!lua name=a\nredis.register_function('i', function() end)"
         " redis.register_function('i', function() end)"),
    load("#!lua name=a\nredis.register_function({})"),
    load("#!lua name=a\nredis.register_function({function_name='i'})"),
    load("#!lua name=a\nredis.register_function({callback=function() end})"),
    load("#!lua name=a\nredis.register_function({function_name='i', callback=1})"),
    load("#!lua name=a\nredis.register_function({function_name={}, callback=function() end})"),
    load("#!lua name=a\nredis.register_function({function_name='i', callback=function() end,"
         " x=1})"),
    load("#!lua name=a\nredis.register_function({function_name='i', callback=function() end,"
         " flags='no-writes'})"),
    load("#!lua name=a\nredis.register_function({function_name='i', callback=function() end,"
         " flags={'bad'}})"),
    load("#!lua name=a\nredis.register_function({function_name='i', callback=function() end,"
         " flags={'no-writes', 1}})"),
    load("#!lua name=a\nredis.register_function({function_name='i', callback=function() end,"
         " description={}})"),
    load("#!lua name=a\nredis.register_function({[1]='i', callback=function() end})"),
    load("#!lua name=a\nredis.register_function('j', function() end) error('late')"),
    ("FCALL", "j", "0"),
    load(lib("a", fn("f", "return 1"))),
    load(lib("a", fn("f", "return 1"))),
    load(lib("b", fn("F", "return 1"))),
    load(lib("A", fn("g", "return 'A'"))),
    ("FCALL", "f", "0"),
    ("FCALL", "F", "0"),
    ("FCALL", "G", "0"),
    load(lib("a", fn("f", "return 2")), replace=True),
    ("FCALL", "f", "0"),
    load(lib("a", fn("f2", "return 3")), replace=True),
    ("FCALL", "f", "0"),
    ("FCALL", "f2", "0"),
    load(lib("c", fn("g", "return 1")), replace=True),
    ("FUNCTION", "LOAD", "replace", "x", lib("c", fn("h", "return 1"))),
    ("FUNCTION", "LOAD", "x", lib("c", fn("h", "return 1"))),
    ("FUNCTION", "LOAD", "REPLACE"),
    ("FUNCTION", "LOAD"),
    load(lib("d", fn("d1", "return 1", flags=["no-writes", "ALLOW-OOM", "allow-stale",
                                               "no-cluster", "allow-cross-slot-keys"],
                     description="all flags"))),
    ("FUNCTION", "LIST", "LIBRARYNAME", "d"),
    ("FUNCTION", "LIST", "LIBRARYNAME", "D", "WITHCODE"),
    ("FUNCTION", "LIST", "withcode", "libraryname", "[D]"),
    ("FUNCTION", "LIST", "LIBRARYNAME", "nosuch*"),
    ("FUNCTION", "LIST", "LIBRARYNAME"),
    ("FUNCTION", "LIST", "WITHCODE", "WITHCODE"),
    ("FUNCTION", "LIST", "LIBRARYNAME", "a", "LIBRARYNAME", "b"),
    ("FUNCTION", "LIST", "x"),
    ("FUNCTION", "DELETE", "nosuch"),
    ("FUNCTION", "DELETE", "A"),
    ("FCALL", "g", "0"),
    ("FUNCTION", "DELETE"),
    ("FUNCTION", "DELETE", "a", "b"),
    ("FUNCTION", "STATS", "x"),
    ("FUNCTION", "KILL"),
    ("FUNCTION", "KILL", "x"),
    ("FUNCTION", "HELP"),
    ("FUNCTION", "HELP", "x"),
    ("FUNCTION", "DUMP", "x"),
    ("FUNCTION", "NOSUCH"),
    ("FUNCTION",),
    ("FUNCTION", "FLUSH", "bogus"),
    ("FUNCTION", "FLUSH", "ASYNC", "x"),
    ("FUNCTION", "FLUSH", "SYNC"),
    ("FUNCTION", "LIST"),
    ("FUNCTION", "STATS"),
    ("FUNCTION", "DUMP"),
]

# One library of functions for FCALL; keys are tagged {t} (one shard) unless the case
# spreads them over shards on purpose.
FCALL_LIB = lib(
    "t",
    fn("echo", "return {keys, args}"),
    "redis.register_function('nargs', function(...) return select('#', ...) end)",
    fn("err", "error('boom')"),
    "redis.register_function('err_line', function(keys, args)\n\n  error('on line 4')\nend)",
    fn("err_table", "error({err='MY code'})"),
    fn("err_reply", "return redis.error_reply('X y')"),
    fn("status", "return redis.status_reply('fine')"),
    fn("incr", "return redis.call('incr', keys[1])"),
    fn("pincr", "return redis.pcall('incr', keys[1])"),
    fn("lua_pcall", "local ok, e = pcall(redis.call, 'incr', keys[1]) return {tostring(ok), e}"),
    fn("globals", "return KEYS"),
    fn("argv", "return ARGV"),
    fn("setglobal", "x = 1"),
    fn("set", "return redis.call('set', keys[1], args[1])"),
    fn("get", "return redis.call('get', keys[1])", flags=["no-writes"]),
    fn("set_ro", "return redis.call('set', keys[1], args[1])", flags=["no-writes"],
       description="refused"),
    fn("oom_ok", "return redis.call('set', keys[1], args[1])", flags=["allow-oom"]),
    fn("nothing", "return 1"),
    fn("hgetall3", "redis.setresp(3) return redis.call('hgetall', keys[1])"),
    fn("smembers3", "redis.setresp(3) return redis.call('smembers', keys[1])"),
    fn("zscore3", "redis.setresp(3) return redis.call('zscore', keys[1], 'a')"),
    fn("null3", "redis.setresp(3) return redis.call('get', keys[1])"),
    fn("types", "return {1, 'a', 3.99, true, false, {ok='fine'}, {2, {3}}}"),
    fn("double", "return {double=1.5}"),
    fn("map", "return {map={a=1}}"),
    fn("set_reply", "return {set={a=true}}"),
    fn("big", "return {big_number='123456789012345678901234567890'}"),
    fn("bool3", "redis.setresp(3) return true"),
    fn("fcall", "return redis.call('fcall', 'nothing', '0')"),
    fn("eval", "return redis.call('eval', 'return 1', '0')"),
    fn("register", "return redis.register_function('x', function() end)"),
    fn("sum", "local n = 0 for i = 1, #keys do n = n + redis.call('incr', keys[i]) end"
              " return n"),
    fn("mget", "return redis.call('mget', unpack(keys))"),
    fn("move", "redis.call('decrby', keys[1], args[1]) return redis.call('incrby', keys[2],"
               " args[1])"),
)

FCALL_CASES = [
    load(FCALL_LIB),
    ("FCALL", "echo", "2", "{t}a", "{t}b", "c", "d"),
    ("FCALL", "echo", "0", "c"),
    ("FCALL", "ECHO", "1", "{t}a"),
    ("FCALL", "nargs", "0"),
    ("FCALL", "err", "0"),
    ("FCALL", "err_line", "0"),
    ("FCALL", "err_table", "0"),
    ("FCALL", "err_reply", "0"),
    ("FCALL", "status", "0"),
    ("FCALL", "incr", "1", "{t}n"),
    ("FCALL", "incr", "1", "{t}n"),
    ("HSET", "{t}h", "f", "v"),
    ("FCALL", "incr", "1", "{t}h"),
    ("FCALL", "pincr", "1", "{t}h"),
    ("FCALL", "lua_pcall", "1", "{t}h"),
    ("FCALL", "globals", "0"),
    ("FCALL", "argv", "0"),
    ("FCALL", "setglobal", "0"),
    ("FCALL", "set", "1", "{t}s", "v"),
    ("FCALL", "get", "1", "{t}s"),
    ("FCALL_RO", "get", "1", "{t}s"),
    ("FCALL_RO", "set", "1", "{t}s", "v"),
    ("FCALL", "set_ro", "1", "{t}s", "v"),
    ("FCALL_RO", "nothing", "0"),
    ("SADD", "{t}set", "m"),
    ("ZADD", "{t}z", "1.5", "a"),
    ("FCALL", "hgetall3", "1", "{t}h"),
    ("FCALL", "smembers3", "1", "{t}set"),
    ("FCALL", "zscore3", "1", "{t}z"),
    ("FCALL", "null3", "1", "{t}missing"),
    ("FCALL", "types", "0"),
    ("FCALL", "double", "0"),
    ("FCALL", "map", "0"),
    ("FCALL", "set_reply", "0"),
    ("FCALL", "big", "0"),
    ("FCALL", "bool3", "0"),
    ("FCALL", "fcall", "0"),
    ("FCALL", "eval", "0"),
    ("FCALL", "register", "0"),
    ("EVAL", "return redis.call('fcall', 'nothing', '0')", "0"),
    ("EVAL", "return redis.call('function', 'list')", "0"),
    ("FCALL", "nosuch", "0"),
    ("FCALL", "nosuch", "x"),
    ("FCALL_RO", "nosuch", "-1"),
    ("FCALL", "nothing", "-1"),
    ("FCALL", "nothing", "x"),
    ("FCALL", "nothing", "1.0", "a"),
    ("FCALL", "nothing", " 1", "a"),
    ("FCALL", "nothing", "99999999999999999999"),
    ("FCALL", "nothing", "2", "a"),
    ("FCALL", "nothing"),
    ("FCALL_RO", "nothing"),
    ("FCALL",),
    ("COMMAND", "GETKEYS", "FCALL", "f", "2", "a", "b", "c"),
    ("COMMAND", "GETKEYS", "FCALL_RO", "f", "0", "c"),
    ("COMMAND", "GETKEYS", "FCALL", "f", "3", "a"),
    ("COMMAND", "GETKEYSANDFLAGS", "FCALL", "f", "1", "a"),
    ("COMMAND", "GETKEYSANDFLAGS", "FCALL_RO", "f", "0"),
    # Keys on several shards: the function runs under their locks, as EVAL does.
    ("SET", A, "10"),
    ("SET", B, "20"),
    ("FCALL", "sum", "3", A, B, C),
    ("FCALL", "mget", "3", A, B, C),
    ("FCALL", "move", "2", A, B, "5"),
    ("MGET", A, B),
    ("FCALL", "incr", "2", B, A),
    ("FCALL", "set", "2", C, A, "x"),
    ("FCALL", "incr", "2", C, A),
    ("FCALL_RO", "get", "2", B, C),
    ("FCALL_RO", "set", "2", B, C, "x"),
    # Transactions.
    ("MULTI",),
    ("FCALL", "incr", "1", "{t}c"),
    ("FCALL", "set", "1", "{t}c", "7"),
    ("FCALL", "nosuch", "0"),
    ("FCALL", "move", "2", A, B, "1"),
    ("EXEC",),
    ("MULTI",),
    ("FCALL",),
    ("EXEC",),
    # The maxmemory rules: a function without allow-oom or no-writes is refused whole.
    ("CONFIG", "SET", "maxmemory", "1"),
    ("FCALL", "set", "1", "{t}o", "v"),
    ("FCALL", "nothing", "0"),
    ("FCALL", "oom_ok", "1", "{t}o", "v"),
    ("FCALL", "get", "1", "{t}o"),
    ("FCALL_RO", "get", "1", "{t}o"),
    ("CONFIG", "SET", "maxmemory", "0"),
    ("FUNCTION", "STATS"),
]


def fields(frame):
    """A map (RESP3) or a flat key-value array (RESP2) as a dict."""
    if isinstance(frame, dict):
        return frame
    return dict(zip(frame[0::2], frame[1::2]))


def sorted_list(raw):
    """FUNCTION LIST's reply with its libraries and their functions in name order."""
    value, _ = parse(raw)
    if not isinstance(value, list):
        return value
    libs = []
    for entry in value:
        d = fields(entry)
        d[b"functions"] = sorted((sorted(fields(f).items()) for f in d[b"functions"]), key=repr)
        libs.append(sorted(d.items()))
    return sorted(libs, key=repr)


def crc64(data):
    """CRC-64 Jones (reflected, Redis's), to craft payloads."""
    crc = 0
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ 0x95ac9329ac4bc9b5 if crc & 1 else crc >> 1
    return crc


def payload(body, version=10):
    body += bytes([version & 0xff, version >> 8])
    return body + crc64(body).to_bytes(8, "little")


def rdb_string(s):
    assert len(s) < 16384
    return (bytes([len(s)]) if len(s) < 64 else bytes([0x40 | (len(s) >> 8), len(s) & 0xff])) + s


def lib_item(code):
    return b"\xf5" + rdb_string(code.encode())


class FunctionsBase(StepChecks, ServersTestCase):
    def setUp(self):
        self.p = self.servers.pair()
        self.run_all([("FLUSHALL",), ("FUNCTION", "FLUSH"), ("SCRIPT", "FLUSH")])

    def tearDown(self):
        self.p.close()

    def one(self, conn, *args):
        """One server's reply to `args`."""
        conn.send(args)
        return conn.read_frames(1)

    def test_load_errors_and_library_commands(self):
        self.run_all(LOAD_CASES)

    def test_load_errors_and_library_commands_resp3(self):
        self.same(self.p.step("HELLO", "3"))
        self.run_all(LOAD_CASES)

    def test_fcall(self):
        self.run_all(FCALL_CASES)

    def test_fcall_resp3(self):
        self.same(self.p.step("HELLO", "3"))
        self.run_all(FCALL_CASES)

    def test_load_timeout(self):
        self.run_all([load("#!lua name=slow\nwhile true do end"), ("FUNCTION", "LIST"),
                      load("#!lua name=slow\nlocal function f() return f() end f()")])

    def test_lists_of_several(self):
        libs = [lib("x1", fn("b", "return 1"), fn("a", "return 2", flags=["no-writes"]),
                    fn("c", "return 3", description="third")),
                lib("x2", fn("z", "return 1")),
                lib("y", fn("q", "return 1", flags=["allow-oom", "no-writes"]))]
        self.run_all([load(code) for code in libs])
        for c in [("FUNCTION", "LIST"), ("FUNCTION", "LIST", "WITHCODE"),
                  ("FUNCTION", "LIST", "LIBRARYNAME", "x*")]:
            for proto in ("2", "3"):
                self.same(self.p.step("HELLO", proto))
                want, got = self.p.step(*c)
                self.assertEqual(sorted_list(got), sorted_list(want), c)
        self.run_all([("FUNCTION", "STATS"), ("FUNCTION", "DELETE", "x1"), ("FUNCTION", "STATS"),
                      ("FCALL", "b", "0"), ("FCALL", "z", "0")])

    def test_dump_restore_both_ways(self):
        p = self.p
        libs = [lib("one", fn("one", "return 'one'"), fn("one_b", "return keys[1]")),
                lib("two", *[fn("two_%d" % i, "return redis.call('get', keys[1])",
                                flags=["no-writes"], description="reads %d" % i)
                             for i in range(4)])]
        for source, target in ((p.redis, p.rc), (p.rc, p.redis)):
            self.run_all([("FUNCTION", "FLUSH")])
            for code in libs:
                self.assertTrue(self.one(source, *load(code)).startswith(b"$"))
            dump = parse(self.one(source, "FUNCTION", "DUMP"))[0]
            self.assertEqual(self.one(target, "FUNCTION", "RESTORE", dump), b"+OK\r\n")
            want, got = p.step("FUNCTION", "LIST", "WITHCODE")
            self.assertEqual(sorted_list(got), sorted_list(want))
            self.run_all([("SET", "{x}k", "v"), ("FCALL", "one", "0"),
                          ("FCALL", "one_b", "1", "{x}k"), ("FCALL_RO", "two_3", "1", "{x}k")])
        # One library, compressed by Redis: the same bytes from both.
        self.run_all([("FUNCTION", "FLUSH"), load(libs[1]), ("FUNCTION", "DUMP")])

    def test_restore_policies_and_payload_errors(self):
        code = lib("p1", fn("pf", "return 1"))
        good = payload(lib_item(code))
        pre_ga = payload(b"\xf6" + rdb_string(b"p2") + rdb_string(b"LUA") + b"\x01" +
                         rdb_string(b"a description") +
                         rdb_string(fn("pf2", "return 2").encode()))
        self.run_all([
            ("FUNCTION", "RESTORE", good, "BAD"),
            ("FUNCTION", "RESTORE", good, "FLUSH", "x"),
            ("FUNCTION", "RESTORE", "x"),
            ("FUNCTION", "RESTORE", "0123456789"),
            ("FUNCTION", "RESTORE", payload(lib_item(code), version=11)),
            ("FUNCTION", "RESTORE", good[:-1] + bytes([good[-1] ^ 1])),
            ("FUNCTION", "RESTORE", payload(b"\x00" + lib_item(code)[1:])),
            ("FUNCTION", "RESTORE", payload(b"\xf6" + lib_item(code)[1:])),
            ("FUNCTION", "RESTORE", payload(b"\xf5\x41\x00")),
            ("FUNCTION", "RESTORE", payload(b"\xf5\xc3\x05\x20abcde")),
            ("FUNCTION", "RESTORE", payload(b"\xf5\xc0\x05")),
            ("FUNCTION", "RESTORE", payload(lib_item(lib("bad", "return 1")))),
            ("FUNCTION", "RESTORE", payload(lib_item(code) + lib_item(code))),
            ("FUNCTION", "RESTORE", payload(lib_item(code) + lib_item(code.replace("p1", "p3")))),
            ("FUNCTION", "LIST"),
            ("FUNCTION", "RESTORE", good),
            ("FUNCTION", "RESTORE", payload(lib_item(code), version=9)),
            ("FUNCTION", "RESTORE", good, "append"),
            ("FUNCTION", "RESTORE", good, "REPLACE"),
            ("FCALL", "pf", "0"),
            ("FUNCTION", "RESTORE", pre_ga),
            ("FCALL", "pf2", "0"),
            ("FUNCTION", "LIST", "LIBRARYNAME", "p2", "WITHCODE"),
            load(lib("x1", fn("pf", "return 'x1'")), replace=True),
            load(lib("p1", fn("other", "return 'other'")), replace=True),
            load(lib("x1", fn("pf", "return 'x1'"))),
            ("FUNCTION", "RESTORE", good),
            ("FUNCTION", "RESTORE", good, "REPLACE"),
            ("FCALL", "other", "0"),
            ("FUNCTION", "RESTORE", payload(b""), "APPEND"),
            ("FUNCTION", "RESTORE", good, "FLUSH"),
            ("FCALL", "pf", "0"),
            ("FCALL", "other", "0"),
            ("FUNCTION", "RESTORE", payload(b""), "FLUSH"),
            ("FUNCTION", "LIST"),
        ])

    def test_pipelined_changes_keep_their_order(self):
        # A change to the libraries pipelined behind FCALLs on other threads' shards
        # happens after them, as on Redis (and SCRIPT FLUSH behind EVALSHA likewise).
        script = "return redis.call('incr', KEYS[1])"
        cmds = [load(lib("o", fn("o", "return 'v1' .. redis.call('incr', keys[1])")))]
        for version in ("v2", "v3"):
            cmds += [("FCALL", "o", "1", k) for k in (A, B, C)]
            cmds.append(load(lib("o", fn("o", "return '%s' .. redis.call('incr', keys[1])"
                                              % version)), replace=True))
        cmds += [("FCALL", "o", "1", k) for k in (A, B, C)]
        cmds += [("FUNCTION", "DELETE", "o")] + [("FCALL", "o", "1", k) for k in (A, B, C)]
        cmds += [("FUNCTION", "RESTORE", payload(lib_item(lib("o", fn("o", "return 'r'")))))]
        cmds += [("FCALL", "o", "1", k) for k in (A, B, C)] + [("FUNCTION", "FLUSH")]
        cmds += [("FCALL", "o", "1", k) for k in (A, B, C)]
        cmds += [("SCRIPT", "LOAD", script)]
        cmds += [("EVALSHA", sha1(script.encode()).hexdigest(), "1", k) for k in (A, B, C)]
        cmds += [("SCRIPT", "FLUSH")]
        cmds += [("EVALSHA", sha1(script.encode()).hexdigest(), "1", k) for k in (A, B, C)]
        for c in cmds:
            self.p.send(*c)
        want, got = self.p.read(frames=len(cmds))
        self.assertEqual(got, want)

    def test_monitor_and_keyspace_events(self):
        mon, sub = self.servers.pair(), self.servers.pair()
        try:
            self.run_all([load(lib("m", fn("w", "redis.call('set', keys[1], args[1])"
                                                " return redis.call('get', keys[1])"))),
                          ("CONFIG", "SET", "notify-keyspace-events", "KEA")])
            self.same(mon.step("MONITOR"))
            self.same(sub.step("PSUBSCRIBE", "__key*__:*"))
            self.same(self.p.step("FCALL", "w", "1", "{t}k", "v"))
            self.same(mon.read(frames=3))
            self.same(sub.read(frames=2))
        finally:
            self.same(self.p.step("CONFIG", "SET", "notify-keyspace-events", ""))
            mon.close()
            sub.close()

    def test_info_memory_and_commandstats(self):
        def info(conn, section):
            raw = parse(self.one(conn, "INFO", section))[0].decode()
            return dict(line.split(":", 1) for line in raw.split("\r\n") if ":" in line)

        def scripting_fields(conn):
            raw = parse(self.one(conn, "INFO", "memory"))[0].decode()
            names = [line.split(":", 1)[0] for line in raw.split("\r\n") if ":" in line]
            first = names.index("used_memory_lua")
            return names[first:names.index("used_memory_scripts_human") + 1]

        self.assertEqual(scripting_fields(self.p.rc), scripting_fields(self.p.redis))
        self.run_all([load(lib("i1", fn("i1a", "return 1"), fn("i1b", "return 2"))),
                      load(lib("i2", fn("i2a", "return redis.call('set', keys[1], 'v')"))),
                      ("SCRIPT", "LOAD", "return 1"), ("CONFIG", "RESETSTAT"),
                      ("FCALL", "i1a", "0"), ("FCALL", "i2a", "1", "{t}k"),
                      ("FCALL_RO", "i1b", "0")])
        want, got = info(self.p.redis, "memory"), info(self.p.rc, "memory")
        for name in ("number_of_functions", "number_of_libraries", "number_of_cached_scripts"):
            self.assertEqual(got[name], want[name], name)
        self.assertGreater(int(got["used_memory_vm_functions"]), 0)
        self.assertEqual(int(got["used_memory_vm_total"]),
                         int(got["used_memory_vm_eval"]) + int(got["used_memory_vm_functions"]))
        self.assertEqual(got["used_memory_lua"], got["used_memory_vm_eval"])
        self.assertEqual(int(got["used_memory_scripts"]),
                         int(got["used_memory_scripts_eval"]) + int(got["used_memory_functions"]))
        self.assertGreater(int(got["used_memory_functions"]), 0)
        stats = info(self.p.rc, "commandstats")
        self.assertIn("calls=2,", stats["cmdstat_fcall"])
        self.assertIn("calls=1,", stats["cmdstat_fcall_ro"])
        self.assertIn("calls=1,", stats["cmdstat_set"])
        self.run_all([("FUNCTION", "FLUSH")])
        got = info(self.p.rc, "memory")
        self.assertEqual((got["number_of_functions"], got["number_of_libraries"],
                          got["used_memory_functions"]), ("0", "0", "0"))


per_thread_count(FunctionsBase, "Functions", globals())


class EveryThreadTest(unittest.TestCase):
    """One ringcache, 3 threads, cluster-enabled: each thread listens on a node port of
    its own, so a connection there is served by that thread (keyless commands are not
    redirected). Libraries are server-wide: whatever thread changes them, every thread's
    next FCALL sees the change."""

    @classmethod
    def setUpClass(cls):
        cls.server = Ringcache(threads=3, extra=["--cluster-enabled", "yes"])
        slots = redis.Redis(port=cls.server.port).execute_command("CLUSTER", "SLOTS")
        cls.ports = [s[2][1] for s in sorted(slots)]

    @classmethod
    def tearDownClass(cls):
        cls.server.stop_ok()

    def setUp(self):
        self.threads = [redis.Redis(port=p) for p in self.ports]

    def tearDown(self):
        for t in self.threads:
            t.close()

    def fcall_everywhere(self, name):
        out = []
        for t in self.threads:
            try:
                out.append(t.execute_command("FCALL", name, "0"))
            except redis.ResponseError as e:
                out.append(str(e))
        return out

    def test_changes_reach_every_thread(self):
        self.assertEqual(len(self.ports), 3)
        for loader in range(3):
            first, other = self.threads[loader], self.threads[(loader + 1) % 3]
            first.execute_command("FUNCTION", "FLUSH")
            self.assertEqual(self.fcall_everywhere("who"), ["Function not found"] * 3)
            first.execute_command(*load(lib("l", fn("who", "return 'v1'"))))
            self.assertEqual(self.fcall_everywhere("who"), [b"v1"] * 3)
            other.execute_command(*load(lib("l", fn("who", "return 'v2'")), replace=True))
            self.assertEqual(self.fcall_everywhere("who"), [b"v2"] * 3)
            # A replacement that drops the function: gone everywhere.
            first.execute_command(*load(lib("l", fn("whom", "return 'v3'")), replace=True))
            self.assertEqual(self.fcall_everywhere("who"), ["Function not found"] * 3)
            self.assertEqual(self.fcall_everywhere("whom"), [b"v3"] * 3)
            dump = other.execute_command("FUNCTION", "DUMP")
            self.threads[(loader + 2) % 3].execute_command("FUNCTION", "DELETE", "l")
            self.assertEqual(self.fcall_everywhere("whom"), ["Function not found"] * 3)
            first.execute_command("FUNCTION", "RESTORE", dump)
            self.assertEqual(self.fcall_everywhere("whom"), [b"v3"] * 3)
            other.execute_command("FUNCTION", "FLUSH", "ASYNC")
            self.assertEqual(self.fcall_everywhere("whom"), ["Function not found"] * 3)

    def test_each_thread_runs_its_own_copy(self):
        # A library's locals live in each thread's Lua state: a counter in one is not the
        # counter of another, and neither sees EVAL's scripts.
        t = self.threads
        t[0].execute_command("FUNCTION", "FLUSH")
        t[0].execute_command(*load(lib("cnt", "local n = 0", fn("bump", "n = n + 1 return n"))))
        self.assertEqual(self.fcall_everywhere("bump"), [1, 1, 1])
        self.assertEqual(self.fcall_everywhere("bump"), [2, 2, 2])
        t[1].execute_command("EVAL", "return 1", "0")
        self.assertEqual(t[1].execute_command("FCALL", "bump", "0"), 3)

    def test_no_cluster_flag(self):
        self.threads[0].execute_command(*load(lib("nc", fn("nc", "return 1", flags=["no-cluster"])),
                                              replace=True))
        self.assertEqual(self.fcall_everywhere("nc"),
                         ["Can not run script on cluster, 'no-cluster' flag is set."] * 3)


if __name__ == "__main__":
    ringcache_server.main()
