#!/usr/bin/env python3
"""Lua scripting, ringcache vs redis-server in the same run (docs/SCRIPTING.md).

Servers alternate within every round and run pinned to --server-cpu, the clients to
--client-cpu. Reported: medians of --rounds rounds and ringcache/redis ratios; with
--luajit, a ringcache built with -DRINGCACHE_LUA=luajit runs in every round too.

  evalsha  redis-benchmark, 50 clients at -P 16: EVALSHA of the fixed-window limiter
           (INCR, then EXPIRE on the first hit) over --range keys; calls/s and server
           CPU us per call. `incr` is the same load as plain INCR, for scale.
  loop     EVALSHA of a keyless script that loops 1000 times (the interpreter alone),
           --requests / 10 calls at -P 16.
  lock     redis-py's Lock from --clients clients (threads spread over --procs
           processes), each taking and releasing its own lock in a loop: a SET NX PX and
           an EVALSHA of redis-py's release script per round trip; locks/s and CPU us.
  multi    redis-benchmark, 50 clients at -P 16: EVALSHA of a script moving an amount
           between four counters drawn from --range (DECRBY, INCRBY, DECRBY, INCRBY),
           --requests / 5 calls. With ringcache --multi-threads threads too (server
           "rc-<N>t"): its four keys then span shards (all on one with probability
           3/81 at 3 threads), so it runs under the multi-shard locks
           (docs/SCRIPTING.md).
"""

import argparse
import copy
import multiprocessing
import os
import statistics
import sys
import threading
import time
from queue import Empty

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vs_redis import bench_command, cli, cpu_seconds, ratio, start  # noqa: E402

LIMITER = ("local n = redis.call('INCR', KEYS[1]) "
           "if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end return n")


# Interpreter-bound: 1000 rounds of arithmetic and a table, no command.
LOOP = ("local t, s = {}, 0 for i = 1, 1000 do t[i % 16 + 1] = i s = s + (t[i % 7 + 1] or 0) end "
        "return s")


# Four keys, one command on each.
TRANSFER4 = ("local a = redis.call('DECRBY', KEYS[1], ARGV[1]) "
             "local b = redis.call('INCRBY', KEYS[2], ARGV[1]) "
             "local c = redis.call('DECRBY', KEYS[3], ARGV[1]) "
             "local d = redis.call('INCRBY', KEYS[4], ARGV[1]) return a + b + c + d")


def evalsha(server, args):
    sha = cli(server.port, "script", "load", LIMITER).strip()
    assert len(sha) == 40, sha
    return bench_command(server, ["EVALSHA", sha, "1", "rl:__rand_int__", "60"], args.requests,
                         args.range, 16, args.client_cpu)


def loop(server, args):
    sha = cli(server.port, "script", "load", LOOP).strip()
    return bench_command(server, ["EVALSHA", sha, "0"], args.requests // 10, args.range, 16,
                         args.client_cpu)


def multi(server, args):
    sha = cli(server.port, "script", "load", TRANSFER4).strip()
    keys = ["c%d:__rand_int__" % i for i in range(4)]
    return bench_command(server, ["EVALSHA", sha, "4"] + keys + ["1"], args.requests // 5,
                         args.range, 16, args.client_cpu)


def incr(server, args):
    return bench_command(server, ["INCR", "rl:__rand_int__"], args.requests, args.range, 16,
                         args.client_cpu)


def lock_worker(port, first, threads, seconds, cpus, queue):
    import redis  # Debian's python3-redis
    os.sched_setaffinity(0, cpus)
    counts = [0] * threads

    def loop(i):
        r = redis.Redis(port=port)
        lock = r.lock("lock:%d" % (first + i), timeout=10)
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if not lock.acquire(blocking=False):
                raise RuntimeError("lock:%d was taken" % (first + i))
            lock.release()
            counts[i] += 1
        r.close()

    workers = [threading.Thread(target=loop, args=(i,)) for i in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    queue.put(sum(counts))


def lock(server, args):
    queue = multiprocessing.Queue()
    cpus = {int(c) for c in args.client_cpu.split(",")}
    per = args.clients // args.procs
    before = cpu_seconds(server.proc.pid)
    t0 = time.monotonic()
    procs = [multiprocessing.Process(target=lock_worker, args=(
        server.port, p * per, per, args.seconds, cpus, queue)) for p in range(args.procs)]
    for p in procs:
        p.start()
    total = 0
    for _ in procs:
        try:
            total += queue.get(timeout=args.seconds + 30)
        except Empty:
            raise RuntimeError("a lock client process died: exit codes "
                               f"{[p.exitcode for p in procs]}") from None
    for p in procs:
        p.join()
    elapsed = time.monotonic() - t0
    used = cpu_seconds(server.proc.pid) - before
    return total / elapsed, used / total * 1e6


BENCHES = {"evalsha": evalsha, "incr": incr, "loop": loop, "lock": lock, "multi": multi}


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ringcache", default="build/ringcache")
    ap.add_argument("--luajit", help="a ringcache built with -DRINGCACHE_LUA=luajit")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--server-cpu", default="0")
    ap.add_argument("--client-cpu", default="1")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--requests", type=int, default=1000000, help="per evalsha/incr run")
    ap.add_argument("--range", type=int, default=100000, help="keys the limiter spreads over")
    ap.add_argument("--clients", type=int, default=50, help="lock clients")
    ap.add_argument("--procs", type=int, default=5, help="processes the lock clients use")
    ap.add_argument("--seconds", type=float, default=5, help="per lock run")
    ap.add_argument("--multi-threads", type=int, default=3,
                    help="threads of the extra ringcache that runs `multi` over shards")
    ap.add_argument("benches", nargs="*",
                    default=["evalsha", "incr", "loop", "lock", "multi"])
    args = ap.parse_args()

    names = ["redis", "ringcache"] + (["luajit"] if args.luajit else [])
    sharded = "rc-%dt" % args.multi_threads
    if "multi" in args.benches and args.multi_threads > 1:
        names.append(sharded)
    results = {}  # (server, bench) -> [(per second, cpu us)]
    for rnd in range(args.rounds):
        for name in (names if rnd % 2 == 0 else names[::-1]):
            server_args = copy.copy(args)
            if name == "luajit":
                server_args.ringcache = args.luajit
            if name == sharded:
                server_args.threads = args.multi_threads
            server = start(name, server_args)
            try:
                for b in args.benches:
                    if name == sharded and b != "multi":
                        continue
                    r = BENCHES[b](server, args)
                    results.setdefault((name, b), []).append(r)
                    print(f"round {rnd + 1} {name:9s} {b:8s} {r[0]:>10.0f}/s "
                          f"{r[1]:7.2f} us CPU each", flush=True)
            finally:
                server.stop()

    print(f"\nmedians of {args.rounds} rounds, ringcache --threads {args.threads}, servers on "
          f"CPU {args.server_cpu}, clients on CPU {args.client_cpu}")
    print(f"{'bench':8s} {'server':9s} {'per s':>10s} {'ratio':>6s}   {'CPU us':>7s} {'ratio':>6s}")
    for b in args.benches:
        rd = results[("redis", b)]
        rd_n, rd_c = statistics.median(x[0] for x in rd), statistics.median(x[1] for x in rd)
        for name in names:
            if (name, b) not in results:
                continue
            r = results[(name, b)]
            n, c = statistics.median(x[0] for x in r), statistics.median(x[1] for x in r)
            print(f"{b:8s} {name:9s} {n:10.0f} {n / rd_n:6.2f}   {c:7.2f} {ratio(c, rd_c):6.2f}")


if __name__ == "__main__":
    main()
