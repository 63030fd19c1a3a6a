"""Libraries that ship Lua, unchanged, against ringcache with 1, 2 and 3 threads:
redis-py's Lock (acquire, extend, reacquire, release, a lock owned by another token) and
Script (EVALSHA falling back to EVAL after SCRIPT FLUSH), and Debian's python3-limits
rate limiter (fixed window), whose storage runs its own scripts.

Run by ctest as `/usr/bin/python3 test_scripting_clients.py <path-to-ringcache>`.
"""

from hashlib import sha1
import threading
import time
import unittest

import redis
from redis.exceptions import LockError, LockNotOwnedError

import ringcache_server
from ringcache_server import Ringcache


class ClientsBase:
    THREADS = 1

    @classmethod
    def setUpClass(cls):
        cls.server = Ringcache(threads=cls.THREADS)
        cls.r = redis.Redis(port=cls.server.port)

    @classmethod
    def tearDownClass(cls):
        cls.r.close()
        cls.server.stop_ok()

    def test_redis_py_lock(self):
        r = self.r
        for name in ("lock:a", "lock:b", "lock:{c}", "lock:d"):
            lock = r.lock(name, timeout=5)
            self.assertTrue(lock.acquire(blocking=False))
            other = r.lock(name, timeout=5)
            self.assertFalse(other.acquire(blocking=False))
            self.assertTrue(lock.owned())
            self.assertTrue(lock.extend(5))
            self.assertGreater(r.pttl(name), 5000)
            self.assertTrue(lock.reacquire())
            lock.release()
            self.assertFalse(lock.owned())
            with self.assertRaises(LockError):
                lock.release()
            self.assertTrue(other.acquire(blocking=False))
            with self.assertRaises(LockError):
                lock.extend(1)
            # Another token's lock: its scripts answer 0 and redis-py raises.
            stolen = r.lock(name, timeout=5)
            stolen.local.token = b"not-the-owner"
            with self.assertRaises(LockNotOwnedError):
                stolen.extend(1)
            with self.assertRaises(LockNotOwnedError):
                stolen.release()
            other.release()

    def test_redis_py_lock_contended(self):
        counter = {"n": 0}

        def worker():
            c = redis.Redis(port=self.server.port)
            for _ in range(20):
                with c.lock("lock:shared", timeout=5, blocking_timeout=10, sleep=0.001):
                    v = counter["n"]
                    counter["n"] = v + 1
            c.close()

        threads = [threading.Thread(target=worker) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(counter["n"], 80)

    def test_redis_py_script(self):
        r = self.r
        incr_by = r.register_script(
            "local v = redis.call('incrby', KEYS[1], ARGV[1]) "
            "redis.call('expire', KEYS[1], 100) return v")
        self.assertEqual(incr_by(keys=["script:k"], args=[2]), 2)
        self.assertEqual(incr_by(keys=["script:k"], args=[3]), 5)
        r.script_flush()
        self.assertEqual(incr_by(keys=["script:k"], args=[1]), 6)  # NOSCRIPT, then EVAL
        self.assertEqual(r.script_exists(incr_by.sha), [True])
        self.assertLessEqual(r.ttl("script:k"), 100)
        pipe = r.pipeline()
        incr_by(keys=["script:k"], args=[1], client=pipe)
        incr_by(keys=["script:other"], args=[1], client=pipe)
        self.assertEqual(pipe.execute(), [7, 1])

    def test_evalsha_right_behind_eval_on_another_key(self):
        # Redis runs a connection's commands in order, so an EVALSHA sent right behind the
        # EVAL that cached its script finds it, whichever shards the two keys live on
        # (ioredis's pipelines resend NOSCRIPT commands exactly so).
        r = self.r
        r.script_flush()
        for transaction in (False, True):
            pipe = r.pipeline(transaction=transaction)
            scripts = []
            for i in range(24):
                body = "return {KEYS[1], %d, %d}" % (i, int(transaction))
                scripts.append(body)
                pipe.execute_command("EVAL", body, 1, "a%d" % i)
                pipe.execute_command("EVALSHA", sha1(body.encode()).hexdigest(), 1, "b%d" % i)
            got = pipe.execute(raise_on_error=False)
            want = []
            for i in range(24):
                want.append([b"a%d" % i, i, int(transaction)])
                want.append([b"b%d" % i, i, int(transaction)])
            self.assertEqual(got, want)

    def test_limits_rate_limiters(self):
        from limits import RateLimitItemPerSecond, RateLimitItemPerMinute
        from limits.storage import RedisStorage
        from limits.strategies import FixedWindowRateLimiter

        storage = RedisStorage("redis://127.0.0.1:%d" % self.server.port)
        self.assertTrue(storage.check())
        # The moving window keeps its hits in a list: it joins once lists exist.
        for strategy in (FixedWindowRateLimiter,):
            limiter = strategy(storage)
            item = RateLimitItemPerMinute(5)
            key = "user-%s" % strategy.__name__
            self.assertEqual([limiter.hit(item, key) for _ in range(7)], [True] * 5 + [False] * 2)
            self.assertFalse(limiter.test(item, key))
            stats = limiter.get_window_stats(item, key)
            self.assertEqual(stats[1], 0)
            limiter.clear(item, key)
            self.assertTrue(limiter.hit(item, key))
            second = RateLimitItemPerSecond(2)
            self.assertTrue(limiter.hit(second, key, "s"))
            self.assertTrue(limiter.hit(second, key, "s"))
            self.assertFalse(limiter.hit(second, key, "s"))


for _threads in (1, 2, 3):
    _name = "ClientsThreads%d" % _threads
    globals()[_name] = type(_name, (ClientsBase, unittest.TestCase), {"THREADS": _threads})

if __name__ == "__main__":
    ringcache_server.main()
