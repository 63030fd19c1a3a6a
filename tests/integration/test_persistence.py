"""Snapshots (docs/PERSISTENCE.md): SAVE, BGSAVE, save points, SHUTDOWN and SIGTERM, the
RDB file loaded at start, against real servers. Files move both ways between ringcache and
redis-server 7.0.15; a snapshot is the data at its point, whatever writes, deletes and
FLUSHALLs follow while it is written, and a cross-shard transaction is in it whole or not
at all; a SIGKILL during a save leaves the previous file; a corrupt file stops the start.

Run by ctest as `/usr/bin/python3 test_persistence.py <path-to-ringcache> <Class>`.
"""

import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import unittest

import redis

from differential_pair import RedisServer
import ringcache_server
from ringcache_server import Ringcache, main, wait_for

# A key on each of three shards' slot ranges ({a} 15495, {b} 3300, {c} 7365 with 3
# threads: shards 2, 0, 1), so a data set spans every shard.
TAGS = ["{a}", "{b}", "{c}"]


def populate(r):
    """Every type and encoding ringcache has, some keys with a TTL, and a function."""
    for t in TAGS:
        r.set(f"str{t}", "hello")
        r.set(f"int{t}", 12345)
        r.set(f"neg{t}", -7)
        r.set(f"big{t}", "x" * 5000 + "y" * 3000)
        r.set(f"bin{t}", bytes(range(256)))
        r.set(f"ttl{t}", "soon", px=3_600_000)
        r.rpush(f"list{t}", *[f"e{i}" for i in range(10)])
        r.rpush(f"biglist{t}", *[f"element-{i}-" + "z" * (i % 50) for i in range(3000)])
        r.sadd(f"intset{t}", *range(20))
        r.sadd(f"set{t}", *[f"m{i}" for i in range(300)])
        r.zadd(f"zset{t}", {f"z{i}": i * 1.5 for i in range(10)})
        r.zadd(f"bigzset{t}", {f"member-{i}": (i * 7919) % 1000 / 3 for i in range(1000)})
        r.hset(f"hash{t}", mapping={f"f{i}": f"v{i}" for i in range(10)})
        r.hset(f"bighash{t}", mapping={f"field-{i}": "v" * (i % 100) for i in range(1000)})
        r.expire(f"bighash{t}", 7200)
    r.function_load("#!lua name=persisted\n"
                    "redis.register_function('echo1', function(keys, args) return args[1] end)")


def snapshot_of(r):
    """The data set as comparable Python values: each key's type and contents, whether it
    has a TTL, and the function libraries' code."""
    out = {}
    for key in r.scan_iter(count=1000):
        kind = r.type(key)
        if kind == b"string":
            value = r.get(key)
        elif kind == b"list":
            value = r.lrange(key, 0, -1)
        elif kind == b"set":
            value = sorted(r.smembers(key))
        elif kind == b"zset":
            value = r.zrange(key, 0, -1, withscores=True)
        elif kind == b"hash":
            value = sorted(r.hgetall(key).items())
        else:
            value = kind
        out[key] = (kind, value, r.pttl(key) > 0)
    libs = []
    for lib in r.execute_command("FUNCTION", "LIST", "WITHCODE"):
        fields = dict(zip(lib[::2], lib[1::2])) if isinstance(lib, list) else lib
        libs.append(fields[b"library_code"])
    return out, sorted(libs)


def info_persistence(r):
    return r.info("persistence")


def wait_saved(r, timeout=60):
    wait_for(lambda: info_persistence(r)["rdb_bgsave_in_progress"] == 0,
             "the background save to end", timeout=timeout)


class Dir:
    """A temporary directory for a server's dump.rdb."""

    def __enter__(self):
        self.path = tempfile.mkdtemp(prefix="ringcache-rdb-")
        self.file = os.path.join(self.path, "dump.rdb")
        return self

    def __exit__(self, *exc):
        shutil.rmtree(self.path, ignore_errors=True)


def start(d, threads=3, extra=()):
    # dir and dbfilename are protected settings, as in Redis 7: CONFIG SET needs this.
    return Ringcache(threads=threads, extra=["--dir", d.path, "--save", "",
                                             "--enable-protected-configs", "yes"] + list(extra))


