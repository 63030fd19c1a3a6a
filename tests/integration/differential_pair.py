"""Two servers driven in step, for differential tests that compare raw bytes: every
command goes to redis-server and to ringcache, and what each sent back (replies and
pushes) is compared after scrubbing what legitimately differs (times, ids, addresses).

Each read names how many frames it expects (none under CLIENT REPLY OFF, several for
SUBSCRIBE a b or messages) and returns as soon as both servers sent that many, with
whatever else had already arrived; a deadline makes a missing reply a difference, not a
hang. A frame too many therefore shows up at once or at the connection's next read, and
nothing waits for a server to stay quiet.
"""

import re
import shutil
import socket
import subprocess
import tempfile
import time
import unittest
import weakref

from ringcache_server import Ringcache, free_port

# redis-server acts on SIGTERM in its cron: at 100 Hz stopping takes ~10 ms, not ~100.
HZ = "100"


class RedisServer:
    """redis-server on a free port, started only when it is known to be this child that
    answers: under `ctest -j` another test's server (a ringcache, even) can take the port
    between free_port() and redis binding it, so the answer to INFO must carry our pid.
    Its output (warnings only) is kept in a file for failure messages."""

    ATTEMPTS = 5
    READY_TIMEOUT_S = 20

    def __init__(self, extra=(), binary="redis-server"):
        errors = []
        if "--dir" not in extra:
            # A directory of its own: a replica writes its master's snapshot there, and
            # a dump.rdb left in the working directory would load into the next server.
            path = tempfile.mkdtemp(prefix="redis-test-")
            weakref.finalize(self, shutil.rmtree, path, ignore_errors=True)
            extra = ["--dir", path, *extra]
        for _ in range(self.ATTEMPTS):
            self.port = free_port()
            self.log = tempfile.TemporaryFile()
            self.proc = subprocess.Popen(
                [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                 "--appendonly", "no", "--loglevel", "warning", "--hz", HZ] + list(extra),
                stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
            if self._answers():
                return
            self.stop()
            errors.append(self.output())
        raise RuntimeError("redis-server did not start on any of %d ports; its output:\n%s"
                           % (self.ATTEMPTS, "\n".join(errors)))

    def _answers(self):
        """Whether our child answers on the port; False once it has exited (the port was
        taken) or the deadline passed."""
        want = b"process_id:%d\r\n" % self.proc.pid
        deadline = time.monotonic() + self.READY_TIMEOUT_S
        while time.monotonic() < deadline and self.proc.poll() is None:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=5) as s:
                    s.sendall(encode(["INFO", "server"]))
                    reply = b""
                    while count_frames(reply) < 1:
                        chunk = s.recv(65536)
                        if not chunk:
                            break
                        reply += chunk
                if want in reply:
                    return True
            except OSError:
                pass
            time.sleep(0.005)
        return False

    def output(self):
        self.log.seek(0)
        return self.log.read().decode(errors="replace")

    def stop(self):
        """SIGTERM; returns the exit code."""
        self.proc.terminate()
        try:
            return self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait()


def encode(args):
    out = b"*%d\r\n" % len(args)
    for a in args:
        a = a.encode() if isinstance(a, str) else a
        out += b"$%d\r\n%s\r\n" % (len(a), a)
    return out


def parse(data, pos=0):
    """(value, next pos) of the RESP reply at `pos`: maps become dicts, the rest lists,
    errors ("-...") and simple strings keep their type byte."""
    end = data.index(b"\r\n", pos)
    kind, head = data[pos:pos + 1], data[pos + 1:end]
    pos = end + 2
    if kind in b"$=" and head != b"-1":
        return data[pos:pos + int(head)], pos + int(head) + 2
    if kind in b"*~%>" and head != b"-1":
        items = []
        for _ in range(int(head) * (2 if kind == b"%" else 1)):
            v, pos = parse(data, pos)
            items.append(v)
        return (dict(zip(items[0::2], items[1::2])) if kind == b"%" else items), pos
    return kind + head, pos


def count_frames(data):
    """How many complete RESP frames `data` starts with."""
    n, pos = 0, 0
    while pos < len(data):
        try:
            _, pos = parse(data, pos)
        except (ValueError, IndexError):
            break
        if pos > len(data):
            break
        n += 1
    return n


