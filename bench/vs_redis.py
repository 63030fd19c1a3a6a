#!/usr/bin/env python3
"""ringcache vs redis-server, measured in the same run.

Both servers run pinned to one CPU (--server-cpu), redis-benchmark to another
(--client-cpu). Servers alternate within every round so drift hits both alike.
Reported figures are medians over --rounds rounds:

  throughput   requests/s as redis-benchmark reports them
  cpu/op       server user+sys CPU time (from /proc/PID/stat) / requests
  memory       bytes per key after loading --keys keys (12-byte key, 32-byte value),
               from RSS growth and from INFO used_memory growth
"""

import argparse
import atexit
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

CLK_TCK = os.sysconf("SC_CLK_TCK")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def ratio(a, b):
    """a / b; nan when b is 0, as a short run's CPU can be: /proc counts clock ticks."""
    return a / b if b else float("nan")


def rss_bytes(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def cli(port, *args):
    out = subprocess.run(["redis-cli", "-p", str(port), *args], capture_output=True, text=True)
    return out.stdout


def info_field(port, name):
    for line in cli(port, "info", "memory").splitlines():
        if line.startswith(name + ":"):
            return int(line.split(":")[1])
    return 0


def wait_ping(port, timeout=10):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if cli(port, "ping").strip() == "PONG":
            return
        time.sleep(0.05)
    raise RuntimeError(f"server on {port} did not answer PING")


_dirs = None  # where no_persistence() makes its directories; removed at exit


def no_persistence(argv=()):
    """Flags for a ringcache a benchmark starts: `--save ""` (no snapshots) and `--dir` a
    fresh empty directory (no stray dump.rdb to load, none left behind), each unless
    `argv` names it already. The directories go when the script exits."""
    global _dirs
    flags = [] if "--save" in argv else ["--save", ""]
    if "--dir" not in argv:
        if _dirs is None:
            _dirs = tempfile.mkdtemp(prefix="ringcache-bench-")
            atexit.register(shutil.rmtree, _dirs, ignore_errors=True)
        flags += ["--dir", tempfile.mkdtemp(dir=_dirs)]
    return flags


class Server:
    def __init__(self, name, argv, port):
        self.name, self.port = name, port
        self.proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_ping(port)

    def stop(self):
        cli(self.port, "shutdown", "nosave")
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def start(kind, args):
    port = free_port()
    pin = ["taskset", "-c", args.server_cpu]
    if kind == "redis":
        argv = pin + ["redis-server", "--port", str(port), "--save", "", "--appendonly", "no"]
    else:
        argv = pin + [args.ringcache, "--port", str(port), "--threads", str(args.threads),
                      *no_persistence()]
    return Server(kind, argv, port)


def bench(server, test, pipeline, n, args):
    before = cpu_seconds(server.proc.pid)
    out = subprocess.run(
        ["taskset", "-c", args.client_cpu, "redis-benchmark", "-p", str(server.port),
         "-t", test, "-n", str(n), "-c", "50", "-d", "32", "-r", "100000",
         "-P", str(pipeline), "--csv", "-q"],
        capture_output=True, text=True, check=True)
    used = cpu_seconds(server.proc.pid) - before
    rps = None
    for line in out.stdout.splitlines():
        parts = [p.strip('"') for p in line.split(",")]
        if parts and parts[0].upper().startswith(test.upper()) and len(parts) > 1:
            rps = float(parts[1])
    if rps is None:
        raise RuntimeError(f"no result from redis-benchmark: {out.stdout} {out.stderr}")
    return rps, used / n * 1e6  # requests/s, server CPU microseconds per request


def bench_command(server, cmd, requests, rand_range, pipeline, client_cpu):
    """redis-benchmark running `cmd` (with __rand_int__ below `rand_range`) `requests`
    times from 50 clients: (requests/s, server CPU microseconds per request)."""
    before = cpu_seconds(server.proc.pid)
    out = subprocess.run(
        ["taskset", "-c", client_cpu, "redis-benchmark", "-p", str(server.port),
         "-n", str(requests), "-c", "50", "-r", str(rand_range), "-P",
         str(pipeline), "--csv", "-q"] + cmd,
        capture_output=True, text=True, check=True)
    used = cpu_seconds(server.proc.pid) - before
    for line in out.stdout.splitlines():
        parts = [p.strip('"') for p in line.split(",")]
        if len(parts) > 1:
            try:
                return float(parts[1]), used / requests * 1e6
            except ValueError:
                continue
    raise RuntimeError(f"{cmd[0]}: no result from redis-benchmark: {out.stdout} {out.stderr}")


def load_keys(server, keys):
    """SET keys in pipelined batches; 12-byte keys, 32-byte values."""
    value = b"v" * 32
    sock = socket.create_connection(("127.0.0.1", server.port))
    batch = 1000
    for start in range(0, keys, batch):
        buf = bytearray()
        for i in range(start, min(start + batch, keys)):
            key = b"key:%08d" % i
            buf += b"*3\r\n$3\r\nSET\r\n$12\r\n" + key + b"\r\n$32\r\n" + value + b"\r\n"
        sock.sendall(buf)
        want = 5 * (min(start + batch, keys) - start)
        got = 0
        while got < want:
            got += len(sock.recv(1 << 20))
    sock.close()


def memory(kind, args):
    server = start(kind, args)
    try:
        time.sleep(0.2)
        rss0, used0 = rss_bytes(server.proc.pid), info_field(server.port, "used_memory")
        load_keys(server, args.keys)
        time.sleep(0.5)
        dbsize = int(cli(server.port, "dbsize").strip())
        assert dbsize == args.keys, f"{kind} holds {dbsize} keys, expected {args.keys}"
        rss1, used1 = rss_bytes(server.proc.pid), info_field(server.port, "used_memory")
        return (rss1 - rss0) / args.keys, (used1 - used0) / args.keys
    finally:
        server.stop()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ringcache", required=True)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--server-cpu", default="0")
    ap.add_argument("--client-cpu", default="1")
    ap.add_argument("--n1", type=int, default=200000, help="requests per run at -P 1")
    ap.add_argument("--n16", type=int, default=2000000, help="requests per run at -P 16")
    ap.add_argument("--keys", type=int, default=1000000)
    ap.add_argument("--skip-memory", action="store_true")
    args = ap.parse_args()

    results = {}  # (kind, test, P) -> list of (rps, cpu_us)
    for rnd in range(args.rounds):
        for kind in (["redis", "ringcache"] if rnd % 2 == 0 else ["ringcache", "redis"]):
            server = start(kind, args)
            try:
                for p in (1, 16):
                    for test in ("set", "get"):
                        n = args.n1 if p == 1 else args.n16
                        r = bench(server, test, p, n, args)
                        results.setdefault((kind, test, p), []).append(r)
                        print(f"round {rnd + 1} {kind:9s} {test.upper():3s} -P {p:2d}: "
                              f"{r[0]:>10.0f} req/s  {r[1]:6.2f} us CPU/req", flush=True)
            finally:
                server.stop()

    print(f"\nmedians of {args.rounds} rounds, ringcache --threads {args.threads}, "
          f"server on CPU {args.server_cpu}, redis-benchmark on CPU {args.client_cpu}")
    print(f"{'test':10s} {'redis req/s':>12s} {'ringcache':>12s} {'ratio':>6s}   "
          f"{'redis us/op':>11s} {'ringcache':>10s} {'ratio':>6s}")
    for p in (1, 16):
        for test in ("set", "get"):
            rr = results[("redis", test, p)]
            rc = results[("ringcache", test, p)]
            r_rps = statistics.median(x[0] for x in rr)
            c_rps = statistics.median(x[0] for x in rc)
            r_cpu = statistics.median(x[1] for x in rr)
            c_cpu = statistics.median(x[1] for x in rc)
            print(f"{test.upper() + ' -P ' + str(p):10s} {r_rps:12.0f} {c_rps:12.0f} "
                  f"{c_rps / r_rps:6.2f}   {r_cpu:11.2f} {c_cpu:10.2f} {ratio(c_cpu, r_cpu):6.2f}")

    if not args.skip_memory:
        r_rss, r_used = memory("redis", args)
        c_rss, c_used = memory("ringcache", args)
        print(f"\nmemory per key, {args.keys} keys (12-byte key, 32-byte value)")
        print(f"{'':22s} {'redis':>8s} {'ringcache':>10s} {'ratio':>6s}")
        print(f"{'from RSS':22s} {r_rss:8.1f} {c_rss:10.1f} {c_rss / r_rss:6.2f}")
        print(f"{'from INFO used_memory':22s} {r_used:8.1f} {c_used:10.1f} {c_used / r_used:6.2f}")


if __name__ == "__main__":
    sys.exit(main())
