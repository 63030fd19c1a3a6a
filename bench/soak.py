#!/usr/bin/env python3
"""Bounded soak test of ringcache: mixed load, client faults, an exact checker, RSS watch.

  python3 bench/soak.py --minutes 10 --threads 2 --clients 40 --report /tmp/soak.md

CI runs it for a minute (bench/smoke.sh). Starts build/ringcache pinned to --server-cpu
(clients go to --client-cpu when the machine has two or more cores) and runs, until the
deadline, client threads spread over several processes:

  checker    owns a disjoint key range (strings, small sorted sets, and through
             bench/soak_checks.py hashes, sets, lists and counters); every write whose
             reply it received goes into its model (value, deadline window); every reply
             is checked against the model, those of transactions (MULTI/EXEC, WATCH),
             scripts (EVAL, EVALSHA, FCALL, their _RO forms) and blocked pops woken by a
             push across shards included. Violations are recorded with details and must
             be 0.
  load       random SET/GET/EXPIRE/PEXPIRE/SET PX/ZADD/ZREM/ZRANGE/DEL/MSET/MGET, pipelined
             and not, MULTI/EXEC, big sorted sets created and deleted (lazy free).
  pub / sub  publishers and (pattern) subscribers; some subscribers stop reading a while.
  slow       normal clients that send a large pipeline and stop reading for a while.
  closer     closes its socket with replies unread or half a command sent.
  hostile    random bytes, huge bulk lengths, unbalanced arrays, inline junk, ...
  victims    separate processes doing pipelined writes, SIGKILLed by the main process.

The main process samples the server's RSS and CPU (/proc) and INFO every --sample
seconds, then SHUTDOWNs the server and checks that it exited 0.
"""

import argparse
import collections
import multiprocessing as mp
import os
import queue
import random
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import soak_checks  # noqa: E402
from vs_redis import cpu_seconds, free_port, no_persistence, rss_bytes  # noqa: E402

SLACK = 0.050          # clock slack for deadline comparisons (s)
MAX_DETAILS = 50       # violation details kept per process


# ---------------------------------------------------------------- RESP client

class ReplyError(Exception):
    pass


def encode(*args):
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        if not isinstance(a, bytes):
            a = str(a).encode()
        out.append(b"$%d\r\n%s\r\n" % (len(a), a))
    return b"".join(out)


class Conn:
    """Minimal blocking RESP2 connection. Error replies come back as ReplyError values."""

    def __init__(self, port, timeout=30.0):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = bytearray()
        self.pos = 0

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    def send(self, data):
        self.sock.sendall(data)

    def start(self, *args):
        """Sends one command; its reply is read() later."""
        self.send(encode(*args))

    def _fill(self):
        chunk = self.sock.recv(1 << 18)
        if not chunk:
            raise ConnectionError("server closed the connection")
        self.buf += chunk

    def _line(self):
        while True:
            i = self.buf.find(b"\r\n", self.pos)
            if i >= 0:
                line = bytes(self.buf[self.pos:i])
                self.pos = i + 2
                return line
            self._fill()

    def read(self):
        """One reply. On a socket timeout nothing is consumed, so read() may be retried."""
        if self.pos > 65536:
            del self.buf[:self.pos]
            self.pos = 0
        start = self.pos
        try:
            return self._read()
        except socket.timeout:
            self.pos = start
            raise

    def _read(self):
        line = self._line()
        t, rest = line[:1], line[1:]
        if t == b"+":
            return rest
        if t == b"-":
            return ReplyError(rest.decode(errors="replace"))
        if t == b":":
            return int(rest)
        if t == b"$":
            n = int(rest)
            if n < 0:
                return None
            while len(self.buf) - self.pos < n + 2:
                self._fill()
            v = bytes(self.buf[self.pos:self.pos + n])
            self.pos += n + 2
            return v
        if t == b"*":
            n = int(rest)
            if n < 0:
                return None
            return [self._read() for _ in range(n)]
        raise ConnectionError(f"bad reply type {line[:40]!r}")

    def call(self, *args):
        self.send(encode(*args))
        return self.read()

    def pipeline(self, cmds):
        self.send(b"".join(encode(*c) for c in cmds))
        return [self.read() for _ in cmds]


# ---------------------------------------------------------------- shared stats

class Stats:
    """Per-process counters; shipped to the main process as snapshots."""

    def __init__(self, name):
        self.name = name
        self.lock = threading.Lock()
        self.ops = collections.Counter()      # command kind -> replies received
        self.events = collections.Counter()   # faults, checks, errors
        self.violations = 0
        self.details = []

    def op(self, kind, n=1):
        with self.lock:
            self.ops[kind] += n

    def ev(self, kind, n=1):
        with self.lock:
            self.events[kind] += n

    def violation(self, what, **info):
        with self.lock:
            self.violations += 1
            if len(self.details) < MAX_DETAILS:
                info["what"] = what
                info["t"] = round(time.time(), 3)
                self.details.append(info)

    def snapshot(self):
        with self.lock:
            return {"name": self.name, "ops": dict(self.ops), "events": dict(self.events),
                    "violations": self.violations, "details": list(self.details)}


# ---------------------------------------------------------------- checker

