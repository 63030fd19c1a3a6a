#!/usr/bin/env python3
"""The job-queue benchmark of issue 15: ringcache vs redis-server in the same run.

Producers LPUSH jobs (pipelined) onto --queues queues spread over the shards, consumers
BRPOP them (each waits on its share of the queues), 50 clients in all by default;
bench/queue_load.cc drives one server and checks every job (lost / duplicated must be 0),
then measures the wake-up latency of a blocked consumer with single pushes. Servers
alternate within every round; reported figures are medians over --rounds rounds, and
ringcache's jobs/s and p99 wake-up latency as ratios of redis-server's.

  python3 bench/job_queue.py --loadgen build/bench/queue_load --ringcache build/ringcache
"""

import argparse
import os
import re
import socket
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vs_redis import no_persistence  # noqa: E402


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_ready(port):
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port)).close()
            return
        except OSError:
            time.sleep(0.05)
    sys.exit("server on port %d did not start" % port)


def pinned(cpus, argv):
    return (["taskset", "-c", cpus] if cpus else []) + argv


def start_servers(args):
    rc_port, redis_port = free_port(), free_port()
    rc = subprocess.Popen(pinned(args.server_cpus, [args.ringcache, "--port", str(rc_port),
                                                   "--threads", str(args.threads),
                                                   *no_persistence()]),
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    redis = subprocess.Popen(pinned(args.server_cpus, [args.redis_server, "--port", str(redis_port),
                                                      "--save", "", "--appendonly", "no"]),
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_ready(rc_port)
    wait_ready(redis_port)
    return {"ringcache": (rc, rc_port), "redis": (redis, redis_port)}


def run_load(args, port):
    argv = [args.loadgen, "--port", str(port), "--queues", str(args.queues),
            "--producers", str(args.producers), "--consumers", str(args.consumers),
            "--pipeline", str(args.pipeline), "--seconds", str(args.seconds),
            "--samples", str(args.samples)]
    if args.zset:
        argv.append("--zset")
    if args.tagged:
        argv.append("--tagged")
    out = subprocess.run(pinned(args.client_cpus, argv), capture_output=True, text=True,
                         timeout=args.seconds + 120)
    fields = dict(re.findall(r"(\w+)=([\d.]+)", out.stdout))
    if out.returncode != 0 or "jobs_per_sec" not in fields:
        sys.exit("queue_load failed (%d): %s%s" % (out.returncode, out.stdout, out.stderr))
    return {k: float(v) for k, v in fields.items()}


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--ringcache", default="build/ringcache")
    p.add_argument("--redis-server", default="redis-server")
    p.add_argument("--loadgen", default="build/bench/queue_load")
    p.add_argument("--threads", type=int, default=2, help="ringcache's worker threads")
    p.add_argument("--queues", type=int, default=100)
    p.add_argument("--producers", type=int, default=10)
    p.add_argument("--consumers", type=int, default=40)
    p.add_argument("--pipeline", type=int, default=16)
    p.add_argument("--seconds", type=float, default=5)
    p.add_argument("--samples", type=int, default=2000, help="wake-up latency samples")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--zset", action="store_true", help="ZADD / BZPOPMIN instead of lists")
    p.add_argument("--tagged", action="store_true",
                   help="each consumer's queues under one hash tag (one shard)")
    p.add_argument("--server-cpus", default="", help="taskset list for both servers")
    p.add_argument("--client-cpus", default="", help="taskset list for queue_load")
    args = p.parse_args()

    servers = start_servers(args)
    results = {"ringcache": [], "redis": []}
    try:
        for r in range(args.rounds):
            order = ["ringcache", "redis"] if r % 2 == 0 else ["redis", "ringcache"]
            for name in order:
                res = run_load(args, servers[name][1])
                results[name].append(res)
                print("round %d %-9s jobs/s %9.0f  wake-up p50 %7.1f us  p99 %7.1f us  "
                      "max %8.1f us  lost %d  duplicated %d"
                      % (r + 1, name, res["jobs_per_sec"], res["wakeup_p50_us"],
                         res["wakeup_p99_us"], res["wakeup_max_us"], res["lost"],
                         res["duplicated"]), flush=True)
    finally:
        for proc, _ in servers.values():
            proc.terminate()
            proc.wait(timeout=10)

    def med(name, key):
        return statistics.median(x[key] for x in results[name])

    print()
    print("%-10s %12s %14s %14s %6s %11s" % ("server", "jobs/s", "wake-up p50", "wake-up p99",
                                            "lost", "duplicated"))
    for name in ("ringcache", "redis"):
        print("%-10s %12.0f %11.1f us %11.1f us %6d %11d"
              % (name, med(name, "jobs_per_sec"), med(name, "wakeup_p50_us"),
                 med(name, "wakeup_p99_us"), sum(x["lost"] for x in results[name]),
                 sum(x["duplicated"] for x in results[name])))
    print("ratio: jobs/s %.2fx redis-server's, p99 wake-up %.2fx redis-server's"
          % (med("ringcache", "jobs_per_sec") / med("redis", "jobs_per_sec"),
             med("ringcache", "wakeup_p99_us") / med("redis", "wakeup_p99_us")))


if __name__ == "__main__":
    main()
