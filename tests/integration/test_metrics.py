"""The Prometheus endpoint (--metrics-port): a real HTTP scrape of a running ringcache.

Run by ctest as `/usr/bin/python3 test_metrics.py <path-to-ringcache>`.
"""

import os
import re
import socket
import time
import urllib.error
import urllib.request

import redis

from ringcache_server import ServerTestCase, free_port, main

METRICS = re.compile(rb"Metrics on http://[^:]+:(\d+)/metrics\n")
SAMPLE = re.compile(r'^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_]+="([^"\\]|\\.)*",?)*\})? '
                    r'-?[0-9.eE+-]+(inf)?$')


class MetricsTest(ServerTestCase):
    THREADS = 2

    @classmethod
    def setUpClass(cls):
        cls.metrics_port = free_port()
        cls.EXTRA = ("--metrics-port", str(cls.metrics_port))
        super().setUpClass()

    def scrape(self):
        url = "http://127.0.0.1:%d/metrics" % self.metrics_port
        with urllib.request.urlopen(url, timeout=10) as resp:
            self.assertEqual(resp.status, 200)
            self.assertIn("text/plain", resp.headers["Content-Type"])
            return resp.read().decode()

    def samples(self, text):
        values = {}
        for line in text.splitlines():
            if line.startswith("#") or not line:
                continue
            self.assertRegex(line, SAMPLE)
            name, value = line.rsplit(" ", 1)
            values[name] = float(value)
        return values

    def test_startup_line_names_the_endpoint(self):
        self.assertEqual(int(METRICS.search(self.server.output).group(1)), self.metrics_port)

    def test_counters_follow_commands(self):
        before = self.samples(self.scrape())
        r = redis.Redis(port=self.port)
        for i in range(50):
            r.set("m%d" % i, i)
        for i in range(60):
            r.get("m%d" % i)
        after = self.samples(self.scrape())
        self.assertGreaterEqual(after["ringcache_total_commands_processed"]
                                - before["ringcache_total_commands_processed"], 110)
        self.assertGreaterEqual(after["ringcache_keyspace_hits"]
                                - before.get("ringcache_keyspace_hits", 0), 50)
        self.assertGreaterEqual(after["ringcache_keyspace_misses"]
                                - before.get("ringcache_keyspace_misses", 0), 10)
        self.assertGreaterEqual(after['ringcache_keyspace_keys{db="0"}'], 50)
        self.assertIn("ringcache_used_memory", after)  # 0 under sanitizers' allocators
        self.assertGreater(after["ringcache_used_memory_rss"], 0)
        self.assertGreaterEqual(after["ringcache_connected_clients"], 1)
        r.close()

    def test_types_and_info_labels(self):
        text = self.scrape()
        self.assertIn("# TYPE ringcache_total_commands_processed counter\n", text)
        self.assertIn("# TYPE ringcache_used_memory gauge\n", text)
        self.assertRegex(text, r'ringcache_info\{[^}]*redis_version="7\.0\.15"')

    def test_scrapes_leave_the_servers_descriptors_alone(self):
        # Each scrape wakes the workers; a wake-up once read as "accepted descriptor 0",
        # turning stdin into a client and closing it.
        for _ in range(3):
            self.scrape()
        self.assertEqual(os.readlink("/proc/%d/fd/0" % self.server.proc.pid), "/dev/null")
        clients = self.samples(self.scrape())["ringcache_connected_clients"]
        self.assertEqual(clients, 0)

    def test_other_paths_are_not_found(self):
        with self.assertRaises(urllib.error.HTTPError) as ctx:
            urllib.request.urlopen("http://127.0.0.1:%d/" % self.metrics_port, timeout=10)
        self.assertEqual(ctx.exception.code, 404)

    def test_a_silent_client_does_not_block_scrapes(self):
        # A connection that never sends a request is dropped after a bounded wait.
        idle = socket.create_connection(("127.0.0.1", self.metrics_port))
        try:
            start = time.monotonic()
            self.scrape()
            self.assertLess(time.monotonic() - start, 10)
        finally:
            idle.close()


if __name__ == "__main__":
    main()
