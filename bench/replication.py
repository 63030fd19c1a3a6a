#!/usr/bin/env python3
"""A replica of redis-server: ringcache against redis-server (docs/REPLICATION.md).

  python3 bench/replication.py [--keys 1000000] [--rounds 3] [--threads 2]
                               [--lag-seconds 3] [--diskless yes,no]

Each round starts a redis-server master holding --keys keys (DEBUG POPULATE: "key:N",
32-byte values), then for each replica kind (redis-server, ringcache --threads N) in turn:

- sync: seconds from REPLICAOF to the replica's link up with the master's offset applied
  and every key there (a full sync: the snapshot, diskless or from a file, and its load);
- lag: while redis-benchmark writes SETs to the master (50 connections, pipeline 16), a
  probe SETs a key on the master every 10 ms and times until the replica has it; p50 and
  p99 of those delays.

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


def measure_lag(m, r, master_port, seconds):
    load = subprocess.Popen(["redis-benchmark", "-p", str(master_port), "-t", "set", "-c", "50",
                             "-P", "16", "-r", "100000", "-n", "100000000", "-q"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    delays = []
    try:
        time.sleep(0.3)
        deadline = time.monotonic() + seconds
        i = 0
        while time.monotonic() < deadline:
            key = f"probe:{i}"
            t0 = time.monotonic()
            m.set(key, i)
            while r.get(key) is None:
                if time.monotonic() - t0 > 10:
                    raise RuntimeError("the replica did not get a probe within 10 s")
            delays.append((time.monotonic() - t0) * 1000)
            i += 1
            time.sleep(0.01)
    finally:
        load.terminate()
        load.wait()
    delays.sort()
    return delays[len(delays) // 2], delays[int(len(delays) * 0.99)]


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--ringcache", default="build/ringcache")
    p.add_argument("--keys", type=int, default=1_000_000)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--lag-seconds", type=float, default=3)
    p.add_argument("--diskless", default="yes,no")
    args = p.parse_args()
    results = {}
    d = tempfile.mkdtemp(prefix="replication-bench-")
    try:
        for diskless in args.diskless.split(","):
            for _ in range(args.rounds):
                mport = free_port()
                master = start(["redis-server", "--port", str(mport), "--dir", d, "--save", "",
                                "--enable-debug-command", "yes", "--repl-diskless-sync", diskless,
                                "--repl-diskless-sync-delay", "0"], mport)
                m = redis.Redis(port=mport)
                try:
                    m.execute_command("DEBUG", "POPULATE", args.keys, "key", 32)
                    for kind in ("redis", "ringcache"):
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
                            p50, p99 = measure_lag(m, r, mport, args.lag_seconds)
                        finally:
                            stop(replica, rport)
                            shutil.rmtree(rdir, ignore_errors=True)
                        m.flushall()
                        m.execute_command("DEBUG", "POPULATE", args.keys, "key", 32)
                        row = results.setdefault((diskless, kind), {"sync": [], "p50": [], "p99": []})
                        row["sync"].append(sync)
                        row["p50"].append(p50)
                        row["p99"].append(p99)
                finally:
                    stop(master, mport)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    print(f"{args.keys} keys, ringcache --threads {args.threads}, medians of {args.rounds}")
    print("diskless  replica    sync s   lag p50 ms  lag p99 ms")
    med = {k: {f: statistics.median(v) for f, v in row.items()} for k, row in results.items()}
    for (diskless, kind), row in sorted(med.items()):
        print(f"{diskless:8}  {kind:9} {row['sync']:7.2f}  {row['p50']:10.2f}  {row['p99']:10.2f}")
    for diskless in args.diskless.split(","):
        a, b = med[(diskless, "ringcache")], med[(diskless, "redis")]
        print(f"diskless {diskless}: ringcache/redis sync time {a['sync'] / b['sync']:.2f}, "
              f"lag p99 {a['p99'] / b['p99']:.2f}")


if __name__ == "__main__":
    main()
