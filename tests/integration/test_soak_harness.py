"""bench/soak.py itself: it survives the faults it causes (a victim process that exited
on its own, and was reaped when the next one started, is not an error when its turn to
be killed comes); its checker passes a short run against ringcache and notices a model
that is wrong; and no script in bench/ shadows a standard library module for the others.

Run by ctest as `/usr/bin/python3 test_soak_harness.py <path-to-ringcache>`.
"""

import multiprocessing as mp
import os
import random
import sys
import time
import unittest

BENCH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench")
sys.path.insert(0, BENCH)
import soak  # noqa: E402
import soak_checks  # noqa: E402

import ringcache_server  # noqa: E402


def _exit_now():
    pass


def _sleep_long():
    time.sleep(60)


class KillVictimTest(unittest.TestCase):

    def test_victim_already_exited_and_reaped(self):
        gone = mp.Process(target=_exit_now)
        gone.start()
        deadline = time.monotonic() + 10
        while gone.is_alive() and time.monotonic() < deadline:  # is_alive reaps it
            time.sleep(0.01)
        self.assertFalse(gone.is_alive())
        self.assertEqual(soak.kill_victim(gone), 0)

    def test_victim_reaped_by_a_later_start(self):
        gone = mp.Process(target=_exit_now)
        gone.start()
        # Until it has exited, leaving it unreaped (is_alive would reap it).
        os.waitid(os.P_PID, gone.pid, os.WEXITED | os.WNOWAIT)
        later = mp.Process(target=_sleep_long)
        later.start()  # mp reaps finished children here, as in the soak's loop
        try:
            self.assertEqual(soak.kill_victim(gone), 0)
        finally:
            self.assertEqual(soak.kill_victim(later), 1)

    def test_running_victim_is_killed(self):
        v = mp.Process(target=_sleep_long)
        v.start()
        self.assertEqual(soak.kill_victim(v), 1)
        self.assertFalse(v.is_alive())


class BenchModulesTest(unittest.TestCase):

    def test_no_bench_script_shadows_the_standard_library(self):
        # bench/ is first on sys.path of every script there: a bench/queue.py made
        # soak.py's `import queue` load itself.
        shadows = [f for f in os.listdir(BENCH)
                   if f.endswith(".py") and f[:-3] in sys.stdlib_module_names]
        self.assertEqual(shadows, [])


class ListModelTest(unittest.TestCase):

    def test_index_rules_are_lranges(self):
        lst = [b"a", b"b", b"c", b"d"]
        self.assertEqual(soak_checks.lrange(lst, 0, -1), lst)
        self.assertEqual(soak_checks.lrange(lst, -2, 10), [b"c", b"d"])
        self.assertEqual(soak_checks.lrange(lst, -9, 1), [b"a", b"b"])
        self.assertEqual(soak_checks.lrange(lst, 3, 1), [])
        self.assertEqual(soak_checks.lrange(lst, 5, 9), [])

    def test_pops_come_in_pop_order(self):
        lst = [b"a", b"b", b"c", b"d"]
        self.assertEqual(soak_checks.take(lst, 3, False), [b"d", b"c", b"b"])
        self.assertEqual(soak_checks.take(lst, 2, True), [b"a"])
        self.assertEqual(lst, [])


class CheckerTest(ringcache_server.ServerTestCase):
    """The checker against a real server for a few seconds: strings, sorted sets, hashes,
    sets, lists, blocked pops, transactions and scripts across both shards."""

    THREADS = 2

    def checker(self):
        stats = soak.Stats("test")
        soak.load_scripts(self.port)
        return soak.Checker(self.port, "t%d" % id(stats), 50, 2, stats, 0, random.Random(7)), stats

    def test_short_run_has_no_violations(self):
        c, stats = self.checker()
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline:
            c.step()
        c.duo()
        c.sweep()
        snap = stats.snapshot()
        self.assertEqual(snap["violations"], 0, snap["details"])
        self.assertGreater(snap["ops"].get("check_EVAL", 0) + snap["ops"].get("check_FCALL", 0), 0)
        self.assertGreater(snap["ops"].get("check_MULTI/EXEC", 0), 0)

    def test_a_wrong_model_is_a_violation(self):
        c, stats = self.checker()
        for kind, wrong in (("hash", {b"f0": b"x"}), ("set", {b"m1"}), ("list", [b"x"]),
                            ("num", 5)):
            c.typed.data[c.typed.keys(kind)[0]] = wrong
        c.sweep()
        self.assertEqual(stats.snapshot()["violations"], 4, stats.snapshot()["details"])


if __name__ == "__main__":
    ringcache_server.main()
