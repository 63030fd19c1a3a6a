#!/usr/bin/env python3
"""Hashes and sets, ringcache vs redis-server in the same run: memory per element and
-P 16 throughput and server CPU per request, as ratios.

Memory (used_memory growth while loading, per element), each on a fresh server:
  hashes   --hashes hashes of 5 fields (8-byte field, 16-byte value), keys hash:%07d
  bighash  one hash of --elements fields (f%07d -> 16-byte value)
  strset   one set of --elements members member:%08d
  intset   one set of --elements integer members (i * 7)
Throughput: on the bighash and strset servers, redis-benchmark (pinned to --client-cpu,
the server to --server-cpu) runs -n requests from 50 clients with -P --pipeline:
  HSET big f<rand> <16 bytes>   HGET big f<rand>   SADD s member:<rand>
  SISMEMBER s member:<rand>
Medians of --rounds rounds; servers alternate in each round.
"""

import argparse
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from expiry import Conn, resp  # noqa: E402
from vs_redis import cpu_seconds, info_field, ratio, start  # noqa: E402

VALUE = b"value-0123456789"  # 16 bytes


def send_batches(port, commands, batch=1000):
    """Sends the commands pipelined, `batch` at a time, and checks none failed."""
    c = Conn(port)
    buf, pending = [], 0
    for cmd in commands:
        buf.append(resp(*cmd))
        pending += 1
        if pending == batch:
            c.s.sendall(b"".join(buf))
            for _ in range(pending):
                head = c.reply()
                if head.startswith(b"-"):
                    raise RuntimeError(head)
            buf, pending = [], 0
    if pending:
        c.s.sendall(b"".join(buf))
        for _ in range(pending):
            c.reply()
    c.s.close()


def load(kind_of_data, port, args):
    n = args.elements
    if kind_of_data == "hashes":
        return args.hashes, (
            [b"HSET", b"hash:%07d" % i] + [x for j in range(5) for x in (b"field%03d" % j, VALUE)]
            for i in range(args.hashes))
    if kind_of_data == "bighash":
        return n, ([b"HSET", b"big"] + [x for i in range(lo, min(lo + 100, n))
                                        for x in (b"f%07d" % i, VALUE)]
                   for lo in range(0, n, 100))
    if kind_of_data == "strset":
        return n, ([b"SADD", b"s"] + [b"member:%08d" % i for i in range(lo, min(lo + 100, n))]
                   for lo in range(0, n, 100))
    return n, ([b"SADD", b"i"] + [b"%d" % (i * 7) for i in range(lo, min(lo + 100, n))]
               for lo in range(0, n, 100))


def run(server, args, command):
    before = cpu_seconds(server.proc.pid)
    out = subprocess.run(
        ["taskset", "-c", args.client_cpu, "redis-benchmark", "-p", str(server.port),
         "-n", str(args.requests), "-c", "50", "-r", str(args.elements), "-P",
         str(args.pipeline), "--csv", "-q"] + command,
        capture_output=True, text=True, check=True)
    used = cpu_seconds(server.proc.pid) - before
    for line in out.stdout.splitlines():
        parts = [p.strip('"') for p in line.split(",")]
        if len(parts) > 1:
            try:
                return float(parts[1]), used / args.requests * 1e6
            except ValueError:
                continue
    raise RuntimeError(f"no result from redis-benchmark: {out.stdout} {out.stderr}")


TESTS = {
    "bighash": [("HSET", ["HSET", "big", "f__rand_int__", VALUE.decode()]),
                ("HGET", ["HGET", "big", "f__rand_int__"])],
    "strset": [("SADD", ["SADD", "s", "member:__rand_int__"]),
               ("SISMEMBER", ["SISMEMBER", "s", "member:__rand_int__"])],
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ringcache", default="build/ringcache")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--hashes", type=int, default=1000000)
    ap.add_argument("--elements", type=int, default=1000000)
    ap.add_argument("--requests", type=int, default=1000000, help="0: memory only")
    ap.add_argument("--pipeline", type=int, default=16)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--server-cpu", default="0")
    ap.add_argument("--client-cpu", default="1")
    ap.add_argument("--only", default="hashes,bighash,strset,intset")
    args = ap.parse_args()
    os.sched_setaffinity(0, {int(args.client_cpu)})

    mem, rps, cpu = {}, {}, {}
    for rnd in range(args.rounds):
        for data in args.only.split(","):
            for kind in (["redis", "ringcache"] if rnd % 2 == 0 else ["ringcache", "redis"]):
                server = start(kind, args)
                try:
                    used0 = info_field(server.port, "used_memory")
                    count, commands = load(data, server.port, args)
                    send_batches(server.port, commands)
                    per = (info_field(server.port, "used_memory") - used0) / count
                    mem.setdefault((data, kind), []).append(per)
                    print(f"round {rnd + 1} {kind:9s} {data:8s} {per:7.1f} B/element", flush=True)
                    for name, command in TESTS.get(data, []) if args.requests else []:
                        r, c = run(server, args, command)
                        rps.setdefault((name, kind), []).append(r)
                        cpu.setdefault((name, kind), []).append(c)
                        print(f"round {rnd + 1} {kind:9s} {name:10s} {r:12.0f} req/s "
                              f"{c:6.2f} µs CPU/req", flush=True)
                finally:
                    server.stop()

    med = statistics.median
    print(f"\nmedians of {args.rounds} rounds (ringcache --threads {args.threads})")
    print(f"{'memory':10s} {'redis B':>9s} {'ringcache B':>12s} {'ratio':>6s}")
    for data in args.only.split(","):
        r, g = med(mem[(data, "redis")]), med(mem[(data, "ringcache")])
        print(f"{data:10s} {r:9.1f} {g:12.1f} {g / r:6.2f}")
    print(f"\n-P {args.pipeline}    {'redis req/s':>12s} {'ringcache':>12s} {'ratio':>6s}   "
          f"{'redis µs':>8s} {'rc µs':>6s} {'CPU ratio':>9s}")
    for data in args.only.split(",") if args.requests else []:
        for name, _ in TESTS.get(data, []):
            r, g = med(rps[(name, "redis")]), med(rps[(name, "ringcache")])
            rc, gc = med(cpu[(name, "redis")]), med(cpu[(name, "ringcache")])
            print(f"{name:10s} {r:12.0f} {g:12.0f} {g / r:6.2f}   {rc:8.2f} {gc:6.2f} {ratio(gc, rc):9.2f}")


if __name__ == "__main__":
    main()
