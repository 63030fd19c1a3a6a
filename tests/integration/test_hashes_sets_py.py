"""Hashes and sets driven by redis-py 4.3 as an application uses them (sessions, counters,
tags, online users), with keyspace notifications of their commands, against ringcache
with 3 threads.

Run by ctest as `/usr/bin/python3 test_hashes_sets_py.py <path-to-ringcache>`.
"""

import time

import redis

from ringcache_server import ServerTestCase, main


class HashesSetsTest(ServerTestCase):

    def setUp(self):
        self.r = redis.Redis(port=self.port, decode_responses=True, socket_timeout=30)
        self.r.flushall()
        self.r.config_set("notify-keyspace-events", "")

    def tearDown(self):
        self.r.close()

    def test_session_hash(self):
        self.assertEqual(self.r.hset("session:1", mapping={"user": "ann", "visits": 1}), 2)
        self.assertEqual(self.r.hincrby("session:1", "visits", 2), 3)
        self.assertAlmostEqual(self.r.hincrbyfloat("session:1", "score", 1.5), 1.5)
        self.assertEqual(self.r.hgetall("session:1"),
                         {"user": "ann", "visits": "3", "score": "1.5"})
        self.assertEqual(self.r.hmget("session:1", ["user", "nope"]), ["ann", None])
        self.assertTrue(self.r.hexists("session:1", "user"))
        self.assertEqual(self.r.hlen("session:1"), 3)
        self.assertEqual(self.r.hstrlen("session:1", "user"), 3)
        self.assertEqual(sorted(self.r.hkeys("session:1")), ["score", "user", "visits"])
        self.assertFalse(self.r.hsetnx("session:1", "user", "bob"))
        self.assertEqual(self.r.hdel("session:1", "score", "nope"), 1)
        self.assertIn(self.r.hrandfield("session:1"), ("user", "visits"))
        self.assertEqual(len(self.r.hrandfield("session:1", 2, withvalues=True)), 4)
        self.assertTrue(self.r.expire("session:1", 100))
        self.assertEqual(self.r.type("session:1"), "hash")
        self.assertEqual(self.r.object("encoding", "session:1"), "listpack")

    def test_big_hash_scan(self):
        mapping = {"f%d" % i: str(i) for i in range(2000)}
        pipe = self.r.pipeline(transaction=False)
        for i in range(0, 2000, 100):
            pipe.hset("big", mapping={k: mapping[k] for k in list(mapping)[i:i + 100]})
        pipe.execute()
        self.assertEqual(self.r.object("encoding", "big"), "hashtable")
        self.assertEqual(dict(self.r.hscan_iter("big", count=50)), mapping)
        self.assertEqual(dict(self.r.hscan_iter("big", match="f19*")),
                         {k: v for k, v in mapping.items() if k.startswith("f19")})

    def test_tags_and_online_users(self):
        self.assertEqual(self.r.sadd("tags:{a}", "redis", "cache", "db"), 3)
        self.assertEqual(self.r.sadd("tags:{b}", "cache", "queue"), 2)
        self.assertEqual(self.r.sinter("tags:{a}", "tags:{b}"), {"cache"})
        self.assertEqual(self.r.sunion("tags:{a}", "tags:{b}"),
                         {"redis", "cache", "db", "queue"})
        self.assertEqual(self.r.sdiff("tags:{a}", "tags:{b}"), {"redis", "db"})
        self.assertEqual(self.r.sinterstore("both", ["tags:{a}", "tags:{b}"]), 1)
        self.assertEqual(self.r.sunionstore("any", ["tags:{a}", "tags:{b}"]), 4)
        self.assertEqual(self.r.sintercard(2, ["tags:{a}", "tags:{b}"]), 1)
        self.assertTrue(self.r.smove("tags:{a}", "tags:{b}", "redis"))
        self.assertEqual(self.r.smembers("tags:{b}"), {"cache", "queue", "redis"})
        self.assertEqual(self.r.smismember("tags:{b}", ["cache", "nope"]), [1, 0])
        for uid in range(100):
            self.r.sadd("online", uid)
        self.assertEqual(self.r.object("encoding", "online"), "intset")
        self.assertEqual(self.r.scard("online"), 100)
        self.assertTrue(self.r.sismember("online", 42))
        popped = self.r.spop("online", 10)
        self.assertEqual(len(popped), 10)
        self.assertEqual(self.r.scard("online"), 90)
        self.assertEqual(len(set(self.r.srandmember("online", 20))), 20)
        self.assertEqual(len(set(self.r.sscan_iter("online"))), 90)
        self.assertEqual(self.r.srem("online", *range(100)), 90)
        self.assertEqual(self.r.exists("online"), 0)

    def test_transaction_and_wrongtype(self):
        pipe = self.r.pipeline()
        pipe.hset("h", "a", "1").sadd("s", "x").hincrby("h", "a", 5).scard("s")
        self.assertEqual(pipe.execute(), [1, 1, 6, 1])
        self.r.set("str", "v")
        with self.assertRaisesRegex(redis.ResponseError, "WRONGTYPE"):
            self.r.hget("str", "a")
        with self.assertRaisesRegex(redis.ResponseError, "WRONGTYPE"):
            self.r.sadd("h", "x")

    def test_keyspace_events(self):
        self.r.config_set("notify-keyspace-events", "KEhsg")
        p = self.r.pubsub()
        p.psubscribe("__key*@0__:*")
        self.assertEqual(p.get_message(timeout=5)["type"], "psubscribe")
        self.r.hset("h", "a", "1")
        self.r.hincrby("h", "n", 1)
        self.r.hdel("h", "a", "n")
        self.r.sadd("s", "x", "y")
        self.r.srem("s", "x")
        self.r.spop("s")
        want = [("__keyspace@0__:h", "hset"), ("__keyevent@0__:hset", "h"),
                ("__keyspace@0__:h", "hincrby"), ("__keyevent@0__:hincrby", "h"),
                ("__keyspace@0__:h", "hdel"), ("__keyevent@0__:hdel", "h"),
                ("__keyspace@0__:h", "del"), ("__keyevent@0__:del", "h"),
                ("__keyspace@0__:s", "sadd"), ("__keyevent@0__:sadd", "s"),
                ("__keyspace@0__:s", "srem"), ("__keyevent@0__:srem", "s"),
                ("__keyspace@0__:s", "spop"), ("__keyevent@0__:spop", "s"),
                ("__keyspace@0__:s", "del"), ("__keyevent@0__:del", "s")]
        got = []
        deadline = time.monotonic() + 10
        while len(got) < len(want) and time.monotonic() < deadline:
            m = p.get_message(timeout=1)
            if m and m["type"] == "pmessage":
                got.append((m["channel"], m["data"]))
        self.assertEqual(got, want)
        p.close()


if __name__ == "__main__":
    main()
