#!/usr/bin/env python3
"""Cache-aside under maxmemory: ringcache vs redis-server (allkeys-lru), same run, same trace.

The load is what an app server does in front of a database: GET a key; on a miss, SET it.
Keys are 12 bytes ("k:" and 10 digits), values 32 bytes, 300 bytes, or mixed (each key's
size fixed by its id: one in four is 300 bytes, the rest 32). Traces, all seeded and
identical for both servers:
  zipf   Zipf(--alpha) over --universe keys;
  scan   the same, with one request in six from a sequential scan of keys read once;
  shift  the same, with the hot set moving to other keys five times per run.
Each server starts empty with the same --maxmemory and policy, runs --warmup requests
(several cache fills), then CONFIG RESETSTAT and --requests measured ones. Reported:
hit ratio from INFO keyspace_hits/misses, keys resident (DBSIZE), RSS and used_memory,
evicted keys, and client-side ops/s (one Python client pipelining --batch GETs, then the
SETs of the misses; the same client for both, so ops/s compares servers only roughly).
With --halve, ringcache also gets CONFIG SET maxmemory to half under the same load; the
script reports how long used_memory takes to get under it and the OOM replies seen.

  bench/eviction.py --ringcache build/ringcache [--maxmemory 64mb] [--values 32,300,mixed]
                    [--traces zipf,scan,shift] [--threads 2]
"""

