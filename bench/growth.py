#!/usr/bin/env python3
"""Does a growing keyspace dip? Writes --keys new keys (SET, 32-byte values, 50
connections, pipeline 4) into an empty server pinned to one cpu, with build/bench/loadgen
on the other, and prints each second's req/s and max pipeline latency beside the median
second's, for ringcache --threads 1 and 2 and redis-server in the same round.

  python3 bench/growth.py [--keys 6000000] [--rounds 3]

Per server and round: the worst second's req/s as a fraction of the median second
(target >= 0.8) and the worst second's max latency over the median second's max latency
(target <= 1.5). The first and last seconds (partial) are left out. Medians of rounds.
"""

import argparse
import statistics
import subprocess
import sys

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from vs_redis import cli, free_port, no_persistence, wait_ping  # noqa: E402


def run(args, kind):
    port = free_port()
    if kind == "redis":
        argv = ["redis-server", "--port", str(port), "--save", "", "--appendonly", "no"]
    else:
        argv = [args.ringcache, "--port", str(port), "--threads", kind.split("-")[1],
                *no_persistence()]
    proc = subprocess.Popen(["taskset", "-c", args.server_cpu] + argv,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_ping(port)
        r = subprocess.run(
            ["taskset", "-c", args.client_cpu, args.loadgen, "--port", str(port),
             "--threads", "1", "--conns", "50", "--pipeline", "4", "--new-keys",
             "--ratio", "1:0", "--value-size", "32", "--requests", str(args.keys),
             "--seconds", "600", "--per-second"],
            capture_output=True, text=True, check=True)
    finally:
        cli(port, "shutdown", "nosave")
        proc.wait(timeout=30)
    series = []
    for line in r.stdout.splitlines():
        f = line.split()
        if f[0] == "second":
            series.append((int(f[2]), float(f[8])))  # req/s, max ms
    series = series[1:-1] or series   # a run of under 3 s keeps its partial seconds
    rps = [s[0] for s in series]
    lat = [s[1] for s in series]
    return series, min(rps) / statistics.median(rps), max(lat) / statistics.median(lat)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ringcache", default="build/ringcache")
    ap.add_argument("--loadgen", default="build/bench/loadgen")
    ap.add_argument("--keys", type=int, default=6_000_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--server-cpu", default="0")
    ap.add_argument("--client-cpu", default="1")
    ap.add_argument("--series", action="store_true", help="print every second")
    args = ap.parse_args()
    kinds = ["redis", "ringcache-1", "ringcache-2"]
    dips, spikes = {k: [] for k in kinds}, {k: [] for k in kinds}
    for rnd in range(args.rounds):
        for kind in kinds if rnd % 2 == 0 else kinds[::-1]:
            series, dip, spike = run(args, kind)
            dips[kind].append(dip)
            spikes[kind].append(spike)
            print(f"round {rnd + 1} {kind:12s} {len(series):3d} s  worst second "
                  f"{dip:.2f}x median req/s, max latency {spike:.2f}x median", flush=True)
            if args.series:
                print("  " + " ".join(f"{r // 1000}k/{m:.0f}ms" for r, m in series))
    print(f"\nmedians of {args.rounds} rounds ({args.keys} new keys, server on cpu "
          f"{args.server_cpu}, loadgen on cpu {args.client_cpu})")
    for kind in kinds:
        print(f"{kind:12s} worst second {statistics.median(dips[kind]):.2f}x median req/s "
              f"(target >= 0.8), max latency {statistics.median(spikes[kind]):.2f}x "
              f"(target <= 1.5)")


if __name__ == "__main__":
    main()
