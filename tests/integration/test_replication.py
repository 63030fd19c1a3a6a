"""Replication (docs/REPLICATION.md): ringcache as a replica of redis-server 7.0.15 over
Redis's own protocol. A full sync (diskless and from a file) gives the master's data set,
functions included; the stream that follows gives every write (transactions, scripts,
multi-key commands across shards, TTLs) until the offsets match; the master's WAIT
counts the replica's ACKs; a killed link resumes with a partial resync; REPLICAOF,
ROLE, INFO replication and READONLY answer as a redis-server replica answers.

Run by ctest as `/usr/bin/python3 test_replication.py <path-to-ringcache> <Class>`.
"""

import time
import unittest

import redis

from differential_pair import RedisServer
from ringcache_server import Ringcache, main, wait_for
from test_aof import churn
from test_persistence import populate, snapshot_of

READONLY = "You can't write against a read only replica."


def master(extra=()):
    """redis-server starting a diskless sync without waiting for more replicas."""
    return RedisServer(extra=["--repl-diskless-sync-delay", "0", *extra])


def synced(master_client, replica_client):
    """Whether the replica applied everything the master sent."""
    want = master_client.info("replication")["master_repl_offset"]
    info = replica_client.info("replication")
    return info.get("master_link_status") == "up" and info["slave_repl_offset"] == want


def wait_synced(m, r, timeout=30):
    wait_for(lambda: synced(m, r), "the replica to catch up with its master", timeout=timeout)


