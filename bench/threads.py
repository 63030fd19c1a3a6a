#!/usr/bin/env python3
"""Throughput of ringcache as its worker-thread count changes.

Three uses:
  * oversubscription (2-core machine): server pinned to ONE cpu with 1, 2, 4, 8 threads;
    throughput must not collapse when threads outnumber cores (no busy-waiting).
  * scaling (many-core machine): server on cpus 0..T-1 with T threads, redis-benchmark
    with several threads on the remaining cpus.
  * cpu (any machine): what a thread costs. Server CPU per request (user+sys from
    /proc/PID/stat over the run / requests) and throughput of ringcache --threads 1 and
    --threads 2 and of redis-server under the same unpinned memtier-style load
    (build/bench/loadgen: --client-threads threads, --clients connections, random keys
    over 100k, SET:GET 1:10, 32-byte values), at -P 1 and -P 16; servers alternate
    within each round.

  * cluster (any machine): the Redis Cluster protocol (docs/CLUSTER.md). The same load
    from plain clients on the main port and from cluster-aware ones (loadgen --cluster:
    each connection to the per-thread node port owning its keys) against ringcache with
    1 and 2 threads, against three one-thread processes sharing a static slot map, and
    against redis-server: req/s, server CPU per request (all processes summed) and the
    commands forwarded between threads (INFO forwarded_commands).

oversubscribe and scale report the median of --rounds runs of redis-benchmark GET/SET
at -P --pipeline, -c --clients, -d 32, -r 100000 (keys spread over every shard).
"""

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from vs_redis import cli, cpu_seconds, free_port, no_persistence, ratio, wait_ping  # noqa: E402


def free_port_block(n):
    """A port p with p .. p + n - 1 all free: a cluster-mode server also listens on p + 1
    onwards (cluster-port-base 0), and fails to start when one of them is taken."""
    for _ in range(100):
        p = free_port()
        if p + n > 65536:
            continue
        try:
            for q in range(p + 1, p + n):
                with socket.socket() as s:
                    s.bind(("127.0.0.1", q))
            return p
        except OSError:
            continue
    raise RuntimeError("no block of free ports")