class SaveAndLoadTest(unittest.TestCase):

    def test_save_then_restart(self):
        with Dir() as d:
            for threads in (1, 3):
                with self.subTest(threads=threads):
                    server = start(d, threads)
                    r = redis.Redis(port=server.port)
                    r.flushall()
                    r.function_flush()
                    populate(r)
                    before = snapshot_of(r)
                    last = r.lastsave()
                    self.assertTrue(r.save())
                    self.assertTrue(os.path.exists(d.file))
                    self.assertGreaterEqual(r.lastsave(), last)
                    info = info_persistence(r)
                    self.assertEqual(info["rdb_changes_since_last_save"], 0)
                    self.assertEqual(info["rdb_last_bgsave_status"], "ok")
                    self.assertEqual(info["rdb_saves"], 1)
                    r.close()
                    server.stop_ok()

                    server = start(d, threads)
                    r = redis.Redis(port=server.port)
                    self.assertEqual(snapshot_of(r), before)
                    self.assertEqual(info_persistence(r)["rdb_last_load_keys_loaded"],
                                     len(before[0]))
                    self.assertEqual(r.fcall("echo1", 0, "hi"), b"hi")
                    r.close()
                    server.stop_ok()

    def test_bgsave_replies_and_errors(self):
        with Dir() as d:
            server = start(d, 2, ["--rdb-key-save-delay", "1000000"])
            try:
                r = redis.Redis(port=server.port, decode_responses=True)
                for i in range(50):
                    r.set(f"k{i}", i)
                self.assertTrue(r.execute_command("BGSAVE"))  # redis-py: the status is True
                with self.assertRaisesRegex(redis.ResponseError,
                                            "^Background save already in progress$"):
                    r.execute_command("BGSAVE")
                with self.assertRaisesRegex(redis.ResponseError,
                                            "^Background save already in progress$"):
                    r.execute_command("SAVE")
                info = info_persistence(r)
                self.assertEqual(info["rdb_bgsave_in_progress"], 1)
                self.assertGreaterEqual(info["rdb_current_bgsave_time_sec"], 0)
                r.config_set("rdb-key-save-delay", 0)
                wait_saved(r)
                self.assertEqual(info_persistence(r)["rdb_last_bgsave_status"], "ok")
                with self.assertRaisesRegex(redis.ResponseError, "syntax error"):
                    r.execute_command("BGSAVE", "NOW")
                self.assertTrue(r.execute_command("BGSAVE", "SCHEDULE"))
                wait_saved(r)
                # In a transaction: the point is right after it.
                p = r.pipeline(transaction=True)
                p.set("in-multi", 1)
                p.execute_command("BGSAVE")
                p.set("in-multi-2", 2)
                self.assertEqual(p.execute(), [True, True, True])
                wait_for(lambda: info_persistence(r)["rdb_saves"] == 3, "the third save")
                wait_saved(r)
                r.close()
            finally:
                server.stop_ok()

    def test_settings(self):
        with Dir() as d:
            server = start(d, 1)
            try:
                r = redis.Redis(port=server.port, decode_responses=True)
                self.assertEqual(r.config_get("dir")["dir"], os.path.realpath(d.path))
                with self.assertRaisesRegex(redis.ResponseError, "No such file or directory"):
                    r.config_set("dir", os.path.join(d.path, "missing"))
                with self.assertRaisesRegex(redis.ResponseError, "can't be a path"):
                    r.config_set("dbfilename", "a/b.rdb")
                with self.assertRaisesRegex(redis.ResponseError, "Invalid save parameters"):
                    r.config_set("save", "60")
                r.config_set("save", "900 1 300 10")
                self.assertEqual(r.config_get("save")["save"], "900 1 300 10")
                # The log's base is always a snapshot: a preamble-less log is refused.
                with self.assertRaisesRegex(redis.ResponseError, "RDB snapshot only"):
                    r.config_set("aof-use-rdb-preamble", "no")
                r.config_set("dbfilename", "other.rdb")
                r.set("k", "v")
                self.assertTrue(r.save())
                self.assertTrue(os.path.exists(os.path.join(d.path, "other.rdb")))
                r.close()
            finally:
                server.stop_ok()

    def test_failed_save_stops_writes(self):
        with Dir() as d:
            server = start(d, 2, ["--save", "3600 1"])
            try:
                r = redis.Redis(port=server.port, decode_responses=True)
                gone = os.path.join(d.path, "gone")
                os.mkdir(gone)
                r.config_set("dir", gone)
                os.rmdir(gone)
                r.set("k", "v")
                with self.assertRaises(redis.ResponseError):
                    r.save()
                self.assertEqual(info_persistence(r)["rdb_last_bgsave_status"], "err")
                with self.assertRaisesRegex(redis.ResponseError, "MISCONF "):
                    r.set("k", "w")
                with self.assertRaisesRegex(redis.ResponseError, "MISCONF "):
                    r.ping()
                self.assertEqual(r.get("k"), "v")
                r.config_set("stop-writes-on-bgsave-error", "no")
                self.assertTrue(r.set("k", "w"))
                r.config_set("stop-writes-on-bgsave-error", "yes")
                r.config_set("dir", d.path)
                self.assertTrue(r.save())
                self.assertTrue(r.set("k", "x"))
                r.close()
            finally:
                server.stop_ok()


