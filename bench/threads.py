#!/usr/bin/env python3
"""Throughput of ringcache as its worker-thread count changes.

Two uses:
  * oversubscription (2-core machine): server pinned to ONE cpu with 1, 2, 4, 8 threads;
    throughput must not collapse when threads outnumber cores (no busy-waiting).
  * scaling (many-core machine): server on cpus 0..T-1 with T threads, redis-benchmark
    with several threads on the remaining cpus.

Each point is the median of --rounds runs of redis-benchmark GET/SET at -P --pipeline,
-c --clients, -d 32, -r 100000 (keys spread over every shard).
"""

import argparse
import statistics
import subprocess
import sys

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from vs_redis import cli, free_port, wait_ping  # noqa: E402


def run_point(args, threads, server_cpus, client_cpus):
    port = free_port()
    proc = subprocess.Popen(
        ["taskset", "-c", server_cpus, args.ringcache, "--port", str(port),
         "--threads", str(threads)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_ping(port)
        out = {}
        for test in ("set", "get"):
            rps = []
            for _ in range(args.rounds):
                r = subprocess.run(
                    ["taskset", "-c", client_cpus, "redis-benchmark", "-p", str(port),
                     "-t", test, "-n", str(args.requests), "-c", str(args.clients),
                     "-d", "32", "-r", "100000", "-P", str(args.pipeline),
                     "--threads", str(args.client_threads), "--csv", "-q"],
                    capture_output=True, text=True, check=True)
                for line in r.stdout.splitlines():
                    parts = [p.strip('"') for p in line.split(",")]
                    if parts[0].upper() == test.upper():
                        rps.append(float(parts[1]))
            out[test] = statistics.median(rps)
        return out
    finally:
        cli(port, "shutdown")
        proc.wait(timeout=10)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ringcache", default="build/ringcache")
    ap.add_argument("--mode", choices=["oversubscribe", "scale"], default="oversubscribe")
    ap.add_argument("--threads", default="1,2,4,8")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--requests", type=int, default=1000000)
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--pipeline", type=int, default=16)
    ap.add_argument("--client-threads", type=int, default=1)
    ap.add_argument("--cpus", type=int, default=16, help="cpus on the machine (scale mode)")
    args = ap.parse_args()

    print(f"mode={args.mode} -P {args.pipeline} -c {args.clients} "
          f"medians of {args.rounds}")
    print(f"{'threads':>7s} {'server cpus':>12s} {'SET req/s':>12s} {'GET req/s':>12s}")
    for t in (int(x) for x in args.threads.split(",")):
        if args.mode == "oversubscribe":
            server_cpus, client_cpus = "0", "1"
        else:
            server_cpus = f"0-{t - 1}"
            client_cpus = f"{t}-{args.cpus - 1}"
        r = run_point(args, t, server_cpus, client_cpus)
        print(f"{t:7d} {server_cpus:>12s} {r['set']:12.0f} {r['get']:12.0f}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