class FollowRedisTest(unittest.TestCase):
    """One redis-server master; each test points a fresh ringcache at it."""

    def setUp(self):
        self.master = master()
        self.m = redis.Redis(port=self.master.port)
        self.replica = Ringcache(threads=3)
        self.r = redis.Redis(port=self.replica.port)

    def tearDown(self):
        self.replica.stop_ok()
        self.master.stop()

    def follow(self):
        self.assertTrue(self.r.replicaof("127.0.0.1", self.master.port))
        wait_synced(self.m, self.r)

    def test_full_sync_then_stream(self):
        populate(self.m)
        self.r.set("only-here", "goes at the sync")
        self.follow()
        self.assertEqual(snapshot_of(self.r), snapshot_of(self.m))
        self.assertIsNone(self.r.get("only-here"))
        churn(self.m)
        self.m.function_load("#!lua name=later\n"
                             "redis.register_function('two', function() return 2 end)")
        self.m.mset({f"many{i}": i for i in range(300)})
        wait_synced(self.m, self.r)
        self.assertEqual(snapshot_of(self.r), snapshot_of(self.m))
        self.assertEqual(self.r.info("replication")["master_replid"],
                         self.m.info("replication")["master_replid"])

    def test_sync_from_a_file(self):
        self.m.config_set("repl-diskless-sync", "no")
        populate(self.m)
        self.follow()
        self.assertEqual(snapshot_of(self.r), snapshot_of(self.m))

    def test_wait_counts_the_replica(self):
        self.follow()
        for i in range(20):
            self.m.set(f"w{i}", i)
            self.assertEqual(self.m.execute_command("WAIT", 1, 5000), 1)
        self.assertEqual(self.r.get("w19"), b"19")
        info = self.m.info("replication")
        self.assertEqual(info["connected_slaves"], 1)
        self.assertEqual(info["slave0"]["state"], "online")

    def test_lost_link_resumes_with_a_partial_resync(self):
        self.follow()
        self.m.set("before", 1)
        wait_synced(self.m, self.r)
        for round_ in range(3):
            self.m.client_kill_filter(_type="slave")
            self.m.set(f"during{round_}", round_)
            self.m.rpush("list", round_)
            wait_synced(self.m, self.r)
        stats = self.m.info("stats")
        self.assertEqual(stats["sync_full"], 1)
        self.assertGreaterEqual(stats["sync_partial_ok"], 3)
        self.assertEqual(snapshot_of(self.r), snapshot_of(self.m))

    def test_replica_refuses_writes_and_answers_role(self):
        self.follow()
        with self.assertRaisesRegex(redis.exceptions.ReadOnlyError, READONLY):
            self.r.set("k", "v")
        p = self.r.pipeline(transaction=True)
        p.set("k", "v")
        with self.assertRaisesRegex(redis.exceptions.ReadOnlyError, READONLY):
            p.execute()
        self.assertEqual(self.r.get("k"), None)
        self.r.config_set("replica-read-only", "no")
        self.assertTrue(self.r.set("k", "local"))
        self.r.config_set("replica-read-only", "yes")
        role = self.r.execute_command("ROLE")
        self.assertEqual(role[:4], [b"slave", b"127.0.0.1", self.master.port, b"connected"])
        self.assertEqual(role[4], self.m.info("replication")["master_repl_offset"])
        self.assertEqual(self.r.execute_command("REPLICAOF", "127.0.0.1", self.master.port),
                         b"OK Already connected to specified master")
        self.assertEqual(self.r.config_get("replicaof"),
                         {"replicaof": f"127.0.0.1 {self.master.port}"})
        master_id = self.m.info("replication")["master_replid"]
        self.assertTrue(self.r.replicaof("no", "one"))
        self.assertEqual(self.r.execute_command("ROLE"), [b"master", 0, []])
        info = self.r.info("replication")
        self.assertEqual(info["role"], "master")
        self.assertEqual(info["master_replid2"], master_id)
        self.assertNotEqual(info["master_replid"], master_id)
        self.assertTrue(self.r.set("k", "writable again"))
        self.assertEqual(self.r.config_get("replicaof"), {"replicaof": ""})

    def test_replica_keeps_what_the_master_sends_past_maxmemory(self):
        """replica-ignore-maxmemory yes: the replica neither evicts nor refuses its
        master's writes; once promoted it keeps its own limit again."""
        self.r.config_set("maxmemory-policy", "allkeys-lru")
        self.r.config_set("maxmemory", "1mb")
        self.follow()
        for start in range(0, 30000, 1000):
            self.m.mset({f"big{i}": "v" * 100 for i in range(start, start + 1000)})
        wait_synced(self.m, self.r)
        self.assertEqual(self.r.dbsize(), 30000)
        self.assertEqual(self.r.info("stats")["evicted_keys"], 0)
        self.r.replicaof("no", "one")
        wait_for(lambda: self.r.dbsize() < 30000, "the promoted replica to evict")
        self.assertGreater(self.r.info("stats")["evicted_keys"], 0)

    def test_another_database_on_the_master_closes_the_link(self):
        """ringcache has database 0 only: writes the master makes in another one must not
        land in it. The link goes down and stays down while the master's data is there."""
        self.follow()
        self.m.set("zero", 0)
        p = self.m.pipeline(transaction=False)
        p.execute_command("SELECT", 1)
        p.set("one", 1)
        p.execute()
        wait_for(lambda: self.r.info("replication")["master_link_status"] == "down",
                 "the link to go down")
        time.sleep(1.5)  # a retry or more: the master's snapshot holds database 1 now
        self.assertEqual(self.r.info("replication")["master_link_status"], "down")
        self.assertEqual(self.r.get("zero"), b"0")
        self.assertIsNone(self.r.get("one"))

    def test_master_password(self):
        self.m.config_set("requirepass", "secret")
        self.r.config_set("masterauth", "wrong")
        self.r.replicaof("127.0.0.1", self.master.port)
        time.sleep(1.5)
        self.assertEqual(self.r.info("replication")["master_link_status"], "down")
        self.r.config_set("masterauth", "secret")
        m = redis.Redis(port=self.master.port, password="secret")
        m.set("guarded", "yes")
        wait_synced(m, self.r)
        self.assertEqual(self.r.get("guarded"), b"yes")


