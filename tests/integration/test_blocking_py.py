"""Blocking commands in RESP3, byte for byte against redis-server 7.0 (nulls on timeout,
doubles in served replies, inside MULTI, CLIENT UNBLOCK's error), and through redis-py as
applications call them (bzpopmin / bzpopmax / bzmpop with a producer thread).

Run by ctest as `/usr/bin/python3 test_blocking_py.py <path-to-ringcache>`.
"""

import threading
import time
import unittest

import redis

from differential_pair import RedisServer
from ringcache_server import Ringcache, main
from test_resp3 import Conn


class BlockingResp3Test(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.rc = Ringcache(threads=3)
        cls.redis = RedisServer()

    @classmethod
    def tearDownClass(cls):
        cls.redis.stop()
        cls.rc.stop_ok()

    def setUp(self):
        self.pairs = []
        self.a, self.b = self.pair()
        self.a.cmd("FLUSHALL")
        self.b.cmd("FLUSHALL")

    def tearDown(self):
        for a, b in self.pairs:
            a.close()
            b.close()

    def pair(self):
        p = (Conn(self.redis.port), Conn(self.rc.port))
        for c in p:
            c.cmd("HELLO", "3")
        self.pairs.append(p)
        return p

    def same(self, *args, on=None):
        a, b = on or (self.a, self.b)
        want, got = a.cmd(*args), b.cmd(*args)
        self.assertEqual(got, want, "command %r" % (args,))
        return got

    def wait_blocked(self, n):
        for c in (self.a, self.b):
            deadline = time.monotonic() + 30
            while b"blocked_clients:%d\r\n" % n not in c.cmd("INFO", "clients"):
                self.assertLess(time.monotonic(), deadline, "blocked_clients never %d" % n)
                time.sleep(0.005)

    def test_immediate_and_timeout(self):
        for cmd in ("ZADD z 1 a 2.5 b 3 c inf d", "BZPOPMIN z 0", "BZPOPMAX z other 0",
                    "BZMPOP 0 2 none z MIN COUNT 5", "ZADD z 1 a 2 b", "ZMPOP 1 z MAX",
                    "ZMPOP 1 none MAX", "BZPOPMIN none 0.02", "BZMPOP 0.02 1 none MIN",
                    "MULTI", "BZPOPMIN none 0", "BZMPOP 0 1 none MAX", "BZPOPMIN z 0",
                    "EXEC"):
            self.same(*cmd.split())

    def test_served_and_unblocked(self):
        w = self.pair()
        ids = [c.cmd("CLIENT", "ID") for c in w]
        for c in w:
            c.send("BZPOPMAX", "s", "0")
        self.wait_blocked(1)
        self.same("ZADD", "s", "1.5", "m", "-inf", "n")
        self.assertEqual(w[1].reply(), w[0].reply())
        for c in w:
            c.send("BZMPOP", "0", "1", "s", "MAX", "COUNT", "9")
        self.wait_blocked(0)
        self.assertEqual(w[1].reply(), w[0].reply())
        for c in w:
            c.send("BZPOPMIN", "s", "0")
        self.wait_blocked(1)
        for c, i in zip((self.a, self.b), ids):
            self.assertEqual(c.cmd("CLIENT", "UNBLOCK", i[1:-2], "ERROR"), b":1\r\n")
        self.assertEqual(w[1].reply(), w[0].reply())
        for c in w:
            c.send("BZPOPMIN", "s", "0")
        self.wait_blocked(1)
        for c, i in zip((self.a, self.b), ids):
            self.assertEqual(c.cmd("CLIENT", "UNBLOCK", i[1:-2]), b":1\r\n")
        self.assertEqual(w[1].reply(), w[0].reply())


class RedisPyBlockingTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.rc = Ringcache(threads=3)

    @classmethod
    def tearDownClass(cls):
        cls.rc.stop_ok()

    def test_consumer_and_producer(self):
        r = redis.Redis(port=self.rc.port, decode_responses=True, socket_timeout=30)
        r.flushall()
        self.assertIsNone(r.bzpopmin(["jobs:a", "jobs:b"], timeout=0.05))
        got = []

        def consume():
            c = redis.Redis(port=self.rc.port, decode_responses=True, socket_timeout=30)
            while len(got) < 30:
                item = c.bzpopmin(["jobs:a", "jobs:b", "jobs:c"], timeout=1)
                if item is not None:
                    got.append(item)
            c.close()

        t = threading.Thread(target=consume)
        t.start()
        for i in range(30):
            r.zadd("jobs:" + "abc"[i % 3], {"job%d" % i: i})
        t.join(30)
        self.assertFalse(t.is_alive())
        self.assertEqual(sorted(m for _, m, _ in got), sorted("job%d" % i for i in range(30)))
        r.zadd("jobs:b", {"x": 1, "y": 2, "z": 3})
        self.assertEqual(r.bzpopmax(["jobs:a", "jobs:b"], timeout=0), ("jobs:b", "z", 3.0))
        self.assertEqual(r.execute_command("BZMPOP", 0, 1, "jobs:b", "MIN", "COUNT", 5),
                         ["jobs:b", [["x", "1"], ["y", "2"]]])
        self.assertEqual(r.info("clients")["blocked_clients"], 0)
        r.close()


if __name__ == "__main__":
    main()
