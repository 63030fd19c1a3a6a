#!/usr/bin/env python3
"""Expiry benchmarks, ringcache vs redis-server in the same run.

1. Expiry wave: load --keys keys (12-byte key, 32-byte value) that all share one deadline,
   then keep one client busy with GETs of another key. Reported: how long after the
   deadline the last expired key is gone (DBSIZE counts expired-but-unreclaimed keys in
   both servers), and the GET latency percentiles from the deadline until then.
2. TTL memory: bytes per key for --keys keys with and without a TTL (RSS and INFO
   used_memory growth).

Servers are pinned to --server-cpu, this script to --client-cpu.
"""

import argparse
import gc
import os
import socket
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vs_redis import info_field, rss_bytes, start  # noqa: E402


def resp(*parts):
    out = b"*%d\r\n" % len(parts)
    for p in parts:
        p = p if isinstance(p, bytes) else str(p).encode()
        out += b"$%d\r\n%s\r\n" % (len(p), p)
    return out


class Conn:
    def __init__(self, port):
        self.s = socket.create_connection(("127.0.0.1", port))
        self.s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""

    def reply(self):
        """Reads one simple reply (status, integer, error or bulk)."""
        while True:
            nl = self.buf.find(b"\r\n")
            if nl >= 0:
                head = self.buf[:nl]
                if head[:1] == b"$":
                    n = int(head[1:])
                    end = nl + 2 + (n + 2 if n >= 0 else 0)
                    if len(self.buf) >= end:
                        self.buf = self.buf[end:]
                        return head
                else:
                    self.buf = self.buf[nl + 2:]
                    return head
            self.buf += self.s.recv(1 << 16)

    def call(self, *parts):
        self.s.sendall(resp(*parts))
        return self.reply()


def load(port, keys, value, pxat=None, batch=2000):
    c = Conn(port)
    for start in range(0, keys, batch):
        buf = bytearray()
        n = min(batch, keys - start)
        for i in range(start, start + n):
            key = b"key:%08d" % i
            if pxat is None:
                buf += resp(b"SET", key, value)
            else:
                buf += resp(b"SET", key, value, b"PXAT", str(pxat).encode())
        c.s.sendall(buf)
        for _ in range(n):
            c.reply()
    c.s.close()


def percentile(values, p):
    if not values:
        return float("nan")
    values = sorted(values)
    k = min(len(values) - 1, int(round(p / 100.0 * (len(values) - 1))))
    return values[k]


def wave(kind, args):
    server = start(kind, args)
    try:
        value = b"v" * 32
        probe = Conn(server.port)
        probe.call("SET", "probe", "x")
        deadline_ms = int(time.time() * 1000) + args.lead_ms
        t0 = time.time()
        load(server.port, args.keys, value, pxat=deadline_ms)
        load_s = time.time() - t0
        if time.time() * 1000 > deadline_ms - 200:
            raise RuntimeError(f"loading took {load_s:.1f}s: raise --lead-ms")
        lat = []  # (send time, latency) of GETs
        # A collector pause in this script would look like a server stall.
        gc.collect()
        gc.disable()
        gone_at = None
        next_poll = 0.0
        while True:
            now = time.time()
            if now * 1000 > deadline_ms + args.max_wait_ms:
                break
            t = time.perf_counter()
            probe.call("GET", "probe")
            lat.append((now, time.perf_counter() - t))
            if now * 1000 >= deadline_ms and now >= next_poll:
                next_poll = now + 0.02
                left = int(probe.call("DBSIZE")[1:])
                if left <= 1:
                    gone_at = time.time()
                    break
        gc.enable()
        during = [l for (ts, l) in lat if ts * 1000 >= deadline_ms]
        gone_ms = (gone_at * 1000 - deadline_ms) if gone_at else float("nan")
        return {
            "gone_ms": gone_ms,
            "p50": percentile(during, 50) * 1e3,
            "p99": percentile(during, 99) * 1e3,
            "p999": percentile(during, 99.9) * 1e3,
            "max": (max(during) if during else float("nan")) * 1e3,
            "gets": len(during),
            "load_s": load_s,
        }
    finally:
        server.stop()


def memory(kind, args, with_ttl):
    server = start(kind, args)
    try:
        time.sleep(0.2)
        rss0, used0 = rss_bytes(server.proc.pid), info_field(server.port, "used_memory")
        far = int(time.time() * 1000) + 3600 * 1000
        load(server.port, args.keys, b"v" * 32, pxat=far if with_ttl else None)
        time.sleep(0.5)
        rss1, used1 = rss_bytes(server.proc.pid), info_field(server.port, "used_memory")
        return (rss1 - rss0) / args.keys, (used1 - used0) / args.keys
    finally:
        server.stop()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ringcache", default="build/ringcache")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--keys", type=int, default=1000000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--lead-ms", type=int, default=20000, help="deadline after load start")
    ap.add_argument("--max-wait-ms", type=int, default=30000)
    ap.add_argument("--server-cpu", default="0")
    ap.add_argument("--client-cpu", default="1")
    ap.add_argument("--skip-memory", action="store_true")
    args = ap.parse_args()
    os.sched_setaffinity(0, {int(args.client_cpu)})

    results = {"redis": [], "ringcache": []}
    for rnd in range(args.rounds):
        for kind in (["redis", "ringcache"] if rnd % 2 == 0 else ["ringcache", "redis"]):
            r = wave(kind, args)
            results[kind].append(r)
            print(f"round {rnd + 1} {kind:9s}: last key gone {r['gone_ms']:7.0f} ms after the "
                  f"deadline; GET p50 {r['p50']:.3f} p99 {r['p99']:.3f} p99.9 {r['p999']:.3f} "
                  f"max {r['max']:.3f} ms over {r['gets']} GETs", flush=True)
    print(f"\nexpiry wave, {args.keys} keys with one deadline, medians of {args.rounds} rounds "
          f"(ringcache --threads {args.threads})")
    print(f"{'':10s} {'gone after':>11s} {'GET p50':>8s} {'p99':>8s} {'p99.9':>8s} {'max':>8s}")
    for kind in ("redis", "ringcache"):
        rs = results[kind]
        med = {k: statistics.median(r[k] for r in rs) for k in ("gone_ms", "p50", "p99", "p999", "max")}
        print(f"{kind:10s} {med['gone_ms']:9.0f}ms {med['p50']:7.3f}ms {med['p99']:7.3f}ms "
              f"{med['p999']:7.3f}ms {med['max']:7.3f}ms")

    if not args.skip_memory:
        print(f"\nbytes per key, {args.keys} keys (12-byte key, 32-byte value)")
        print(f"{'':10s} {'no TTL rss':>10s} {'TTL rss':>8s} {'extra':>6s}   "
              f"{'no TTL used':>11s} {'TTL used':>8s} {'extra':>6s}")
        for kind in ("redis", "ringcache"):
            r0, u0 = memory(kind, args, False)
            r1, u1 = memory(kind, args, True)
            print(f"{kind:10s} {r0:10.1f} {r1:8.1f} {r1 - r0:6.1f}   {u0:11.1f} {u1:8.1f} "
                  f"{u1 - u0:6.1f}")


if __name__ == "__main__":
    sys.exit(main())
