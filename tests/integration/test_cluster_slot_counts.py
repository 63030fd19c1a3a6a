"""CLUSTER COUNTKEYSINSLOT and GETKEYSINSLOT from each shard's keys per slot
(docs/CLUSTER.md, "Keys per slot"): the count stays exact through every way a key comes
and goes, and both commands agree with each other on every port.

Run by ctest as `/usr/bin/python3 test_cluster_slot_counts.py <path-to-ringcache>`.

Keys past their deadline that nobody reclaimed yet (here: held by CLIENT PAUSE) are
counted and listed, as redis-server 7.0.15 does (checked with DEBUG SET-ACTIVE-EXPIRE 0:
COUNTKEYSINSLOT 2, GETKEYSINSLOT both keys, for one live and one expired key).
"""

import socket
import time
import unittest

import redis

from ringcache_server import Ringcache, main
from test_cluster import key_slot, node_of


def pipeline_raw(port, *commands):
    """Sends `commands` in one write, so the server reads them in one loop turn."""
    def encode(args):
        return b"*%d\r\n" % len(args) + b"".join(
            b"$%d\r\n%s\r\n" % (len(a.encode()), a.encode()) for a in args)
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(b"".join(encode(c) for c in commands))
        out = b""
        while out.count(b"\r\n") < len(commands):
            chunk = s.recv(65536)
            if not chunk:
                break
            out += chunk
        return out


class SlotCountTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.server = Ringcache(threads=2, extra=["--cluster-enabled", "yes",
                                                 "--maxmemory-policy", "allkeys-random"])
        cls.main = redis.Redis(port=cls.server.port)
        slots = cls.main.execute_command("CLUSTER", "SLOTS")
        cls.nodes = sorted(((s[0], s[1]), s[2][1]) for s in slots)

    @classmethod
    def tearDownClass(cls):
        cls.server.stop_ok()

    def setUp(self):
        self.main.flushall()

    def tag_on(self, node, taken=()):
        """A hash tag whose slot the node-th node owns, not in `taken`."""
        (first, last), _ = self.nodes[node]
        for i in range(100000):
            tag = "{t%d}" % i
            if first <= key_slot(tag) <= last and tag not in taken:
                return tag
        raise AssertionError("no tag")

    def owner(self, tag):
        return redis.Redis(port=node_of(self.nodes, key_slot(tag)))

    def count(self, tag, port=None):
        conn = redis.Redis(port=port) if port else self.owner(tag)
        return conn.execute_command("CLUSTER", "COUNTKEYSINSLOT", key_slot(tag))

    def assert_keys(self, tag, n):
        """`tag`'s slot holds n keys: on its node, on the main port, 0 on the other node;
        GETKEYSINSLOT lists exactly as many (and stops at its count)."""
        slot = key_slot(tag)
        owner_port = node_of(self.nodes, slot)
        self.assertEqual(self.count(tag), n)
        self.assertEqual(self.count(tag, self.server.port), n)
        other = [p for _, p in self.nodes if p != owner_port][0]
        self.assertEqual(self.count(tag, other), 0)
        keys = self.owner(tag).execute_command("CLUSTER", "GETKEYSINSLOT", slot, 1000000)
        self.assertEqual(len(keys), n)
        self.assertTrue(all(k.decode().startswith(tag) for k in keys), keys)
        if n > 1:
            few = self.owner(tag).execute_command("CLUSTER", "GETKEYSINSLOT", slot, n - 1)
            self.assertEqual(len(few), n - 1)

    def test_set_del_unlink(self):
        tag = self.tag_on(0)
        r = self.owner(tag)
        self.assert_keys(tag, 0)
        for i in range(20):
            r.set("%s%d" % (tag, i), "v")
        r.set("%s0" % tag, "overwritten")
        r.hset("%sh" % tag, "f", "v")
        r.zadd("%sz" % tag, {"m": 1})
        self.assert_keys(tag, 22)
        self.assertEqual(r.delete("%s0" % tag, "%s1" % tag, "%snothing" % tag), 2)
        self.assertEqual(r.unlink("%s2" % tag, "%sz" % tag), 2)
        self.assert_keys(tag, 18)

    def test_lazy_and_active_expiry_and_expired_keys_still_counted(self):
        tag = self.tag_on(1)
        r = self.owner(tag)
        port = node_of(self.nodes, key_slot(tag))
        for i in range(5):
            r.set("%s%d" % (tag, i), "v")
            r.pexpire("%s%d" % (tag, i), 50)
        r.set("%sforever" % tag, "v")
        # While CLIENT PAUSE holds writes nothing expired is reclaimed: the keys are past
        # their deadline, read as absent, and are still counted and listed, as in Redis.
        self.main.execute_command("CLIENT", "PAUSE", "10000", "WRITE")
        try:
            time.sleep(0.2)
            self.assertIsNone(r.get("%s0" % tag))
            self.assert_keys(tag, 6)
        finally:
            # Lazy: in the same loop turn as the unpause, before active expiry runs, the
            # GET reclaims its key.
            out = pipeline_raw(port, ("CLIENT", "UNPAUSE"), ("GET", "%s0" % tag),
                               ("CLUSTER", "COUNTKEYSINSLOT", str(key_slot(tag))))
        self.assertEqual(out, b"+OK\r\n$-1\r\n:5\r\n")
        # Active: the other four go without being touched.
        deadline = time.monotonic() + 5
        while self.count(tag) != 1 and time.monotonic() < deadline:
            time.sleep(0.01)
        self.assert_keys(tag, 1)
        # A TTL removed in time keeps its key counted.
        r.set("%sp" % tag, "v", px=100000)
        r.persist("%sp" % tag)
        self.assert_keys(tag, 2)

    def test_eviction_under_maxmemory(self):
        tag = self.tag_on(0)
        r = self.owner(tag)
        names = ["%s%d" % (tag, i) for i in range(4000)]
        pipe = r.pipeline(transaction=False)
        for k in names:
            pipe.set(k, "x" * 1000)
        pipe.execute()
        self.assert_keys(tag, 4000)
        # What the limit counts in every build: used_memory is RSS under sanitizers.
        used = self.main.info("memory")["used_memory_dataset"]
        evicted = self.main.info("stats")["evicted_keys"]
        self.main.config_set("maxmemory", used - 2 * 1024 * 1024)
        try:
            deadline = time.monotonic() + 10
            while (self.main.info("stats")["evicted_keys"] == evicted
                   and time.monotonic() < deadline):
                time.sleep(0.01)
        finally:
            self.main.config_set("maxmemory", 0)
        self.assertGreater(self.main.info("stats")["evicted_keys"], evicted)
        left = sum(r.exists(*names[i:i + 500]) for i in range(0, len(names), 500))
        self.assertLess(left, 4000)
        self.assert_keys(tag, left)

    def test_flushall_async_and_flushdb(self):
        tags = [self.tag_on(0), self.tag_on(1)]
        for tag in tags:
            for i in range(50):
                self.owner(tag).set("%s%d" % (tag, i), "v")
            self.owner(tag).zadd("%sbig" % tag, {"m%d" % i: i for i in range(300)})
        self.main.flushall(asynchronous=True)
        for tag in tags:
            self.assert_keys(tag, 0)
            self.owner(tag).set("%safter" % tag, "v")
            self.assert_keys(tag, 1)
        # On a node port FLUSHDB empties that node's shard only.
        self.owner(tags[0]).flushdb(asynchronous=False)
        self.assert_keys(tags[0], 0)
        self.assert_keys(tags[1], 1)

    def test_rename_across_slots_and_threads(self):
        a = self.tag_on(0)
        b = self.tag_on(0, taken=(a,))
        c = self.tag_on(1)
        self.main.set(a + "k", "v", px=100000)
        self.main.set(b + "old", "v")
        self.main.rename(a + "k", b + "old")  # same thread, another slot, replacing a key
        self.assert_keys(a, 0)
        self.assert_keys(b, 1)
        self.main.rename(b + "old", c + "k")  # to the other thread
        self.assert_keys(b, 0)
        self.assert_keys(c, 1)
        self.assertTrue(self.main.renamenx(c + "k", a + "back"))
        self.main.copy(a + "back", c + "copy")
        self.assert_keys(a, 1)
        self.assert_keys(c, 1)

    def test_collections_emptied_are_uncounted(self):
        tag = self.tag_on(1)
        r = self.owner(tag)
        r.rpush("%slist" % tag, "a", "b", "c")
        r.sadd("%sset" % tag, "m")
        r.hset("%shash" % tag, "f", "v")
        self.assert_keys(tag, 3)
        self.assertEqual(r.lpop("%slist" % tag, 2), [b"a", b"b"])
        self.assert_keys(tag, 3)
        self.assertEqual(r.lpop("%slist" % tag), b"c")
        self.assert_keys(tag, 2)
        r.srem("%sset" % tag, "m")
        r.hdel("%shash" % tag, "f")
        self.assert_keys(tag, 0)

    def test_getkeysinslot_count_zero_and_empty_slot(self):
        tag = self.tag_on(0)
        slot = key_slot(tag)
        self.owner(tag).set(tag + "k", "v")
        self.assertEqual(self.owner(tag).execute_command("CLUSTER", "GETKEYSINSLOT", slot, 0),
                         [])
        empty = key_slot(self.tag_on(0, taken=(tag,)))
        self.assertEqual(self.owner(tag).execute_command("CLUSTER", "GETKEYSINSLOT", empty, 10),
                         [])


if __name__ == "__main__":
    main()
