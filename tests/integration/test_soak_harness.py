"""bench/soak.py survives the faults it causes: a victim process that exited on its own
(and was reaped when the next one started) is not an error when its turn to be killed
comes.

Run by ctest as `/usr/bin/python3 test_soak_harness.py <path-to-ringcache>` (the binary
is not needed).
"""

import multiprocessing as mp
import os
import sys
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "bench"))
import soak  # noqa: E402

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
        time.sleep(0.3)
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


if __name__ == "__main__":
    ringcache_server.main()
