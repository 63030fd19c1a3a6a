#!/usr/bin/env python3
"""Several server command lines under the same client loads, alternating within every
round: requests/s and server CPU per command, medians over the rounds and ratios to the
first server. For A/B comparisons of builds, flags, environments or thread counts.

  python3 bench/alternate.py --rounds 5 \\
      --server "off=build/ringcache --threads 1 --cluster-enabled no" \\
      --server "on=build/ringcache --threads 1 --cluster-enabled yes" \\
      --load "build/bench/loadgen --port {port} --threads 1 --conns 8 --pipeline 16 \\
              --new-keys --seconds 4"

A server is NAME=COMMAND, split as a shell would; it may start with env, chrt or taskset
(each execs the next, so the pid is the server's): e.g.
"t2=chrt -r 10 env GLIBC_TUNABLES=glibc.malloc.tcache_count=7 build/ringcache --threads 2".
The script adds --port, and for redis-server --save "" --appendonly no, for any other
(a ringcache) --save "" and --dir a fresh temporary directory, each unless the command
names it. A round starts each server in turn, runs every --prefill (not measured), then
every --load, and stops it. A load is a client command line with {port} for the
server's port (`taskset -c 0 redis-benchmark -p {port} ...` pins it); with several, each
is measured on its own.

With --perf DIR, `perf record -F --perf-hz -g` follows the server through each load and
leaves DIR/NAME-roundR-loadL.data for `perf report -i`.

Per load: the server's user+sys CPU (/proc) over its INFO total_commands_processed, and
requests/s as the client reports them (redis-benchmark -q or --csv, bench/loadgen), or
the server's commands over the load's wall time when the client prints no rate or one
per test (redis-benchmark -t set,get: give each test a --load of its own instead).
"""

import argparse
import os
import re
import shlex
import signal
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from threads import free_port_block  # noqa: E402
from vs_redis import Server, cli, cpu_seconds, free_port, no_persistence, ratio  # noqa: E402

RATES = [re.compile(r"^(?:[^:\n\r]*: )?([0-9.]+) requests per second", re.M),  # redis-benchmark -q
         re.compile(r'^"[^"]*","([0-9.]+)"', re.M),                           # --csv
         re.compile(r"^requests \d+ seconds [0-9.]+ rps ([0-9.]+)", re.M)]     # loadgen


def commands(port):
    for line in cli(port, "info", "stats").splitlines():
        if line.startswith("total_commands_processed:"):
            return int(line.split(":")[1])
    raise RuntimeError(f"no INFO stats from the server on port {port}")


def client_rate(output):
    """The client's requests/s; None if it printed none, or one per test (redis-benchmark
    -t a,b), which a single figure cannot stand for."""
    for pattern in RATES:
        rates = pattern.findall(output.replace("\r", "\n"))
        if rates:
            return float(rates[0]) if len(rates) == 1 else None
    return None


def run_client(command, port):
    argv = shlex.split(command.format(port=port))
    out = subprocess.run(argv, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"{argv[0]} exited {out.returncode}: {out.stderr.strip()[-500:]}")
    return out.stdout


def measure(server, load, profile=None, hz=2000):
    """(requests/s, server CPU µs per command) of one run of `load`; with `profile` (a
    path), a perf profile of the server during it."""
    pid, port = server.proc.pid, server.port
    perf = None
    if profile:
        perf = subprocess.Popen(["perf", "record", "-F", str(hz), "-g", "-p", str(pid),
                                 "-o", profile], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        time.sleep(0.3)   # attached before the load starts
    n0, c0, t0 = commands(port), cpu_seconds(pid), time.time()
    try:
        output = run_client(load, port)
    finally:
        if perf:
            perf.send_signal(signal.SIGINT)
            perf.wait()
    t1, c1 = time.time(), cpu_seconds(pid)
    n = commands(port) - n0 - 1   # less the INFO that read n0
    if n <= 0:
        raise RuntimeError(f"the load ran no command: {load}")
    rate = client_rate(output)
    return (rate if rate is not None else n / (t1 - t0)), (c1 - c0) / n * 1e6


def start(command):
    argv = shlex.split(command)
    if "--cluster-enabled" in argv:   # then each thread listens on a port after the main one
        threads = int(argv[argv.index("--threads") + 1]) if "--threads" in argv else os.cpu_count()
        port = free_port_block(threads + 1)
    else:
        port = free_port()
    argv += ["--port", str(port)]
    if any(os.path.basename(w).startswith("redis-server") for w in argv):
        argv += ["--save", "", "--appendonly", "no"]
    else:
        argv += no_persistence(argv)
    return Server(command, argv, port)


def spread(values, fmt):
    m = statistics.median(values)
    if len(values) == 1:
        return fmt.format(m)
    return f"{fmt.format(m)} ({fmt.format(min(values))}-{fmt.format(max(values))})"


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--server", action="append", required=True, metavar="NAME=COMMAND")
    ap.add_argument("--load", action="append", required=True, metavar="COMMAND")
    ap.add_argument("--prefill", action="append", default=[], metavar="COMMAND")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--perf", metavar="DIR", help="profile the server during each load")
    ap.add_argument("--perf-hz", type=int, default=2000)
    args = ap.parse_args()
    if args.perf:
        os.makedirs(args.perf, exist_ok=True)
    servers = []
    for spec in args.server:
        name, sep, command = spec.partition("=")
        if not sep or not command.strip():
            ap.error(f"--server {spec!r}: want NAME=COMMAND")
        servers.append((name, command))

    results = {}   # (load index, server name) -> [(requests/s, µs CPU/command)] per round
    for r in range(1, args.rounds + 1):
        for name, command in servers:
            server = start(command)
            try:
                for p in args.prefill:
                    run_client(p, server.port)
                for i, load in enumerate(args.load):
                    profile = args.perf and os.path.join(args.perf,
                                                         f"{name}-round{r}-load{i + 1}.data")
                    rate, us = measure(server, load, profile, args.perf_hz)
                    results.setdefault((i, name), []).append((rate, us))
                    print(f"round {r} load {i + 1} {name}: {rate:,.0f} req/s, "
                          f"{us:.3f} µs CPU/command", flush=True)
            finally:
                server.stop()

    first = servers[0][0]
    for i, load in enumerate(args.load):
        print(f"\nload {i + 1}: {load}\nmedians of {args.rounds} rounds (ranges), "
              f"ratios to {first} (median of the rounds' ratios):")
        base = results[i, first]
        for name, _ in servers:
            rows = results[i, name]
            rate_ratio = statistics.median(ratio(a[0], b[0]) for a, b in zip(rows, base))
            cpu_ratio = statistics.median(ratio(a[1], b[1]) for a, b in zip(rows, base))
            print(f"  {name:>16}: {spread([x[0] for x in rows], '{:,.0f}')} req/s "
                  f"({rate_ratio:.2f}x), {spread([x[1] for x in rows], '{:.3f}')} µs CPU/command "
                  f"({cpu_ratio:.2f}x)")


if __name__ == "__main__":
    main()
