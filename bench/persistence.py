#!/usr/bin/env python3
"""Snapshots against redis-server's fork (docs/PERSISTENCE.md "Measurements").

  python3 bench/persistence.py [--keys 1000000] [--rounds 3] [--threads 2]

Per server and round, on --keys keys (12-byte keys, 32-byte values, every tenth with a
TTL), server pinned to --server-cpu and the load to --client-cpu:
  - BGSAVE on a quiet server: seconds until rdb_bgsave_in_progress is 0, file size;
  - BGSAVE under a SET:GET 1:10 pipeline-16 load (build/bench/loadgen): the load's
    throughput while the save runs over the same load's without one, and the memory the
    save cost: for redis-server the child's copy-on-write (rdb_last_cow_size), for
    ringcache the growth of its RSS over the save plus what it queued for the file
    (rdb_last_cow_size there);
  - the file loaded at start: keys per second from spawn to the first PONG.
Prints medians of the rounds and ringcache's ratios to redis-server's.
"""

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from vs_redis import cli, free_port, rss_bytes, wait_ping  # noqa: E402


def info(port, section="persistence"):
    out = {}
    for line in cli(port, "info", section).splitlines():
        if ":" in line:
            k, v = line.strip().split(":", 1)
            out[k] = v
    return out


def load(port, keys):
    """SET every key, EX on every tenth, pipelined."""
    value = b"v" * 32
    sock = socket.create_connection(("127.0.0.1", port))
    batch = 1000
    for start in range(0, keys, batch):
        buf = bytearray()
        n = min(start + batch, keys) - start
        for i in range(start, start + n):
            key = b"key:%08d" % i
            if i % 10 == 0:
                buf += (b"*5\r\n$3\r\nSET\r\n$12\r\n" + key + b"\r\n$32\r\n" + value +
                        b"\r\n$2\r\nEX\r\n$6\r\n100000\r\n")
            else:
                buf += b"*3\r\n$3\r\nSET\r\n$12\r\n" + key + b"\r\n$32\r\n" + value + b"\r\n"
        sock.sendall(buf)
        got = 0
        while got < 5 * n:
            got += len(sock.recv(1 << 20))
    sock.close()


def argv_for(kind, args, port, d):
    pin = ["taskset", "-c", args.server_cpu]
    if kind == "redis":
        return pin + ["redis-server", "--port", str(port), "--save", "", "--appendonly", "no",
                      "--dir", d]
    return pin + [args.ringcache, "--port", str(port), "--threads", str(args.threads),
                  "--save", "", "--dir", d]


def spawn(kind, args, d):
    port = free_port()
    proc = subprocess.Popen(argv_for(kind, args, port, d), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    return proc, port


def bgsave(port, pid, sample_rss=False):
    """Seconds the BGSAVE took, and the most RSS grew meanwhile (when sampled)."""
    rss0 = rss_bytes(pid) if sample_rss else 0
    peak = rss0
    start = time.monotonic()
    cli(port, "bgsave")
    while True:
        if sample_rss:
            peak = max(peak, rss_bytes(pid))
        if info(port).get("rdb_bgsave_in_progress") == "0":
            return time.monotonic() - start, peak - rss0
        time.sleep(0.005)


def loadgen(args, port, seconds):
    out = subprocess.run(
        ["taskset", "-c", args.client_cpu, args.loadgen, "--port", str(port), "--threads", "1",
         "--conns", "50", "--pipeline", "16", "--keys", str(args.keys), "--ratio", "1:10",
         "--value-size", "32", "--seconds", str(seconds)],
        capture_output=True, text=True, check=True)
    for line in out.stdout.splitlines():
        if line.startswith("requests "):
            return float(line.split()[5])
    raise RuntimeError("no result from loadgen: " + out.stdout + out.stderr)


def round_for(kind, args):
    d = tempfile.mkdtemp(prefix="persist-bench-")
    r = {}
    try:
        proc, port = spawn(kind, args, d)
        wait_ping(port, timeout=60)
        load(port, args.keys)
        r["quiet_s"], _ = bgsave(port, proc.pid)
        r["file_mb"] = os.path.getsize(os.path.join(d, "dump.rdb")) / 1e6
        # The same load twice, the second with a BGSAVE started once it runs.
        seconds = max(args.min_seconds, int(r["quiet_s"] * 2 + 1))
        r["base_rps"] = loadgen(args, port, seconds)
        result = {}
        t = threading.Thread(target=lambda: result.update(rps=loadgen(args, port, seconds)))
        t.start()
        time.sleep(0.5)
        r["loaded_s"], grew = bgsave(port, proc.pid, sample_rss=kind != "redis")
        t.join()
        r["save_rps"] = result["rps"]
        cow = int(info(port).get("rdb_last_cow_size", "0"))
        r["mem_mb"] = (cow + grew) / 1e6
        cli(port, "shutdown", "nosave")
        proc.wait(timeout=60)
        # Loading at start: spawn to first PONG.
        start = time.monotonic()
        proc, port = spawn(kind, args, d)
        wait_ping(port, timeout=300)
        r["load_kps"] = args.keys / (time.monotonic() - start) / 1000
        cli(port, "shutdown", "nosave")
        proc.wait(timeout=60)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    return r


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--ringcache", default="build/ringcache")
    p.add_argument("--loadgen", default="build/bench/loadgen")
    p.add_argument("--keys", type=int, default=1_000_000)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--server-cpu", default="0")
    p.add_argument("--client-cpu", default="1")
    p.add_argument("--min-seconds", type=int, default=3, help="shortest load run")
    args = p.parse_args()
    rows = {"redis": [], "ringcache": []}
    for _ in range(args.rounds):
        for kind in rows:
            rows[kind].append(round_for(kind, args))
    fields = [("quiet_s", "BGSAVE quiet, s"), ("loaded_s", "BGSAVE under load, s"),
              ("file_mb", "file, MB"), ("mem_mb", "memory the save cost, MB"),
              ("base_rps", "load without save, req/s"), ("save_rps", "load during save, req/s"),
              ("load_kps", "load at start, k keys/s")]
    print(f"{args.keys} keys, medians of {args.rounds} rounds, ringcache --threads "
          f"{args.threads}, server on cpu {args.server_cpu}, load on cpu {args.client_cpu}")
    print(f"{'':28} {'redis':>12} {'ringcache':>12} {'ratio':>8}")
    for key, label in fields:
        a = statistics.median(r[key] for r in rows["redis"])
        b = statistics.median(r[key] for r in rows["ringcache"])
        print(f"{label:28} {a:12.2f} {b:12.2f} {b / a if a else float('nan'):8.2f}")
    for kind in rows:
        during = statistics.median(r["save_rps"] / r["base_rps"] for r in rows[kind])
        print(f"{kind}: throughput during the save / without: {during:.2f}")


if __name__ == "__main__":
    main()
