#!/usr/bin/env python3
"""The append-only log against redis-server's (docs/PERSISTENCE.md "The append-only log").

  python3 bench/aof.py [--keys 200000] [--seconds 5] [--rounds 3] [--threads 2]

Per server, round, appendfsync (no log, everysec, always) and pipeline depth (16 and 1),
server pinned to --server-cpu and the load to --client-cpu (build/bench/loadgen: 50
connections, SETs only, 32-byte values over --keys keys; the issue's shape):
  - the load's throughput, and its ratio to the same server without the log;
  - the replay at start: --keys SETs logged, the server restarted, commands per second
    from spawn to the first PONG (everysec's files).
Prints medians of the rounds and ringcache's ratios to redis-server's.
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
from persistence import load  # noqa: E402
from vs_redis import cli, free_port, wait_ping  # noqa: E402

MODES = ["off", "everysec", "always"]
PIPELINES = [16, 1]


def argv_for(kind, args, port, d, mode):
    log = ["--appendonly", "no"] if mode == "off" else ["--appendonly", "yes",
                                                        "--appendfsync", mode]
    pin = ["taskset", "-c", args.server_cpu]
    if kind == "redis":
        return pin + ["redis-server", "--port", str(port), "--save", "", "--dir", d] + log
    return pin + [args.ringcache, "--port", str(port), "--threads", str(args.threads),
                  "--save", "", "--dir", d] + log


def spawn(kind, args, d, mode):
    port = free_port()
    proc = subprocess.Popen(argv_for(kind, args, port, d, mode), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    return proc, port


def loadgen(args, port, pipeline):
    out = subprocess.run(
        ["taskset", "-c", args.client_cpu, args.loadgen, "--port", str(port), "--threads", "1",
         "--conns", "50", "--pipeline", str(pipeline), "--keys", str(args.keys), "--ratio", "1:0",
         "--value-size", "32", "--seconds", str(args.seconds)],
        capture_output=True, text=True, check=True)
    for line in out.stdout.splitlines():
        if line.startswith("requests "):
            return float(line.split()[5])
    raise RuntimeError("no result from loadgen: " + out.stdout + out.stderr)


def stop(proc):
    proc.terminate()
    proc.wait(timeout=60)


def round_for(kind, args):
    r = {}
    for mode in MODES:
        d = tempfile.mkdtemp(prefix="aof-bench-")
        try:
            proc, port = spawn(kind, args, d, mode)
            wait_ping(port, timeout=30)
            for pipeline in PIPELINES:
                r[(mode, pipeline)] = loadgen(args, port, pipeline)
            if mode == "everysec":
                cli(port, "flushall")
                load(port, args.keys)
                time.sleep(1.5)  # everysec: the last second reaches the file
                stop(proc)
                start = time.monotonic()
                proc, port = spawn(kind, args, d, mode)
                wait_ping(port, timeout=300)
                r["replay_cps"] = args.keys / (time.monotonic() - start)
            stop(proc)
        finally:
            shutil.rmtree(d, ignore_errors=True)
    return r


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--keys", type=int, default=200_000)
    p.add_argument("--seconds", type=float, default=5)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--server-cpu", default="0")
    p.add_argument("--client-cpu", default="1")
    p.add_argument("--ringcache", default="build/ringcache")
    p.add_argument("--loadgen", default="build/bench/loadgen")
    args = p.parse_args()
    rounds = {"redis": [], "ringcache": []}
    for _ in range(args.rounds):
        for kind in rounds:
            rounds[kind].append(round_for(kind, args))
    med = {k: {f: statistics.median(r[f] for r in v) for f in v[0]} for k, v in rounds.items()}
    print(f"{'':32}{'redis-server':>14}{'ringcache':>14}{'ratio':>8}")
    for pipeline in PIPELINES:
        for mode in MODES:
            a, b = med["redis"][(mode, pipeline)], med["ringcache"][(mode, pipeline)]
            print(f"{f'SET/s -P {pipeline}, log {mode}':32}{a:14.0f}{b:14.0f}{b / a:8.2f}")
        for mode in MODES[1:]:
            a = med["redis"][(mode, pipeline)] / med["redis"][("off", pipeline)]
            b = med["ringcache"][(mode, pipeline)] / med["ringcache"][("off", pipeline)]
            print(f"{f'-P {pipeline} {mode} / no log':32}{a:14.2f}{b:14.2f}")
    a, b = med["redis"]["replay_cps"], med["ringcache"]["replay_cps"]
    print(f"{'replay at start, cmds/s':32}{a:14.0f}{b:14.0f}{b / a:8.2f}")
    print(f"({args.rounds} rounds, medians; server on cpu {args.server_cpu}, load on cpu "
          f"{args.client_cpu}, ringcache --threads {args.threads})")


if __name__ == "__main__":
    main()
