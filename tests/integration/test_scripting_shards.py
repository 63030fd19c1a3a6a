"""Scripts whose KEYS live on several shards (docs/SCRIPTING.md): replies and errors byte
for byte against redis-server on 1, 2 and 3 threads, then ringcache alone with 2 and 3
threads: a checker (transfers between four counters on different shards from many
clients never change their sum, as every reader sees it), scripts taking the same keys
in opposite orders alongside MSET and MULTI/EXEC on them (no deadlock), and what a
script spanning shards cannot do (wait for another shard inside pcall).

Run by ctest as `/usr/bin/python3 test_scripting_shards.py <path-to-ringcache>`.
"""

from hashlib import sha1
import threading

import redis

import ringcache_server
from differential_pair import ServersTestCase, per_thread_count
from shard_keys import A, B, C, D, KEYS4


def ev(body, *keys_and_args, keys=None):
    n = len(keys_and_args) if keys is None else keys
    return ("EVAL", body, str(n)) + tuple(keys_and_args)


INCRBY = "return redis.call('incrby', KEYS[2], ARGV[1])"
CASES = [
    ev("redis.call('set', KEYS[1], 'a') redis.call('set', KEYS[2], 'b')"
       " redis.call('set', KEYS[3], 'c') return redis.call('mget', KEYS[1], KEYS[2], KEYS[3])",
       A, B, C),
    ev("return {redis.call('get', KEYS[3]), redis.call('get', KEYS[2]),"
       " redis.call('get', KEYS[1])}", A, B, C),
    ev("return redis.call('incr', KEYS[2])", A, B),
    ev("\n\nlocal x = redis.call('incr', KEYS[2])\nreturn x", A, B, C),
    ev("return redis.call('incr', KEYS[3])", A, B, C),
    ev("return redis.pcall('incr', KEYS[3])", A, B, C),
    ev("local r = redis.pcall('incr', KEYS[3]) return {r['err'], 1}", A, B, C),
    ev("redis.call('set', KEYS[2], 'x') redis.call('incr', KEYS[3]) return 1", A, B, C),
    ("GET", B),
    ev("return redis.call('incrbyfloat', KEYS[2], '1.5')", A, D),
    ev("return redis.call('get', KEYS[1]) .. redis.call('get', KEYS[2])", A, B),
    ev("return redis.call('exists', KEYS[1], KEYS[2], KEYS[3], KEYS[4])", *KEYS4),
    ev("redis.call('hset', KEYS[2], 'f', 'v') redis.setresp(3)"
       " return redis.call('hgetall', KEYS[2])", A, B),
    ev("redis.setresp(3) local m = redis.call('hgetall', KEYS[2]) return m['map']['f']", A, B),
    ev("return redis.call('type', KEYS[2])", A, B),
    ev("return redis.call('get', KEYS[2])", A, B),
    ev("redis.call('set', 'undeclared', 'u') return redis.call('get', 'undeclared')", A, B),
    ev("return redis.call('del', KEYS[1], KEYS[2], KEYS[3], KEYS[4])", *KEYS4),
    ev("return {KEYS[1], KEYS[2], ARGV[1], ARGV[2]}", A, B, "x", "y", keys=2),
    ev("local n = 0 for i = 1, #KEYS do n = n + redis.call('incr', KEYS[i]) end return n",
       *KEYS4),
    ev("return redis.call('mget', KEYS[1], KEYS[2], KEYS[3], KEYS[4])", *KEYS4),
    ev("error('after ' .. redis.call('get', KEYS[2]))", A, B),
    ev("return redis.call('nosuch', KEYS[2])", A, B),
    ev("return redis.call('get', KEYS[2], 'x')", A, B),
    ("EVAL_RO", "return redis.call('set', KEYS[2], 'x')", "2", A, B),
    ("EVAL_RO", "return redis.call('get', KEYS[2])", "2", A, B),
    ("SCRIPT", "LOAD", INCRBY),
    ("EVALSHA", sha1(INCRBY.encode()).hexdigest(), "2", A, B, "10"),
    ("MULTI",),
    ev("return redis.call('incr', KEYS[2])", A, B),
    ("INCR", B),
    ev("return redis.call('mget', KEYS[1], KEYS[2])", A, B),
    ("EXEC",),
    ev("return redis.call('get', KEYS[2])", A, C, B),
]


def on(key, suffix):
    """Another key of `key`'s slot, so of its shard."""
    return "{%s}%s" % (key, suffix)


