"""The ringcache binary as a child process, for the Python integration tests.

ctest runs each test class as `python3 test_x.py <path-to-ringcache> <Class>`; `main()`
takes the path from argv. ServerTestCase starts one server per test class and fails the
class if the server does not exit 0 on SIGTERM.
"""

import os
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest
import weakref

BINARY = None  # set by main()
# Gitignored, in the clone: what the build directories of one clone share (clients, caches).
CACHE_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), ".cache")
READY = re.compile(rb"Ready to accept connections tcp port=(\d+)\n")


def free_port():
    """A TCP port nobody listens on right now (for servers that cannot take port 0)."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wait_for(probe, what, timeout=10.0, interval=0.01):
    """Calls probe() until it returns something true, and returns that; after `timeout`
    seconds fails with `what` (or what() if it is a function, say to describe the state
    then). The timeout is generous: sanitizer builds on a loaded machine are slow, and a
    passing run returns as soon as the condition holds."""
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError("timed out after %.0f s waiting for %s"
                                 % (timeout, what() if callable(what) else what))
        time.sleep(interval)


class Ringcache:
    """The server as a child process; stdout and stderr are kept for failure messages.

    `args` replace the default `--port 0 --threads N` when given (a config file first,
    say); the port is read from the ready line either way. Then come `--save ""` (no
    snapshots), `--enable-debug-command local` (tests ask DEBUG where keys live) and
    `--dir` a fresh temporary directory, removed at stop() (no stray dump.rdb is loaded,
    none is left behind), each unless `args` or `extra` names it (a test about
    persistence), then `extra`.
    """

    def __init__(self, binary=None, threads=3, extra=(), args=None):
        argv = [binary or BINARY]
        argv += list(args) if args is not None else ["--port", "0", "--threads", str(threads)]
        named = set(argv) | set(extra)
        if "--save" not in named:
            argv += ["--save", ""]
        if "--enable-debug-command" not in named:
            argv += ["--enable-debug-command", "local"]
        self.remove_dir = lambda: None
        if "--dir" not in named:
            path = tempfile.mkdtemp(prefix="ringcache-test-")
            # Also at exit, for a server that was never stopped.
            self.remove_dir = weakref.finalize(self, shutil.rmtree, path, ignore_errors=True)
            argv += ["--dir", path]
        argv += list(extra)
        # ctest runs these tests on each engine, naming it in RINGCACHE_IO_ENGINE.
        engine = os.environ.get("RINGCACHE_IO_ENGINE")
        if engine:
            argv += ["--io-engine", engine]
        self.proc = subprocess.Popen(
            argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        self.output = b""
        deadline = time.monotonic() + 10
        while True:
            match = READY.search(self.output)
            if match:
                self.port = int(match.group(1))
                if engine and b" io=%s " % engine.encode() not in self.output:
                    self.stop()
                    # A host without io_uring: the server fell back to epoll, which the
                    # other run tests already. Skipped, so it shows (and fails in CI).
                    if engine == "io_uring" and b" io=epoll " in self.output:
                        raise unittest.SkipTest("no io_uring on this host: the server runs epoll")
                    raise RuntimeError("RINGCACHE_IO_ENGINE=%s but ringcache runs another "
                                       "engine; output:\n%s"
                                       % (engine, self.output.decode(errors="replace")))
                return
            left = deadline - time.monotonic()
            ready, _, _ = select.select([self.proc.stdout], [], [], max(left, 0))
            chunk = os.read(self.proc.stdout.fileno(), 4096) if ready else b""
            if not chunk:
                self.proc.kill()
                self.proc.wait()
                self.remove_dir()
                raise RuntimeError("ringcache printed no ready line; output:\n"
                                   + self.output.decode(errors="replace"))
            self.output += chunk

    def stop(self):
        """SIGTERM; returns the exit code (None if it had to be killed)."""
        self.proc.send_signal(signal.SIGTERM)
        try:
            code = self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            code = None
        self.output += self.proc.stdout.read()
        self.proc.stdout.close()
        self.remove_dir()
        return code

    def stop_ok(self):
        """stop(), raising with the server's output unless it exited 0."""
        code = self.stop()
        if code != 0:
            raise AssertionError("ringcache did not exit 0 on SIGTERM (code %r); output:\n%s"
                                 % (code, self.output.decode(errors="replace")))


class ServerTestCase(unittest.TestCase):
    """One ringcache per test class: cls.server, cls.port."""

    THREADS = 3
    EXTRA = ()

    @classmethod
    def setUpClass(cls):
        cls.server = Ringcache(threads=cls.THREADS, extra=cls.EXTRA)
        cls.port = cls.server.port

    @classmethod
    def tearDownClass(cls):
        cls.server.stop_ok()


# ctest counts an entry that exits with this as skipped (SKIP_RETURN_CODE in
# tests/CMakeLists.txt), where unittest's own exit code would report it passed.
SKIPPED_EXIT_CODE = 77


def main():
    """Entry point of every test module: `python3 test_x.py <path-to-ringcache> [Class ...]`
    (ctest names one class per entry). Exits 1 on a failure, SKIPPED_EXIT_CODE when a test
    was skipped, which counts as a failure under RINGCACHE_CI=1 (CI installs every client
    a test could skip for)."""
    global BINARY
    if len(sys.argv) < 2:
        sys.exit("usage: %s <path-to-ringcache> [Class ...]" % os.path.basename(sys.argv[0]))
    BINARY = sys.argv.pop(1)
    # CI runs these tests against a sanitizer build's server too (server_process.h).
    BINARY = os.environ.get("RINGCACHE_SERVER") or BINARY
    result = unittest.main(verbosity=2, exit=False).result
    if not result.wasSuccessful() or result.testsRun == 0:
        sys.exit(1)
    if result.skipped:
        if os.environ.get("RINGCACHE_CI") == "1":
            print("FAIL: RINGCACHE_CI=1 and %d test(s) skipped: %s" % (
                len(result.skipped), "; ".join("%s: %s" % (t.id(), why)
                                              for t, why in result.skipped)), flush=True)
            sys.exit(1)
        sys.exit(SKIPPED_EXIT_CODE)
