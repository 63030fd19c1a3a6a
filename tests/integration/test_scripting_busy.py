"""Busy scripts (docs/SCRIPTING.md, "Busy scripts"): busy-reply-threshold (alias
lua-time-limit), -BUSY, SCRIPT KILL, UNKILLABLE, SHUTDOWN NOSAVE, on 1, 2 and 3 threads
with a 100 ms threshold. Every error text is compared with what redis-server 7.0 answers
in the same scenario.

Which thread a connection lives on is learnt from the feature itself, then checked:
while shard s runs an endless script, PING answers -BUSY exactly on the connections of
s's thread and PONG on the others, for every s. The connections are opened while the
script is busy, so the busy thread's own turn accepts them.

Run by ctest as `/usr/bin/python3 test_scripting_busy.py <path-to-ringcache>`.
"""

import ast
import hashlib
import os
import subprocess
import time
import unittest

from redis.crc import key_slot

import ringcache_server
from differential_pair import Conn, RedisServer, parse
from ringcache_server import Ringcache, wait_for

THRESHOLD = "100"
LOOP = "while true do end"
# Writes, then runs ~1.2 s: SCRIPT KILL answers UNKILLABLE, and it ends on its own. It
# spends its time in Lua, not in TIME calls, so the checks (every 100000 Lua
# instructions) come often even in a sanitizer build.
WRITE_THEN_LOOP = ("redis.call('set', KEYS[1], 'written') local t = redis.call('time') "
                   "local s = t[1] * 1000000 + t[2] repeat for i = 1, 20000 do end "
                   "t = redis.call('time') until t[1] * 1000000 + t[2] - s > 1200000 "
                   "return 'done'")
LOOP_OVER_KEYS = "local n = #KEYS while true do n = n + 1 end"
# Catches what it can: a killed script must still end, and never reach its write.
PCALL_LOOP = ("while true do pcall(function() local x = 0 for i = 1, 100000 do x = x + i end "
              "end) end redis.call('set', KEYS[1], 'late')")
# A function that never ends, for FUNCTION KILL and FUNCTION STATS.
SPIN_LIBRARY = ("#!lua name=busylib\n"
                "redis.register_function('spin', function(keys, args) while true do end end)")


def stats_shape(reply):
    """FUNCTION STATS with running_script's duration_ms replaced by whether it is past the
    threshold (the one figure that differs between two runs)."""
    if not isinstance(reply, list) or not isinstance(reply[1], list):
        return reply
    running = list(reply[1])
    i = running.index(b"duration_ms") + 1
    running[i] = int(running[i][1:]) >= int(THRESHOLD)
    return [reply[0], running] + reply[2:]


def shard_of(key, threads):
    """ShardSet's split of the 16384 slots into contiguous ranges (SplitSlots)."""
    slot = key_slot(key.encode())
    shard = 0
    while shard + 1 < threads and slot >= (2 * (shard + 1) * 16384 + threads) // (2 * threads):
        shard += 1
    return shard


def key_on(shard, threads, tag):
    i = 0
    while True:
        k = "%s%d" % (tag, i)
        if shard_of(k, threads) == shard:
            return k
        i += 1


class Client(Conn):
    def call(self, *args, limit=5.0):
        self.send(args)
        return self.reply(limit)

    def reply(self, limit=5.0):
        data = self.read_frames(1, limit)
        if not data:
            return None  # nothing within the limit, or the connection closed
        return parse(data)[0]


def ev(body, *keys):
    return ("EVAL", body, str(len(keys))) + keys