# Commands whose keys follow a numkeys argument (and BLMPOP/BZMPOP, non-blocking in a
# script): over keys of one shard ({t}), over declared keys of several (A, B, C), with a
# numkeys the command refuses, and inside MULTI next to keys of every shard and KEYS,
# whose locks hold the script's keys already.
NUMKEYS_SETUP = [
    ("SADD", "{t}s1", "1", "2", "3"), ("SADD", "{t}s2", "2", "3", "4"),
    ("ZADD", "{t}z1", "1", "m", "2", "n"), ("ZADD", "{t}z2", "3", "n", "4", "o"),
    ("RPUSH", "{t}l", "1", "2", "3"), ("SADD", A, "1", "2"), ("SADD", B, "2", "3"),
    ("ZADD", on(A, "z"), "1", "m"), ("ZADD", on(B, "z"), "2", "m", "5", "p"),
    ("RPUSH", on(C, "l"), "1", "2"),
]
NUMKEYS = [
    ("return redis.call('sintercard', 2, KEYS[1], KEYS[2])", "{t}s1", "{t}s2"),
    ("return redis.call('sintercard', 2, KEYS[1], KEYS[2], 'limit', 1)", "{t}s1", "{t}s2"),
    ("return redis.call('zintercard', 2, KEYS[1], KEYS[2])", "{t}z1", "{t}z2"),
    ("return redis.call('zunion', 2, KEYS[1], KEYS[2], 'withscores')", "{t}z1", "{t}z2"),
    ("return redis.call('zinter', 2, KEYS[1], KEYS[2], 'withscores')", "{t}z1", "{t}z2"),
    ("return redis.call('zdiff', 2, KEYS[1], KEYS[2])", "{t}z1", "{t}z2"),
    ("return redis.call('zunionstore', KEYS[3], 2, KEYS[1], KEYS[2])", "{t}z1", "{t}z2", "{t}d"),
    ("return redis.call('zinterstore', KEYS[3], 2, KEYS[1], KEYS[2])", "{t}z1", "{t}z2", "{t}d"),
    ("return redis.call('zdiffstore', KEYS[3], 2, KEYS[1], KEYS[2])", "{t}z1", "{t}z2", "{t}d"),
    ("return redis.call('lmpop', 2, KEYS[1], KEYS[2], 'left')", "{t}none", "{t}l"),
    ("return redis.call('blmpop', 0, 2, KEYS[1], KEYS[2], 'right')", "{t}none", "{t}l"),
    ("return redis.call('zmpop', 2, KEYS[1], KEYS[2], 'min')", "{t}none", "{t}z1"),
    ("return redis.call('bzmpop', 0, 2, KEYS[1], KEYS[2], 'max')", "{t}none", "{t}z2"),
    ("return redis.call('blmpop', 0, 1, KEYS[1], 'left')", "{t}none"),
    ("return redis.call('sintercard', 2, KEYS[1], KEYS[2])", A, B),
    ("return redis.call('zunion', 2, KEYS[1], KEYS[2], 'withscores')", on(A, "z"), on(B, "z")),
    ("return redis.call('zunionstore', KEYS[1], 2, KEYS[1], KEYS[2])", on(A, "z"), on(B, "z")),
    ("return redis.call('lmpop', 2, KEYS[1], KEYS[2], 'left')", on(A, "l"), on(C, "l")),
    ("return redis.call('zmpop', 2, KEYS[1], KEYS[2], 'max', 'count', 5)", on(C, "z"), on(B, "z")),
    ("return redis.call('sintercard', 3, KEYS[1], KEYS[2])", "{t}s1", "{t}s2"),
    ("return redis.call('sintercard', 0, KEYS[1], KEYS[2])", "{t}s1", "{t}s2"),
    ("return redis.call('zunionstore', KEYS[1], 0, KEYS[2])", "{t}d", "{t}z1"),
    ("return redis.call('lmpop', 'x', KEYS[1], 'left')", "{t}l"),
]
NUMKEYS_CASES = NUMKEYS_SETUP + [ev(c[0], *c[1:]) for c in NUMKEYS] + [
    ("MULTI",), ("SET", A, "x"), ("SET", B, "x"), ("SET", C, "x"), ("KEYS", "none*")] + [
    ev(c[0], *c[1:]) for c in NUMKEYS[:14]] + [
    ("EXEC",), ("ZRANGE", "{t}d", "0", "-1"), ("LRANGE", "{t}l", "0", "-1")]


class ShardsDifferential(ServersTestCase):
    def test_replies_and_errors(self):
        p = self.servers.pair()
        try:
            for proto in ("2", "3"):
                for c in [("HELLO", proto), ("FLUSHALL",)] + CASES:
                    want, got = p.step(*c)
                    self.assertEqual(got, want, "command %r (RESP%s)" % (c, proto))
        finally:
            p.close()

    def test_commands_with_numkeys(self):
        p = self.servers.pair()
        try:
            for c in [("FLUSHALL",)] + NUMKEYS_CASES:
                want, got = p.step(*c)
                self.assertEqual(got, want, "command %r" % (c,))
        finally:
            p.close()

    def test_pipelined_behind_and_ahead(self):
        p = self.servers.pair()
        try:
            script = "redis.call('set', KEYS[1], ARGV[1]) return redis.call('incr', KEYS[2])"
            cmds = [("SET", B, "1"), ev(script, A, B, "x", keys=2), ("GET", A), ("GET", B),
                    ev(script, C, A, "y", keys=2), ("GET", C)] * 3
            for c in cmds:
                p.send(*c)
            want, got = p.read(frames=len(cmds))
            self.assertEqual(got, want)
        finally:
            p.close()


per_thread_count(ShardsDifferential, "Differential", globals())

