#!/usr/bin/env python3
"""Replication: ringcache against redis-server, as master and as replica
(docs/REPLICATION.md).

  python3 bench/replication.py [--keys 1000000] [--rounds 3] [--threads 2]
                               [--lag-seconds 3] [--masters redis-yes,redis-no,ringcache]

Each round starts a master holding --keys keys ("key:N", 32-byte values): redis-server
with repl-diskless-sync yes or no, or ringcache --threads N (its snapshot goes from a
file). Then for each replica kind (redis-server, ringcache --threads N) in turn:

- sync: seconds from REPLICAOF to the replica's link up with the master's offset applied
  and every key there (a full sync: the snapshot, diskless or from a file, and its load);
- lag: while redis-benchmark writes SETs to the master (50 connections, pipeline 16), a
  probe SETs a key on the master every 10 ms and times until the replica has it; p50 and
  p99 of those delays.

- rate: the master's SET/s under that load, over its rate with no replica attached.

Nothing is pinned: master, replica and load share the machine's cpus. Prints medians
and ringcache's figures over redis-server's.
"""

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

import redis

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from vs_redis import cli, free_port, wait_ping  # noqa: E402


def start(argv, port):
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_ping(port, timeout=60)
    return proc


def stop(proc, port):
    cli(port, "shutdown", "nosave")
    try:
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def synced(m, r, keys):
    info = r.info("replication")
    return (info.get("master_link_status") == "up"
            and info["slave_repl_offset"] == m.info("replication")["master_repl_offset"]
            and r.dbsize() == keys)


def measure_sync(m, r, master_port, keys):
    t0 = time.monotonic()
    r.replicaof("127.0.0.1", master_port)
    while not synced(m, r, keys):
        time.sleep(0.005)
    return time.monotonic() - t0


def fill(port, keys):
    """SET key:N for N below `keys`, 32-byte values, through redis-cli --pipe."""
    value = "v" * 32
    chunks = []
    for i in range(keys):
        k = f"key:{i}"
        chunks.append(f"*3\r\n$3\r\nSET\r\n${len(k)}\r\n{k}\r\n$32\r\n{value}\r\n")
    subprocess.run(["redis-cli", "-p", str(port), "--pipe"], input="".join(chunks).encode(),
                   stdout=subprocess.DEVNULL, check=True)


def start_load(master_port):
    return subprocess.Popen(["redis-benchmark", "-p", str(master_port), "-t", "set", "-c", "50",
                             "-P", "16", "-r", "100000", "-n", "100000000", "-q"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def set_rate(m, seconds):
    """The master's SET/s over `seconds`, from its commandstats."""
    def calls():
        return m.info("commandstats").get("cmdstat_set", {}).get("calls", 0)
    c0, t0 = calls(), time.monotonic()
    time.sleep(seconds)
    return (calls() - c0) / (time.monotonic() - t0)


def measure_rate_alone(m, master_port, seconds):
    load = start_load(master_port)
    try:
        time.sleep(0.3)
        return set_rate(m, seconds)
    finally:
        load.terminate()
        load.wait()


def measure_lag(m, r, master_port, seconds):
    load = start_load(master_port)
    delays = []
    rate = []
    try:
        time.sleep(0.3)
        deadline = time.monotonic() + seconds
        t0, c0 = time.monotonic(), m.info("commandstats").get("cmdstat_set", {}).get("calls", 0)
        i = 0
        while time.monotonic() < deadline:
            key = f"probe:{i}"
            t_probe = time.monotonic()
            m.set(key, i)
            while r.get(key) is None:
                if time.monotonic() - t_probe > 10:
                    raise RuntimeError("the replica did not get a probe within 10 s")
            delays.append((time.monotonic() - t_probe) * 1000)
            i += 1
            time.sleep(0.01)
        c1 = m.info("commandstats").get("cmdstat_set", {}).get("calls", 0)
        rate.append((c1 - c0 - i) / (time.monotonic() - t0))
    finally:
        load.terminate()
        load.wait()
    delays.sort()
    return delays[len(delays) // 2], delays[int(len(delays) * 0.99)], rate[0]


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--ringcache", default="build/ringcache")
    p.add_argument("--keys", type=int, default=1_000_000)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--lag-seconds", type=float, default=3)
    p.add_argument("--masters", default="redis-yes,redis-no,ringcache")
    args = p.parse_args()
    results = {}
    d = tempfile.mkdtemp(prefix="replication-bench-")
    try:
        for master_kind in args.masters.split(","):
            for _ in range(args.rounds):
                mport = free_port()
                if master_kind == "ringcache":
                    argv = [args.ringcache, "--port", str(mport), "--threads", str(args.threads)]
                else:
                    argv = ["redis-server", "--port", str(mport), "--repl-diskless-sync",
                            master_kind.split("-")[1], "--repl-diskless-sync-delay", "0"]
                master = start(argv + ["--dir", d, "--save", ""], mport)
                m = redis.Redis(port=mport)
                try:
                    fill(mport, args.keys)
                    alone = measure_rate_alone(m, mport, args.lag_seconds)
                    for kind in ("redis", "ringcache"):
                        m.flushall()
                        fill(mport, args.keys)
                        rport = free_port()
                        rdir = tempfile.mkdtemp(dir=d)
                        if kind == "redis":
                            argv = ["redis-server", "--port", str(rport)]
                        else:
                            argv = [args.ringcache, "--port", str(rport), "--threads",
                                    str(args.threads)]
                        replica = start(argv + ["--dir", rdir, "--save", ""], rport)
                        r = redis.Redis(port=rport)
                        try:
                            sync = measure_sync(m, r, mport, args.keys)
                            p50, p99, rate = measure_lag(m, r, mport, args.lag_seconds)
                        finally:
                            stop(replica, rport)
                            shutil.rmtree(rdir, ignore_errors=True)
                        row = results.setdefault((master_kind, kind),
                                                 {"sync": [], "p50": [], "p99": [], "rate": []})
                        row["sync"].append(sync)
                        row["p50"].append(p50)
                        row["p99"].append(p99)
                        row["rate"].append(rate / alone)
                finally:
                    stop(master, mport)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    print(f"{args.keys} keys, ringcache --threads {args.threads}, medians of {args.rounds}")
    print("master      replica    sync s   lag p50 ms  lag p99 ms  master rate w/ / w/o replica")
    med = {k: {f: statistics.median(v) for f, v in row.items()} for k, row in results.items()}
    for (master_kind, kind), row in sorted(med.items()):
        print(f"{master_kind:10}  {kind:9} {row['sync']:7.2f}  {row['p50']:10.2f}  "
              f"{row['p99']:10.2f}  {row['rate']:6.2f}")
    for master_kind in args.masters.split(","):
        a, b = med[(master_kind, "ringcache")], med[(master_kind, "redis")]
        print(f"master {master_kind}: ringcache/redis replica sync time "
              f"{a['sync'] / b['sync']:.2f}, lag p99 {a['p99'] / b['p99']:.2f}")


if __name__ == "__main__":
    main()
