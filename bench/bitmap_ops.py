#!/usr/bin/env python3
"""Bitmap throughput, ringcache vs redis-server in the same run.

Each server gets two bitmaps of --bytes bytes (the same seeded random bytes for both),
`{bm}a` and `{bm}b` (one hash tag: one shard), then redis-benchmark (pinned to
--client-cpu, the server to --server-cpu) runs, per command, -n requests from 50 clients
with -P pipelining:
  SETBIT {bm}a <middle> 1
  GETBIT {bm}a <middle>
  BITCOUNT {bm}a                   (the whole bitmap: popcount)
  BITCOUNT {bm}a 0 -1 BIT          (the same through the bit-range path)
  BITPOS {bm}z 1                   (a run of zero bytes, found set bit at the end)
  BITOP AND|XOR {bm}d {bm}a {bm}b  (word-at-a-time over both, result stored)
  BITFIELD {bm}a INCRBY u8 <middle> 1
(redis-benchmark's __rand_int__ has leading zeros, which offsets may not: one offset.)
The whole-bitmap commands cost O(bytes) each, so they run --scan-requests requests.
Reported: requests/s and server CPU µs per request, medians of --rounds rounds, with the
ringcache/redis ratios.
"""

import argparse
import os
import random
import socket
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vs_redis import bench_command, ratio, start  # noqa: E402


def command(port, *args):
    """One command over a fresh connection; the raw reply's first line."""
    with socket.create_connection(("127.0.0.1", port)) as s:
        parts = [a if isinstance(a, bytes) else str(a).encode() for a in args]
        s.sendall(b"*%d\r\n" % len(parts) +
                  b"".join(b"$%d\r\n%s\r\n" % (len(p), p) for p in parts))
        data = b""
        while b"\r\n" not in data:
            data += s.recv(4096)
        return data.split(b"\r\n")[0]


def load(port, nbytes, seed):
    rng = random.Random(seed)
    for key in (b"{bm}a", b"{bm}b"):
        value = bytes(rng.getrandbits(8) for _ in range(nbytes))
        assert command(port, b"SET", key, value) == b"+OK"
    # Zeros but for the last byte: BITPOS scans the whole run.
    assert command(port, b"SET", b"{bm}z", b"\0" * (nbytes - 1) + b"\x01") == b"+OK"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ringcache", default="build/ringcache")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--bytes", type=int, default=1 << 20)
    ap.add_argument("--requests", type=int, default=500000)
    ap.add_argument("--scan-requests", type=int, default=5000)
    ap.add_argument("--pipeline", type=int, default=16)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--server-cpu", default="0")
    ap.add_argument("--client-cpu", default="1")
    args = ap.parse_args()
    os.sched_setaffinity(0, {int(args.client_cpu)})

    n, scan = args.requests, args.scan_requests
    mid = str(args.bytes * 4 + 3)
    tests = [
        ("SETBIT", ["SETBIT", "{bm}a", mid, "1"], n),
        ("GETBIT", ["GETBIT", "{bm}a", mid], n),
        ("BITFIELD INCRBY", ["BITFIELD", "{bm}a", "INCRBY", "u8", mid, "1"], n),
        ("BITCOUNT", ["BITCOUNT", "{bm}a"], scan),
        ("BITCOUNT BIT", ["BITCOUNT", "{bm}a", "0", "-1", "BIT"], scan),
        ("BITPOS", ["BITPOS", "{bm}z", "1"], scan),
        ("BITOP AND", ["BITOP", "AND", "{bm}d", "{bm}a", "{bm}b"], scan),
        ("BITOP XOR", ["BITOP", "XOR", "{bm}d", "{bm}a", "{bm}b"], scan),
    ]
    rps = {(k, t): [] for k in ("redis", "ringcache") for t, _, _ in tests}
    cpu = {(k, t): [] for k in ("redis", "ringcache") for t, _, _ in tests}
    for rnd in range(args.rounds):
        for kind in (["redis", "ringcache"] if rnd % 2 == 0 else ["ringcache", "redis"]):
            server = start(kind, args)
            try:
                load(server.port, args.bytes, seed=rnd)
                for name, cmd, requests in tests:
                    r, c = bench_command(server, cmd, requests, args.bytes * 8, args.pipeline,
                                         args.client_cpu)
                    rps[(kind, name)].append(r)
                    cpu[(kind, name)].append(c)
                    print(f"round {rnd + 1} {kind:9s} {name:16s} {r:12.0f} req/s "
                          f"{c:9.2f} µs CPU/req", flush=True)
            finally:
                server.stop()
    print(f"\nmedians of {args.rounds} rounds, {args.bytes} B bitmaps, -P {args.pipeline}, "
          f"ringcache --threads {args.threads}")
    print(f"{'command':16s} {'redis req/s':>12s} {'ringcache':>12s} {'ratio':>6s} "
          f"{'redis µs':>9s} {'rc µs':>9s} {'ratio':>6s}")
    for name, _, _ in tests:
        r_rps = statistics.median(rps[("redis", name)])
        c_rps = statistics.median(rps[("ringcache", name)])
        r_cpu = statistics.median(cpu[("redis", name)])
        c_cpu = statistics.median(cpu[("ringcache", name)])
        print(f"{name:16s} {r_rps:12.0f} {c_rps:12.0f} {c_rps / r_rps:6.2f} "
              f"{r_cpu:9.2f} {c_cpu:9.2f} {ratio(c_cpu, r_cpu):6.2f}")


if __name__ == "__main__":
    main()
