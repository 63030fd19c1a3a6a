"""Redis 7.0 behaviours byte for byte against redis-server, on 1, 2 and 3 threads:
pushes reach a client whose replies are off, no-multi commands inside MULTI, what MONITOR
shows of transactions and of a silenced monitor, CONFIG SET/GET as Redis 7.0 checks and
matches them, and what CLIENT PAUSE holds and counts.

Run by ctest as `/usr/bin/python3 test_compat_differential.py <path-to-ringcache>`.
"""

import re
import time

import ringcache_server
from differential_pair import ServersTestCase, parse_all, per_thread_count
from ringcache_server import wait_for


class CompatBase(ServersTestCase):
    def setUp(self):
        self.pairs = []

    def tearDown(self):
        for p in self.pairs:
            p.close()
        # A failed pause test must not hold the next test's commands.
        p = self.servers.pair()
        p.step("CLIENT", "UNPAUSE")
        p.close()

    def pair(self):
        p = self.servers.pair()
        self.pairs.append(p)
        return p

    def same(self, got_pair, what=""):
        want, got = got_pair
        self.assertEqual(got, want, what)
        return got

    def script(self, p, *cmds):
        for c in cmds:
            self.same(p.step(*c), "command %r" % (c,))

    @staticmethod
    def client_ids(p):
        """[redis's, ringcache's] id of p's connection."""
        return [re.search(rb":(\d+)", t).group(1) for t in p.step("CLIENT", "ID")]

    @staticmethod
    def client_list(via, ids):
        """(redis's, ringcache's) CLIENT LIST line of the connection `ids` names."""
        via.redis.send(("CLIENT", "LIST", "ID", ids[0]))
        via.rc.send(("CLIENT", "LIST", "ID", ids[1]))
        return via.read(frames=1)

    # 1. Pushes are not replies: CLIENT REPLY OFF/SKIP leave them alone.
    def test_silenced_subscriber_gets_confirmations_and_messages(self):
        for proto in ("2", "3"):
            sub, pub = self.pair(), self.pair()
            if proto == "3":
                self.same(sub.step("HELLO", "3"))
            self.same(sub.step("CLIENT", "REPLY", "OFF", frames=0))
            got = self.same(sub.step("SUBSCRIBE", "ch", "other", frames=2))
            self.assertIn(b"subscribe", got)
            self.same(sub.step("PSUBSCRIBE", "c*"))
            self.same(pub.step("PUBLISH", "ch", "hello"))
            got = self.same(sub.read(frames=2), "messages, RESP" + proto)
            self.assertIn(b"hello", got)
            # Frames as redis-server 7.0 sends them: replies only once REPLY is ON and
            # not skipped, every (un)subscribe confirmation. A frame either server sends
            # beyond these shows up at one of the following reads.
            for c, frames in ((("PING",), 0), (("UNSUBSCRIBE", "other"), 1),
                              (("UNSUBSCRIBE",), 1), (("PUNSUBSCRIBE",), 1),
                              (("UNSUBSCRIBE",), 1), (("PUNSUBSCRIBE", "x"), 1),
                              (("CLIENT", "REPLY", "ON"), 1), (("CLIENT", "REPLY", "SKIP"), 0),
                              (("SUBSCRIBE", "a"), 1), (("PING",), 1), (("UNSUBSCRIBE",), 1),
                              (("PING",), 1)):
                self.same(sub.step(*c, frames=frames), "command %r" % (c,))

    def test_silenced_listener_hears_expiry(self):
        cfg = self.pair()
        self.same(cfg.step("CONFIG", "SET", "notify-keyspace-events", "Ex"))
        try:
            sub = self.pair()
            self.same(sub.step("HELLO", "3"))
            self.same(sub.step("CLIENT", "REPLY", "OFF", frames=0))
            self.same(sub.step("SUBSCRIBE", "__keyevent@0__:expired"))
            self.same(cfg.step("SET", "gone", "v", "PX", "20"))
            got = self.same(sub.read(frames=1))
            self.assertIn(b"gone", got)
        finally:
            self.same(cfg.step("CONFIG", "SET", "notify-keyspace-events", ""))

    def test_silenced_monitor_sees_nothing(self):
        mon, other = self.pair(), self.pair()
        ids = self.client_ids(mon)
        self.same(mon.step("MONITOR"))
        self.same(mon.step("CLIENT", "REPLY", "OFF", frames=0))
        # It answers nothing: CLIENT LIST (which MONITOR does not show) says it has run.
        wait_for(lambda: all(b" cmd=client|reply " in t for t in self.client_list(other, ids)),
                 lambda: "CLIENT REPLY OFF to run: %r" % (self.client_list(other, ids),))
        self.same(other.step("SET", "a", "1"))
        self.assertEqual(self.same(mon.read(frames=0)), b"")
        # +OK, then its own line; a line of the SET, come late, would be read first.
        self.same(mon.step("CLIENT", "REPLY", "ON", frames=2))
        self.same(other.step("SET", "a", "2"))
        self.same(mon.read(frames=1))

    # 2. no-multi commands are refused inside MULTI and doom the transaction.
    def test_no_multi_commands_refused(self):
        p = self.pair()
        self.script(p, ("MULTI",), ("SET", "nm", "1"), ("SHUTDOWN",), ("SHUTDOWN", "NOSAVE"),
                    ("shutdown", "nosave", "now"), ("EXEC",), ("GET", "nm"), ("PING",),
                    ("MULTI",), ("SHUTDOWN", "BADARG"), ("DISCARD",), ("PING",))
        # Refusals count as rejected calls, as in Redis.
        want, got = [re.search(rb"cmdstat_shutdown:[^\r]*", s).group(0)
                     for s in p.step("INFO", "commandstats")]
        self.assertEqual(got, want)

    # 3. MONITOR shows the commands EXEC runs, with their arguments, then EXEC.
    def test_monitor_shows_transactions(self):
        mon, p = self.pair(), self.pair()
        self.same(mon.step("MONITOR"))
        keys = ["k%d" % i for i in range(6)]
        cmds = [("MULTI",), ("SET", keys[0], "v"), ("GET", keys[1]), ("CONFIG", "GET", "x"),
                ("INCR", keys[0]), ("MSET", keys[2], "1", keys[3], "2"), ("EXEC",),
                ("MULTI",), ("SET", keys[4], "1"), ("DISCARD",),
                ("MULTI",), ("GET", keys[0]), ("NOSUCH",), ("EXEC",), ("exec",),
                ("WATCH", keys[5]), ("SET", keys[5], "x"), ("MULTI",), ("GET", keys[5]),
                ("EXEC",), ("WATCH", keys[1]), ("MULTI",), ("SET", keys[1], "w"),
                ("MGET", keys[1], keys[2], keys[3]), ("exec",), ("PING",)]
        for c in cmds:
            self.same(p.step(*c), "command %r" % (c,))
        got = self.same(mon.read(frames=21))
        self.assertIn(b'"GET" "k1"', got)

    # 4. CONFIG SET / GET as Redis 7.0.
    CONFIG_CASES = [
        ("CONFIG", "GET", "timeout", "TIMEOUT"), ("CONFIG", "GET", "timeout", "time*"),
        ("CONFIG", "GET", "TIMEOUT", "time*"), ("CONFIG", "GET", "time*", "TIMEOUT"),
        ("CONFIG", "GET", "maxclients", "hz", "slowlog-*"),
        ("CONFIG", "GET", "zset-max-ziplist-entries"),
        ("CONFIG", "GET", "ZSET-MAX-ZIPLIST-ENTRIES", "zset-max-listpack-entries"),
        ("CONFIG", "GET", "*ziplist*"), ("CONFIG", "GET", "zset*"), ("CONFIG", "GET", "*of"),
        ("CONFIG", "GET", "slaveof"), ("CONFIG", "GET", "REPLICAOF"),
        ("CONFIG", "SET", "dir", "/tmp"), ("CONFIG", "SET", "dbfilename", "x.rdb"),
        ("CONFIG", "SET", "save", ""), ("CONFIG", "SET", "appendonly", "no"),
        ("CONFIG", "SET", "io-threads", "1"), ("CONFIG", "SET", "logfile", ""),
        ("CONFIG", "SET", "supervised", "no"), ("CONFIG", "SET", "pidfile", ""),
        ("CONFIG", "SET", "cluster-enabled", "no"), ("CONFIG", "SET", "tcp-keepalive", "300"),
        ("CONFIG", "SET", "zset-max-ziplist-entries", "abc"),
        ("CONFIG", "SET", "zset-max-ziplist-entries", "-1"),
        ("CONFIG", "SET", "zset-max-listpack-value", "abc"),
        ("CONFIG", "SET", "tcp-keepalive", "abc"), ("CONFIG", "SET", "save", "abc"),
        ("CONFIG", "SET", "appendonly", "x"), ("CONFIG", "SET", "timeout", "-1"),
        ("CONFIG", "SET", "zset-max-ziplist-entries", "100"), ("CONFIG", "GET", "zset-max-*"),
        ("CONFIG", "SET", "hash-max-ziplist-value", "1kb"), ("CONFIG", "GET", "hash-max-*"),
        ("CONFIG", "SET", "zset-max-ziplist-value", "255"), ("CONFIG", "GET", "zset-max-*"),
        ("CONFIG", "SET", "timeout", "5", "timeout", "6"),
        ("CONFIG", "SET", "timeout", "5", "TIMEOUT", "6"),
        ("CONFIG", "SET", "zset-max-ziplist-entries", "5", "zset-max-listpack-entries", "6"),
        ("CONFIG", "GET", "zset-max-*"),
        ("CONFIG", "SET", "daemonize", "yes"), ("CONFIG", "SET", "timeout", "x", "daemonize", "yes"),
        ("CONFIG", "SET", "daemonize", "yes", "nosuch", "1"),
        ("CONFIG", "SET", "nosuch", "1", "daemonize", "yes"),
        ("CONFIG", "SET", "timeout", "10", "hz", "abc"), ("CONFIG", "GET", "timeout", "hz"),
        ("CONFIG", "SET", "TIMEOUT", "abc"), ("CONFIG", "SET", "slaveof", "no one"),
        ("CONFIG", "SET", "replicaof", "no one"), ("CONFIG", "SET", "databases", "4"),
        ("CONFIG", "SET", "tcp-backlog", "4"), ("CONFIG", "SET", "timeout", "1", "timeout", "x"),
        ("CONFIG", "SET", "daemonize", "yes", "daemonize", "no"),
        ("CONFIG", "SET", "timeout", "1", "daemonize", "x", "daemonize", "x"),
        ("CONFIG", "SET", "save", "", "save", ""), ("CONFIG", "SET", "timeout", "0", "hz", "20"),
        ("CONFIG", "GET", "timeout", "hz"), ("CONFIG", "SET", "save", "100 10 60 1000"),
        ("CONFIG", "GET", "save"), ("CONFIG", "SET", "ZSET-MAX-ZIPLIST-ENTRIES", "x"),
        ("CONFIG", "SET", "timeout"), ("CONFIG", "SET", "timeout", "1", "hz"),
        ("CONFIG", "SET", "hash-max-ziplist-entries", "7"), ("CONFIG", "GET", "hash-max-*"),
        ("CONFIG", "SET", "list-max-ziplist-size", "-3"), ("CONFIG", "GET", "list-max-*"),
        ("CONFIG", "SET", "appendonly", "NO"), ("CONFIG", "GET", "appendonly"),
        ("CONFIG", "SET", "maxclients", "5000", "hz", "0"),
        ("CONFIG", "SET", "slowlog-max-len", "7", "slowlog-log-slower-than", "x"),
        ("CONFIG", "GET", "slowlog-*", "maxclients", "hz"),
        ("CONFIG", "SET", "hz", "10", "save", "", "appendonly", "no", "maxclients", "10000"),
    ]

    def test_config_set_get(self):
        for proto in ("2", "3"):
            p = self.pair()
            if proto == "3":
                self.same(p.step("HELLO", "3"))
            for c in self.CONFIG_CASES:
                want, got = p.step(*c)
                want, got = parse_all(want), parse_all(got)
                if c[1] == "GET" and proto == "2":
                    # Redis's order follows its dict; compare as maps.
                    want = [sorted(zip(r[0::2], r[1::2])) for r in want]
                    got = [sorted(zip(r[0::2], r[1::2])) for r in got]
                self.assertEqual(got, want, "RESP%s command %r" % (proto, c))

    # 5. INFO replication of a master without replicas: Redis's fields.
    def test_info_replication(self):
        p = self.pair()
        for section in (("replication",), ("cpu", "all"), ("everything",)):
            want, got = p.step("INFO", *section)
            fields = []
            for text in (want, got):
                part = text.split(b"# Replication\r\n")[1].split(b"\r\n\r\n")[0]
                fields.append(re.sub(rb"master_replid:[0-9a-f]{40}", b"master_replid:ID", part))
            self.assertEqual(fields[1], fields[0], section)

    # 6. COMMAND LIST lists subcommands and filters them; COMMAND GETKEYSANDFLAGS.
    def test_command_list_and_keys_with_flags(self):
        p = self.pair()
        names = set(parse_all(p.step("COMMAND", "LIST")[1])[0])
        self.assertIn(b"config|get", names)
        self.assertIn(b"client|list", names)
        for filt in (("PATTERN", "client*"), ("PATTERN", "*|get"), ("PATTERN", "z*store"),
                     ("ACLCAT", "pubsub"), ("ACLCAT", "admin"), ("ACLCAT", "transaction"),
                     ("ACLCAT", "nosuch"), ("MODULE", "x")):
            want, got = p.step("COMMAND", "LIST", "FILTERBY", *filt)
            want = set(parse_all(want)[0])
            # Redis 7.2's, ringcache has it; ringcache's own (docs/CLUSTER.md).
            got = set(parse_all(got)[0]) - {b"client|setinfo", b"cluster|reload"}
            # Redis has commands ringcache has not; each one ringcache lists is Redis's.
            self.assertTrue(got <= want, (filt, got - want))
            self.assertEqual(got, want & names, filt)
        for proto in ("2", "3"):
            if proto == "3":
                self.same(p.step("HELLO", "3"))
            self.script(p, ("COMMAND", "LIST", "FILTERBY", "PATTERN"),
                        ("COMMAND", "LIST", "FILTERBY", "FOO", "x"), ("COMMAND", "LIST", "x"),
                        ("COMMAND", "GETKEYSANDFLAGS", "SET", "a", "b"),
                        ("COMMAND", "GETKEYSANDFLAGS", "SET", "a", "b", "get"),
                        ("COMMAND", "GETKEYSANDFLAGS", "SET", "a", "b", "EX", "10", "GET"),
                        ("COMMAND", "GETKEYSANDFLAGS", "MSET", "a", "1", "b", "2"),
                        ("COMMAND", "GETKEYSANDFLAGS", "MSET", "a", "1", "b"),
                        ("COMMAND", "GETKEYSANDFLAGS", "ZUNIONSTORE", "d", "2", "a", "b"),
                        ("COMMAND", "GETKEYSANDFLAGS", "ZUNIONSTORE", "d", "5", "a"),
                        ("COMMAND", "GETKEYSANDFLAGS", "ZINTERCARD", "2", "a", "b", "LIMIT", "1"),
                        ("COMMAND", "GETKEYSANDFLAGS", "ZRANGESTORE", "d", "s", "0", "1"),
                        ("COMMAND", "GETKEYSANDFLAGS", "RENAME", "a", "b"),
                        ("COMMAND", "GETKEYSANDFLAGS", "GETDEL", "a"),
                        ("COMMAND", "GETKEYSANDFLAGS", "GETEX", "a"),
                        ("COMMAND", "GETKEYSANDFLAGS", "DEL", "a", "b"),
                        ("COMMAND", "GETKEYSANDFLAGS", "EXISTS", "a"),
                        ("COMMAND", "GETKEYSANDFLAGS", "ZADD", "a", "1", "m"),
                        ("COMMAND", "GETKEYSANDFLAGS", "OBJECT", "ENCODING", "k"),
                        ("COMMAND", "GETKEYSANDFLAGS", "GET"), ("COMMAND", "GETKEYSANDFLAGS"),
                        ("COMMAND", "GETKEYSANDFLAGS", "PING", "x"),
                        ("COMMAND", "GETKEYSANDFLAGS", "nosuch", "a"),
                        ("COMMAND", "GETKEYSANDFLAGS", "CLIENT", "LIST"),
                        ("COMMAND", "GETKEYSANDFLAGS", "SET"), ("COMMAND", "HELP"))

    # 7. CLIENT LIST / INFO: the query and reply buffers as Redis accounts them.
    @staticmethod
    def buffers(text):
        return [re.search(rb" %s=(\d+)" % n, text).group(1)
                for n in (b"qbuf", b"qbuf-free", b"argv-mem", b"rbs", b"rbp")]

    def test_client_buffers(self):
        # `watch` looks at a and b with CLIENT LIST; they send only what is compared.
        a, b, watch = self.pair(), self.pair(), self.pair()
        ids = [self.client_ids(a), self.client_ids(b)]

        def listed(c):
            """[redis's, ringcache's] buffers of client c (0: a, 1: b)."""
            return [self.buffers(text) for text in self.client_list(watch, ids[c])]

        # Not rbp, until a's PING: a's and b's last reply, the id, has as many digits
        # as the id.
        def shrunk():
            # Redis's cron shrinks an idle client's 16 kB reply buffer; ringcache's too.
            return all(want[3] != b"16384" and got[:4] == want[:4]
                       for want, got in (listed(0), listed(1)))
        wait_for(shrunk, lambda: "reply buffers to shrink: %r" % [listed(0), listed(1)])
        self.same(a.step("PING"))
        want, got = a.step("CLIENT", "INFO")
        self.assertEqual(self.buffers(got), self.buffers(want))
        want, got = listed(1)
        self.assertEqual(got[:4], want[:4], "b idle")

        def freed():
            # Redis frees the query buffer of a client idle for 2 s.
            want, got = listed(1)
            return want[1] == b"0" and got[:4] == want[:4]
        wait_for(freed, lambda: "b's query buffer to be freed: %r" % listed(1))

    # 8. CLIENT PAUSE: held clients count as blocked; the dataset does not change.
    def blocked(self, p):
        return [re.search(rb"blocked_clients:(\d+)", b).group(1)
                for b in p.step("INFO", "clients")]

    def wait_blocked(self, p, n):
        wait_for(lambda: self.blocked(p) == [str(n).encode()] * 2,
                 lambda: "blocked_clients %r to be %d on both; clients %r"
                 % (self.blocked(p), n, self.flags(p)))

    def flags(self, p):
        out = []
        for text in p.step("CLIENT", "LIST"):
            out.append(sorted(re.findall(rb"flags=(\S+) .* cmd=(\S+)", text)))
        return out

    def test_pause_blocks_counts_and_keeps_dataset(self):
        a, b, c, d = self.pair(), self.pair(), self.pair(), self.pair()
        self.script(a, ("FLUSHALL",), ("SET", "keep", "1"))
        self.script(d, ("MULTI",), ("SET", "{keep}y", "1"))
        expired = [re.search(rb"expired_keys:(\d+)", s).group(1)
                   for s in a.step("INFO", "stats")]
        set_at = time.monotonic()
        self.same(a.step("SET", "e", "1", "PX", "400"))
        self.same(a.step("CLIENT", "PAUSE", "6000", "WRITE"))
        paused_at = time.monotonic()
        self.assertLess(paused_at - set_at, 0.35, "too slow to pause before e expires")
        b.send("SET", "x", "1")
        c.send("PUBLISH", "ch", "m")
        d.send("EXEC")
        self.wait_blocked(a, 3)
        want, got = self.flags(a)
        self.assertEqual(got, want)
        time.sleep(max(0, set_at + 0.5 - time.monotonic()))  # e is past its deadline
        self.script(a, ("DBSIZE",), ("GET", "e"), ("EXISTS", "e"), ("TTL", "e"), ("DBSIZE",),
                    ("RANDOMKEY",), ("DBSIZE",))
        # Unordered replies.
        want, got = a.step("KEYS", "*")
        self.assertEqual(sorted(got.split(b"\r\n")), sorted(want.split(b"\r\n")))
        self.assertEqual([re.search(rb"expired_keys:(\d+)", s).group(1)
                          for s in a.step("INFO", "stats")], expired)
        # Held: no reply yet, a pause's worth of round trips after they were sent.
        self.same(b.read(frames=0))
        self.same(d.read(frames=0))
        self.assertLess(time.monotonic() - paused_at, 5, "the pause ended before the checks")
        self.same(a.step("CLIENT", "UNPAUSE"))
        self.same(b.read(frames=1))
        self.same(c.read(frames=1))
        self.same(d.read(frames=1))
        self.wait_blocked(a, 0)
        # e, past its deadline, goes once the pause is over (active expiry: DBSIZE does
        # not look at it).
        wait_for(lambda: a.step("DBSIZE") == (b":3\r\n",) * 2, "e to expire on both")
        self.script(a, ("EXISTS", "e", "x", "{keep}y"))

    def test_pause_all_and_read_only_exec(self):
        a, b = self.pair(), self.pair()
        self.script(b, ("MULTI",), ("GET", "k"))
        self.same(a.step("CLIENT", "PAUSE", "3000", "WRITE"))
        self.same(b.step("EXEC",))  # reads only: not held
        self.same(b.step("GET", "k"))
        self.same(a.step("CLIENT", "UNPAUSE"))
        paused_at = time.monotonic()
        self.same(a.step("CLIENT", "PAUSE", "300", "ALL"))
        b.send("GET", "k")
        # Held until the pause ends (the server's 300 ms start after paused_at).
        got = b.rc.read_frames(1)
        self.assertGreaterEqual(time.monotonic() - paused_at, 0.29, "answered while paused")
        self.assertEqual(got, b.redis.read_frames(1))


per_thread_count(CompatBase, "Compat", globals())

if __name__ == "__main__":
    ringcache_server.main()
