"""Lists driven by redis-py 4.3 as applications use them (a job queue with a processing
list, a capped activity feed), against ringcache with 3 threads; and the keyspace events
of every list command compared with redis-server 7.0's, event for event, for keys on one
shard and across shards.

Run by ctest as `/usr/bin/python3 test_lists_py.py <path-to-ringcache>`.
"""

import time

import redis

from differential_pair import RedisServer
from ringcache_server import ServerTestCase, main

# Every list command with its events: pushes, pops (and the del of an emptied list),
# edits, moves within and across keys, LTRIM that removes nothing.
EVENT_SCRIPT = [
    ("RPUSH", "q", "a", "b", "c", "d", "e", "f"),
    ("LPUSH", "q", "z"),
    ("LPUSHX", "q", "y"),
    ("RPUSHX", "q", "x"),
    ("LPUSHX", "missing", "y"),
    ("LPOP", "q"),
    ("RPOP", "q", "2"),
    ("LPOP", "q", "0"),
    ("LSET", "q", "0", "A"),
    ("LINSERT", "q", "AFTER", "A", "B"),
    ("LINSERT", "q", "AFTER", "none", "B"),
    ("LREM", "q", "0", "B"),
    ("LREM", "q", "0", "none"),
    ("LTRIM", "q", "0", "-1"),
    ("LTRIM", "q", "1", "-1"),
    ("LMOVE", "q", "other", "LEFT", "RIGHT"),
    ("LMOVE", "q", "q", "LEFT", "RIGHT"),
    ("RPOPLPUSH", "q", "other"),
    ("LMPOP", "2", "missing", "q", "RIGHT", "COUNT", "1"),
    ("RPUSH", "one", "x"),
    ("LMOVE", "one", "q", "LEFT", "LEFT"),
    ("RPUSH", "two", "x"),
    ("RPOPLPUSH", "two", "two"),
    ("LMPOP", "1", "two", "LEFT"),
    ("RPUSH", "t", "x"),
    ("LTRIM", "t", "5", "6"),
    ("RPUSH", "r", "x", "y"),
    ("LREM", "r", "0", "x"),
    ("LREM", "r", "0", "y"),
    ("LPOP", "other", "100"),
]


def collect(p, deadline):
    got = []
    while time.monotonic() < deadline:
        m = p.get_message(timeout=0.2)
        if m is None:
            if got:
                break
            continue
        if m["type"] == "pmessage":
            got.append((m["channel"], m["data"]))
    return got


class ListsTest(ServerTestCase):

    def setUp(self):
        self.r = redis.Redis(port=self.port, decode_responses=True, socket_timeout=30)
        self.r.flushall()
        self.r.config_set("notify-keyspace-events", "")

    def tearDown(self):
        self.r.close()

    def test_job_queue_with_processing_list(self):
        for i in range(100):
            self.r.lpush("jobs", "job:%d" % i)
        done = []
        while True:
            job = self.r.lmove("jobs", "processing", "RIGHT", "LEFT")
            if job is None:
                break
            self.assertEqual(self.r.lrem("processing", 1, job), 1)
            done.append(job)
        self.assertEqual(done, ["job:%d" % i for i in range(100)])
        self.assertEqual(self.r.exists("jobs", "processing"), 0)

    def test_capped_feed(self):
        pipe = self.r.pipeline(transaction=False)
        for i in range(500):
            pipe.lpush("feed", "event %d" % i)
            pipe.ltrim("feed", 0, 99)
        pipe.execute()
        self.assertEqual(self.r.llen("feed"), 100)
        self.assertEqual(self.r.lrange("feed", 0, 2), ["event 499", "event 498", "event 497"])
        self.assertEqual(self.r.lindex("feed", -1), "event 400")
        self.assertEqual(self.r.lpos("feed", "event 450"), 49)
        self.assertEqual(self.r.type("feed"), "list")
        self.assertEqual(self.r.object("encoding", "feed"), "quicklist")
        self.assertEqual(self.r.rpop("feed", 2), ["event 400", "event 401"])
        self.assertEqual(self.r.lmpop(2, "nothing", "feed", direction="LEFT", count=1),
                         ["feed", ["event 499"]])

    def test_transaction_and_wrongtype(self):
        pipe = self.r.pipeline()
        pipe.rpush("l", "a", "b").lpop("l").llen("l").rpoplpush("l", "{l}2")
        self.assertEqual(pipe.execute(), [2, "a", 1, "b"])
        self.r.set("str", "v")
        with self.assertRaisesRegex(redis.ResponseError, "WRONGTYPE"):
            self.r.lpush("str", "a")
        with self.assertRaisesRegex(redis.ResponseError, "WRONGTYPE"):
            self.r.get("{l}2")

    def test_keyspace_events_match_redis(self):
        ref = RedisServer()
        try:
            got = {}
            for name, port in (("redis", ref.port), ("ringcache", self.port)):
                c = redis.Redis(port=port, decode_responses=True, socket_timeout=30)
                c.flushall()
                c.config_set("notify-keyspace-events", "KEA")
                p = c.pubsub()
                p.psubscribe("__key*@0__:*")
                self.assertEqual(p.get_message(timeout=5)["type"], "psubscribe")
                for cmd in EVENT_SCRIPT:
                    try:
                        c.execute_command(*cmd)
                    except redis.ResponseError:
                        pass
                events = collect(p, time.monotonic() + 10)
                c.config_set("notify-keyspace-events", "")
                p.close()
                c.close()
                got[name] = events
            # Events of different keys may come from different shards, each shard's in
            # its own order: compare each key's own sequence, and the whole multiset.
            def per_key(events):
                out = {}
                for channel, data in events:
                    key = channel.split(":", 1)[1] if channel.startswith("__keyspace") else data
                    out.setdefault(key, []).append((channel, data))
                return out
            self.assertGreater(len(got["redis"]), 60)
            self.assertEqual(per_key(got["ringcache"]), per_key(got["redis"]))
            self.assertEqual(sorted(got["ringcache"]), sorted(got["redis"]))
        finally:
            ref.stop()


if __name__ == "__main__":
    main()