class Checker:
    """Owns keys ck:<tag>:<i> (strings) and cz:<tag>:<i> (sorted sets), and through
    `typed` (bench/soak_checks.py) hashes, sets, lists and counters, which it also writes
    from transactions and scripts.

    Model per string key: None (absent for sure), or (value, lo, hi) where lo..hi brackets
    the deadline (None = no TTL): the server set it between our send and our reply, so
    deadline in [send + ttl, recv + ttl]. A key whose deadline window overlaps the time of a
    read may be present or absent; otherwise exactly one answer is right. A write whose reply
    never came makes the key unknown until its next acknowledged SET or DEL.
    """

    UNKNOWN = object()

    def __init__(self, port, tag, nkeys, nzsets, stats, stop_at, rng):
        self.port, self.tag, self.stats, self.stop_at, self.rng = port, tag, stats, stop_at, rng
        self.keys = [b"ck:%s:%d" % (tag.encode(), i) for i in range(nkeys)]
        self.zkeys = [b"cz:%s:%d" % (tag.encode(), i) for i in range(nzsets)]
        self.model = {k: None for k in self.keys}
        self.zmodel = {k: {} for k in self.zkeys}   # key -> {member: score}
        self.seq = 0
        self.typed = soak_checks.Model(tag, rng, stats, self.val)
        self.conn = Conn(port)
        self.conn2 = Conn(port)   # the other client of a blocked pop or a broken WATCH
        self.run_ops(self.typed.init_ops())

    def val(self):
        self.seq += 1
        return b"%s-%d-%s" % (self.tag.encode(), self.seq, b"x" * self.rng.randrange(0, 64))

    # --- verification of one observed string value
    def check_get(self, key, got, t0, t1, via):
        m = self.model[key]
        if m is self.UNKNOWN:
            return
        if m is None:
            if got is not None:
                self.stats.violation("resurrected", key=key.decode(), got=got[:40].decode(),
                                     via=via)
            return
        value, lo, hi = m
        if got is None:
            # Absent is fine only if the deadline may have passed by the time of the read.
            if lo is None or t1 < lo - SLACK:
                self.stats.violation("lost write", key=key.decode(), want=value[:40].decode(),
                                     deadline_lo=lo, read_at=round(t1, 3), via=via)
            else:
                self.model[key] = None
            return
        if got != value:
            self.stats.violation("wrong value", key=key.decode(), want=value[:40].decode(),
                                 got=got[:40].decode(), via=via)
            return
        if hi is not None and t0 > hi + SLACK:
            self.stats.violation("read after expiry", key=key.decode(),
                                 late_ms=round((t0 - hi) * 1000, 1), via=via)

    def may_exist(self, key, t0, t1):
        """(surely_exists, surely_absent) at any moment in [t0, t1]."""
        m = self.model[key]
        if m is self.UNKNOWN:
            return False, False
        if m is None:
            return False, True
        _, lo, hi = m
        if lo is None or t1 < lo - SLACK:
            return True, False
        if t0 > hi + SLACK:
            return False, True
        return False, False

    def step(self):
        """One pipelined batch of random operations on owned keys, checked in order."""
        rng = self.rng
        if rng.random() < 0.05:
            self.duo()
        n = rng.choice((1, 1, 2, 5, 10, 30))
        cmds, plan = [], []
        for _ in range(n):
            if rng.random() < 0.5:
                op = self.typed.random_op()
                cmds += op.cmds
                plan.append(("op", op))
                continue
            r = rng.random()
            k = rng.choice(self.keys)
            if r < 0.22:
                v = self.val()
                cmds.append((b"SET", k, v)); plan.append(("set", k, v, None))
            elif r < 0.34:
                v = self.val(); ms = rng.randint(1000, 5000)
                if rng.random() < 0.5:
                    cmds.append((b"SET", k, v, b"PX", ms))
                else:
                    ms = ms // 1000 * 1000
                    cmds.append((b"SET", k, v, b"EX", ms // 1000))
                plan.append(("set", k, v, ms))
            elif r < 0.40:
                ms = rng.randint(1000, 5000)
                if rng.random() < 0.5:
                    cmds.append((b"PEXPIRE", k, ms))
                else:
                    ms = ms // 1000 * 1000
                    cmds.append((b"EXPIRE", k, ms // 1000))
                plan.append(("expire", k, ms))
            elif r < 0.46:
                cmds.append((b"DEL", k)); plan.append(("del", k))
            elif r < 0.66:
                cmds.append((b"GET", k)); plan.append(("get", k))
            elif r < 0.70:
                ks = rng.sample(self.keys, 4)
                vs = [self.val() for _ in ks]
                cmds.append((b"MSET", *[x for kv in zip(ks, vs) for x in kv]))
                plan.append(("mset", ks, vs))
            elif r < 0.76:
                ks = rng.sample(self.keys, 5)
                cmds.append((b"MGET", *ks)); plan.append(("mget", ks))
            elif r < 0.80:
                ks = rng.sample(self.keys, 3)
                vs = [self.val() for _ in ks]
                ms = rng.randint(1000, 5000)
                cmds.append((b"MULTI",))
                cmds.append((b"SET", ks[0], vs[0]))
                cmds.append((b"SET", ks[1], vs[1], b"PX", ms))
                cmds.append((b"GET", ks[2]))
                cmds.append((b"DEL", ks[2]))
                cmds.append((b"EXEC",))
                plan.append(("multi", ks, vs, ms))
            else:
                z = rng.choice(self.zkeys)
                m = b"m%d" % rng.randrange(40)
                rz = rng.random()
                if rz < 0.35:
                    s = rng.randrange(-1000, 1000)
                    cmds.append((b"ZADD", z, s, m)); plan.append(("zadd", z, m, s))
                elif rz < 0.55:
                    cmds.append((b"ZREM", z, m)); plan.append(("zrem", z, m))
                elif rz < 0.75:
                    cmds.append((b"ZSCORE", z, m)); plan.append(("zscore", z, m))
                elif rz < 0.88:
                    cmds.append((b"ZCARD", z)); plan.append(("zcard", z))
                elif rz < 0.97:
                    cmds.append((b"ZRANGE", z, 0, -1, b"WITHSCORES")); plan.append(("zrange", z))
                else:
                    # Grow past the lazy-free threshold, then DEL: freed on the pool.
                    big = [(i, b"b%d" % i) for i in range(200)]
                    cmds.append((b"ZADD", z, *[x for sm in big for x in sm]))
                    cmds.append((b"DEL", z))
                    plan.append(("zbigdel", z))
        self.run(cmds, plan)

    def run(self, cmds, plan):
        t0 = time.time()
        # If the connection drops, every write of the batch may or may not have happened.
        try:
            replies = self.conn.pipeline(cmds)
        except (OSError, ConnectionError) as e:
            self.lost(e, [k for p in plan for k in self._written(p)])
            return
        t1 = time.time()
        self.apply(plan, replies, t0, t1)

    def run_ops(self, ops):
        self.run([c for op in ops for c in op.cmds], [("op", op) for op in ops])

    def lost(self, error, written):
        """The connection dropped with the replies of `written`'s writes unread."""
        self.stats.ev("checker_conn_error")
        for k in written:
            if k in self.model:
                self.model[k] = self.UNKNOWN
            elif k in self.zmodel:
                self.zmodel[k] = None
            else:
                self.typed.data[k] = None
        for c in (self.conn, self.conn2):
            c.close()
        self.conn, self.conn2 = Conn(self.port), Conn(self.port)
        self.stats.violation("checker connection lost", error=str(error))

    def duo(self):
        """A step of two clients (soak_checks.Model.duo); what it wrote is unknown if a
        connection drops midway."""
        try:
            self.typed.duo(self.conn, self.conn2)
        except (OSError, ConnectionError) as e:
            self.lost(e, list(self.typed.data))

    def _written(self, p):
        kind = p[0]
        if kind == "op":
            return p[1].writes
        if kind in ("set", "expire", "del"):
            return [p[1]]
        if kind in ("mset", "multi"):
            return p[1]
        if kind in ("zadd", "zrem", "zbigdel"):
            return [p[1]]
        return []

    def apply(self, plan, replies, t0, t1):
        it = iter(replies)
        st = self.stats
        for p in plan:
            kind = p[0]
            if kind == "op":
                op = p[1]
                st.op("check_" + op.name)
                op.check([next(it) for _ in op.cmds])
            elif kind == "set":
                _, k, v, ms = p
                r = next(it)
                st.op("check_set")
                if r != b"OK":
                    st.violation("SET not OK", key=k.decode(), reply=repr(r)); self.model[k] = self.UNKNOWN
                    continue
                self.model[k] = (v, None, None) if ms is None else (v, t0 + ms / 1e3, t1 + ms / 1e3)
            elif kind == "expire":
                _, k, ms = p
                r = next(it)
                st.op("check_expire")
                sure, absent = self.may_exist(k, t0, t1)
                if isinstance(r, ReplyError) or r not in (0, 1):
                    st.violation("EXPIRE bad reply", key=k.decode(), reply=repr(r)); continue
                if (sure and r != 1) or (absent and r != 0):
                    st.violation("EXPIRE wrong reply", key=k.decode(), reply=r,
                                 model=repr(self.model[k])[:80])
                if r == 1 and self.model[k] not in (None, self.UNKNOWN):
                    self.model[k] = (self.model[k][0], t0 + ms / 1e3, t1 + ms / 1e3)
                elif r == 0 and self.model[k] is not self.UNKNOWN:
                    self.model[k] = None
            elif kind == "del":
                _, k = p
                r = next(it)
                st.op("check_del")
                sure, absent = self.may_exist(k, t0, t1)
                if (sure and r != 1) or (absent and r != 0) or r not in (0, 1):
                    st.violation("DEL wrong reply", key=k.decode(), reply=repr(r),
                                 model=repr(self.model[k])[:80])
                self.model[k] = None
            elif kind == "get":
                _, k = p
                r = next(it)
                st.op("check_get")
                if isinstance(r, ReplyError):
                    st.violation("GET error", key=k.decode(), reply=str(r)); continue
                self.check_get(k, r, t0, t1, "GET")
            elif kind == "mset":
                _, ks, vs = p
                r = next(it)
                st.op("check_mset")
                if r != b"OK":
                    st.violation("MSET not OK", reply=repr(r))
                    for k in ks:
                        self.model[k] = self.UNKNOWN
                    continue
                for k, v in zip(ks, vs):
                    self.model[k] = (v, None, None)
            elif kind == "mget":
                _, ks = p
                r = next(it)
                st.op("check_mget")
                if not isinstance(r, list) or len(r) != len(ks):
                    st.violation("MGET bad reply", reply=repr(r)[:80]); continue
                for k, v in zip(ks, r):
                    self.check_get(k, v, t0, t1, "MGET")
            elif kind == "multi":
                _, ks, vs, ms = p
                rs = [next(it) for _ in range(6)]
                st.op("check_multi")
                ok = rs[0] == b"OK" and all(x == b"QUEUED" for x in rs[1:5])
                ex = rs[5]
                if not ok or not isinstance(ex, list) or len(ex) != 4:
                    st.violation("MULTI/EXEC bad reply", replies=repr(rs)[:200])
                    for k in ks:
                        self.model[k] = self.UNKNOWN
                    continue
                if ex[0] != b"OK" or ex[1] != b"OK":
                    st.violation("EXEC SET not OK", replies=repr(ex)[:200])
                # ks[2] is read after the two SETs; it may equal neither (sample is distinct).
                self.model[ks[0]] = (vs[0], None, None)
                self.model[ks[1]] = (vs[1], t0 + ms / 1e3, t1 + ms / 1e3)
                self.check_get(ks[2], ex[2], t0, t1, "EXEC GET")
                sure, absent = self.may_exist(ks[2], t0, t1)
                if (sure and ex[3] != 1) or (absent and ex[3] != 0):
                    st.violation("EXEC DEL wrong reply", key=ks[2].decode(), reply=repr(ex[3]))
                self.model[ks[2]] = None
            elif kind in ("zadd", "zrem", "zscore", "zcard", "zrange", "zbigdel"):
                self.apply_z(p, it, t0, t1)

    def apply_z(self, p, it, t0, t1):
        st = self.stats
        kind, z = p[0], p[1]
        zm = self.zmodel[z]
        if kind == "zbigdel":
            r1, r2 = next(it), next(it)
            st.op("check_zbig")
            if zm is not None:
                want = len(set(b"b%d" % i for i in range(200)) - set(zm))
                if r1 != want:
                    st.violation("big ZADD count", key=z.decode(), want=want, got=repr(r1))
            if r2 != 1:
                st.violation("DEL of big zset", key=z.decode(), reply=repr(r2))
            self.zmodel[z] = {}
            return
        r = next(it)
        st.op("check_" + kind)
        if isinstance(r, ReplyError):
            st.violation(f"{kind} error", key=z.decode(), reply=str(r))
            return
        if zm is None:  # unknown after a lost connection
            if kind == "zrange":
                self.zmodel[z] = {r[i]: int(float(r[i + 1])) for i in range(0, len(r), 2)}
            return
        if kind == "zadd":
            _, _, m, s = p
            want = 0 if m in zm else 1
            if r != want:
                st.violation("ZADD wrong reply", key=z.decode(), member=m.decode(), want=want,
                             got=r)
            zm[m] = s
        elif kind == "zrem":
            m = p[2]
            want = 1 if m in zm else 0
            if r != want:
                st.violation("ZREM wrong reply", key=z.decode(), member=m.decode(), want=want,
                             got=r)
            zm.pop(m, None)
        elif kind == "zscore":
            m = p[2]
            want = zm.get(m)
            got = None if r is None else float(r)
            if got != want:
                st.violation("ZSCORE mismatch", key=z.decode(), member=m.decode(), want=want,
                             got=got)
        elif kind == "zcard":
            if r != len(zm):
                st.violation("ZCARD mismatch", key=z.decode(), want=len(zm), got=r)
        elif kind == "zrange":
            got = {r[i]: float(r[i + 1]) for i in range(0, len(r), 2)}
            want = {m: float(s) for m, s in zm.items()}
            if got != want:
                st.violation("ZRANGE mismatch", key=z.decode(), want=len(want), got=len(got),
                             diff=repr(set(got.items()) ^ set(want.items()))[:200])
            order = sorted(want.items(), key=lambda x: (x[1], x[0]))
            if [m for m, _ in order] != [r[i] for i in range(0, len(r), 2)] and got == want:
                st.violation("ZRANGE order", key=z.decode())

    def sweep(self):
        """Read every owned key (MGET in chunks) and every sorted set; check all."""
        for i in range(0, len(self.keys), 50):
            ks = self.keys[i:i + 50]
            t0 = time.time()
            r = self.conn.call(b"MGET", *ks)
            t1 = time.time()
            for k, v in zip(ks, r):
                self.check_get(k, v, t0, t1, "sweep")
        for z in self.zkeys:
            t0 = time.time()
            self.apply_z(("zrange", z), iter([self.conn.call(b"ZRANGE", z, 0, -1, b"WITHSCORES")]),
                         t0, time.time())
            self.apply_z(("zcard", z), iter([self.conn.call(b"ZCARD", z)]), t0, time.time())
        self.run_ops(self.typed.sweep_ops())
        self.stats.ev("checker_sweeps")


def run_checker(port, idx, stats, stop_at, seed):
    rng = random.Random(seed)
    c = Checker(port, f"{os.getpid()}.{idx}", 400, 8, stats, stop_at, rng)
    last_sweep = time.time()
    while time.time() < stop_at:
        c.step()
        if time.time() - last_sweep > 15:
            c.sweep()
            last_sweep = time.time()
        if rng.random() < 0.05:
            time.sleep(0.01)
    # Final: sweep now, then once more after every TTL has run out plus active-expiry slack.
    c.sweep()
    time.sleep(6.5)
    c.sweep()
    for k, m in c.model.items():
        if m not in (None, Checker.UNKNOWN) and m[2] is not None and time.time() > m[2] + 1.0:
            c.stats.violation("model still has expired key", key=k.decode())
    c.conn.close()
    c.conn2.close()


# ---------------------------------------------------------------- general load

def run_load(port, idx, stats, stop_at, seed):
    rng = random.Random(seed)
    conn = Conn(port)
    nstr, nz = 20000, 200
    while time.time() < stop_at:
        n = rng.choice((1, 1, 1, 4, 16, 64))
        cmds, kinds = [], []
        for _ in range(n):
            r = rng.random()
            sk = b"s:%d" % rng.randrange(nstr)
            zk = b"z:%d" % rng.randrange(nz)
            if r < 0.20:
                cmds.append((b"SET", sk, b"v" * rng.randrange(1, 200))); kinds.append("SET")
            elif r < 0.28:
                cmds.append((b"SET", sk, b"t" * 32, b"PX", rng.randint(1000, 5000)))
                kinds.append("SET_PX")
            elif r < 0.50:
                cmds.append((b"GET", sk)); kinds.append("GET")
            elif r < 0.56:
                cmds.append((b"EXPIRE", sk, rng.randint(1, 5))); kinds.append("EXPIRE")
            elif r < 0.60:
                cmds.append((b"DEL", sk)); kinds.append("DEL")
            elif r < 0.64:
                ks = [b"s:%d" % rng.randrange(nstr) for _ in range(8)]
                cmds.append((b"MSET", *[x for k in ks for x in (k, b"m" * 20)])); kinds.append("MSET")
            elif r < 0.70:
                ks = [b"s:%d" % rng.randrange(nstr) for _ in range(8)]
                cmds.append((b"MGET", *ks)); kinds.append("MGET")
            elif r < 0.80:
                cmds.append((b"ZADD", zk, rng.randrange(10000), b"m%d" % rng.randrange(300)))
                kinds.append("ZADD")
            elif r < 0.85:
                cmds.append((b"ZREM", zk, b"m%d" % rng.randrange(300))); kinds.append("ZREM")
            elif r < 0.92:
                cmds.append((b"ZRANGE", zk, 0, rng.randrange(50), b"WITHSCORES")); kinds.append("ZRANGE")
            elif r < 0.95:
                cmds.append((b"MULTI",)); cmds.append((b"INCR", b"cnt:%d" % rng.randrange(100)))
                cmds.append((b"SET", sk, b"tx")); cmds.append((b"EXEC",))
                kinds += ["MULTI", "_", "_", "_"]
            elif r < 0.97:
                cmds.append((b"PEXPIRE", zk, rng.randint(1000, 5000))); kinds.append("PEXPIRE")
            else:
                # Big sorted set (lazy free): created, then DEL, UNLINK or a short TTL.
                bk = b"bz:%d:%d" % (idx, rng.randrange(4))
                members = []
                for i in range(rng.choice((500, 2000, 5000))):
                    members += [rng.random(), b"member-%d" % i]
                cmds.append((b"ZADD", bk, *members)); kinds.append("ZADD_BIG")
                how = rng.random()
                if how < 0.4:
                    cmds.append((b"DEL", bk)); kinds.append("DEL_BIG")
                elif how < 0.7:
                    cmds.append((b"UNLINK", bk)); kinds.append("DEL_BIG")
                else:
                    cmds.append((b"PEXPIRE", bk, rng.randint(500, 3000))); kinds.append("EXPIRE_BIG")
        try:
            replies = conn.pipeline(cmds)
        except (OSError, ConnectionError):
            stats.ev("load_conn_error")
            conn.close()
            time.sleep(0.1)
            conn = Conn(port)
            continue
        for k, rep in zip(kinds, replies):
            if k == "_":
                continue
            stats.op(k)
            if isinstance(rep, ReplyError):
                stats.ev("error_reply:" + str(rep)[:40])
        if rng.random() < 0.02:
            conn.close()
            conn = Conn(port)
            stats.ev("load_reconnect")
    conn.close()


# ---------------------------------------------------------------- pub/sub

def run_publisher(port, idx, stats, stop_at, seed):
    rng = random.Random(seed)
    conn = Conn(port)
    seq = 0
    while time.time() < stop_at:
        n = rng.choice((1, 10, 50))
        cmds = []
        for _ in range(n):
            seq += 1
            cmds.append((b"PUBLISH", b"ch:%d" % rng.randrange(8),
                         b"%d.%d:%d:%s" % (os.getpid(), idx, seq, b"p" * rng.randrange(0, 300))))
        conn.pipeline(cmds)
        stats.op("PUBLISH", n)
        time.sleep(rng.random() * 0.01)
    conn.close()


def run_subscriber(port, idx, stats, stop_at, seed, slow):
    rng = random.Random(seed)
    conn = Conn(port, timeout=2.0)
    if rng.random() < 0.5:
        conn.send(encode(b"SUBSCRIBE", *[b"ch:%d" % i for i in range(8)]))
    else:
        conn.send(encode(b"PSUBSCRIBE", b"ch:*"))
    last = {}
    next_pause = time.time() + rng.uniform(5, 20)
    while time.time() < stop_at:
        if slow and time.time() > next_pause:
            stats.ev("slow_subscriber_pauses")
            time.sleep(rng.uniform(3, 10))   # stop reading; the server must buffer or cope
            next_pause = time.time() + rng.uniform(10, 30)
        try:
            msg = conn.read()
        except socket.timeout:
            continue
        except (OSError, ConnectionError):
            stats.ev("subscriber_disconnected")
            return
        if not isinstance(msg, list):
            continue
        if msg[0] in (b"subscribe", b"psubscribe"):
            continue
        payload = msg[-1]
        stats.op("sub_message")
        try:
            pub, seq = payload.split(b":", 2)[:2]
            key = (pub, msg[-2])
            s = int(seq)
            if key in last and s <= last[key]:
                stats.ev("pubsub_out_of_order")
            last[key] = s
        except ValueError:
            stats.ev("pubsub_bad_payload")
    conn.close()


# ---------------------------------------------------------------- faults

def run_slow_reader(port, idx, stats, stop_at, seed):
    """Sends a big pipeline of MGETs, stops reading for a while, then reads all of it."""
    rng = random.Random(seed)
    while time.time() < stop_at:
        conn = Conn(port, timeout=60)
        n = rng.choice((2000, 5000, 10000))
        ks = [b"s:%d" % i for i in range(20)]
        payload = encode(b"MGET", *ks) * n
        sender = threading.Thread(target=conn.send, args=(payload,))
        sender.start()
        time.sleep(rng.uniform(2, 8))
        stats.ev("slow_reader_pauses")
        try:
            for _ in range(n):
                r = conn.read()
                if not isinstance(r, list) or len(r) != 20:
                    stats.violation("slow reader bad reply", reply=repr(r)[:80])
                    break
            stats.op("MGET_slow", n)
        except (OSError, ConnectionError) as e:
            stats.violation("slow reader lost connection", error=str(e))
        sender.join()
        conn.close()
        time.sleep(rng.uniform(0, 3))


def run_closer(port, idx, stats, stop_at, seed):
    """Closes sockets with replies unread, or mid-command."""
    rng = random.Random(seed)
    while time.time() < stop_at:
        try:
            conn = Conn(port)
            cmds = []
            for i in range(rng.choice((10, 100, 1000))):
                k = b"s:%d" % rng.randrange(20000)
                cmds.append(encode(b"SET", k, b"c" * 50) if i % 2 else encode(b"GET", k))
            data = b"".join(cmds)
            mode = rng.random()
            if mode < 0.4:
                conn.send(data)
                if rng.random() < 0.5:
                    conn.read()
                stats.ev("fault_close_unread_replies")
            elif mode < 0.7:
                cut = rng.randrange(1, len(data))
                conn.send(data[:cut])
                stats.ev("fault_close_half_command")
            elif mode < 0.85:
                conn.send(b"".join(encode(b"ZADD", b"z:%d" % rng.randrange(200), i, b"m%d" % i)
                                   for i in range(300)))
                conn.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\0\0\0\0\0\0\0")
                stats.ev("fault_reset_rst")
            else:
                conn.send(encode(b"MULTI") + encode(b"SET", b"s:1", b"x") + encode(b"INCR"))
                stats.ev("fault_close_in_multi")
            conn.close()
        except (OSError, ConnectionError):
            stats.ev("closer_conn_error")
        time.sleep(rng.uniform(0, 0.05))


HOSTILE = {
    "random_bytes": lambda rng: rng.randbytes(rng.randrange(1, 4096)),
    "huge_bulk_len": lambda rng: b"*2\r\n$3\r\nGET\r\n$%d\r\n" % rng.choice(
        (2**31, 2**40, 536870913, 10**18, 99999999999999999999)),
    "huge_array_len": lambda rng: b"*%d\r\n$3\r\nGET\r\n" % rng.choice((2**31, 10**12, 1 << 62)),
    "negative_len": lambda rng: b"*2\r\n$-5\r\nGET\r\n",
    "bad_len": lambda rng: rng.choice((b"*abc\r\n", b"*2\r\n$x\r\n", b"*1\r\n$3\r\nGE", b"*1\r\n+OK\r\n",
                                       b"*2\r\n*1\r\n$1\r\na\r\n")),
    "unbalanced_array": lambda rng: b"*5\r\n$3\r\nSET\r\n$1\r\nk\r\n*1\r\n$4\r\nPING\r\n",
    "inline_junk": lambda rng: rng.choice((b"\x00\x01\x02 foo bar\r\n", b"SET \"unterminated\r\n",
                                           b"GET 'a\r\n", b"\r\n\r\n\r\nPING\r\n",
                                           b"xyzzy " * 100 + b"\r\n")),
    "inline_too_long": lambda rng: b"a" * (64 * 1024 + rng.randrange(1, 100000)),
    "bulk_no_crlf": lambda rng: b"*1\r\n$4\r\nPINGXX\r\n",
    "deep_garbage_cmd": lambda rng: encode(b"SET", b"k" * 10, b"v", b"PX", b"-1") +
    encode(b"ZADD", b"s:1", b"nan", b"m") + encode(b"EXPIRE", b"s:2", b"99999999999999999999"),
}


def run_hostile(port, idx, stats, stop_at, seed):
    rng = random.Random(seed)
    kinds = list(HOSTILE)
    while time.time() < stop_at:
        kind = rng.choice(kinds)
        payload = HOSTILE[kind](rng)
        try:
            conn = Conn(port, timeout=1.0)
            if rng.random() < 0.3:
                conn.call(b"PING")
            stats.ev("bad_input:" + kind)
            conn.send(payload)
            try:
                data = conn.sock.recv(4096)
                if b"Protocol error" in data:
                    outcome = "protocol error reply"
                elif data.startswith(b"-"):
                    outcome = "error reply"
                elif not data:
                    outcome = "closed without reply"
                else:
                    outcome = "other reply"
            except socket.timeout:
                outcome = "no reply in 1 s"   # e.g. the server waits for the rest of a bulk
            except ConnectionResetError:
                outcome = "connection reset"
            stats.ev(f"bad_input_reply:{kind}:{outcome}")
            conn.close()
        except (OSError, ConnectionError):
            stats.ev("hostile_conn_error")
        time.sleep(rng.uniform(0, 0.05))


# ---------------------------------------------------------------- processes

ROLES = {"checker": run_checker, "load": run_load, "pub": run_publisher,
         "slow": run_slow_reader, "closer": run_closer, "hostile": run_hostile}


def worker_process(port, roles, stop_at, seed, out_q, client_cpu):
    if client_cpu is not None:
        os.sched_setaffinity(0, client_cpu)
    stats = Stats(f"proc{seed}")
    threads = []
    for i, role in enumerate(roles):
        s = seed * 1000 + i
        if role == "sub":
            t = threading.Thread(target=run_subscriber, args=(port, i, stats, stop_at, s, False))
        elif role == "slowsub":
            t = threading.Thread(target=run_subscriber, args=(port, i, stats, stop_at, s, True))
        else:
            t = threading.Thread(target=ROLES[role], args=(port, i, stats, stop_at, s))
        t.daemon = True
        t.start()
        threads.append((role, t))
    while any(t.is_alive() for _, t in threads):
        out_q.put(("snap", stats.snapshot()))
        for _, t in threads:
            t.join(timeout=2.0)
    out_q.put(("final", stats.snapshot()))


def kill_victim(v):
    """SIGKILLs victim `v` and reaps it; returns 1 if the signal killed it, 0 if it had
    already exited. Starting a process reaps finished children, so a victim that exited
    on its own may have no pid left: mp.Process.kill() does not signal a reaped process
    (os.kill would raise ProcessLookupError, or hit a reused pid)."""
    v.kill()
    v.join()
    return 1 if v.exitcode == -signal.SIGKILL else 0


def victim_process(port, seed):
    """Pipelined writes until SIGKILLed."""
    rng = random.Random(seed)
    conn = Conn(port)
    while True:
        cmds = [(b"SET", b"s:%d" % rng.randrange(20000), b"victim") for _ in range(200)]
        conn.send(b"".join(encode(*c) for c in cmds))
        for _ in range(rng.randrange(0, 200)):
            conn.read()


# ---------------------------------------------------------------- main

def load_scripts(port):
    """The script and the function library the checkers run (bench/soak_checks.py)."""
    c = Conn(port, timeout=10)
    try:
        lib = c.call(b"FUNCTION", b"LOAD", b"REPLACE", soak_checks.LIBRARY)
        sha = c.call(b"SCRIPT", b"LOAD", soak_checks.RUN_LUA)
    finally:
        c.close()
    if lib != b"soakcheck" or sha != soak_checks.RUN_SHA:
        sys.exit(f"loading the checkers' scripts failed: {lib!r}, {sha!r}")


def info(port):
    c = Conn(port, timeout=10)
    try:
        raw = c.call(b"INFO")
    finally:
        c.close()
    out = {}
    for line in raw.decode().splitlines():
        if ":" in line and not line.startswith("#"):
            k, v = line.split(":", 1)
            out[k] = v
    return out


def plan_roles(nclients):
    """Split --clients over roles; returns a list of roles, one per client thread."""
    share = [("checker", 0.12), ("load", 0.28), ("pub", 0.08), ("sub", 0.10), ("slowsub", 0.06),
             ("slow", 0.06), ("closer", 0.10), ("hostile", 0.10)]
    roles = []
    for role, f in share:
        roles += [role] * max(1, round(nclients * f))
    return roles


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--ringcache", default=os.path.join(root, "build", "ringcache"))
    ap.add_argument("--minutes", type=float, default=10)
    ap.add_argument("--threads", type=int, default=2, help="ringcache --threads")
    ap.add_argument("--clients", type=int, default=40, help="client threads in all")
    ap.add_argument("--procs", type=int, default=6, help="client processes")
    ap.add_argument("--victims", type=int, default=2, help="SIGKILL victims alive at a time")
    ap.add_argument("--sample", type=float, default=5.0, help="seconds between samples")
    ap.add_argument("--server-cpu", default="0")
    ap.add_argument("--client-cpu", default="1")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--roles", help="override the role mix, e.g. checker=4,load=8,hostile=2 "
                    "(roles: " + ",".join(list(ROLES) + ["sub", "slowsub"]) + ")")
    ap.add_argument("--redis", action="store_true", help="soak redis-server instead")
    ap.add_argument("--report", help="write the summary as markdown to this file")
    args = ap.parse_args()

    ncpu = os.cpu_count() or 1
    client_cpu = {int(args.client_cpu)} if ncpu >= 2 else None
    port = free_port()
    argv = ["taskset", "-c", args.server_cpu, args.ringcache, "--port", str(port),
            "--threads", str(args.threads), "--maxclients", "2000", *no_persistence()]
    if args.redis:  # the same soak against redis-server, to check the soak itself
        argv = ["taskset", "-c", args.server_cpu, "redis-server", "--port", str(port),
                "--save", "", "--appendonly", "no", "--maxclients", "2000"]
    server = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    for _ in range(200):
        try:
            Conn(port, timeout=1).call(b"PING")
            break
        except OSError:
            time.sleep(0.05)
    else:
        sys.exit("ringcache did not answer PING")
    load_scripts(port)
    # taskset execs ringcache in place, so server.pid is ringcache's pid.
    pid = server.pid
    t_start = time.time()
    stop_at = t_start + args.minutes * 60
    rss0 = rss_bytes(pid)
    cpu0 = cpu_seconds(pid)
    if client_cpu is not None:
        os.sched_setaffinity(0, client_cpu)  # this process and every client it forks

    if args.roles:  # e.g. "checker=4,load=8": exactly these client threads
        roles = [r for part in args.roles.split(",")
                 for r in [part.split("=")[0]] * int(part.split("=")[1])]
    else:
        roles = plan_roles(args.clients)
    random.Random(args.seed).shuffle(roles)
    out_q = mp.Queue()
    procs = []
    for p in range(args.procs):
        mine = roles[p::args.procs]
        pr = mp.Process(target=worker_process,
                        args=(port, mine, stop_at, args.seed * 100 + p, out_q, client_cpu))
        pr.start()
        procs.append(pr)

    rng = random.Random(args.seed)
    victims, killed = [], 0
    samples = []  # (t, rss, cpu, info subset)
    snaps, finals = {}, {}
    next_sample = time.time()
    hung = False
    while True:
        now = time.time()
        if server.poll() is not None:
            print(f"ringcache exited early with {server.returncode}", file=sys.stderr)
            for p in procs + victims:
                p.kill()
            victims = []
            break
        if now < stop_at:
            victims = [v for v in victims if v.is_alive()]
            while len(victims) < args.victims:
                v = mp.Process(target=victim_process, args=(port, rng.randrange(1 << 30)))
                v.start()
                v.kill_at = now + rng.uniform(0.2, 3.0)
                victims.append(v)
            for v in victims:
                if now > v.kill_at:
                    killed += kill_victim(v)
        if now >= next_sample:
            t_info = time.time()
            try:
                inf = info(port)
            except (OSError, ConnectionError):
                inf = {}
                hung = True
            inf["_info_ms"] = (time.time() - t_info) * 1000
            samples.append((now - t_start, rss_bytes(pid), cpu_seconds(pid), inf))
            mb = samples[-1][1] / 2**20
            print(f"[{now - t_start:6.0f}s] rss {mb:7.1f} MB  used_memory "
                  f"{int(inf.get('used_memory', 0)) / 2**20:7.1f} MB  clients "
                  f"{inf.get('connected_clients', '?'):>4s}  keys {inf.get('db0', '')}  "
                  f"ops/s {inf.get('instantaneous_ops_per_sec', '?')}", flush=True)
            next_sample += args.sample
        try:
            while True:
                kind, snap = out_q.get_nowait()
                (finals if kind == "final" else snaps)[snap["name"]] = snap
        except queue.Empty:
            pass
        if now >= stop_at and not any(p.is_alive() for p in procs) and not victims:
            break
        if now >= stop_at:
            for v in victims:
                killed += kill_victim(v)
            victims = []
            if now > stop_at + 120:
                print("client processes still running 120 s after the deadline", file=sys.stderr)
                hung = True
                for p in procs:
                    p.kill()
                break
        time.sleep(0.1)
    try:
        while True:
            kind, snap = out_q.get(timeout=0.5)
            (finals if kind == "final" else snaps)[snap["name"]] = snap
    except queue.Empty:
        pass
    elapsed = time.time() - t_start
    # Every TTL the clients set is at most 5 s, so 7 s after the last write no key with a
    # TTL may be left: active expiry must have reclaimed them without any traffic.
    if server.poll() is None:
        time.sleep(max(0.0, stop_at + 7.0 - time.time()))
    try:
        final_info = info(port)
    except (OSError, ConnectionError):
        final_info = {}
    rss_end = rss_bytes(pid) if server.poll() is None else 0
    cpu_end = cpu_seconds(pid) if server.poll() is None else 0
    exit_code = None
    if server.poll() is None:
        try:
            c = Conn(port, timeout=10)
            c.send(encode(b"SHUTDOWN"))
            c.close()
        except OSError:
            pass
        try:
            exit_code = server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            exit_code = "hung at SHUTDOWN (killed)"
    else:
        exit_code = f"died early: {server.returncode}"
    stderr_tail = server.stderr.read().decode(errors="replace")[-2000:]

    for name, s in snaps.items():
        finals.setdefault(name, s)
    report = summarize(args, elapsed, finals, samples, killed, rss0, cpu0, rss_end, cpu_end,
                       final_info, exit_code, hung, stderr_tail, argv)
    print(report)
    if args.report:
        with open(args.report, "w") as f:
            f.write(report)
    ok = (exit_code == 0 and not hung and sum(s["violations"] for s in finals.values()) == 0
          and ttl_keys_left(final_info) == 0)
    return 0 if ok else 1


def ttl_keys_left(inf):
    """Keys with a TTL that INFO keyspace still counts; -1 when INFO gave no answer."""
    for part in inf.get("db0", "keys=0,expires=0").split(","):
        if part.startswith("expires="):
            return int(part.split("=")[1])
    return -1 if not inf else 0


def summarize(args, elapsed, finals, samples, killed, rss0, cpu0, rss_end, cpu_end, final_info,
              exit_code, hung, stderr_tail, argv):
    ops, events, violations, details = collections.Counter(), collections.Counter(), 0, []
    for s in finals.values():
        ops.update(s["ops"])
        events.update(s["events"])
        violations += s["violations"]
        details += s["details"]
    L = []
    L.append(f"## Soak run: {elapsed / 60:.1f} min, ringcache --threads {args.threads}, "
             f"{args.clients} client threads in {args.procs} processes\n")
    L.append(f"Server: `{' '.join(argv)}`; load average at end "
             f"{' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs.\n")
    L.append("| result | value |\n|---|---|")
    L.append(f"| checker violations | **{violations}** |")
    L.append(f"| server exit status after SHUTDOWN | {exit_code} |")
    L.append(f"| keys with a TTL left 7 s after the last write (active expiry; must be 0) | "
             f"{ttl_keys_left(final_info)} |")
    L.append(f"| hang detected | {hung} |")
    L.append(f"| SIGKILLed client processes | {killed} |")
    L.append(f"| total ops (replies received) | {sum(ops.values())} "
             f"({sum(ops.values()) / elapsed:.0f}/s) |")
    cpu_used = (cpu_end - cpu0) if cpu_end else (samples[-1][2] - cpu0 if samples else 0)
    L.append(f"| server CPU | {cpu_used:.1f} s ({100 * cpu_used / elapsed:.0f}% of one core) |")
    for f in ("total_commands_processed", "total_connections_received", "connected_clients",
              "rejected_connections", "expired_keys", "lazyfreed_objects",
              "lazyfree_pending_objects", "used_memory", "db0"):
        L.append(f"| INFO {f} (end) | {final_info.get(f, '?')} |")
    L.append("")
    L.append("### Ops by kind (replies received)\n")
    L.append("| kind | count | per s |\n|---|---|---|")
    for k, v in sorted(ops.items(), key=lambda x: -x[1]):
        L.append(f"| {k} | {v} | {v / elapsed:.0f} |")
    L.append("")
    L.append("### Faults and events\n")
    L.append("| event | count |\n|---|---|")
    L.append(f"| SIGKILL of a client process mid-pipeline | {killed} |")
    for k, v in sorted(events.items()):
        L.append(f"| {k} | {v} |")
    L.append("")
    L.append("### Server memory and CPU over time\n")
    L.append("| t (s) | RSS MB | used_memory MB | clients | keys | CPU % (interval) | INFO ms |")
    L.append("|---|---|---|---|---|---|---|")
    prev = None
    step = max(1, len(samples) // 40)
    for i, (t, rss, cpu, inf) in enumerate(samples):
        pct = "" if prev is None else f"{100 * (cpu - prev[1]) / max(t - prev[0], 1e-9):.0f}"
        prev = (t, cpu)
        if i % step == 0 or i == len(samples) - 1:
            keys = inf.get("db0", "").split(",")[0].replace("keys=", "")
            L.append(f"| {t:.0f} | {rss / 2**20:.1f} | {int(inf.get('used_memory', 0)) / 2**20:.1f} "
                     f"| {inf.get('connected_clients', '?')} | {keys} | {pct} "
                     f"| {inf.get('_info_ms', 0):.0f} |")
    if samples:
        gaps = [b[0] - a[0] for a, b in zip(samples, samples[1:])]
        L.append("")
        L.append(f"Sampling: {len(samples)} samples every {args.sample:.0f} s planned; longest gap "
                 f"{max(gaps, default=0):.1f} s; slowest INFO round trip "
                 f"{max(s[3].get('_info_ms', 0) for s in samples):.0f} ms (a long gap with a fast "
                 f"INFO means the client side was starved of CPU, not the server).")
    if len(samples) >= 4:
        rs = [s[1] for s in samples]
        half = len(rs) // 2
        q = half // 2
        first_q = statistics.median(rs[half:half + max(1, q)])
        last_q = statistics.median(rs[-max(1, q):])
        growth = last_q - first_q
        L.append("")
        L.append(f"RSS start {rss0 / 2**20:.1f} MB, max {max(rs) / 2**20:.1f} MB, "
                 f"end {rss_end / 2**20:.1f} MB. Second half of the run: median of its first "
                 f"quarter-run {first_q / 2**20:.1f} MB, of the last quarter-run "
                 f"{last_q / 2**20:.1f} MB: growth {growth / 2**20:+.1f} MB "
                 f"({100 * growth / max(first_q, 1):+.1f}%).")
    L.append("")
    if details:
        L.append("### Violations (first ones)\n")
        for d in details[:30]:
            L.append(f"- {d}")
        L.append("")
    if stderr_tail.strip():
        L.append("### Server stderr (tail)\n\n```\n" + stderr_tail + "\n```\n")
    return "\n".join(L) + "\n"


if __name__ == "__main__":
    sys.exit(main())
