#!/usr/bin/env python3
"""Latency while evicting: the same SET load on ringcache without a memory limit and
under one that makes it evict throughout (docs/EVICTION.md).

Per round and --limits entry, a fresh server gets --prefill new keys (bench/loadgen,
32-byte values), then CONFIG SET maxmemory LIMIT and allkeys-lru (0: none) and waits
until used_memory is under it, then `redis-benchmark -t set -r --range -d 32 -n
--requests -c --clients -P --pipeline`. Reported: req/s, p99, p99.9 and max latency
(redis-benchmark's), keys evicted since the start (the prefill's excess too), and the
loop turns that spent
--threshold ms or more evicting (LATENCY HISTORY eviction-cycle). With --shed, a
limited server then gets CONFIG SET maxmemory SHED: how long until used_memory is under
it, its eviction-cycle events, and the round trip of the first INFO memory after it.
The p99.9 of every limit is compared with the first limit's of the same round.

  python3 bench/evict_latency.py [--threads 2] [--limits 0,32mb] [--rounds 2]
  python3 bench/evict_latency.py --threads 1 --limits 32mb --prefill 500000 \\
      --requests 2000000 --pipeline 16 --server-prefix "chrt -f 10 taskset -c 1" \\
      --client-cpus 0 --shed 16mb
"""

import argparse
import os
import re
import shlex
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from eviction import parse_bytes  # noqa: E402
from vs_redis import Server, cli, free_port, no_persistence  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def info(port, section):
    out = {}
    for line in cli(port, "info", section).splitlines():
        k, sep, v = line.strip().partition(":")
        if sep:
            out[k] = v
    return out


def wait_under(port, limit, timeout=30.0):
    """Seconds until used_memory is at most `limit` (None: not within `timeout`)."""
    t0 = time.time()
    while time.time() - t0 < timeout:
        if int(info(port, "memory")["used_memory"]) <= limit:
            return time.time() - t0
        time.sleep(0.01)
    return None


def eviction_turns(port):
    """(count, max ms) of the eviction-cycle latency events since LATENCY RESET."""
    lines = cli(port, "latency", "history", "eviction-cycle").split()
    ms = [int(x) for x in lines[1::2]]   # pairs of (unix time, ms), one per line
    return len(ms), max(ms, default=0)


def benchmark(args, port):
    prefix = ["taskset", "-c", args.client_cpus] if args.client_cpus else []
    out = subprocess.run(
        prefix + ["redis-benchmark", "-p", str(port), "-t", "set", "-r", str(args.range),
                  "-d", "32", "-n", str(args.requests), "-c", str(args.clients),
                  "-P", str(args.pipeline)],
        capture_output=True, text=True, check=True).stdout.replace("\r", "\n")
    rps = float(re.search(r"throughput summary: ([0-9.]+) requests per second", out).group(1))
    summary = re.search(r"avg\s+min\s+p50\s+p95\s+p99\s+max\s*\n\s*([0-9. ]+)", out).group(1)
    p99, mx = [float(x) for x in summary.split()][4:6]
    p999 = None
    for pct, ms in re.findall(r"^([0-9.]+)% <= ([0-9.]+) milliseconds", out, re.M):
        if float(pct) >= 99.9:
            p999 = float(ms)
            break
    return rps, p99, p999, mx


def run(args, limit):
    port = free_port()
    argv = shlex.split(args.server_prefix) + [args.ringcache, "--port", str(port),
                                             "--threads", str(args.threads),
                                             *no_persistence()]
    server = Server("ringcache", argv, port)
    try:
        subprocess.run([args.loadgen, "--port", str(port), "--threads", "1", "--conns", "4",
                        "--pipeline", "64", "--new-keys", "--ratio", "1:0", "--value-size",
                        "32", "--requests", str(args.prefill), "--seconds", "600"],
                       check=True, capture_output=True)
        cli(port, "config", "set", "maxmemory-policy", "allkeys-lru")
        cli(port, "config", "set", "maxmemory", str(limit))
        if limit and wait_under(port, limit) is None:
            raise RuntimeError(f"used_memory did not get under {limit} after the prefill")
        cli(port, "config", "set", "latency-monitor-threshold", str(args.threshold))
        cli(port, "latency", "reset")
        rps, p99, p999, mx = benchmark(args, port)
        row = {"rps": rps, "p99": p99, "p999": p999, "max": mx,
               "evicted": int(info(port, "stats")["evicted_keys"]),
               "turns": eviction_turns(port)}
        if args.shed and limit:
            cli(port, "latency", "reset")
            shed = parse_bytes(args.shed)
            cli(port, "config", "set", "maxmemory", str(shed))
            t0 = time.time()
            cli(port, "info", "memory")
            row["shed_info_ms"] = (time.time() - t0) * 1000
            row["shed_s"] = wait_under(port, shed)
            row["shed_turns"] = eviction_turns(port)
        return row
    finally:
        server.stop()


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ringcache", default=os.path.join(HERE, "..", "build", "ringcache"))
    ap.add_argument("--loadgen", default=os.path.join(HERE, "..", "build", "bench", "loadgen"))
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--limits", default="0,32mb", help="maxmemory of each run; 0: none")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--prefill", type=int, default=1_000_000)
    ap.add_argument("--requests", type=int, default=1_000_000)
    ap.add_argument("--range", type=int, default=10_000_000, help="redis-benchmark -r")
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--pipeline", type=int, default=1)
    ap.add_argument("--threshold", type=int, default=1, help="latency-monitor-threshold, ms")
    ap.add_argument("--shed", help="then CONFIG SET maxmemory to this (e.g. 16mb)")
    ap.add_argument("--server-prefix", default="", help='e.g. "chrt -f 10 taskset -c 1"')
    ap.add_argument("--client-cpus", default="", help="taskset list for redis-benchmark")
    args = ap.parse_args()
    limits = [parse_bytes(x) for x in args.limits.split(",")]

    p999_ratios = {limit: [] for limit in limits[1:]}
    for r in range(1, args.rounds + 1):
        first = None
        for limit in limits:
            row = run(args, limit)
            n, worst = row["turns"]
            line = (f"round {r} maxmemory {limit}: {row['rps']:,.0f} req/s, p99 {row['p99']} ms, "
                    f"p99.9 {row['p999']} ms, max {row['max']} ms, "
                    f"{row['evicted']} keys evicted in all, "
                    f"{n} turns evicting >= {args.threshold} ms (longest {worst} ms)")
            if "shed_s" in row:
                n, worst = row["shed_turns"]
                secs = row["shed_s"]
                line += (f"; shed to {args.shed}: under it after "
                         f"{'never' if secs is None else f'{secs:.2f} s'}, {n} turns evicting "
                         f">= {args.threshold} ms (longest {worst} ms), first INFO memory "
                         f"{row['shed_info_ms']:.1f} ms")
            print(line, flush=True)
            if first is None:
                first = row["p999"]
            else:
                p999_ratios[limit].append(row["p999"] / first)
    for limit, ratios in p999_ratios.items():
        print(f"p99.9 at maxmemory {limit} / at {limits[0]}: "
              f"{', '.join(f'{x:.2f}' for x in ratios)} (median {statistics.median(ratios):.2f})")


if __name__ == "__main__":
    main()