TRANSFER = """
local from, to = KEYS[tonumber(ARGV[1])], KEYS[tonumber(ARGV[2])]
local amount = tonumber(ARGV[3])
local have = tonumber(redis.call('get', from))
if have < amount then return 0 end
redis.call('decrby', from, amount)
redis.call('incrby', to, amount)
return 1
"""
SUM = """
local n = 0
for i = 1, #KEYS do n = n + tonumber(redis.call('get', KEYS[i])) end
return n
"""
TOTAL = 4 * 1000


class ShardsRingcache:
    """Checks against ringcache alone (a ServerTestCase: one server per class)."""

    def setUp(self):
        self.r = self.client()

    def tearDown(self):
        self.r.close()

    def client(self):
        return redis.Redis(port=self.port, socket_timeout=10)

    def run_threads(self, targets):
        errors = []

        def guard(fn):
            try:
                fn()
            except Exception as e:  # noqa: BLE001 - reported below
                errors.append(e)

        threads = [threading.Thread(target=guard, args=(t,)) for t in targets]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
            self.assertFalse(t.is_alive(), "a client hung: deadlock?")
        self.assertEqual(errors, [])

    def test_transfers_keep_the_sum(self):
        self.r.mset({k: TOTAL // 4 for k in KEYS4})
        transfer = self.r.register_script(TRANSFER)
        total = self.r.register_script(SUM)
        stop = threading.Event()
        seen = []

        def writer(seed):
            c = self.client()
            moved = 0
            pipe = c.pipeline(transaction=False)
            for i in range(150):
                a, b = (seed + i) % 4 + 1, (seed + 3 * i + 1) % 4 + 1
                if a == b:
                    b = a % 4 + 1
                if i % 3 == 0:
                    # Pipelined: several scripts in flight from one connection.
                    for j in range(4):
                        transfer(keys=KEYS4, args=[a, b, 1 + j], client=pipe)
                    moved += sum(pipe.execute())
                else:
                    moved += transfer(keys=KEYS4, args=[a, b, 1 + i % 7], client=c)
            self.assertGreater(moved, 0)

        def reader():
            c = self.client()
            while not stop.is_set():
                seen.append(total(keys=KEYS4, client=c))
                seen.append(sum(int(v) for v in c.mget(KEYS4)))
                p = c.pipeline(transaction=True)
                for k in KEYS4:
                    p.get(k)
                seen.append(sum(int(v) for v in p.execute()))

        readers = [threading.Thread(target=reader) for _ in range(2)]
        for t in readers:
            t.start()
        try:
            self.run_threads([lambda s=s: writer(s) for s in range(8)])
        finally:
            stop.set()
            for t in readers:
                t.join(30)
        self.assertGreater(len(seen), 0)
        self.assertEqual(set(seen), {TOTAL})
        self.assertEqual(sum(int(v) for v in self.r.mget(KEYS4)), TOTAL)

    def test_opposite_orders_mset_and_exec_never_deadlock(self):
        self.r.mset({k: 0 for k in KEYS4})
        up = self.r.register_script(
            "for i = 1, #KEYS do redis.call('incr', KEYS[i]) end return #KEYS")

        def scripts(order):
            c = self.client()
            for _ in range(150):
                self.assertEqual(up(keys=order, client=c), 4)

        def others():
            c = self.client()
            for i in range(150):
                if i % 2:
                    p = c.pipeline(transaction=True)
                    for k in reversed(KEYS4):
                        p.incr(k)
                    p.execute()
                else:
                    c.mset({"x" + k: i for k in KEYS4})
                    c.incr(KEYS4[i % 4])

        self.run_threads([lambda: scripts(KEYS4), lambda: scripts(KEYS4[::-1]),
                          lambda: scripts(KEYS4[1:] + KEYS4[:1]), others])
        got = [int(v) for v in self.r.mget(KEYS4)]
        self.assertEqual(sum(got), 3 * 150 * 4 + 75 * 4 + 75)

    def test_what_a_script_over_shards_cannot_do(self):
        self.r.mset({A: "v", B: "v"})
        # Waiting for another shard needs the script's own frame: inside pcall the call
        # fails (caught there, its error's text), where redis.pcall works. One of A and B
        # at least is on another shard than the connection's thread.
        got = self.r.eval(
            "local out = {} for i = 1, 2 do local ok, e = pcall(redis.call, 'get', KEYS[i])"
            " out[i] = e end return out", 2, A, B)
        self.assertTrue(any(b"inside pcall" in g for g in got), got)
        self.assertEqual(
            self.r.eval("return {redis.pcall('get', KEYS[1]), redis.pcall('get', KEYS[2])}",
                        2, A, B), [b"v", b"v"])
        # A command over keys of several shards must name declared keys only.
        with self.assertRaisesRegex(redis.ResponseError, "not declared"):
            self.r.eval("return redis.call('mget', KEYS[1], KEYS[2], 'other')", 2, A, B)


class ShardsThreads2(ShardsRingcache, ringcache_server.ServerTestCase):
    THREADS = 2


class ShardsThreads3(ShardsRingcache, ringcache_server.ServerTestCase):
    THREADS = 3


if __name__ == "__main__":
    ringcache_server.main()
