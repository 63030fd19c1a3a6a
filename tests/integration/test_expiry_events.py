"""Expired-key notifications and real expiry seen through redis-py 4.3's PubSub.

Run by ctest as `/usr/bin/python3 test_expiry_events.py <path-to-ringcache>`. Starts
ringcache with 3 threads (ringcache_server.ServerTestCase) and checks that:
  * with notify-keyspace-events Ex, a SUBSCRIBE and a PSUBSCRIBE subscriber each get one
    "expired" event per key for 1000 keys spread over the 3 shards, none twice, none missing;
  * with Kx, __keyspace@0__:<key> gets "expired";
  * with notifications off, nothing arrives;
  * TTL commands answer through redis-py as they should.
Messages are collected with get_message(timeout=...) in a loop bounded by a deadline, never
with fixed sleeps. "Nothing else arrived" is checked by publishing a marker once every key
is gone and expecting it as the next message.
"""

import collections
import time

import redis

from ringcache_server import ServerTestCase, main

THREADS = 3
# Generous: sanitizer builds on two CI cores are 3-10x slower.
EVENTUALLY = 30.0
EVENT_CHANNEL = "__keyevent@0__:expired"


def crc16(data):
    crc = 0
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
            crc &= 0xFFFF
    return crc


def shard_of(key, threads=THREADS):
    """The server's routing: each shard owns a contiguous range of Redis Cluster slots,
    shard i's from round(i * 16384 / threads) (keys here have no hash tags)."""
    slot = crc16(key.encode()) & 16383
    shard = 0
    while shard + 1 < threads and (2 * (shard + 1) * 16384 + threads) // (2 * threads) <= slot:
        shard += 1
    return shard


def wait_until(predicate, timeout=EVENTUALLY, step=0.005):
    deadline = time.monotonic() + timeout
    while True:
        if predicate():
            return True
        if time.monotonic() >= deadline:
            return predicate()
        time.sleep(step)


