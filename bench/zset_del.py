#!/usr/bin/env python3
"""DEL of a large sorted set, ringcache vs redis-server in the same run.

Loads --members members (`member:%08d`, random scores) into one sorted set, then, while a
second process sends GETs back to back to the same server (one shard with --threads 1),
deletes the set with DEL (and UNLINK). Reported: how long the deleting client waited for
its reply, and the probe's GET latency p99.9 / max over the window from just before the
DEL until 300 ms after it (what other clients of the shard saw meanwhile).

Servers are pinned to --server-cpu, this script and its probe to --client-cpu.
"""

import argparse
import multiprocessing
import os
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from expiry import Conn, percentile, resp  # noqa: E402
from vs_redis import start  # noqa: E402


def load(port, members, name=b"member:%08d", batch=1000):
    """ZADD `members` members named `name % i` with random scores into `big`."""
    c = Conn(port)
    rng = random.Random(1)
    for lo in range(0, members, batch):
        parts = [b"ZADD", b"big"]
        for i in range(lo, min(lo + batch, members)):
            parts += [repr(rng.random() * 1e6).encode(), name % i]
        c.s.sendall(resp(*parts))
        head = c.reply()
        if not head.startswith(b":"):
            raise RuntimeError(f"ZADD failed: {head!r}")
    card = c.call("ZCARD", "big")
    if card != b":%d" % members:
        raise RuntimeError(f"ZCARD {card!r}, wanted {members}")
    c.s.close()


def probe(port, stop_at, out):
    """Child process: GET back to back until stop_at; sends (send time, latency) pairs."""
    c = Conn(port)
    lat = []
    while time.time() < stop_at:
        t0 = time.time()
        p0 = time.perf_counter()
        c.call("GET", "probe")
        lat.append((t0, time.perf_counter() - p0))
    out.send(lat)


def one(kind, args, command):
    server = start(kind, args)
    try:
        load(server.port, args.members)
        c = Conn(server.port)
        c.call("SET", "probe", "x")
        parent, child = multiprocessing.Pipe()
        stop_at = time.time() + 1.0
        p = multiprocessing.Process(target=probe, args=(server.port, stop_at, child))
        p.start()
        time.sleep(0.4)  # the probe is running steadily
        t0 = time.time()
        p0 = time.perf_counter()
        reply = c.call(command, "big")
        waited_ms = (time.perf_counter() - p0) * 1e3
        if reply != b":1":
            raise RuntimeError(f"{command} replied {reply!r}")
        lat = parent.recv()
        p.join()
        window = [l for (ts, l) in lat if t0 - 0.001 <= ts <= t0 + 0.3]
        return {
            "reply_ms": waited_ms,
            "p999": percentile(window, 99.9) * 1e3,
            "max": (max(window) if window else float("nan")) * 1e3,
            "gets": len(window),
        }
    finally:
        server.stop()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ringcache", default="build/ringcache")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--members", type=int, default=1000000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--server-cpu", default="0")
    ap.add_argument("--client-cpu", default="1")
    args = ap.parse_args()
    os.sched_setaffinity(0, {int(args.client_cpu)})

    cases = [("redis", "DEL"), ("redis", "UNLINK"), ("ringcache", "DEL"), ("ringcache", "UNLINK")]
    results = {c: [] for c in cases}
    for rnd in range(args.rounds):
        for case in (cases if rnd % 2 == 0 else list(reversed(cases))):
            r = one(case[0], args, case[1])
            results[case].append(r)
            print(f"round {rnd + 1} {case[0]:9s} {case[1]:6s}: reply after {r['reply_ms']:8.3f} ms;"
                  f" other client's GET p99.9 {r['p999']:.3f} max {r['max']:.3f} ms over "
                  f"{r['gets']} GETs", flush=True)
    print(f"\n{command_title(args)}, medians of {args.rounds} rounds")
    print(f"{'':17s} {'reply':>10s} {'GET p99.9':>10s} {'GET max':>10s}")
    for case in cases:
        rs = results[case]
        med = {k: statistics.median(r[k] for r in rs) for k in ("reply_ms", "p999", "max")}
        print(f"{case[0]:9s} {case[1]:6s} {med['reply_ms']:8.3f}ms {med['p999']:8.3f}ms "
              f"{med['max']:8.3f}ms")


def command_title(args):
    return (f"deleting a {args.members}-member sorted set (ringcache --threads {args.threads}, "
            f"GETs from another client meanwhile)")


if __name__ == "__main__":
    main()