import argparse
import math
import os
import random
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from vs_redis import no_persistence  # noqa: E402


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_bytes(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


class Conn:
    """A minimal pipelining RESP client (redis-py is too slow to load a server)."""

    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""
        self.pos = 0

    @staticmethod
    def encode(*args):
        out = [b"*%d\r\n" % len(args)]
        for a in args:
            if isinstance(a, str):
                a = a.encode()
            out.append(b"$%d\r\n%s\r\n" % (len(a), a))
        return b"".join(out)

    def _line(self):
        while True:
            end = self.buf.find(b"\r\n", self.pos)
            if end >= 0:
                line = self.buf[self.pos:end]
                self.pos = end + 2
                return line
            self._fill()

    def _fill(self):
        chunk = self.sock.recv(1 << 20)
        if not chunk:
            raise ConnectionError("server closed the connection")
        self.buf = self.buf[self.pos:] + chunk
        self.pos = 0

    def reply(self):
        line = self._line()
        kind = line[:1]
        if kind == b"$":
            n = int(line[1:])
            if n < 0:
                return None
            while len(self.buf) - self.pos < n + 2:
                self._fill()
            data = self.buf[self.pos:self.pos + n]
            self.pos += n + 2
            return data
        if kind == b"*":
            return [self.reply() for _ in range(int(line[1:]))]
        if kind == b":":
            return int(line[1:])
        if kind == b"-":
            return Exception(line[1:].decode())
        return line[1:].decode()

    def pipeline(self, cmds):
        self.sock.sendall(b"".join(cmds))
        return [self.reply() for _ in cmds]

    def cmd(self, *args):
        return self.pipeline([self.encode(*args)])[0]

    def info(self):
        text = self.cmd("INFO", "all").decode()
        out = {}
        for line in text.splitlines():
            if ":" in line and not line.startswith("#"):
                k, v = line.split(":", 1)
                out[k] = v
        return out


class Server:
    def __init__(self, name, argv, port):
        self.name, self.port = name, port
        self.proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 10
        while True:
            try:
                self.conn = Conn(port)
                if self.conn.cmd("PING") == "PONG":
                    return
            except OSError:
                pass
            if time.time() > deadline:
                raise RuntimeError(f"{name} did not start")
            time.sleep(0.05)

    def stop(self):
        try:
            self.conn.cmd("SHUTDOWN", "NOSAVE")
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


class Zipf:
    """Ranks 1..n by rejection-inversion (Hörmann and Derflinger), as bench/eviction_sim.cc."""

    def __init__(self, n, s):
        self.n, self.s = float(n), s
        self.h_x1 = self.h(1.5) - 1.0
        self.h_n = self.h(self.n + 0.5)
        self.t = 2.0 - self.h_inv(self.h(2.5) - math.exp(-s * math.log(2.0)))

    def h(self, x):
        lx = math.log(x)
        y = (1.0 - self.s) * lx
        return (math.expm1(y) / y if abs(y) > 1e-8 else 1.0 + y / 2) * lx

    def h_inv(self, x):
        t = max(x * (1.0 - self.s), -1.0)
        return math.exp((math.log1p(t) / t if abs(t) > 1e-8 else 1.0 - t / 2) * x)

    def draw(self, rng):
        while True:
            u = self.h_n + rng.random() * (self.h_x1 - self.h_n)
            x = self.h_inv(u)
            k = min(max(math.floor(x + 0.5), 1), self.n)
            if k - x <= self.t or u >= self.h(k + 0.5) - math.exp(-self.s * math.log(k)):
                return int(k)


def make_trace(kind, universe, alpha, count, seed):
    rng = random.Random(seed)
    z = Zipf(universe, alpha)
    # Rank -> key id: a fixed scramble, so popularity says nothing about a key's id.
    mult = 2654435761

    def key_of(rank):
        return (rank * mult) % universe

    out = []
    scan_next = universe
    for i in range(count):
        if kind == "scan" and i % 6 == 5:
            out.append(scan_next)
            scan_next += 1
            continue
        rank = z.draw(rng) - 1
        if kind == "shift":
            rank += (i * 5 // count) * (universe // 3)
        out.append(key_of(rank % universe))
    return out


def value_for(key_id, mode):
    if mode == "mixed":
        return b"v" * (300 if key_id % 4 == 0 else 32)
    return b"v" * int(mode)


def run_load(conn, trace, mode, batch, on_batch=None):
    """Cache-aside over `trace`; returns (ops, seconds, oom_errors)."""
    ooms = 0
    ops = 0
    t0 = time.time()
    for start in range(0, len(trace), batch):
        ids = trace[start:start + batch]
        keys = [b"k:%010d" % k for k in ids]
        replies = conn.pipeline([b"*2\r\n$3\r\nGET\r\n$12\r\n%s\r\n" % k for k in keys])
        sets = []
        for k, i, r in zip(keys, ids, replies):
            if r is None:
                v = value_for(i, mode)
                sets.append(b"*3\r\n$3\r\nSET\r\n$12\r\n%s\r\n$%d\r\n%s\r\n" % (k, len(v), v))
        if sets:
            for r in conn.pipeline(sets):
                if isinstance(r, Exception):
                    ooms += 1
        ops += len(ids) + len(sets)
        if on_batch is not None:
            on_batch()
    return ops, time.time() - t0, ooms


def measure(server, trace, warmup, mode, batch):
    c = server.conn
    run_load(c, trace[:warmup], mode, batch)
    c.cmd("CONFIG", "RESETSTAT")
    ops, secs, ooms = run_load(c, trace[warmup:], mode, batch)
    info = c.info()
    hits, misses = int(info["keyspace_hits"]), int(info["keyspace_misses"])
    return {
        "hit": hits / max(1, hits + misses),
        "miss": misses / max(1, hits + misses),
        "keys": c.cmd("DBSIZE"),
        "rss": rss_bytes(server.proc.pid),
        "used": int(info["used_memory"]),
        "evicted": int(info.get("evicted_keys", 0)),
        "ops": ops / secs,
        "ooms": ooms,
    }


def halve(server, trace, mode, batch, maxmemory, seconds=5.0):
    """CONFIG SET maxmemory to half under load (the trace, looped, for `seconds`):
    seconds until used_memory is under it (None: not within them), and OOM replies."""
    c = server.conn
    admin = Conn(server.port)
    admin.cmd("CONFIG", "SET", "maxmemory", str(maxmemory // 2))
    t0 = time.time()
    under = None
    ooms = 0
    step = batch * 20
    while time.time() - t0 < seconds:
        for start in range(0, len(trace), step):
            ooms += run_load(c, trace[start:start + step], mode, batch)[2]
            if under is None and int(admin.info()["used_memory"]) <= maxmemory // 2:
                under = time.time() - t0
            if time.time() - t0 >= seconds:
                break
    return under, ooms


def parse_bytes(text):
    units = {"kb": 1 << 10, "mb": 1 << 20, "gb": 1 << 30, "k": 1000, "m": 10**6, "g": 10**9}
    t = text.lower()
    for u in ("kb", "mb", "gb", "k", "m", "g"):
        if t.endswith(u):
            return int(float(t[:-len(u)]) * units[u])
    return int(t)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--ringcache", default=os.path.join(HERE, "..", "build", "ringcache"))
    ap.add_argument("--redis", default="redis-server")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--maxmemory", default="64mb")
    ap.add_argument("--policy", default="allkeys-lru")
    ap.add_argument("--universe", type=int, default=10_000_000)
    ap.add_argument("--alpha", type=float, default=0.99)
    ap.add_argument("--warmup", type=int, default=3_000_000)
    ap.add_argument("--requests", type=int, default=1_000_000)
    ap.add_argument("--batch", type=int, default=200)
    ap.add_argument("--values", default="32,300")
    ap.add_argument("--traces", default="zipf,scan,shift")
    ap.add_argument("--halve", action="store_true")
    ap.add_argument("--halve-seconds", type=float, default=5.0,
                    help="how long --halve keeps the load on after halving")
    args = ap.parse_args()
    maxmemory = parse_bytes(args.maxmemory)

    print(f"maxmemory {maxmemory} policy {args.policy} universe {args.universe} "
          f"alpha {args.alpha} warmup {args.warmup} requests {args.requests} "
          f"threads {args.threads}", flush=True)
    print("trace\tvalues\tserver\thit\tmiss\tkeys\trss_MB\tused_MB\tevicted\tops/s\tooms"
          "\tmiss_vs_redis\tkeys_vs_redis\trss/maxmemory", flush=True)
    for kind in args.traces.split(","):
        trace = make_trace(kind, args.universe, args.alpha, args.warmup + args.requests, 12)
        for mode in args.values.split(","):
            results = {}
            for name in ("redis", "ringcache"):
                port = free_port()
                common = ["--maxmemory", str(maxmemory), "--maxmemory-policy", args.policy]
                if name == "redis":
                    argv = [args.redis, "--port", str(port), "--save", "", "--appendonly", "no",
                            *common]
                else:
                    argv = [args.ringcache, "--port", str(port), "--threads", str(args.threads),
                            *no_persistence(), *common]
                server = Server(name, argv, port)
                try:
                    results[name] = measure(server, trace, args.warmup, mode, args.batch)
                    if args.halve and name == "ringcache":
                        results[name]["halve"] = halve(server, trace[:args.requests], mode,
                                                       args.batch, maxmemory,
                                                       args.halve_seconds)
                finally:
                    server.stop()
            base = results["redis"]
            for name, r in results.items():
                print(f"{kind}\t{mode}\t{name}\t{r['hit']:.4f}\t{r['miss']:.4f}\t{r['keys']}\t"
                      f"{r['rss'] / 2**20:.1f}\t{r['used'] / 2**20:.1f}\t{r['evicted']}\t"
                      f"{r['ops']:.0f}\t{r['ooms']}\t{r['miss'] / max(base['miss'], 1e-9):.3f}\t"
                      f"{r['keys'] / max(base['keys'], 1):.3f}\t{r['rss'] / maxmemory:.3f}",
                      flush=True)
                if "halve" in r:
                    secs, ooms = r["halve"]
                    print(f"# {kind} {mode}: after CONFIG SET maxmemory {maxmemory // 2}: "
                          f"under it after {secs if secs is None else round(secs, 2)} s, "
                          f"{ooms} OOM replies", flush=True)


if __name__ == "__main__":
    sys.exit(main())