class ExpiryEventsTest(ServerTestCase):
    THREADS = THREADS

    def setUp(self):
        self.r = redis.Redis(port=self.port, decode_responses=True, socket_timeout=60)
        self.r.flushall()
        self.r.config_set("notify-keyspace-events", "")
        self.pubsubs = []
        self.expired_before = self.r.info("stats")["expired_keys"]

    def tearDown(self):
        for p in self.pubsubs:
            p.close()
        self.r.config_set("notify-keyspace-events", "")
        self.r.close()

    def pubsub(self, channels=(), patterns=()):
        """A PubSub whose subscriptions are confirmed (so no event can precede them)."""
        p = self.r.pubsub()
        self.pubsubs.append(p)
        if channels:
            p.subscribe(*channels)
        if patterns:
            p.psubscribe(*patterns)
        for _ in range(len(channels) + len(patterns)):
            msg = p.get_message(timeout=EVENTUALLY)
            self.assertIsNotNone(msg, "no subscribe confirmation")
            self.assertIn(msg["type"], ("subscribe", "psubscribe"), msg)
        return p

    def collect(self, p, count):
        """The next `count` messages (dicts), waiting at most EVENTUALLY overall."""
        out = []
        deadline = time.monotonic() + EVENTUALLY
        while len(out) < count and time.monotonic() < deadline:
            msg = p.get_message(timeout=min(1.0, max(deadline - time.monotonic(), 0.01)))
            if msg is not None:
                out.append(msg)
        return out

    def expect_marker_next(self, subs, channel):
        """Every key is gone: PUBLISH a marker; it must be each subscriber's next message."""
        marker = "marker-%f" % time.monotonic()
        self.assertEqual(self.r.publish(channel, marker), len(subs))
        for p in subs:
            msg = self.collect(p, 1)
            self.assertEqual(len(msg), 1, "marker not received")
            self.assertEqual(msg[0]["channel"], channel, msg[0])
            self.assertEqual(msg[0]["data"], marker, "unexpected message before the marker")

    def spread_keys(self, prefix, count):
        keys = ["%s%d" % (prefix, i) for i in range(count)]
        per_shard = collections.Counter(shard_of(k) for k in keys)
        self.assertEqual(len(per_shard), THREADS, per_shard)
        return keys

    def set_expiring(self, keys, px):
        pipe = self.r.pipeline(transaction=False)
        for k in keys:
            pipe.set(k, "v", px=px)
        self.assertTrue(all(pipe.execute()))

    def test_expired_event_once_per_key(self):
        self.assertTrue(self.r.config_set("notify-keyspace-events", "Ex"))
        self.assertEqual(self.r.config_get("notify-keyspace-events"),
                         {"notify-keyspace-events": "xE"})
        sub = self.pubsub(channels=[EVENT_CHANNEL])
        psub = self.pubsub(patterns=["__keyevent@0__:*"])
        keys = self.spread_keys("ev:", 1000)
        self.set_expiring(keys, px=200)

        for p, kind in ((sub, "message"), (psub, "pmessage")):
            msgs = self.collect(p, len(keys))
            self.assertEqual(len(msgs), len(keys), "events missing")
            for m in msgs:
                self.assertEqual(m["type"], kind, m)
                self.assertEqual(m["channel"], EVENT_CHANNEL, m)
            seen = collections.Counter(m["data"] for m in msgs)
            self.assertEqual([k for k, n in seen.items() if n > 1], [], "duplicates")
            self.assertEqual(set(seen), set(keys))

        self.assertTrue(wait_until(lambda: self.r.dbsize() == 0))
        self.assertEqual(self.r.info("stats")["expired_keys"] - self.expired_before,
                         len(keys))
        self.expect_marker_next([sub, psub], EVENT_CHANNEL)

    def test_keyspace_channel_gets_expired(self):
        self.assertTrue(self.r.config_set("notify-keyspace-events", "Kx"))
        keys = self.spread_keys("ks:", 30)
        one = self.pubsub(channels=["__keyspace@0__:" + keys[0]])
        every = self.pubsub(patterns=["__keyspace@0__:*"])
        keyevents = self.pubsub(patterns=["__keyevent@0__:*"])
        self.set_expiring(keys, px=50)

        msg = self.collect(one, 1)
        self.assertEqual([(m["channel"], m["data"]) for m in msg],
                         [("__keyspace@0__:" + keys[0], "expired")])
        msgs = self.collect(every, len(keys))
        self.assertEqual(sorted((m["channel"], m["data"]) for m in msgs),
                         sorted(("__keyspace@0__:" + k, "expired") for k in keys))
        self.assertTrue(wait_until(lambda: self.r.dbsize() == 0))
        self.expect_marker_next([one, every], "__keyspace@0__:" + keys[0])
        # K without E: nothing on the keyevent channels.
        self.expect_marker_next([keyevents], EVENT_CHANNEL)

    def test_nothing_when_notifications_are_off(self):
        self.assertEqual(self.r.config_get("notify-keyspace-events"),
                         {"notify-keyspace-events": ""})
        sub = self.pubsub(channels=[EVENT_CHANNEL], patterns=["__key*__:*"])
        keys = self.spread_keys("off:", 100)
        self.set_expiring(keys, px=20)
        self.assertTrue(wait_until(lambda: self.r.dbsize() == 0))
        self.assertEqual(self.r.info("stats")["expired_keys"] - self.expired_before,
                         len(keys))
        # The marker reaches the channel and the pattern subscription: two messages.
        marker = "marker-off"
        self.assertEqual(self.r.publish(EVENT_CHANNEL, marker), 2)
        msgs = self.collect(sub, 2)
        self.assertEqual(sorted((m["type"], m["data"]) for m in msgs),
                         [("message", marker), ("pmessage", marker)])

    def test_ttl_commands_through_redis_py(self):
        r = self.r
        self.assertTrue(r.set("k", "v", ex=100))
        self.assertTrue(98 <= r.ttl("k") <= 100)
        self.assertTrue(r.pexpire("k", 200000))
        self.assertTrue(198000 <= r.pttl("k") <= 200000)
        self.assertTrue(r.expireat("k", 4102444800))
        self.assertEqual(r.execute_command("EXPIRETIME", "k"), 4102444800)
        self.assertEqual(r.execute_command("PEXPIRETIME", "k"), 4102444800000)
        self.assertFalse(r.expire("k", 100, nx=True))
        self.assertTrue(r.expire("k", 100, xx=True))
        self.assertFalse(r.expire("k", 50, gt=True))
        self.assertTrue(r.expire("k", 50, lt=True))
        self.assertTrue(r.persist("k"))
        self.assertEqual(r.ttl("k"), -1)
        self.assertEqual(r.ttl("missing"), -2)
        self.assertEqual(r.getex("k", px=300000), "v")
        self.assertTrue(298 <= r.ttl("k") <= 300)
        self.assertEqual(r.getex("k", persist=True), "v")
        self.assertEqual(r.ttl("k"), -1)
        self.assertTrue(r.setex("s", 100, "v"))
        self.assertTrue(r.psetex("p", 100000, "v"))
        self.assertTrue(98 <= r.ttl("s") <= 100 and 98 <= r.ttl("p") <= 100)
        with self.assertRaisesRegex(redis.ResponseError, "invalid expire time in 'setex'"):
            r.setex("s", 0, "v")
        with self.assertRaisesRegex(redis.ResponseError, "not compatible"):
            r.execute_command("EXPIRE", "k", "10", "NX", "XX")
        # A short PX really expires, without the key being read.
        r.set("short", "v", px=50)
        self.assertTrue(wait_until(lambda: r.dbsize() == 3))
        self.assertIsNone(r.get("short"))
        self.assertEqual(sorted(r.keys("*")), ["k", "p", "s"])


if __name__ == "__main__":
    main()
