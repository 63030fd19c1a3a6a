#!/usr/bin/env python3
"""Sorted-set throughput and memory, ringcache vs redis-server in the same run.

Each server gets one sorted set `big` of --members members named like redis-benchmark's
__rand_int__ (`member:000000123456`, random scores), then redis-benchmark (pinned to
--client-cpu, the server to --server-cpu) runs, per command, -n requests from 50 clients
with -P pipelining:
  ZADD big <rand> member:<rand>    (mostly updates of existing members, some inserts)
  ZSCORE big member:<rand>
  ZRANK big member:<rand>
  ZRANGE big <mid> <mid+9>         (10 members by rank at the middle of the set)
Reported: requests/s and server CPU µs per request, medians of --rounds rounds, with the
ringcache/redis ratios; plus used_memory growth per member from loading the set.
"""

import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vs_redis import bench_command, info_field, ratio, start  # noqa: E402
from zset_del import load  # noqa: E402


def run(server, args, name, command):
    return bench_command(server, command, args.requests, args.members, args.pipeline,
                         args.client_cpu)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ringcache", default="build/ringcache")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--members", type=int, default=1000000)
    ap.add_argument("--requests", type=int, default=500000)
    ap.add_argument("--pipeline", type=int, default=16)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--server-cpu", default="0")
    ap.add_argument("--client-cpu", default="1")
    args = ap.parse_args()
    os.sched_setaffinity(0, {int(args.client_cpu)})

    mid = args.members // 2
    tests = [
        ("ZADD", ["ZADD", "big", "__rand_int__", "member:__rand_int__"]),
        ("ZSCORE", ["ZSCORE", "big", "member:__rand_int__"]),
        ("ZRANK", ["ZRANK", "big", "member:__rand_int__"]),
        ("ZRANGE mid 10", ["ZRANGE", "big", str(mid), str(mid + 9)]),
    ]
    rps = {(k, t): [] for k in ("redis", "ringcache") for t, _ in tests}
    cpu = {(k, t): [] for k in ("redis", "ringcache") for t, _ in tests}
    mem = {"redis": [], "ringcache": []}
    for rnd in range(args.rounds):
        for kind in (["redis", "ringcache"] if rnd % 2 == 0 else ["ringcache", "redis"]):
            server = start(kind, args)
            try:
                used0 = info_field(server.port, "used_memory")
                load(server.port, args.members, name=b"member:%012d")
                mem[kind].append((info_field(server.port, "used_memory") - used0) / args.members)
                for name, command in tests:
                    r, c = run(server, args, name, command)
                    rps[(kind, name)].append(r)
                    cpu[(kind, name)].append(c)
                    print(f"round {rnd + 1} {kind:9s} {name:14s} {r:12.0f} req/s "
                          f"{c:6.2f} µs CPU/req", flush=True)
            finally:
                server.stop()

    print(f"\nsorted set of {args.members} members, -P {args.pipeline}, 50 clients, medians of "
          f"{args.rounds} rounds (ringcache --threads {args.threads})")
    print(f"{'':14s} {'redis req/s':>12s} {'ringcache':>12s} {'ratio':>6s}   "
          f"{'CPU/req ratio':>13s}")
    for name, _ in tests:
        r = statistics.median(rps[("redis", name)])
        g = statistics.median(rps[("ringcache", name)])
        rc = statistics.median(cpu[("redis", name)])
        gc = statistics.median(cpu[("ringcache", name)])
        print(f"{name:14s} {r:12.0f} {g:12.0f} {g / r:6.2f}   {ratio(gc, rc):13.2f}")
    r, g = statistics.median(mem["redis"]), statistics.median(mem["ringcache"])
    print(f"\nused_memory per member: redis {r:.1f} B, ringcache {g:.1f} B ({g / r:.2f}x)")


if __name__ == "__main__":
    main()
