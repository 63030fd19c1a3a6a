#!/usr/bin/env python3
"""Lists, ringcache vs redis-server in the same run: memory per list and per element, and
LRANGE 0 99 throughput at -P 16, as ratios.

Memory (used_memory growth while loading, each on a fresh server):
  lists5   --lists lists of 5 short elements (e0..e4), keys list:%07d, per list
  bigint   one list of --elements integers (0, 1, 2, ...), per element
  bigstr   one list of --elements strings item:%08d, per element
  bigxxx   one list of --elements copies of "xxx" (redis-benchmark's LPUSH payload)
Throughput: a fresh server holding one list of 10k "xxx" elements; redis-benchmark
(pinned to --client-cpu, the server to --server-cpu) runs -n requests of
LRANGE mylist 0 99 from 50 clients with -P --pipeline. Medians of --rounds rounds;
servers alternate in each round.
"""

import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hash_set import run, send_batches  # noqa: E402
from vs_redis import info_field, ratio, start  # noqa: E402


def load(data, args):
    n = args.elements
    if data == "lists5":
        return args.lists, ([b"RPUSH", b"list:%07d" % i] + [b"e%d" % j for j in range(5)]
                            for i in range(args.lists))
    make = {"bigint": lambda i: b"%d" % i, "bigstr": lambda i: b"item:%08d" % i,
            "bigxxx": lambda i: b"xxx"}[data]
    return n, ([b"RPUSH", b"big"] + [make(i) for i in range(lo, min(lo + 1000, n))]
               for lo in range(0, n, 1000))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ringcache", default="build/ringcache")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--lists", type=int, default=1000000)
    ap.add_argument("--elements", type=int, default=10000000)
    ap.add_argument("--requests", type=int, default=400000, help="0: memory only")
    ap.add_argument("--pipeline", type=int, default=16)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--server-cpu", default="0")
    ap.add_argument("--client-cpu", default="1")
    ap.add_argument("--only", default="lists5,bigint,bigstr,bigxxx")
    args = ap.parse_args()
    os.sched_setaffinity(0, {int(args.client_cpu)})

    mem, rps, cpu = {}, {}, {}
    for rnd in range(args.rounds):
        for kind in (["redis", "ringcache"] if rnd % 2 == 0 else ["ringcache", "redis"]):
            for data in args.only.split(","):
                server = start(kind, args)
                try:
                    used0 = info_field(server.port, "used_memory")
                    count, commands = load(data, args)
                    send_batches(server.port, commands, batch=200)
                    per = (info_field(server.port, "used_memory") - used0) / count
                    mem.setdefault((data, kind), []).append(per)
                    print(f"round {rnd + 1} {kind:9s} {data:8s} {per:8.2f} B", flush=True)
                finally:
                    server.stop()
            if args.requests:
                server = start(kind, args)
                try:
                    send_batches(server.port, ([b"RPUSH", b"mylist"] + [b"xxx"] * 1000
                                               for _ in range(10)))
                    r, c = run(server, args, ["LRANGE", "mylist", "0", "99"])
                    rps.setdefault(kind, []).append(r)
                    cpu.setdefault(kind, []).append(c)
                    print(f"round {rnd + 1} {kind:9s} LRANGE 0 99 {r:10.0f} req/s "
                          f"{c:6.2f} µs CPU/req", flush=True)
                finally:
                    server.stop()

    med = statistics.median
    print(f"\nmedians of {args.rounds} rounds (ringcache --threads {args.threads})")
    print(f"{'memory':10s} {'redis B':>9s} {'ringcache B':>12s} {'ratio':>6s}")
    for data in args.only.split(","):
        r, g = med(mem[(data, "redis")]), med(mem[(data, "ringcache")])
        print(f"{data:10s} {r:9.2f} {g:12.2f} {g / r:6.2f}")
    if args.requests:
        r, g = med(rps["redis"]), med(rps["ringcache"])
        rc, gc = med(cpu["redis"]), med(cpu["ringcache"])
        print(f"\nLRANGE mylist 0 99 (10k elements), -P {args.pipeline}: redis {r:.0f} req/s, "
              f"ringcache {g:.0f} req/s, ratio {g / r:.2f}; CPU µs/req {rc:.2f} vs {gc:.2f} "
              f"({ratio(gc, rc):.2f})")


if __name__ == "__main__":
    main()
