"""INFO, CLIENT LIST, SLOWLOG, MEMORY and OBJECT through redis-py 4.3's own reply parsers.

Run by ctest as `/usr/bin/python3 test_introspection_py.py <path-to-ringcache>`. The
parsers (parse_info, parse_client_list, parse_slowlog_get) are what monitoring tools
use: a field they cannot split or a number they cannot convert fails here.
"""

import socket

import redis

from ringcache_server import ServerTestCase, main, wait_for



class IntrospectionPyTest(ServerTestCase):

    def setUp(self):
        self.r = redis.Redis(port=self.server.port, decode_responses=True, socket_timeout=30)
        self.r.flushall()
        self.r.config_resetstat()

    def tearDown(self):
        self.r.close()

    def test_recent_max_buffers(self):
        """INFO's client_recent_max_input/output_buffer follow the clients' buffers: a
        command half sent holds its bytes in the query buffer, replies a client does not
        read wait in its output."""
        def clients(field):
            return self.r.info("clients")[field]
        half = socket.create_connection(("127.0.0.1", self.port))
        half.sendall(b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$300000\r\n" + b"x" * 200000)
        wait_for(lambda: clients("client_recent_max_input_buffer") >= 200000, "the input peak")
        half.sendall(b"x" * 100000 + b"\r\n")
        self.assertEqual(half.recv(5), b"+OK\r\n")
        half.close()
        deaf = socket.socket()
        deaf.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        deaf.connect(("127.0.0.1", self.port))
        deaf.sendall(b"*2\r\n$3\r\nGET\r\n$1\r\nk\r\n" * 40)
        wait_for(lambda: clients("client_recent_max_output_buffer") >= 300000, "the output peak")
        deaf.close()

    def test_info_all_parses(self):
        for i in range(30):
            self.r.set("k%d" % i, "v")
            self.r.get("k%d" % i)
        with self.assertRaises(redis.ResponseError):
            self.r.incr("k0")  # redis-py sends INCRBY k0 1
        info = self.r.info("all")
        self.assertEqual(info["redis_version"], "7.0.15")
        self.assertEqual(info["mem_allocator"], "libc")
        self.assertIsInstance(info["used_memory"], int)
        self.assertGreater(info["used_memory"], 0)
        self.assertIsInstance(info["used_cpu_user"], float)
        self.assertEqual(info["cmdstat_set"]["calls"], 30)
        self.assertEqual(info["cmdstat_get"]["calls"], 30)
        self.assertEqual(info["cmdstat_incrby"]["failed_calls"], 1)
        # redis-py 4.3 leaves a single key=value pair unsplit, as it does with Redis.
        self.assertEqual(info["errorstat_ERR"], "count=1")
        self.assertEqual(info["total_error_replies"], 1)
        self.assertEqual(info["keyspace_hits"], 30)
        self.assertEqual(info["db0"]["keys"], 30)
        self.assertIn("p99.9", info["latency_percentiles_usec_get"])
        self.assertEqual(info["cluster_enabled"], 0)
        # One section, any case.
        self.assertIn("connected_clients", self.r.info("CLIENTS"))
        self.assertNotIn("redis_version", self.r.info("clients"))
        self.assertIn("cmdstat_get", self.r.info("commandstats"))

    def test_client_list_parses(self):
        others = [redis.Redis(port=self.server.port, decode_responses=True) for _ in range(4)]
        try:
            for i, c in enumerate(others):
                c.client_setname("other%d" % i)
            clients = self.r.client_list()
            names = {c["name"] for c in clients}
            self.assertTrue({"other0", "other1", "other2", "other3"} <= names, clients)
            for c in clients:
                self.assertEqual(c["laddr"], "127.0.0.1:%d" % self.server.port)
                self.assertEqual(c["db"], "0")
                self.assertIn("cmd", c)
            me = self.r.client_info()
            self.assertEqual(me["cmd"], "client|info")
            self.assertEqual(self.r.info("clients")["connected_clients"], len(clients))
            # Kill one on whatever thread it lives on.
            victim = [c for c in clients if c["name"] == "other2"][0]
            self.assertEqual(self.r.client_kill_filter(_id=victim["id"]), 1)
            # redis-py reconnects on its own: the new connection has a new id and no name.
            self.assertTrue(others[2].ping())
            self.assertNotEqual(others[2].client_id(), int(victim["id"]))
            self.assertNotIn("other2", {c["name"] for c in self.r.client_list()})
        finally:
            for c in others:
                c.close()

    def test_slowlog_get_parses(self):
        self.r.config_set("slowlog-log-slower-than", 0)
        try:
            self.r.slowlog_reset()
            self.r.client_setname("py")
            self.r.set("key", "x" * 300)
        finally:
            self.r.config_set("slowlog-log-slower-than", 10000)
        entries = self.r.slowlog_get(10)
        # redis-py leaves SLOWLOG's command as bytes even with decode_responses.
        commands = [e["command"].decode() if isinstance(e["command"], bytes) else e["command"]
                    for e in entries]
        self.assertIn("SET key " + "x" * 128 + "... (172 more bytes)", commands)
        for e in entries:
            self.assertIsInstance(e["id"], int)
            self.assertIsInstance(e["start_time"], int)
            self.assertIsInstance(e["duration"], int)
        self.assertGreaterEqual(self.r.slowlog_len(), 2)

    def test_memory_usage_and_object(self):
        self.r.set("num", 42)
        self.r.set("str", "hello")
        self.r.set("long", "y" * 100)
        self.r.zadd("z", {"a": 1, "b": 2})
        self.r.zadd("zbig", {"m%d" % i: i for i in range(200)})
        self.assertGreater(self.r.memory_usage("long"), 100)
        self.assertIsNone(self.r.memory_usage("missing"))
        self.assertEqual(self.r.object("encoding", "num"), "int")
        self.assertEqual(self.r.object("encoding", "str"), "embstr")
        self.assertEqual(self.r.object("encoding", "long"), "raw")
        self.assertEqual(self.r.object("encoding", "z"), "listpack")
        self.assertEqual(self.r.object("encoding", "zbig"), "skiplist")
        self.assertEqual(self.r.object("idletime", "num"), 0)
        stats = self.r.memory_stats()
        self.assertEqual(stats["keys.count"], 5)


if __name__ == "__main__":
    main()
