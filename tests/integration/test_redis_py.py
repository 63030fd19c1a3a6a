"""ringcache driven by real clients: redis-py 4.3, redis-cli and redis-benchmark.

Run by ctest as `/usr/bin/python3 test_redis_py.py <path-to-ringcache>`. Starts ringcache
with 3 threads on a free port, waits for its ready line, and checks that it exits 0 on
SIGTERM at the end.
"""

import subprocess

import redis

from ringcache_server import ServerTestCase, main


class RedisPyTest(ServerTestCase):

    def setUp(self):
        self.r = redis.Redis(port=self.port, decode_responses=True, socket_timeout=30)
        self.r.flushall()

    def tearDown(self):
        self.r.close()

    def cli(self, *args):
        out = subprocess.run(["redis-cli", "-p", str(self.port)] + list(args),
                             capture_output=True, text=True, timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        return out.stdout

    def test_set_get_mset_mget(self):
        self.assertTrue(self.r.set("k", "v"))
        self.assertEqual(self.r.get("k"), "v")
        self.assertIsNone(self.r.get("missing"))
        self.assertTrue(self.r.set("k", "w", xx=True, get=False))
        self.assertIsNone(self.r.set("k", "x", nx=True))
        self.assertEqual(self.r.set("k", "y", get=True), "w")
        mapping = {"m%d" % i: str(i) for i in range(100)}
        self.assertTrue(self.r.mset(mapping))
        keys = list(mapping) + ["missing"]
        self.assertEqual(self.r.mget(keys), list(mapping.values()) + [None])
        self.assertFalse(self.r.msetnx({"m1": "a", "new": "b"}))
        self.assertEqual(self.r.exists("m1", "m2", "new"), 2)
        self.assertEqual(self.r.delete(*keys), 100)
        self.assertEqual(self.r.dbsize(), 1)

    def test_binary_values(self):
        raw = redis.Redis(port=self.port)
        value = bytes(range(256)) * 4
        self.assertTrue(raw.set(b"\x00bin\xff", value))
        self.assertEqual(raw.get(b"\x00bin\xff"), value)
        raw.close()

    def test_counters(self):
        self.assertEqual(self.r.incr("n"), 1)
        self.assertEqual(self.r.incrby("n", 41), 42)
        self.assertEqual(self.r.decr("n"), 41)
        self.assertEqual(self.r.incrbyfloat("f", 10.5), 10.5)
        self.assertAlmostEqual(self.r.incrbyfloat("f", 0.1), 10.6)
        self.assertEqual(self.r.get("f"), "10.6")
        self.assertEqual(self.r.incrbyfloat("f", -10.6), 0)
        self.r.set("f", "1.5")
        with self.assertRaisesRegex(redis.ResponseError, "not an integer"):
            self.r.incr("f")

    def test_pipeline_of_1000_commands(self):
        pipe = self.r.pipeline(transaction=False)
        for i in range(250):
            pipe.set("p%d" % i, i)
            pipe.get("p%d" % i)
            pipe.incr("counter")
            pipe.mget("p%d" % i, "p%d" % (i // 2), "nope")
        replies = pipe.execute()
        self.assertEqual(len(replies), 1000)
        for i in range(250):
            s, g, c, m = replies[4 * i:4 * i + 4]
            self.assertTrue(s)
            self.assertEqual(g, str(i))
            self.assertEqual(c, i + 1)
            self.assertEqual(m, [str(i), str(i // 2), None])

    def test_pipeline_transaction(self):
        # redis-py's default pipeline wraps the commands in MULTI/EXEC.
        pipe = self.r.pipeline()
        for i in range(100):
            pipe.set("t%d" % i, i)
            pipe.incr("tcount")
        pipe.mget(["t0", "t50", "t99", "nope"])
        replies = pipe.execute()
        self.assertEqual(len(replies), 201)
        self.assertEqual(replies[-2], 100)
        self.assertEqual(replies[-1], ["0", "50", "99", None])
        # A command failing at run time comes back as its error; the rest ran.
        pipe = self.r.pipeline()
        pipe.set("s", "text").incr("s").get("s")
        with self.assertRaisesRegex(redis.ResponseError, "not an integer"):
            pipe.execute()
        self.assertEqual(self.r.get("s"), "text")
        replies = self.r.pipeline().set("s", "a").incr("s").get("s").execute(
            raise_on_error=False)
        self.assertIsInstance(replies[1], redis.ResponseError)
        # A command refused while queueing discards the whole transaction.
        pipe = self.r.pipeline()
        pipe.set("never", 1).execute_command("NOSUCHCOMMAND")
        with self.assertRaises(redis.ResponseError):
            pipe.execute()
        self.assertIsNone(self.r.get("never"))

    def test_watch_transactions_from_threads(self):
        # r.transaction() retries on WatchError: 8 threads x 50 increments of keys that
        # live on different shards must all land.
        import threading
        keys = ["acct:%d" % i for i in range(4)]
        self.r.mset({k: 100 for k in keys})

        def transfer(seed):
            c = redis.Redis(port=self.port, decode_responses=True, socket_timeout=30)
            for n in range(50):
                src, dst = keys[(seed + n) % 4], keys[(seed + 2 * n + 1) % 4]
                if src == dst:
                    dst = keys[(keys.index(src) + 1) % 4]

                def move(pipe):
                    a = int(pipe.get(src))
                    b = int(pipe.get(dst))
                    pipe.multi()
                    pipe.set(src, a - 1)
                    pipe.set(dst, b + 1)
                    pipe.incr("moves")
                c.transaction(move, src, dst)
            c.close()

        threads = [threading.Thread(target=transfer, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(int(self.r.get("moves")), 400)
        self.assertEqual(sum(int(v) for v in self.r.mget(keys)), 400)

    def test_watch_error(self):
        self.r.set("w", 1)
        other = redis.Redis(port=self.port, decode_responses=True)
        with self.r.pipeline() as pipe:
            pipe.watch("w")
            other.set("w", 2)
            pipe.multi()
            pipe.set("w", 3)
            with self.assertRaises(redis.WatchError):
                pipe.execute()
        self.assertEqual(self.r.get("w"), "2")
        other.close()

    def test_scan_iter(self):
        self.r.mset({"s:%d" % i: "v" for i in range(2000)})
        self.r.mset({"other:%d" % i: "v" for i in range(100)})
        self.assertEqual(set(self.r.scan_iter(count=10)), set(self.r.keys("*")))
        self.assertEqual(len(set(self.r.scan_iter(count=10))), 2100)
        self.assertEqual(set(self.r.scan_iter(match="other:*", count=100)),
                         {"other:%d" % i for i in range(100)})
        self.assertEqual(set(self.r.scan_iter(_type="string")), set(self.r.keys("*")))

    def test_info(self):
        self.r.mset({"i%d" % i: i for i in range(7)})
        info = self.r.info()
        for field in ("redis_version", "connected_clients", "used_memory"):
            self.assertIn(field, info)
        self.assertGreaterEqual(info["connected_clients"], 1)
        self.assertIsInstance(info["used_memory"], int)
        self.assertEqual(info["db0"]["keys"], 7)
        self.assertEqual(self.r.info("keyspace")["db0"]["keys"], 7)
        self.assertIn("redis_version", self.r.info("server"))

    def test_client_name(self):
        self.assertIsNone(self.r.client_getname())
        self.assertTrue(self.r.client_setname("py-worker"))
        self.assertEqual(self.r.client_getname(), "py-worker")
        self.assertIsInstance(self.r.client_id(), int)
        with self.assertRaises(redis.ResponseError):
            self.r.client_setname("has space")

    def test_config_get(self):
        self.assertEqual(self.r.config_get("save"), {"save": ""})
        self.assertEqual(self.r.config_get("appendonly"), {"appendonly": "no"})
        self.assertEqual(self.r.config_get("maxclients"), {"maxclients": "10000"})

    def test_keyspace_commands(self):
        self.r.set("a", "1")
        self.assertTrue(self.r.rename("a", "b"))
        self.assertFalse(self.r.renamenx("b", "b"))
        self.assertEqual(self.r.type("b"), "string")
        self.assertEqual(self.r.randomkey(), "b")
        self.assertEqual(self.r.getrange("b", 0, -1), "1")
        self.assertEqual(self.r.setrange("b", 3, "x"), 4)
        self.assertEqual(self.r.getdel("b"), "1\x00\x00x")
        self.assertEqual(self.r.ping(), True)
        self.assertEqual(self.r.echo("hi"), "hi")
        self.assertEqual(len(self.r.time()), 2)
        with self.assertRaisesRegex(redis.ResponseError, "no such key"):
            self.r.rename("nope", "x")

    def test_bitmaps(self):
        # Daily actives over keys on every shard, as an app keeps them.
        for day in range(3):
            for user in range(0, 100, day + 1):
                self.r.setbit("active:%d" % day, user, 1)
        self.assertEqual(self.r.getbit("active:0", 99), 1)
        self.assertEqual(self.r.getbit("active:1", 99), 0)
        self.assertEqual(self.r.bitcount("active:0"), 100)
        self.assertEqual(self.r.bitcount("active:1", 0, 0), 4)
        self.assertEqual(self.r.bitcount("active:1", 0, 15, mode="BIT"), 8)
        self.assertEqual(self.r.bitop("AND", "every", "active:0", "active:1", "active:2"), 13)
        self.assertEqual(self.r.bitcount("every"), 17)
        self.assertEqual(self.r.bitop("OR", "any", "active:0", "active:1"), 13)
        self.assertEqual(self.r.bitpos("any", 0), 100)
        self.assertEqual(self.r.bitpos("active:1", 1, 1, -1), 8)
        self.assertEqual(self.r.bitpos("active:1", 1, 1, -1, mode="BIT"), 2)
        bf = self.r.bitfield("counters", default_overflow="SAT")
        bf.incrby("u8", "#0", 200).incrby("u8", "#0", 200).set("i16", "#1", -5).get("i16", 16)
        self.assertEqual(bf.execute(), [200, 255, 0, -5])
        # redis-py 4.3 has no bitfield_ro().
        self.assertEqual(self.r.execute_command("BITFIELD_RO", "counters", "GET", "u8", "0",
                                                "GET", "i16", "16"), [255, -5])
        with self.assertRaisesRegex(redis.ResponseError, "bit offset is not an integer"):
            self.r.setbit("active:0", -1, 1)

    def test_lcs_substr_copy(self):
        self.r.set("a", "ohmytext")
        self.r.set("b", "mynewtext")
        self.assertEqual(self.r.lcs("a", "b"), "mytext")
        self.assertEqual(self.r.lcs("a", "b", len=True), 6)
        self.assertEqual(self.r.lcs("a", "b", idx=True, minmatchlen=4, withmatchlen=True),
                         ["matches", [[[4, 7], [5, 8], 4]], "len", 6])
        self.assertEqual(self.r.substr("a", 2, 3), "my")
        self.r.set("a", "v", ex=100)
        self.assertTrue(self.r.copy("a", "c"))
        self.assertFalse(self.r.copy("a", "c"))
        self.assertGreater(self.r.ttl("c"), 90)
        self.r.zadd("z", {"x": 1, "y": 2})
        self.assertTrue(self.r.copy("z", "c", replace=True))
        self.assertEqual(self.r.zrange("c", 0, -1, withscores=True), [("x", 1.0), ("y", 2.0)])
        with self.assertRaisesRegex(redis.ResponseError, "DB index is out of range"):
            self.r.copy("a", "d", destination_db=1)

    def test_redis_cli(self):
        self.assertEqual(self.cli("SET", "cli:key", "hello world"), "OK\n")
        self.assertEqual(self.cli("GET", "cli:key"), "hello world\n")
        self.assertEqual(self.cli("INCRBY", "cli:n", "5"), "5\n")
        self.assertEqual(self.cli("PING"), "PONG\n")
        self.assertIn("redis_version:", self.cli("INFO", "server"))
        self.r.mset({"scan:%d" % i: "v" for i in range(500)})
        scanned = self.cli("--scan").split()
        self.assertEqual(set(scanned), set(self.r.keys("*")))
        self.assertEqual(len(set(scanned)), 502)
        self.assertEqual(set(self.cli("--scan", "--pattern", "scan:1*").split()),
                         set(self.r.keys("scan:1*")))

    def benchmark(self, *extra):
        out = subprocess.run(
            ["redis-benchmark", "-p", str(self.port), "-t", "set,get,incr,mset",
             "-n", "20000", "-P", "16", "-q"] + list(extra),
            capture_output=True, text=True, timeout=120)
        text = out.stdout + out.stderr
        self.assertEqual(out.returncode, 0, text)
        self.assertNotRegex(text, "(?i)error", text)
        for test in ("SET", "GET", "INCR", "MSET"):
            self.assertRegex(text, r"(?m)^%s.*requests per second" % test, text)

    def test_redis_benchmark(self):
        self.benchmark()
        # Without -r every request hits the same key: no INCR may be lost.
        self.assertEqual(self.r.get("counter:__rand_int__"), "20000")
        self.assertEqual(self.r.strlen("key:__rand_int__"), 3)  # -d default: 3 bytes.

    def test_redis_benchmark_random_keys_across_shards(self):
        self.benchmark("-r", "100000")
        self.assertGreater(self.r.dbsize(), 1000)


if __name__ == "__main__":
    main()