class PointInTimeTest(unittest.TestCase):
    """What follows BGSAVE's reply changes nothing in the file, though the snapshot is
    still being written: rdb-key-save-delay holds each shard's walk to a key a second
    (the writes save the keys they touch first, so a fast pace would let the writes
    themselves finish the save), and CONFIG SET lets it finish once the writes are done."""

    def test_writes_during_bgsave(self):
        with Dir() as d:
            server = start(d, 3, ["--rdb-key-save-delay", "1000000"])
            try:
                r = redis.Redis(port=server.port)
                for t in TAGS:
                    r.mset({f"k{i}{t}": f"v{i}" for i in range(300)})
                    r.rpush(f"list{t}", *range(100))
                    r.zadd(f"zset{t}", {f"m{i}": i for i in range(200)})
                    r.hset(f"hash{t}", mapping={f"f{i}": i for i in range(50)})
                before = snapshot_of(r)
                r.execute_command("BGSAVE")
                self.assertEqual(info_persistence(r)["rdb_bgsave_in_progress"], 1)
                for t in TAGS:
                    for i in range(0, 300, 3):
                        r.set(f"k{i}{t}", "changed")
                        r.delete(f"k{i + 1}{t}")
                        r.append(f"k{i + 2}{t}", "-more")
                    r.set(f"new{t}", "x")
                    r.lpop(f"list{t}", 10)
                    r.zadd(f"zset{t}", {"m0": 1000})
                    r.hdel(f"hash{t}", "f1")
                    r.expire(f"k{297}{t}", 1000)
                    r.rename(f"hash{t}", f"renamed{t}")
                self.assertEqual(info_persistence(r)["rdb_bgsave_in_progress"], 1)
                r.flushall()
                r.set("after-flush", "1")
                self.assertEqual(info_persistence(r)["rdb_bgsave_in_progress"], 1)
                r.config_set("rdb-key-save-delay", 0)
                wait_saved(r)
                r.close()
            finally:
                server.stop_ok()
            server = start(d, 3)
            try:
                r = redis.Redis(port=server.port)
                self.assertEqual(snapshot_of(r), before)
                r.close()
            finally:
                server.stop_ok()

    def test_cross_shard_transactions_are_whole(self):
        """Clients move 1 between keys on different shards in MULTI/EXEC; the sum in any
        snapshot stays what it was, and every pair moved together."""
        with Dir() as d:
            server = start(d, 3)
            try:
                r = redis.Redis(port=server.port)
                pairs = [(f"x{t}", f"y{u}") for t, u in zip(TAGS, TAGS[1:] + TAGS[:1])]
                for a, b in pairs:
                    r.mset({a: 0, b: 0})
                stop = threading.Event()

                def mover(a, b):
                    c = redis.Redis(port=server.port)
                    while not stop.is_set():
                        p = c.pipeline(transaction=True)
                        p.incr(a)
                        p.decr(b)
                        p.execute()
                    c.close()

                threads = [threading.Thread(target=mover, args=p) for p in pairs]
                for t in threads:
                    t.start()
                try:
                    for _ in range(5):
                        time.sleep(0.05)
                        self.assertTrue(r.save())
                finally:
                    stop.set()
                    for t in threads:
                        t.join()
                r.close()
            finally:
                server.stop_ok()
            server = start(d, 3)
            try:
                r = redis.Redis(port=server.port)
                for a, b in pairs:
                    self.assertEqual(int(r.get(a)) + int(r.get(b)), 0, (a, b))
                r.close()
            finally:
                server.stop_ok()