class ServeReplicasTest(unittest.TestCase):
    """ringcache as the master: a redis-server replica and a ringcache replica take its
    snapshot and then its stream, the journal's one order of every shard's writes."""

    def setUp(self):
        self.master = Ringcache(threads=3)
        self.m = redis.Redis(port=self.master.port)

    def tearDown(self):
        self.master.stop_ok()

    def check(self, replica_port):
        r = redis.Redis(port=replica_port)
        populate(self.m)
        self.assertTrue(r.replicaof("127.0.0.1", self.master.port))
        wait_synced(self.m, r)
        self.assertEqual(snapshot_of(r), snapshot_of(self.m))
        churn(self.m)
        self.m.mset({f"many{i}": i for i in range(300)})
        wait_synced(self.m, r)
        self.assertEqual(snapshot_of(r), snapshot_of(self.m))
        info = self.m.info("replication")
        self.assertEqual(info["connected_slaves"], 1)
        self.assertEqual(info["slave0"]["state"], "online")
        wait_for(lambda: self.m.info("replication")["slave0"]["offset"]
                 == self.m.info("replication")["master_repl_offset"], "the replica's ACK")
        role = self.m.execute_command("ROLE")
        self.assertEqual(role[0], b"master")
        self.assertEqual(role[2][0][2], str(role[1]).encode())
        # Again from scratch: a new full sync, then the stream again.
        r.replicaof("no", "one")
        self.m.set("after", "the link")
        r.replicaof("127.0.0.1", self.master.port)
        wait_synced(self.m, r)
        self.assertEqual(r.get("after"), b"the link")
        self.assertEqual(snapshot_of(r), snapshot_of(self.m))
        r.replicaof("no", "one")

    def test_a_redis_server_replica(self):
        replica = RedisServer()
        try:
            self.check(replica.port)
        finally:
            replica.stop()

    def test_replicas_go_when_the_master_follows_another(self):
        replica = RedisServer()
        other = master()
        try:
            r = redis.Redis(port=replica.port)
            self.m.set("k", "v")
            r.replicaof("127.0.0.1", self.master.port)
            wait_synced(self.m, r)
            self.m.replicaof("127.0.0.1", other.port)
            wait_for(lambda: r.info("replication")["master_link_status"] == "down",
                     "the replica's link to go down")
            self.assertEqual(self.m.info("replication")["connected_slaves"], 0)
            wait_synced(redis.Redis(port=other.port), self.m)
            with self.assertRaisesRegex(redis.ResponseError, "only as a master"):
                self.m.execute_command("PSYNC", "?", "-1")
            r.replicaof("no", "one")
            self.m.replicaof("no", "one")
        finally:
            replica.stop()
            other.stop()

    def test_a_ringcache_replica(self):
        replica = Ringcache(threads=2)
        try:
            self.check(replica.port)
        finally:
            replica.stop_ok()


class ReplicaAnswersTest(unittest.TestCase):
    """ringcache and redis-server, both replicas of one redis-server: the same errors and
    the same shapes of ROLE and INFO replication."""

    def test_same_answers_as_a_redis_replica(self):
        m = master()
        theirs = RedisServer()
        ours = Ringcache(threads=2)
        try:
            clients = [redis.Redis(port=theirs.port), redis.Redis(port=ours.port)]
            for c in clients:
                for args in (("REPLICAOF", "127.0.0.1"), ("REPLICAOF", "127.0.0.1", "x"),
                             ("REPLICAOF", "127.0.0.1", "70000"), ("ROLE", "x")):
                    with self.assertRaises(redis.ResponseError):
                        c.execute_command(*args)
            errors = []
            for c in clients:
                try:
                    c.execute_command("REPLICAOF", "127.0.0.1", "x")
                except redis.ResponseError as e:
                    errors.append(str(e))
            self.assertEqual(errors[0], errors[1])
            self.assertEqual([c.execute_command("ROLE")[0] for c in clients], [b"master"] * 2)
            mc = redis.Redis(port=m.port)
            mc.set("k", "v")
            for c in clients:
                c.replicaof("127.0.0.1", m.port)
            for c in clients:
                wait_synced(mc, c)
            infos = [c.info("replication") for c in clients]
            self.assertEqual(set(infos[1]), set(infos[0]))
            for field in ("role", "master_host", "master_port", "master_link_status",
                          "master_sync_in_progress", "slave_repl_offset", "slave_read_only",
                          "master_replid", "master_repl_offset"):
                self.assertEqual(infos[1][field], infos[0][field], field)
            roles = [c.execute_command("ROLE") for c in clients]
            self.assertEqual(roles[1], roles[0])
            writes = []
            for c in clients:
                try:
                    c.set("x", 1)
                except redis.ResponseError as e:
                    writes.append(str(e))
            self.assertEqual(writes[0], writes[1])
            self.assertEqual(mc.info("replication")["connected_slaves"], 2)
            for c in clients:
                self.assertTrue(c.replicaof("no", "one"))
            infos = [c.info("replication") for c in clients]
            self.assertEqual(set(infos[1]), set(infos[0]))
        finally:
            ours.stop_ok()
            theirs.stop()
            m.stop()


class StartAsReplicaTest(unittest.TestCase):
    def test_replicaof_in_the_configuration(self):
        m = master()
        redis.Redis(port=m.port).set("from", "the master")
        replica = Ringcache(threads=2, extra=["--replicaof", f"127.0.0.1 {m.port}"])
        try:
            r = redis.Redis(port=replica.port)
            wait_synced(redis.Redis(port=m.port), r)
            self.assertEqual(r.get("from"), b"the master")
            self.assertEqual(r.config_get("replicaof"), {"replicaof": f"127.0.0.1 {m.port}"})
        finally:
            replica.stop_ok()
            m.stop()


if __name__ == "__main__":
    main()
