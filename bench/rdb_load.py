#!/usr/bin/env python3
"""Loading an RDB file at start against redis-server (docs/PERSISTENCE.md "Measurements").

  python3 bench/rdb_load.py [--keys 1000000] [--rounds 5] [--threads 2] [--cpus 0]

redis-server writes the file (DEBUG POPULATE: "key:N" keys, 32-byte values); then each
round starts redis-server and ringcache --threads N on it in turn and times spawn to the
first PONG. --cpus pins both servers (taskset list; empty: unpinned). Prints the medians
and ringcache's keys per second over redis-server's.
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from vs_redis import cli, free_port, wait_ping  # noqa: E402


def write_file(d, keys):
    port = free_port()
    proc = subprocess.Popen(["redis-server", "--port", str(port), "--dir", d, "--save", "",
                             "--enable-debug-command", "yes"], stdout=subprocess.DEVNULL)
    wait_ping(port, timeout=30)
    cli(port, "debug", "populate", str(keys), "key", "32")
    cli(port, "save")
    cli(port, "shutdown", "nosave")
    proc.wait(timeout=60)


def time_start(argv, port):
    start = time.monotonic()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_ping(port, timeout=300)
    seconds = time.monotonic() - start
    cli(port, "shutdown", "nosave")
    proc.wait(timeout=60)
    return seconds


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--ringcache", default="build/ringcache")
    p.add_argument("--keys", type=int, default=1_000_000)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--cpus", default="0", help="taskset cpu list for both servers; '' unpinned")
    args = p.parse_args()
    d = tempfile.mkdtemp(prefix="rdb-load-bench-")
    try:
        write_file(d, args.keys)
        pin = ["taskset", "-c", args.cpus] if args.cpus else []
        times = {"redis": [], "ringcache": []}
        for _ in range(args.rounds):
            port = free_port()
            common = ["--port", str(port), "--dir", d, "--save", ""]
            times["redis"].append(time_start(pin + ["redis-server"] + common, port))
            port = free_port()
            common = ["--port", str(port), "--dir", d, "--save", ""]
            times["ringcache"].append(time_start(
                pin + [args.ringcache, "--threads", str(args.threads)] + common, port))
    finally:
        shutil.rmtree(d, ignore_errors=True)
    print(f"{args.keys} keys, medians of {args.rounds} rounds, ringcache --threads "
          f"{args.threads}, cpus {args.cpus or 'any'}")
    rate = {}
    for kind, ts in times.items():
        rate[kind] = args.keys / statistics.median(ts)
        print(f"{kind:10} {statistics.median(ts):7.3f} s  {rate[kind] / 1000:8.0f} k keys/s")
    print(f"ratio (ringcache keys/s over redis-server's): {rate['ringcache'] / rate['redis']:.2f}")


if __name__ == "__main__":
    main()
