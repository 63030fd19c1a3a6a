#!/usr/bin/env python3
"""MULTI/EXEC throughput, ringcache vs redis-server in the same run.

Each client connection (one process each, pinned to --client-cpu) sends --batch
transactions at a time, pipelined, and waits for all their replies:

  single:  MULTI, SET {t}a v, SET {t}b v, EXEC      (both keys on one shard)
  cross:   MULTI, SET a<i> v, SET b<i> v, EXEC      (keys spread over every shard)
  watch:   WATCH w<i>, MULTI, SET w<i> v, EXEC      (one watched key per transaction)

The replies have a fixed size, so the client only counts bytes. Reported: transactions/s
and server CPU µs per transaction, medians of --rounds rounds, and ringcache/redis ratios.
"""

import argparse
import multiprocessing
import os
import socket
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vs_redis import cpu_seconds, ratio, start  # noqa: E402


def encode(*args):
    out = b"*%d\r\n" % len(args)
    for a in args:
        a = a.encode() if isinstance(a, str) else a
        out += b"$%d\r\n%s\r\n" % (len(a), a)
    return out


def transaction(kind, i):
    if kind == "single":
        return (encode("MULTI") + encode("SET", "{t}a", "v") + encode("SET", "{t}b", "v")
                + encode("EXEC"), b"+OK\r\n+QUEUED\r\n+QUEUED\r\n*2\r\n+OK\r\n+OK\r\n")
    if kind == "cross":
        return (encode("MULTI") + encode("SET", "a%d" % i, "v") + encode("SET", "b%d" % i, "v")
                + encode("EXEC"), b"+OK\r\n+QUEUED\r\n+QUEUED\r\n*2\r\n+OK\r\n+OK\r\n")
    return (encode("WATCH", "w%d" % i) + encode("MULTI") + encode("SET", "w%d" % i, "v")
            + encode("EXEC"), b"+OK\r\n+OK\r\n+QUEUED\r\n*1\r\n+OK\r\n")


def client(port, kind, batch, seconds, offset, result):
    os.sched_setaffinity(0, result[1])
    requests, reply = [], None
    for i in range(batch):
        req, reply = transaction(kind, offset + i)
        requests.append(req)
    payload, expect = b"".join(requests), len(reply) * batch
    s = socket.create_connection(("127.0.0.1", port))
    # The first batch is checked byte for byte; later ones are only counted.
    s.sendall(payload)
    first = b""
    while len(first) < expect:
        first += s.recv(1 << 20)
    if first != reply * batch:
        raise RuntimeError("unexpected replies: %r" % first[:200])
    done, deadline = batch, time.time() + seconds
    while time.time() < deadline:
        s.sendall(payload)
        got = 0
        while got < expect:
            got += len(s.recv(1 << 20))
        done += batch
    s.close()
    result[0].put(done)


def run(server, args, kind):
    queue = multiprocessing.Queue()
    cpus = {int(c) for c in args.client_cpu.split(",")}
    before = cpu_seconds(server.proc.pid)
    procs = [multiprocessing.Process(target=client, args=(
        server.port, kind, args.batch, args.seconds, 1000 * c, (queue, cpus)))
        for c in range(args.clients)]
    start_t = time.time()
    for p in procs:
        p.start()
    total = sum(queue.get() for _ in procs)
    for p in procs:
        p.join()
    elapsed = time.time() - start_t
    used = cpu_seconds(server.proc.pid) - before
    return total / elapsed, used / total * 1e6


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ringcache", default="build/ringcache")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--server-cpu", default="1")
    ap.add_argument("--client-cpu", default="0")
    ap.add_argument("--clients", type=int, default=4)
    ap.add_argument("--batch", type=int, default=50)
    ap.add_argument("--seconds", type=float, default=3)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    results = {}
    for _ in range(args.rounds):
        for name in ("ringcache", "redis"):
            server = start(name, args)
            try:
                for kind in ("single", "cross", "watch"):
                    results.setdefault((name, kind), []).append(run(server, args, kind))
            finally:
                server.stop()
    print(f"{'kind':8} {'ringcache tx/s':>15} {'redis tx/s':>12} {'ratio':>6}   "
          f"{'rc cpu/tx us':>12} {'redis cpu/tx':>12} {'ratio':>6}")
    for kind in ("single", "cross", "watch"):
        rc = [r for r in results[("ringcache", kind)]]
        rd = [r for r in results[("redis", kind)]]
        rc_tps, rd_tps = statistics.median(r[0] for r in rc), statistics.median(r[0] for r in rd)
        rc_cpu, rd_cpu = statistics.median(r[1] for r in rc), statistics.median(r[1] for r in rd)
        print(f"{kind:8} {rc_tps:15.0f} {rd_tps:12.0f} {rc_tps / rd_tps:6.2f}   "
              f"{rc_cpu:12.2f} {rd_cpu:12.2f} {ratio(rc_cpu, rd_cpu):6.2f}")


if __name__ == "__main__":
    main()
