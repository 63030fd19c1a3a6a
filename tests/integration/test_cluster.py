"""The Redis Cluster protocol (docs/CLUSTER.md) with real cluster clients.

Run by ctest as `/usr/bin/python3 test_cluster.py <path-to-ringcache>`.

- OneProcessTest: one ringcache with 3 threads and cluster-enabled yes: each thread is a
  node on its own port. redis-py's RedisCluster, ioredis, redisc (Go), redis-cli -c and
  redis-benchmark --cluster find the nodes from the main port and reach each key's
  thread directly.
- ThreeProcessesTest: three ringcache processes (2 threads each) sharing one static JSON
  slot map; a reload swaps the map in without a restart.
- DisabledTest: without cluster-enabled, CLUSTER and READONLY answer as a redis-server
  without cluster support (texts checked against redis-server 7.0.15).

The reply shapes checked byte for byte here were taken from a redis-server 7.0.15 cluster
made with redis-cli --cluster create on loopback.
"""

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import unittest

import redis
from redis.cluster import RedisCluster

import ringcache_server
from ringcache_server import Ringcache, free_port, main

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "node"))
import test_node_clients  # noqa: E402  (where ctest installs the node clients)

RANGES = [(0, 5460), (5461, 10922), (10923, 16383)]  # redis-cli's split of 3 masters
REDISC = "/usr/share/gocode/src/github.com/mna/redisc"  # Debian's golang-github-mna-redisc-dev


def crc16(data):
    crc = 0
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
            crc &= 0xFFFF
    return crc


def key_slot(key):
    s = key.find("{")
    if s >= 0:
        e = key.find("}", s + 1)
        if e > s + 1:
            key = key[s + 1:e]
    return crc16(key.encode()) & 16383