class RedisReference:
    """What redis-server 7.0 answers in each scenario. Gathering spins redis-server for
    ~2 s and every class of every build directory needs the same answers, so they are
    kept in the clone's cache, under a hash of this file and of the server's version."""

    texts = None

    @classmethod
    def get(cls):
        if cls.texts is None:
            path = cls._cache_path()
            try:
                with open(path) as f:
                    cls.texts = ast.literal_eval(f.read())
            except (OSError, ValueError, SyntaxError):
                cls.texts = cls._gather()
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open("%s.%d" % (path, os.getpid()), "w") as f:
                    f.write(repr(cls.texts))
                os.replace(f.name, path)
        return cls.texts

    @staticmethod
    def _cache_path():
        key = hashlib.sha256()
        with open(__file__, "rb") as f:
            key.update(f.read())
        key.update(subprocess.run(["redis-server", "--version"], capture_output=True,
                                  check=True).stdout)
        return os.path.join(ringcache_server.CACHE_DIR, "test-reference",
                            "scripting_busy-%s" % key.hexdigest()[:16])

    @staticmethod
    def _gather():
        server = RedisServer(["--busy-reply-threshold", THRESHOLD])
        t = {}
        try:
            a, b = Client(server.port), Client(server.port)

            def busy():
                """The GET's reply once it is -BUSY (one sent before the EVAL is not)."""
                while not (got := b.call("GET", "k")).startswith(b"-BUSY"):
                    time.sleep(0.01)
                return got

            t["config"] = (b.call("CONFIG", "GET", "lua-time-limit"),
                           b.call("CONFIG", "GET", "busy-reply-threshold"),
                           b.call("CONFIG", "SET", "lua-time-limit", "-1"))
            t["notbusy"] = b.call("SCRIPT", "KILL")
            a.send(ev(LOOP, "k"))
            t["busy"] = busy()
            t["ping"] = b.call("PING")
            t["multi"] = (b.call("MULTI"), b.call("GET", "k"), b.call("EXEC"))
            t["shutdown"] = b.call("SHUTDOWN")
            t["kill"] = b.call("SCRIPT", "KILL")
            t["killed"] = a.reply()
            a.send(ev(LOOP_OVER_KEYS, "k", "j"))
            busy()
            b.call("SCRIPT", "KILL")
            t["killed_keys"] = a.reply()
            a.send(ev(PCALL_LOOP, "k"))
            busy()
            b.call("SCRIPT", "KILL")
            t["killed_pcall"] = a.reply()
            a.send(ev(WRITE_THEN_LOOP, "k"))
            busy()
            t["unkillable"] = b.call("SCRIPT", "KILL")
            t["done"] = a.reply()
            b.call("FUNCTION", "LOAD", SPIN_LIBRARY)
            a.send(("FCALL", "spin", "1", "k", "arg"))
            t["busy_function"] = busy()
            t["function_script_kill"] = b.call("SCRIPT", "KILL")
            t["function_stats"] = stats_shape(b.call("FUNCTION", "STATS"))
            t["function_kill"] = b.call("FUNCTION", "KILL")
            t["killed_function"] = a.reply()
            t["function_stats_idle"] = b.call("FUNCTION", "STATS")
            t["function_kill_idle"] = b.call("FUNCTION", "KILL")
            a.send(ev(LOOP, "k"))
            busy()
            t["eval_function_kill"] = b.call("FUNCTION", "KILL")
            t["eval_function_stats"] = b.call("FUNCTION", "STATS")
            b.call("SCRIPT", "KILL")
            a.reply()
        finally:
            server.stop()
        return t