class DebugReloadTest(unittest.TestCase):
    """DEBUG RELOAD [MERGE] [NOFLUSH] [NOSAVE]: the data set survives a save and a load
    back, each option does what it does in redis-server 7.0.15 (the same script runs on
    both), and no acknowledged write is lost between the save's point and the load."""

    def script(self, r, path):
        """Replies to a run of DEBUG RELOADs and the reads that tell them apart."""
        out = []

        def step(*cmd):
            try:
                out.append(r.execute_command(*cmd))
            except redis.ResponseError as e:
                out.append(("error", str(e)))

        step("SET", "kept", "1")
        step("DEBUG", "RELOAD")
        step("SET", "after", "1")
        step("DEBUG", "RELOAD", "NOSAVE")  # the file has no "after"
        step("EXISTS", "after")
        step("SET", "kept", "changed")
        step("SET", "mine", "1")
        step("DEBUG", "RELOAD", "NOFLUSH", "MERGE", "NOSAVE")  # the file's "kept" wins
        step("MGET", "kept", "mine")
        step("DEBUG", "RELOAD", "MERGE")
        step("DEBUG", "RELOAD", "BOGUS")
        step("DBSIZE")
        os.remove(path)
        step("DEBUG", "RELOAD", "NOSAVE")  # no file: emptied, then the error
        step("DBSIZE")
        return out

    def test_reload_keeps_the_data_and_options_match_redis(self):
        with Dir() as d, Dir() as rd:
            server = start(d, 3, ["--enable-debug-command", "yes"])
            reference = RedisServer(extra=["--enable-debug-command", "yes", "--dir", rd.path])
            try:
                r = redis.Redis(port=server.port)
                populate(r)
                before = snapshot_of(r)
                self.assertTrue(r.execute_command("DEBUG", "RELOAD"))
                self.assertEqual(snapshot_of(r), before)
                self.assertEqual(info_persistence(r)["rdb_last_load_keys_loaded"],
                                 len(before[0]))
                self.assertEqual(r.fcall("echo1", 0, "hi"), b"hi")
                r.flushall()
                want = self.script(redis.Redis(port=reference.port), rd.file)
                self.assertEqual(self.script(r, d.file), want)
                self.assertEqual(want[-1], 0)
                r.close()
            finally:
                reference.stop()
                server.stop_ok()

    def test_no_acknowledged_write_is_lost(self):
        """Writers on every shard count their acknowledged INCRs while DEBUG RELOAD runs
        again and again: the counters end at those counts, none lost between a save's
        point and its load, none applied twice."""
        with Dir() as d:
            server = start(d, 3, ["--enable-debug-command", "yes"])
            try:
                r = redis.Redis(port=server.port)
                keys = [f"n{t}" for t in TAGS]
                acked = {k: 0 for k in keys}
                stop = threading.Event()

                def writer(key):
                    c = redis.Redis(port=server.port)
                    while not stop.is_set():
                        c.incr(key)
                        acked[key] += 1
                    c.close()

                threads = [threading.Thread(target=writer, args=(k,)) for k in keys]
                for t in threads:
                    t.start()
                try:
                    for _ in range(5):
                        time.sleep(0.05)
                        self.assertTrue(r.execute_command("DEBUG", "RELOAD"))
                finally:
                    stop.set()
                    for t in threads:
                        t.join()
                for k in keys:
                    self.assertGreater(acked[k], 0, k)
                    self.assertEqual(int(r.get(k)), acked[k], k)
                r.close()
            finally:
                server.stop_ok()


class ShutdownTest(unittest.TestCase):

    def test_sigterm_saves_with_save_points(self):
        with Dir() as d:
            server = Ringcache(threads=2, extra=["--dir", d.path, "--save", "3600 1"])
            self.assertEqual(redis.Redis(port=server.port).config_get("save")["save"], "3600 1")
            r = redis.Redis(port=server.port)
            r.set("k", "v")
            r.close()
            server.stop_ok()
            self.assertTrue(os.path.exists(d.file))
            self.assertIn(b"Saving the final RDB snapshot", server.output)
            server = start(d, 2)
            try:
                self.assertEqual(redis.Redis(port=server.port).get("k"), b"v")
            finally:
                server.stop_ok()

    def test_shutdown_save_and_nosave(self):
        with Dir() as d:
            server = start(d, 2)
            r = redis.Redis(port=server.port)
            r.set("k", "v")
            r.shutdown(nosave=True)
            server.proc.wait(timeout=10)
            self.assertFalse(os.path.exists(d.file))
            server.stop()

            server = start(d, 2)
            r = redis.Redis(port=server.port)
            r.set("k", "v2")
            with self.assertRaisesRegex(redis.ResponseError, "syntax error"):
                r.execute_command("SHUTDOWN", "SAVE", "NOSAVE")
            r.shutdown(save=True)
            self.assertEqual(server.proc.wait(timeout=10), 0)
            server.stop()
            self.assertTrue(os.path.exists(d.file))
            server = start(d, 2)
            try:
                self.assertEqual(redis.Redis(port=server.port).get("k"), b"v2")
            finally:
                server.stop_ok()

    def test_failed_shutdown_save_keeps_running(self):
        with Dir() as d:
            server = start(d, 1)
            try:
                r = redis.Redis(port=server.port, decode_responses=True)
                gone = os.path.join(d.path, "gone")
                os.mkdir(gone)
                r.config_set("dir", gone)
                os.rmdir(gone)
                with self.assertRaisesRegex(redis.ResponseError,
                                            "^Errors trying to SHUTDOWN. Check logs.$"):
                    r.shutdown(save=True)
                self.assertTrue(r.set("still", "here"))
                r.config_set("dir", d.path)
                r.close()
            finally:
                server.stop_ok()