def run_point(args, threads, server_cpus, client_cpus):
    port = free_port()
    proc = subprocess.Popen(
        ["taskset", "-c", server_cpus, args.ringcache, "--port", str(port),
         "--threads", str(threads), *no_persistence()],
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


def cpu_point(args, kind, pipeline):
    """One run of loadgen against a fresh server: (req/s, server us of CPU per request)."""
    port = free_port()
    if kind == "redis":
        argv = ["redis-server", "--port", str(port), "--save", "", "--appendonly", "no"]
    else:
        argv = [args.ringcache, "--port", str(port), "--threads", kind.split("-")[1],
                *no_persistence()]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_ping(port)
        # Fill the keyspace first, so GETs hit as they would in a warm cache.
        subprocess.run([args.loadgen, "--port", str(port), "--threads", "1", "--conns", "4",
                        "--pipeline", "64", "--new-keys", "--requests", "100000",
                        "--seconds", "60"], capture_output=True, check=True)
        before = cpu_seconds(proc.pid)
        r = subprocess.run(
            [args.loadgen, "--port", str(port), "--threads", str(args.client_threads),
             "--conns", str(args.clients), "--pipeline", str(pipeline), "--keys", "100000",
             "--ratio", "1:10", "--seconds", str(args.seconds)],
            capture_output=True, text=True, check=True)
        used = cpu_seconds(proc.pid) - before
        fields = r.stdout.split()
        requests = int(fields[fields.index("requests") + 1])
        rps = float(fields[fields.index("rps") + 1])
        return rps, used / requests * 1e6
    finally:
        cli(port, "shutdown", "nosave")
        proc.wait(timeout=10)


def start_servers(args, kind, tmp):
    """The processes of one cluster-mode kind: (procs, seed port, cluster-aware client)."""
    if kind == "redis":
        port = free_port()
        return [subprocess.Popen(["redis-server", "--port", str(port), "--save", "",
                                  "--appendonly", "no"], stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)], port, False
    if kind == "3-proc":
        ports = [free_port() for _ in range(3)]
        ranges = [(0, 5460), (5461, 10922), (10923, 16383)]
        path = os.path.join(tmp, "slots.json")
        with open(path, "w") as f:
            json.dump({"nodes": [{"ip": "127.0.0.1", "port": p, "slots": [list(r)]}
                                 for p, r in zip(ports, ranges)]}, f)
        procs = [subprocess.Popen([args.ringcache, "--port", str(p), "--threads", "1",
                                   "--cluster-enabled", "yes", "--cluster-config-file", path,
                                   *no_persistence()],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                 for p in ports]
        return procs, ports[0], True
    threads, client = kind.split("-")[1], kind.split("-")[2]
    port = free_port_block(int(threads) + 1)
    argv = [args.ringcache, "--port", str(port), "--threads", threads, *no_persistence()]
    if client == "cluster":
        argv += ["--cluster-enabled", "yes"]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return [proc], port, client == "cluster"


def forwarded(port):
    for line in cli(port, "info", "stats").splitlines():
        if line.startswith("forwarded_commands:"):
            return int(line.split(":")[1])
    return 0


def cluster_point(args, kind, pipeline):
    """(req/s, server us CPU per request, forwarded commands per request)."""
    with tempfile.TemporaryDirectory() as tmp:
        procs, port, aware = start_servers(args, kind, tmp)
        ports = [port]
        try:
            wait_ping(port)
            if kind == "3-proc":
                slots = cli(port, "cluster", "slots").split()
                ports = sorted({int(x) for x in slots[3::5]})
                for p in ports:
                    wait_ping(p)
            mode = ["--cluster"] if aware else []
            subprocess.run([args.loadgen, "--port", str(port), "--threads", "1", "--conns", "6",
                            "--pipeline", "64", "--new-keys", "--requests", "100000",
                            "--seconds", "60"] + mode, capture_output=True, check=True)
            fwd_before = sum(forwarded(p) for p in ports) if kind != "redis" else 0
            before = sum(cpu_seconds(p.pid) for p in procs)
            r = subprocess.run(
                [args.loadgen, "--port", str(port), "--threads", str(args.client_threads),
                 "--conns", str(args.clients), "--pipeline", str(pipeline), "--keys", "100000",
                 "--ratio", "1:10", "--seconds", str(args.seconds)] + mode,
                capture_output=True, text=True, check=True)
            used = sum(cpu_seconds(p.pid) for p in procs) - before
            fwd = (sum(forwarded(p) for p in ports) - fwd_before) if kind != "redis" else 0
            fields = r.stdout.split()
            requests = int(fields[fields.index("requests") + 1])
            rps = float(fields[fields.index("rps") + 1])
            return rps, used / requests * 1e6, fwd / requests
        finally:
            for p in procs:
                p.terminate()
            for p in procs:
                p.wait(timeout=10)


def cluster_mode(args):
    kinds = ["redis", "rc-1-plain", "rc-2-plain", "rc-1-cluster", "rc-2-cluster", "3-proc"]
    results = {}
    for rnd in range(args.rounds):
        order = kinds if rnd % 2 == 0 else kinds[::-1]
        for p in (1, 16):
            for kind in order:
                r = cluster_point(args, kind, p)
                results.setdefault((kind, p), []).append(r)
                print(f"round {rnd + 1} -P {p:2d} {kind:13s} {r[0]:>10.0f} req/s "
                      f"{r[1]:6.2f} us CPU/req {r[2]:6.3f} fwd/req", flush=True)
    print(f"\nmedians of {args.rounds} rounds, loadgen {args.client_threads} threads "
          f"{args.clients} connections, SET:GET 1:10, unpinned")
    print(f"{'':6s} {'server':13s} {'req/s':>10s} {'us CPU/req':>10s} {'fwd/req':>8s} "
          f"{'CPU vs rc-1':>11s} {'rps vs redis':>12s}")
    for p in (1, 16):
        med = {k: tuple(statistics.median(x[i] for x in results[(k, p)]) for i in range(3))
               for k in kinds}
        for k in kinds:
            rps, cpu, fwd = med[k]
            base = med["rc-1-cluster" if k.endswith("cluster") or k == "3-proc"
                       else "rc-1-plain"][1]
            print(f"-P {p:<3d} {k:13s} {rps:10.0f} {cpu:10.2f} {fwd:8.3f} "
                  f"{ratio(cpu, base):11.2f} {rps / med['redis'][0]:12.2f}")


def cpu_mode(args):
    kinds = ["redis", "ringcache-1", "ringcache-2"]
    results = {}
    for rnd in range(args.rounds):
        order = kinds if rnd % 2 == 0 else kinds[::-1]
        for p in (1, 16):
            for kind in order:
                r = cpu_point(args, kind, p)
                results.setdefault((kind, p), []).append(r)
                print(f"round {rnd + 1} -P {p:2d} {kind:12s} {r[0]:>10.0f} req/s "
                      f"{r[1]:6.2f} us CPU/req", flush=True)
    print(f"\nmedians of {args.rounds} rounds, loadgen {args.client_threads} threads "
          f"{args.clients} connections, SET:GET 1:10, unpinned")
    print(f"{'':6s} {'server':12s} {'req/s':>10s} {'us CPU/req':>10s} "
          f"{'CPU vs t1':>9s} {'rps vs t1':>9s} {'rps vs redis':>12s}")
    for p in (1, 16):
        med = {k: (statistics.median(x[0] for x in results[(k, p)]),
                   statistics.median(x[1] for x in results[(k, p)])) for k in kinds}
        t1, redis = med["ringcache-1"], med["redis"]
        for k in kinds:
            rps, cpu = med[k]
            print(f"-P {p:<3d} {k:12s} {rps:10.0f} {cpu:10.2f} {ratio(cpu, t1[1]):9.2f} "
                  f"{rps / t1[0]:9.2f} {rps / redis[0]:12.2f}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ringcache", default="build/ringcache")
    ap.add_argument("--mode", choices=["oversubscribe", "scale", "cpu", "cluster"], default="oversubscribe")
    ap.add_argument("--loadgen", default="build/bench/loadgen")
    ap.add_argument("--seconds", type=float, default=5, help="run length (cpu mode)")
    ap.add_argument("--threads", default="1,2,4,8")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--requests", type=int, default=1000000)
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--pipeline", type=int, default=16)
    ap.add_argument("--client-threads", type=int, default=1)
    ap.add_argument("--cpus", type=int, default=16, help="cpus on the machine (scale mode)")
    args = ap.parse_args()
    if args.mode == "cpu":
        return cpu_mode(args)
    if args.mode == "cluster":
        return cluster_mode(args)

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