class BusyCase(unittest.TestCase):
    """One server per class (THREADS threads, a 100 ms threshold)."""

    THREADS = 1

    @classmethod
    def setUpClass(cls):
        cls.redis = RedisReference.get()
        cls.server = Ringcache(threads=cls.THREADS, extra=["--busy-reply-threshold", THRESHOLD])
        cls.keys = [key_on(s, cls.THREADS, "k") for s in range(cls.THREADS)]
        cls.on_thread = None

    @classmethod
    def tearDownClass(cls):
        if cls.server.proc.poll() is None:
            cls.server.stop_ok()

    def setUp(self):
        setup = self.conn()
        for k in self.keys:
            setup.call("SET", k, "v-" + k)
        # A caller per scenario; where it lives does not matter.
        self.caller = self.conn()

    def conn(self):
        return Client(self.server.port)

    def start_busy(self, body, *keys, caller=None, command=None, busy="busy"):
        """Sends the script (or `command`) and waits until its shard answers -BUSY (the
        reference's text `busy`); returns the caller. The probe is a GET of its first key:
        sent while the script runs, it waits, and gets -BUSY once the threshold has passed,
        from whichever thread it is on."""
        caller = caller or self.caller
        caller.send(command or ev(body, *keys))
        probe = self.conn()

        def busy_reply():
            # A GET that overtook the EVAL (another connection) gets the value: again.
            got = probe.call("GET", keys[0], limit=20)
            self.assertIsNotNone(got)
            return got == self.redis[busy]
        wait_for(busy_reply, "the shard of %s to be busy" % keys[0])
        return caller

    def wait_busy(self, thread):
        """Until `thread` answers -BUSY to its own connections (a PING read before the
        script's EVAL still gets PONG)."""
        wait_for(lambda: self.on_thread[thread][0].call("PING") == self.redis["ping"],
                 "thread %d to be busy" % thread)

    def wait_running(self, key, held_s=0.2):
        """Until a script runs on `key`'s shard, busy or not: a GET of the key, answered
        at once while the shard is idle, goes unanswered for `held_s` (it is answered
        later, on a connection of its own that is dropped)."""
        def held():
            probe = self.conn()
            try:
                probe.send(("GET", key))
                return probe.read_frames(1, limit=held_s) == b""
            finally:
                probe.close()
        wait_for(held, "a script to run on the shard of %s" % key)

    def kill(self, via):
        self.assertEqual(via.call("SCRIPT", "KILL"), b"+OK")

    def classify(self):
        """Connections by thread: PING is -BUSY exactly on the busy shard's thread."""
        n = self.THREADS
        conns = [self.conn() for _ in range(12 * n if n > 1 else 2)]
        by_thread = {s: [] for s in range(n)}
        for s in range(n):
            self.start_busy(LOOP, self.keys[s])
            for c in conns:
                pong = c.call("PING")
                self.assertIn(pong, (b"+PONG", self.redis["ping"]))
                if pong != b"+PONG":
                    by_thread[s].append(c)
            self.kill(conns[0])
            self.assertEqual(self.caller.reply(), self.redis["killed"])
        self.assertEqual(sum(len(v) for v in by_thread.values()), len(conns))
        for s in range(n):
            self.assertGreaterEqual(len(by_thread[s]), 2, "connections on thread %d of %d" % (s, n))
        return by_thread