class CrashSafetyTest(unittest.TestCase):

    def test_kill_during_bgsave_keeps_the_previous_file(self):
        with Dir() as d:
            server = start(d, 2)
            r = redis.Redis(port=server.port)
            r.set("old", "1")
            self.assertTrue(r.save())
            for i in range(200):
                r.set(f"k{i}", i)
            r.config_set("rdb-key-save-delay", 1000000)  # a key a second: still saving
            r.execute_command("BGSAVE")
            wait_for(lambda: any(n.startswith("temp-") for n in os.listdir(d.path)),
                     "the temporary file")
            server.proc.send_signal(signal.SIGKILL)
            server.proc.wait()
            server.stop()
            server = start(d, 2)
            try:
                r = redis.Redis(port=server.port)
                self.assertEqual(r.keys("*"), [b"old"])
            finally:
                server.stop_ok()

    def test_corrupt_or_cut_files_are_refused(self):
        with Dir() as d:
            server = start(d, 2)
            r = redis.Redis(port=server.port)
            for i in range(100):
                r.set(f"key:{i}", "v" * 30)
            self.assertTrue(r.save())
            r.close()
            server.stop_ok()
            with open(d.file, "rb") as f:
                good = f.read()
            cases = {
                "flipped": good[:len(good) // 2] + bytes([good[len(good) // 2] ^ 0xff])
                + good[len(good) // 2 + 1:],
                "cut": good[:len(good) // 2],
                "signature": b"XEDIS" + good[5:],
            }
            for name, data in cases.items():
                with self.subTest(name=name):
                    with open(d.file, "wb") as f:
                        f.write(data)
                    out = subprocess.run(
                        [ringcache_server.BINARY, "--port", "0", "--dir", d.path, "--save", ""],
                        capture_output=True, timeout=30)
                    self.assertNotEqual(out.returncode, 0)
                    text = (out.stdout + out.stderr).decode(errors="replace")
                    self.assertIn(d.file, text)
                    self.assertNotIn("Ready to accept", text)


class RedisFilesTest(unittest.TestCase):
    """The same data set written by one server loads into the other unchanged."""

    def test_redis_file_loads_here(self):
        with Dir() as d:
            redis_server = RedisServer(extra=["--dir", d.path])
            try:
                r = redis.Redis(port=redis_server.port)
                populate(r)
                r.set("expired", "x", px=1)
                time.sleep(0.01)
                want = snapshot_of(r)
                self.assertTrue(r.save())
                r.close()
            finally:
                redis_server.stop()
            server = start(d, 3)
            try:
                r = redis.Redis(port=server.port)
                self.assertEqual(snapshot_of(r), want)
                r.close()
            finally:
                server.stop_ok()

    def test_file_from_here_loads_into_redis(self):
        with Dir() as d:
            for compression in ("yes", "no"):
                with self.subTest(rdbcompression=compression):
                    server = start(d, 3, ["--rdbcompression", compression])
                    try:
                        r = redis.Redis(port=server.port)
                        r.flushall()
                        r.function_flush()
                        populate(r)
                        want = snapshot_of(r)
                        self.assertTrue(r.save())
                        r.close()
                    finally:
                        server.stop_ok()
                    redis_server = RedisServer(extra=["--dir", d.path])
                    try:
                        r = redis.Redis(port=redis_server.port)
                        self.assertEqual(snapshot_of(r), want)
                        r.close()
                    finally:
                        redis_server.stop()


if __name__ == "__main__":
    main()