def raw(port, *args):
    """The exact bytes of one reply (RESP2)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(b"*%d\r\n" % len(args) + b"".join(
            b"$%d\r\n%s\r\n" % (len(a.encode()), a.encode()) for a in args))
        # A marker no reply checked here ends with: everything before it is the reply.
        s.sendall(b"*2\r\n$4\r\nECHO\r\n$9\r\n__end__@@\r\n")
        marker = b"$9\r\n__end__@@\r\n"
        out = b""
        while not out.endswith(marker):
            chunk = s.recv(65536)
            if not chunk:
                break
            out += chunk
        return out[:-len(marker)]


def node_of(ranges_ports, slot):
    for (first, last), port in ranges_ports:
        if first <= slot <= last:
            return port
    return None


class ClusterChecks:
    """What both layouts must do; subclasses set cls.nodes [(range, port)] and cls.seed."""

    def cli(self, port, *args, cluster=False):
        argv = ["redis-cli", "-p", str(port)] + (["-c"] if cluster else []) + list(args)
        out = subprocess.run(argv, capture_output=True, text=True, timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        return out.stdout.strip()

    def test_moved_crossslot_and_transactions(self):
        (_, first_port), (_, _), (_, third_port) = self.nodes
        # "foo" hashes to 12182, the third node's.
        self.assertEqual(raw(first_port, "GET", "foo"),
                         b"-MOVED 12182 127.0.0.1:%d\r\n" % third_port)
        self.assertEqual(raw(third_port, "SET", "foo", "1"), b"+OK\r\n")
        self.assertEqual(raw(first_port, "MSET", "a", "1", "b", "2"),
                         b"-CROSSSLOT Keys in request don't hash to the same slot\r\n")
        # Movable keys count too; one slot on its node runs.
        self.assertTrue(raw(first_port, "ZUNIONSTORE", "a", "2", "b", "c").startswith(
            b"-CROSSSLOT"))
        tag_port = node_of(self.nodes, key_slot("{t}"))
        self.assertEqual(raw(tag_port, "MSET", "{t}1", "x", "{t}2", "y"), b"+OK\r\n")
        # MIGRATE's keys after KEYS are its keys, as Redis's migrateGetKeys finds them (the
        # empty key argument is not one): on another node MOVED, over two slots CROSSSLOT.
        self.assertEqual(raw(first_port, "MIGRATE", "127.0.0.1", "1", "", "0", "10", "KEYS",
                             "foo"), b"-MOVED 12182 127.0.0.1:%d\r\n" % third_port)
        self.assertTrue(raw(first_port, "MIGRATE", "127.0.0.1", "1", "", "0", "10", "AUTH",
                            "pw", "KEYS", "a", "b").startswith(b"-CROSSSLOT"))
        # Keyless commands run anywhere.
        self.assertEqual(raw(first_port, "PING"), b"+PONG\r\n")
        # A redirected command dooms a transaction, as in Redis.
        with socket.create_connection(("127.0.0.1", first_port), timeout=10) as s:
            s.sendall(b"MULTI\r\nSET foo 1\r\nEXEC\r\n")
            out = b""
            while out.count(b"\r\n") < 3:
                out += s.recv(4096)
        self.assertEqual(out, b"+OK\r\n-MOVED 12182 127.0.0.1:%d\r\n"
                              b"-EXECABORT Transaction discarded because of previous errors.\r\n"
                         % third_port)
        # A transaction's keys must share one slot even on one node: EXEC answers CROSSSLOT
        # and discards it (the GET after it runs outside MULTI and finds nothing).
        (first_range, _) = self.nodes[0]
        keys, slots = [], set()
        for i in range(1000):
            k = "x%d" % i
            s = key_slot(k)
            if first_range[0] <= s <= first_range[1] and s not in slots:
                keys.append(k)
                slots.add(s)
            if len(keys) == 2:
                break
        tag_slot = key_slot("{t}")
        if node_of(self.nodes, tag_slot) == first_port:
            tagged = b"+OK\r\n+QUEUED\r\n+QUEUED\r\n*2\r\n+OK\r\n$1\r\ny\r\n"
        else:
            moved = b"-MOVED %d 127.0.0.1:%d\r\n" % (tag_slot, node_of(self.nodes, tag_slot))
            tagged = (b"+OK\r\n" + moved + moved +
                      b"-EXECABORT Transaction discarded because of previous errors.\r\n")
        expected = (b"+OK\r\n+QUEUED\r\n+QUEUED\r\n"
                    b"-CROSSSLOT Keys in request don't hash to the same slot\r\n$-1\r\n" + tagged)
        with socket.create_connection(("127.0.0.1", first_port), timeout=10) as s:
            s.sendall(("MULTI\r\nSET %s 1\r\nSET %s 2\r\nEXEC\r\nGET %s\r\n"
                       "MULTI\r\nSET {t}1 a\r\nGET {t}2\r\nEXEC\r\n"
                       % (keys[0], keys[1], keys[0])).encode())
            out = b""
            while len(out) < len(expected):
                chunk = s.recv(4096)
                if not chunk:
                    break
                out += chunk
        self.assertEqual(out, expected)
        errors = self.cli(first_port, "INFO", "errorstats")
        self.assertIn("errorstat_MOVED:count=", errors)
        self.assertIn("errorstat_CROSSSLOT:count=", errors)

    def test_cluster_slots_shards_nodes_myid(self):
        seed = redis.Redis(port=self.seed)
        slots = seed.execute_command("CLUSTER", "SLOTS")
        got = sorted((s[0], s[1], s[2][1]) for s in slots)
        self.assertEqual(got, sorted((r[0], r[1], p) for r, p in self.nodes))
        # Raw shape of one entry: integers for start, end and port, then the id and an
        # empty map (Redis 7.0).
        first_port = self.nodes[0][1]
        body = raw(first_port, "CLUSTER", "SLOTS")
        myid = self.cli(first_port, "CLUSTER", "MYID")
        self.assertEqual(len(myid), 40)
        self.assertIn(b"*3\r\n:0\r\n:5460\r\n*4\r\n$9\r\n127.0.0.1\r\n:%d\r\n$40\r\n%s\r\n*0\r\n"
                      % (first_port, myid.encode()), body)
        lines = self.cli(first_port, "CLUSTER", "NODES").splitlines()
        self.assertEqual(len(lines), 3)
        mine = [l for l in lines if "myself" in l]
        self.assertEqual(len(mine), 1)
        fields = mine[0].split(" ")
        self.assertEqual(fields[0], myid)
        bus = first_port + 10000 if first_port + 10000 <= 65535 else 0  # as Redis derives it
        self.assertEqual(fields[1], "127.0.0.1:%d@%d" % (first_port, bus))
        self.assertEqual(fields[2], "myself,master")
        self.assertEqual(fields[3:5], ["-", "0"])
        self.assertEqual(fields[7:], ["connected", "0-5460"])
        shards = seed.execute_command("CLUSTER", "SHARDS")
        self.assertEqual(len(shards), 3)
        entry = shards[0]
        self.assertEqual(entry[0], b"slots")
        self.assertEqual(entry[2], b"nodes")
        self.assertEqual(entry[3][0][0::2], [b"id", b"port", b"ip", b"endpoint", b"role",
                                            b"replication-offset", b"health"])
        info = self.cli(first_port, "CLUSTER", "INFO")
        self.assertIn("cluster_state:ok", info)
        self.assertIn("cluster_slots_assigned:16384", info)
        self.assertIn("cluster_known_nodes:3", info)
        self.assertIn("cluster_enabled:1", self.cli(first_port, "INFO", "cluster"))
        for cmd in ("READONLY", "READWRITE", "ASKING"):
            self.assertEqual(raw(first_port, cmd), b"+OK\r\n")

    def test_keyslot_countkeysinslot_getkeysinslot(self):
        port = self.nodes[0][1]
        self.assertEqual(raw(port, "CLUSTER", "KEYSLOT", "foo"), b":12182\r\n")
        self.assertEqual(raw(port, "CLUSTER", "KEYSLOT", "{user1000}.following"),
                         raw(port, "CLUSTER", "KEYSLOT", "user1000"))
        slot = key_slot("{s}")
        owner = node_of(self.nodes, slot)
        for i in range(5):
            raw(owner, "SET", "{s}%d" % i, "v")
        self.assertEqual(raw(owner, "CLUSTER", "COUNTKEYSINSLOT", str(slot)), b":5\r\n")
        keys = redis.Redis(port=owner).execute_command("CLUSTER", "GETKEYSINSLOT", str(slot), "3")
        self.assertEqual(len(keys), 3)
        self.assertTrue(all(k.startswith(b"{s}") for k in keys))
        self.assertEqual(raw(port, "CLUSTER", "COUNTKEYSINSLOT", "16384"),
                         b"-ERR Invalid slot\r\n")
        self.assertEqual(raw(port, "CLUSTER", "COUNTKEYSINSLOT", "x"),
                         b"-ERR value is not an integer or out of range\r\n")
        self.assertEqual(raw(port, "CLUSTER", "GETKEYSINSLOT", "1", "-1"),
                         b"-ERR Invalid slot or number of keys\r\n")
        self.assertEqual(raw(port, "CLUSTER", "GETKEYSINSLOT", "1", "0"), b"*0\r\n")
        self.assertEqual(raw(port, "CLUSTER", "MYID", "x"),
                         b"-ERR wrong number of arguments for 'cluster|myid' command\r\n")
        self.assertEqual(raw(port, "CLUSTER", "FOO"),
                         b"-ERR unknown subcommand 'FOO'. Try CLUSTER HELP.\r\n")

    def test_redis_py_cluster_client(self):
        rc = RedisCluster(host="127.0.0.1", port=self.seed, decode_responses=True)
        try:
            rc.flushall()
            n = self.KEYS
            for start in range(0, n, 5000):
                pipe = rc.pipeline()
                for i in range(start, min(n, start + 5000)):
                    pipe.set("key:%d" % i, str(i))
                self.assertTrue(all(pipe.execute()))
            for start in range(0, n, 5000):
                pipe = rc.pipeline()
                for i in range(start, min(n, start + 5000)):
                    pipe.get("key:%d" % i)
                self.assertEqual(pipe.execute(), [str(i) for i in range(start, min(n, start + 5000))])
            self.assertTrue(rc.mset({"{user}a": "1", "{user}b": "2"}))
            self.assertEqual(rc.mget("{user}a", "{user}b"), ["1", "2"])
            # The client refuses a cross-slot MSET itself; a node asked directly says
            # CROSSSLOT.
            node = rc.get_node(host="127.0.0.1", port=self.nodes[0][1])
            # (redis-py strips the error code from the message.)
            with self.assertRaises(redis.ResponseError) as e:
                node.redis_connection.execute_command("MSET", "a", "1", "b", "2")
            self.assertEqual(str(e.exception), "Keys in request don't hash to the same slot")
            # Every node holds its share: about a third each.
            sizes = [redis.Redis(port=p).dbsize() for _, p in self.nodes]
            self.assertEqual(sum(sizes), n + 2)
            for s in sizes:
                self.assertGreater(s, n * 0.28)
                self.assertLess(s, n * 0.39)
        finally:
            rc.close()

    def test_redis_cli_follows_moved(self):
        first, third = self.nodes[0][1], self.nodes[2][1]
        self.assertEqual(self.cli(first, "SET", "foo", "via-cli", cluster=True), "OK")
        self.assertEqual(self.cli(third, "GET", "foo"), "via-cli")
        self.assertEqual(self.cli(first, "GET", "foo", cluster=True), "via-cli")

    def test_ioredis_cluster_client(self):
        if shutil.which("node") is None:
            self.skipTest("node is not installed (scripts/setup.sh installs it)")
        modules = os.path.join(test_node_clients.ClientsDir(), "node_modules")
        if not os.path.isdir(os.path.join(modules, "ioredis")):
            self.skipTest("ioredis is not installed (ctest's node_clients_install does it)")
        out = subprocess.run(["node", os.path.join(HERE, "node", "ioredis_cluster_test.js"),
                              str(self.seed)],
                             capture_output=True, text=True, timeout=120,
                             env=dict(os.environ, NODE_PATH=modules, NO_COLOR="1"))
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        self.assertIn("# fail 0", out.stdout)
        self.assertNotIn("# pass 0", out.stdout)

    def test_go_redisc_cluster_client(self):
        if shutil.which("go") is None or not os.path.isdir(REDISC):
            self.skipTest("go or redisc is not installed (scripts/setup.sh installs both)")
        # Go's build cache in the clone, shared by its build directories (go locks it), so
        # that only the first run compiles.
        cache = os.path.join(ringcache_server.CACHE_DIR, "go-build")
        out = subprocess.run(["go", "run", os.path.join(HERE, "go", "redisc_cluster.go"),
                              str(self.seed)],
                             capture_output=True, text=True, timeout=300,
                             env=dict(os.environ, GOPATH="/usr/share/gocode", GO111MODULE="off",
                                      GOCACHE=cache))
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        self.assertEqual(out.stdout.strip(), "ok")

    def test_redis_benchmark_cluster(self):
        out = subprocess.run(["redis-benchmark", "--cluster", "-p", str(self.seed), "-t",
                              "set,get", "-n", "3000", "-c", "6", "-q"],
                             capture_output=True, text=True, timeout=120)
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        self.assertIn("SET:", out.stdout)
        self.assertIn("GET:", out.stdout)
        self.assertNotIn("rror", out.stdout + out.stderr)


class OneProcessTest(ClusterChecks, unittest.TestCase):
    KEYS = 100000

    @classmethod
    def setUpClass(cls):
        cls.server = Ringcache(threads=3, extra=["--cluster-enabled", "yes"])
        cls.seed = cls.server.port
        slots = redis.Redis(port=cls.seed).execute_command("CLUSTER", "SLOTS")
        cls.nodes = sorted(((s[0], s[1]), s[2][1]) for s in slots)

    @classmethod
    def tearDownClass(cls):
        cls.server.stop_ok()

    def test_one_range_per_thread_and_the_main_port_serves_all(self):
        self.assertEqual([r for r, _ in self.nodes], RANGES)
        self.assertNotIn(self.seed, [p for _, p in self.nodes])
        main_port = redis.Redis(port=self.seed, decode_responses=True)
        for i in range(30):
            main_port.set("plain:%d" % i, i)
        self.assertEqual(raw(self.seed, "SET", "foo", "x"), b"+OK\r\n")
        self.assertEqual(raw(self.seed, "MSET", "a", "1", "b", "2"), b"+OK\r\n")
        # Keyspace-wide commands on a node port see that node's keys only.
        main_port.flushall()
        for i in range(60):
            main_port.set("s:%d" % i, i)
        per_node = [redis.Redis(port=p, decode_responses=True) for _, p in self.nodes]
        sizes = [n.dbsize() for n in per_node]
        self.assertEqual(sum(sizes), 60)
        for (first, last), n in zip(RANGES, per_node):
            keys = n.keys("*")
            self.assertTrue(all(first <= key_slot(k) <= last for k in keys))
            scanned = set(n.scan_iter(count=7))
            self.assertEqual(scanned, set(keys))
        self.assertEqual(main_port.dbsize(), 60)

    def test_cluster_clients_are_not_forwarded(self):
        def forwarded():
            info = redis.Redis(port=self.seed).info("stats")
            return info["forwarded_commands"]
        before = forwarded()
        rc = RedisCluster(host="127.0.0.1", port=self.seed)
        for i in range(300):
            rc.set("f:%d" % i, i)
        rc.close()
        self.assertEqual(forwarded(), before)
        # A plain client on the main port hops for keys of other threads.
        plain = redis.Redis(port=self.seed)
        for i in range(300):
            plain.get("f:%d" % i)
        self.assertGreater(forwarded(), before)

    def test_reload_needs_a_map_file(self):
        self.assertTrue(raw(self.seed, "CLUSTER", "RELOAD").startswith(b"-ERR no cluster-config"))


class ThreeProcessesTest(ClusterChecks, unittest.TestCase):
    KEYS = 30000

    @classmethod
    def write_map(cls, nodes):
        with open(cls.map_path, "w") as f:
            json.dump({"nodes": [{"ip": "127.0.0.1", "port": p, "slots": [list(r)]}
                                 for r, p in nodes]}, f)

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.map_path = os.path.join(cls.tmp.name, "slots.json")
        # Under `ctest -j` another test's server can take a port between free_port() and
        # the bind: then all three start again, on new ports.
        for attempt in range(5):
            cls.nodes = [(r, free_port()) for r in RANGES]
            cls.write_map(cls.nodes)
            cls.servers = []
            try:
                for _, p in cls.nodes:
                    cls.servers.append(Ringcache(args=[
                        "--port", str(p), "--threads", "2", "--cluster-enabled", "yes",
                        "--cluster-config-file", cls.map_path]))
                break
            except RuntimeError as e:
                for s in cls.servers:
                    s.stop()
                if "Address already in use" not in str(e) or attempt == 4:
                    raise
        cls.seed = cls.nodes[0][1]

    @classmethod
    def tearDownClass(cls):
        try:
            for s in cls.servers:
                s.stop_ok()
        finally:
            cls.tmp.cleanup()

    def test_reload_swaps_the_map(self):
        first, second, third = (p for _, p in self.nodes)
        # The third node gives up its last 100 slots: a hole.
        self.write_map([((0, 5460), first), ((5461, 10922), second), ((10923, 16283), third)])
        try:
            for port in (first, second, third):
                self.assertEqual(raw(port, "CLUSTER", "RELOAD"), b"+OK\r\n")
            hole_key = next("h%d" % i for i in range(100000) if key_slot("h%d" % i) > 16283)
            for port in (first, third):
                self.assertEqual(raw(port, "GET", hole_key), b"-CLUSTERDOWN Hash slot not served\r\n")
            self.assertIn("cluster_state:fail", self.cli(first, "CLUSTER", "INFO"))
            # A bad map is refused and the old one stays.
            with open(self.map_path, "w") as f:
                f.write('{"nodes": [')
            self.assertTrue(raw(first, "CLUSTER", "RELOAD").startswith(b"-ERR "))
            self.assertEqual(raw(first, "GET", hole_key), b"-CLUSTERDOWN Hash slot not served\r\n")
        finally:
            self.write_map(self.nodes)
            for port in (first, second, third):
                self.assertEqual(raw(port, "CLUSTER", "RELOAD"), b"+OK\r\n")
        self.assertIn("cluster_state:ok", self.cli(first, "CLUSTER", "INFO"))

    def test_a_map_without_this_node_is_refused_at_start(self):
        out = subprocess.run([ringcache_server.BINARY, "--port",
                              str(free_port()), "--cluster-enabled", "yes",
                              "--cluster-config-file", self.map_path,
                              "--save", "", "--dir", self.tmp.name],
                             capture_output=True, text=True, timeout=30)
        self.assertNotEqual(out.returncode, 0)
        self.assertIn("is not in the map", out.stdout + out.stderr)


class DisabledTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.server = Ringcache(threads=2)

    @classmethod
    def tearDownClass(cls):
        cls.server.stop_ok()

    def test_answers_as_redis_without_cluster_support(self):
        port = self.server.port
        disabled = b"-ERR This instance has cluster support disabled\r\n"
        for args in (("CLUSTER", "INFO"), ("CLUSTER", "SLOTS"), ("CLUSTER", "HELP"),
                     ("CLUSTER", "KEYSLOT", "foo"), ("CLUSTER", "NODES"), ("READONLY",),
                     ("READWRITE",), ("ASKING",), ("CLUSTER", "GETKEYSINSLOT", "1", "1")):
            self.assertEqual(raw(port, *args), disabled, args)
        self.assertEqual(raw(port, "CLUSTER", "FOO"),
                         b"-ERR unknown subcommand 'FOO'. Try CLUSTER HELP.\r\n")
        self.assertEqual(raw(port, "CLUSTER"),
                         b"-ERR wrong number of arguments for 'cluster' command\r\n")
        self.assertIn(b"cluster_enabled:0", raw(port, "INFO", "cluster"))
        self.assertEqual(raw(port, "CONFIG", "GET", "cluster-enabled"),
                         b"*2\r\n$15\r\ncluster-enabled\r\n$2\r\nno\r\n")


if __name__ == "__main__":
    main()