class BusyScriptTest(BusyCase):
    def setUp(self):
        super().setUp()
        if type(self).on_thread is None:
            type(self).on_thread = self.classify()

    def tearDown(self):
        # A failed scenario must not leave a script behind for the next one.
        self.conn().call("SCRIPT", "KILL")
        self.conn().call("CONFIG", "SET", "busy-reply-threshold", THRESHOLD)

    def test_busy_thread_answers_busy_and_script_kill_from_it(self):
        busy = self.on_thread[0][0]
        self.assertEqual(busy.call("SCRIPT", "KILL"), self.redis["notbusy"])
        self.start_busy(LOOP, self.keys[0])
        self.assertEqual(busy.call("PING"), self.redis["ping"])
        self.assertEqual(busy.call("GET", self.keys[0]), self.redis["busy"])
        self.assertEqual((busy.call("MULTI"), busy.call("GET", self.keys[0]), busy.call("EXEC")),
                         self.redis["multi"])
        self.assertEqual(busy.call("SHUTDOWN"), self.redis["shutdown"])
        self.assertEqual(busy.call("SCRIPT", "KILL"), self.redis["kill"])
        self.assertEqual(self.caller.reply(), self.redis["killed"])
        self.assertEqual(busy.call("GET", self.keys[0]), b"v-" + self.keys[0].encode())
        self.assertEqual(busy.call("SCRIPT", "KILL"), self.redis["notbusy"])

    def test_pcall_cannot_keep_a_killed_script_alive(self):
        key = self.keys[self.THREADS - 1]
        self.start_busy(PCALL_LOOP, key)
        self.kill(self.on_thread[0][0])
        self.assertEqual(self.caller.reply(), self.redis["killed_pcall"])
        self.assertEqual(self.on_thread[0][0].call("GET", key), b"v-" + key.encode())

    def test_script_that_wrote_is_unkillable_and_ends(self):
        via = self.on_thread[self.THREADS - 1][0]
        key = self.keys[0]
        self.start_busy(WRITE_THEN_LOOP, key)
        self.assertEqual(via.call("SCRIPT", "KILL"), self.redis["unkillable"])
        self.assertEqual(self.caller.reply(limit=10), self.redis["done"])
        self.assertEqual(via.call("GET", key), b"written")

    def test_function_kill_and_stats(self):
        key = self.keys[self.THREADS - 1]
        via = self.on_thread[0][0]
        self.assertEqual(via.call("FUNCTION", "LOAD", "REPLACE", SPIN_LIBRARY), b"busylib")
        self.assertEqual(via.call("FUNCTION", "STATS"), self.redis["function_stats_idle"])
        self.assertEqual(via.call("FUNCTION", "KILL"), self.redis["function_kill_idle"])
        self.start_busy(None, key, command=("FCALL", "spin", "1", key, "arg"),
                        busy="busy_function")
        self.assertEqual(via.call("SCRIPT", "KILL"), self.redis["function_script_kill"])
        want = self.redis["function_stats"]
        want[1][want[1].index(b"command") + 1][3] = key.encode()
        self.assertEqual(stats_shape(via.call("FUNCTION", "STATS")), want)
        self.assertEqual(via.call("FUNCTION", "KILL"), self.redis["function_kill"])
        self.assertEqual(self.caller.reply(), self.redis["killed_function"])
        self.assertEqual(via.call("FUNCTION", "STATS"), self.redis["function_stats_idle"])
        # While an EVAL script is busy: FUNCTION KILL and FUNCTION STATS answer its -BUSY.
        self.start_busy(LOOP, key)
        self.assertEqual(via.call("FUNCTION", "KILL"), self.redis["eval_function_kill"])
        self.assertEqual(via.call("FUNCTION", "STATS"), self.redis["eval_function_stats"])
        self.kill(via)
        self.assertEqual(self.caller.reply(), self.redis["killed"])

    def test_config(self):
        c = self.conn()
        self.assertEqual((c.call("CONFIG", "GET", "lua-time-limit"),
                          c.call("CONFIG", "GET", "busy-reply-threshold"),
                          c.call("CONFIG", "SET", "lua-time-limit", "-1")), self.redis["config"])
        # 0: never busy. The script runs to its end while the thread's clients wait: a PING
        # sent meanwhile is answered PONG after the script's end. The script returns when
        # it started and ended (TIME, in microseconds, this host's clock): a PING sent
        # outside that span tested nothing, and is sent again with the next script.
        self.assertEqual(c.call("CONFIG", "SET", "lua-time-limit", "0"), b"+OK")
        same_thread = self.on_thread[0][0]
        for _ in range(5):
            self.caller.send(ev("local t = redis.call('time') local s = t[1] * 1000000 + t[2] "
                                "repeat for i = 1, 20000 do end t = redis.call('time') "
                                "until t[1] * 1000000 + t[2] - s > 400000 "
                                "return {s, t[1] * 1000000 + t[2]}", self.keys[0]))
            self.wait_running(self.keys[0], held_s=0.05)
            sent = time.time() * 1e6
            pong = same_thread.call("PING", limit=20)
            answered = time.time() * 1e6
            started, ended = (int(t[1:]) for t in self.caller.reply(limit=20))
            if started < sent < ended:
                self.assertEqual(pong, b"+PONG")
                self.assertGreater(answered, ended, "PING answered while the script ran")
                return
        self.fail("no PING was sent while its script ran")

