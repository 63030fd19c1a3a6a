"""Two servers driven in step, for differential tests that compare raw bytes: every
command goes to redis-server and to ringcache, and what each sent back (replies and
pushes) is compared after scrubbing what legitimately differs (times, ids, addresses).

A command may answer nothing (CLIENT REPLY OFF) or more than one frame (SUBSCRIBE a b,
messages), so replies are not counted: redis-server, which answers at once, is read
until it has been quiet for a moment, and ringcache until it has sent as many bytes (or
a deadline passes, so a missing reply shows as a difference, not a hang).
"""

import re
import socket
import subprocess
import time
import unittest

from ringcache_server import Ringcache, free_port


class RedisServer:
    def __init__(self, extra=()):
        self.port = free_port()
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--save", "", "--appendonly", "no"]
            + list(extra), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port)).close()
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=10)


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

    def read_quiet(self, quiet=0.03, limit=2.0):
        """Everything that arrives until nothing has for `quiet` seconds."""
        out = b""
        deadline = time.monotonic() + limit
        self.sock.settimeout(quiet)
        while time.monotonic() < deadline:
            try:
                chunk = self.sock.recv(65536)
            except socket.timeout:
                break
            if not chunk:
                break
            out += chunk
        return out

    def _read_until(self, done, limit):
        """Reads until `done(bytes so far)` or `limit` seconds, then what follows at
        once (so extra bytes show up as a difference too)."""
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
        return out + self.read_quiet(quiet=0.005)

    def read_frames(self, n, limit=5.0):
        """`n` complete RESP frames, or what came before `limit` seconds."""
        return self._read_until(lambda out: count_frames(out) >= n, limit)

    def read_at_least(self, n, limit=5.0):
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

    def read(self, frames=None, quiet=0.1):
        """(redis's bytes, ringcache's bytes) since the last read, scrubbed. Both are read
        for `frames` frames when the caller knows how many come; else redis-server until
        it has been quiet for `quiet` seconds and ringcache for as many bytes."""
        if frames is None:
            want = self.redis.read_quiet(quiet)
            got = self.rc.read_at_least(len(want))
        else:
            want = self.redis.read_frames(frames)
            got = self.rc.read_frames(frames)
        return scrub(want), scrub(got)

    def step(self, *args, frames=1):
        """Sends a command to both; `frames`: how many frames it answers (None: unknown,
        such as none under CLIENT REPLY OFF)."""
        self.send(*args)
        return self.read(frames)

    def close(self):
        self.redis.close()
        self.rc.close()


class Servers:
    """A redis-server and a ringcache with `threads` threads."""

    def __init__(self, threads, extra=()):
        self.redis = RedisServer(extra)
        try:
            self.rc = Ringcache(threads=threads, extra=extra)
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