def parse_all(data):
    out, pos = [], 0
    while pos < len(data):
        v, pos = parse(data, pos)
        out.append(v)
    return out


_SCRUBS = [
    # MONITOR lines: the time and the client's address.
    (re.compile(rb"\+\d+\.\d+ \[0 [^\]]*\]"), b"+TIME [0 ADDR]"),
    # HELLO's connection id.
    (re.compile(rb"\$2\r\nid\r\n:\d+\r\n"), b"$2\r\nid\r\n:ID\r\n"),
]


def scrub(data):
    for pattern, repl in _SCRUBS:
        data = pattern.sub(repl, data)
    return data


class Conn:
    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def send(self, args):
        self.sock.sendall(encode(args))

    def pending(self):
        """What has arrived and not been read yet, without waiting for more."""
        out = b""
        self.sock.setblocking(False)
        try:
            while chunk := self.sock.recv(65536):
                out += chunk
        except BlockingIOError:
            pass
        finally:
            self.sock.setblocking(True)
        return out

    def _read_until(self, done, limit):
        """Reads until `done(bytes so far)` or `limit` seconds, then whatever else has
        arrived (so extra bytes show up as a difference too)."""
        out = b""
        deadline = time.monotonic() + limit
        while not done(out):
            left = deadline - time.monotonic()
            if left <= 0:
                return out
            self.sock.settimeout(left)
            try:
                chunk = self.sock.recv(65536)
            except socket.timeout:
                return out
            if not chunk:
                return out
            out += chunk
        return out + self.pending()

    def read_frames(self, n, limit=10.0):
        """`n` complete RESP frames (0: only what is there now), or what came before
        `limit` seconds."""
        return self._read_until(lambda out: count_frames(out) >= n, limit)

    def read_at_least(self, n, limit=10.0):
        """At least `n` bytes, or what came before `limit` seconds."""
        return self._read_until(lambda out: len(out) >= n, limit)

    def close(self):
        self.sock.close()


class Pair:
    """One client of each server; `step` sends a command to both."""

    def __init__(self, redis_port, rc_port):
        self.redis = Conn(redis_port)
        self.rc = Conn(rc_port)

    def send(self, *args):
        self.redis.send(args)
        self.rc.send(args)

    def read(self, frames):
        """(redis's bytes, ringcache's bytes) since the last read, scrubbed: `frames`
        frames from each, and whatever else had arrived."""
        want = self.redis.read_frames(frames)
        got = self.rc.read_frames(frames)
        return scrub(want), scrub(got)

    def step(self, *args, frames=1):
        """Sends a command to both; `frames`: how many frames it answers (0 under CLIENT
        REPLY OFF, say)."""
        self.send(*args)
        return self.read(frames)

    def close(self):
        self.redis.close()
        self.rc.close()


class Servers:
    """A redis-server and a ringcache with `threads` threads, configured alike: ringcache
    gets the reference's --hz too, which CONFIG GET and INFO show."""

    def __init__(self, threads, extra=()):
        self.redis = RedisServer(extra)
        try:
            self.rc = Ringcache(threads=threads, extra=["--hz", HZ] + list(extra))
        except Exception:
            self.redis.stop()
            raise

    def pair(self):
        return Pair(self.redis.port, self.rc.port)

    def stop(self):
        self.redis.stop()
        self.rc.stop_ok()


class ServersTestCase:
    """A mixin: one Servers with THREADS threads per test class."""

    THREADS = 1

    @classmethod
    def setUpClass(cls):
        cls.servers = Servers(cls.THREADS)

    @classmethod
    def tearDownClass(cls):
        cls.servers.stop()


class StepChecks:
    """A mixin for tests that drive a Pair `self.p` (or another) and want the same reply
    from both servers at every step."""

    def same(self, got_pair, what=""):
        want, got = got_pair
        self.assertEqual(got, want, what)
        return got

    def run_all(self, cases, p=None):
        p = p or self.p
        for c in cases:
            self.same(p.step(*c), "command %r" % (c,))


def per_thread_count(base, prefix, namespace):
    """Defines <prefix>Threads1..3 in `namespace`: `base` run against ringcache with 1, 2
    and 3 threads."""
    for threads in (1, 2, 3):
        name = "%sThreads%d" % (prefix, threads)
        namespace[name] = type(name, (base, unittest.TestCase),
                               {"THREADS": threads, "__module__": namespace["__name__"]})