class BusyScriptTwoThreads(BusyScriptTest):
    THREADS = 2

    def test_other_threads_serve_their_shards(self):
        other, watcher = self.on_thread[1][0], self.on_thread[1][1]
        mine = self.keys[1]
        # Queued, or watched, before the shard turned busy: EXEC needs it, and answers as
        # Redis's EXEC does then.
        self.assertEqual((other.call("MULTI"), other.call("GET", self.keys[0])),
                         (b"+OK", b"+QUEUED"))
        self.assertEqual((watcher.call("WATCH", self.keys[0]), watcher.call("MULTI"),
                          watcher.call("INCR", "n{%s}" % mine)), (b"+OK", b"+OK", b"+QUEUED"))
        self.start_busy(LOOP, self.keys[0])
        self.assertEqual(other.call("EXEC"), self.redis["multi"][2])
        self.assertEqual(watcher.call("EXEC"), self.redis["multi"][2])
        self.assertEqual(other.call("PING"), b"+PONG")
        self.assertEqual(other.call("GET", mine), b"v-" + mine.encode())
        # Refused on this thread, without waiting for the busy one.
        for cmd in (("GET", self.keys[0]), ("MGET", mine, self.keys[0]), ("INFO",),
                    ("CLIENT", "LIST"), ("DBSIZE",), ("PUBLISH", "ch", "m"),
                    ("MEMORY", "STATS"), ("MEMORY", "DOCTOR"),
                    ev("return 1", mine, self.keys[0])):
            self.assertEqual(other.call(*cmd), self.redis["busy"], cmd)
        self.assertEqual(other.call("MULTI"), b"+OK")
        self.assertEqual(other.call("INCR", "n{%s}" % mine), b"+QUEUED")
        self.assertEqual(other.call("EXEC"), [b":1"])
        # At full speed: round trips and a pipeline on this thread's shard take about as
        # long as before the script (the busy thread spins a core of its own).
        busy = self.workload(other, mine)
        self.kill(other)
        self.assertEqual(self.caller.reply(), self.redis["killed"])
        idle = self.workload(other, mine)
        self.assertLess(busy, 4 * idle + 0.5, "%.2fs while busy, %.2fs idle" % (busy, idle))

    # Keyless commands left out of the sweep below: they end the connection, the server
    # or the script, change what the connection's next replies are, or need a peer.
    SWEEP_SKIPS = {
        "shutdown", "debug", "monitor", "quit", "reset", "multi", "exec", "discard",
        "subscribe", "psubscribe", "ssubscribe", "unsubscribe", "punsubscribe",
        "sunsubscribe", "script|kill", "function|kill", "client|reply", "client|pause",
        "client|kill", "replicaof", "slaveof", "sync", "psync", "failover", "hello", "auth",
    }

    def test_every_keyless_command_answers_while_another_thread_is_busy(self):
        """Each keyless command and subcommand COMMAND lists, with arguments enough for
        its arity, answers at once on an idle thread while another thread's script is
        busy: -BUSY when it needs every thread (kCmdAllThreads, or it reads or writes the
        keyspace), an answer of its own otherwise; never a wait for the busy thread."""
        other = self.on_thread[1][0]
        rows = []
        for row in other.call("COMMAND"):
            rows.extend(row[9] if row[9] else [row])
        probes = []
        for row in rows:
            name, arity, first_key = row[0].decode(), int(row[1][1:]), int(row[3][1:])
            if first_key != 0 or name in self.SWEEP_SKIPS or b"+movablekeys" in row[2]:
                continue
            words = name.split("|")
            probes.append(tuple(words) + ("0",) * (abs(arity) - len(words)))
        self.assertGreater(len(probes), 80)
        self.start_busy(LOOP, self.keys[0])
        for cmd in probes:
            self.assertIsNotNone(other.call(*cmd, limit=3), cmd)
        self.assertEqual(other.call("PING"), b"+PONG")

    def workload(self, c, key):
        """Seconds for 300 round trips and 2000 pipelined GETs of `key`, all checked."""
        start = time.monotonic()
        for i in range(300):
            self.assertEqual(c.call("SET", key, str(i)), b"+OK")
        get = b"*2\r\n$3\r\nGET\r\n$%d\r\n%s\r\n" % (len(key), key.encode())
        c.sock.sendall(get * 2000)
        want = b"$3\r\n299\r\n" * 2000
        self.assertEqual(c.read_at_least(len(want), limit=20), want)
        return time.monotonic() - start

    def test_script_over_shards_is_killed_on_its_thread(self):
        # Its KEYS span shards: it runs on its connection's thread, as a ScriptTask, whose
        # keys stay locked meanwhile (a GET of one would wait, not answer -BUSY).
        home = self.on_thread[1][-1]
        home.send(ev(LOOP_OVER_KEYS, self.keys[0], self.keys[1]))
        self.wait_busy(1)
        self.assertEqual(self.on_thread[0][0].call("PING"), b"+PONG")
        self.kill(self.on_thread[0][0])
        self.assertEqual(home.reply(), self.redis["killed_keys"])
        # Its locks were given back.
        for s in range(self.THREADS):
            self.assertEqual(self.on_thread[s][0].call("GET", self.keys[0]),
                             b"v-" + self.keys[0].encode())

    def test_script_waiting_on_a_busy_shard(self):
        # A multi-shard script on thread 1 reaches shard 0 while shard 0's script runs:
        # it waits there (thread 1 serves on), and completes once that one is killed. It
        # must arrive while the script runs but is not busy yet (a busy shard's -BUSY is
        # answered at once): a longer threshold leaves room.
        self.assertEqual(self.conn().call("CONFIG", "SET", "busy-reply-threshold", "500"), b"+OK")
        a, b = self.keys[0], self.keys[1]
        self.caller.send(ev(LOOP, a))
        self.wait_running(a)
        waiter = self.on_thread[1][-1]
        waiter.send(ev("return redis.call('incr', KEYS[1]) + redis.call('incr', KEYS[2])",
                       "{%s}n" % b, "{%s}n" % a))
        self.wait_busy(0)
        self.assertEqual(self.on_thread[1][0].call("PING"), b"+PONG")
        self.assertEqual(waiter.pending(), b"", "the waiter did not wait for the busy shard")
        self.kill(self.on_thread[0][0])
        self.assertEqual(self.caller.reply(), self.redis["killed"])
        self.assertEqual(waiter.reply(), b":2")

    def test_two_busy_threads(self):
        first, second = self.conn(), self.on_thread[1][-1]
        first.send(ev(LOOP, self.keys[0]))
        self.wait_busy(0)
        second.send(ev(LOOP, self.keys[1]))
        self.wait_busy(1)
        for s in range(self.THREADS):
            want = self.redis["ping"] if s < 2 else b"+PONG"
            self.assertEqual(self.on_thread[s][0].call("PING"), want)
        self.kill(self.on_thread[self.THREADS - 1][0])
        self.assertEqual(first.reply(), self.redis["killed"])
        self.assertEqual(second.reply(), self.redis["killed"])
        self.assertEqual(self.on_thread[0][0].call("SCRIPT", "KILL"), self.redis["notbusy"])


class BusyScriptThreeThreads(BusyScriptTwoThreads):
    THREADS = 3


class ShutdownWhileBusy(BusyCase):
    THREADS = 1

    def test_shutdown_nosave_while_busy(self):
        via = self.conn()
        self.start_busy(LOOP, self.keys[-1])
        self.assertEqual(via.call("SHUTDOWN", "SAVE"), self.redis["shutdown"])
        self.assertIsNone(via.call("SHUTDOWN", "NOSAVE"))  # closes without a reply
        self.assertEqual(self.server.proc.wait(timeout=10), 0)


class ShutdownWhileBusyTwoThreads(ShutdownWhileBusy):
    THREADS = 2


class ShutdownWhileBusyThreeThreads(ShutdownWhileBusy):
    THREADS = 3


if __name__ == "__main__":
    ringcache_server.main()
