#!/usr/bin/env python3
"""RSS at steady state under eviction churn, and where it goes, for several servers.

Each server starts empty with --maxmemory (allkeys-lru), takes bench/eviction.py's zipf
cache-aside load from build/bench/churn (GET a batch, SET the misses; 12-byte keys, 10M
key universe, Zipf 0.99) until it has evicted --fills times the keys it holds, then
--requests more while /proc is sampled every 0.2 s. Reported per server:
  rss        VmRSS at the end, and the most seen during the measured requests (max);
  file, anon RssFile (the executable's and libraries' mapped pages) and RssAnon;
  used       INFO used_memory (what maxmemory bounds);
  free       the allocator's free bytes it keeps resident: jemalloc/redis from INFO
             allocator_resident - allocator_allocated; glibc from MEMORY MALLOC-STATS
             (malloc_info: free chunks in every arena, resident unless trimmed); mimalloc
             has no such figure: anon - used less the same difference when idle;
  other      anon - used - free: thread stacks, io_uring rings, buffers outside malloc;
  purged     VmRSS after MEMORY PURGE (malloc_trim / jemalloc purge / mi_collect), and
             purge_ms the time that call took (the client's round trip).
Ratios are to maxmemory. SERVER is NAME=PATH[:ENV=VALUE,...], e.g.
  ringcache=build/ringcache  jemalloc=build/bench/ringcache-jemalloc
  glibc-arena1=build/ringcache:MALLOC_ARENA_MAX=1  redis=redis-server

  bench/rss_churn.py [--maxmemory 64mb,256mb] [--values 32,300,mixed] [--rounds 1] SERVER...
"""

import argparse
import os
import re
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from eviction import Server, free_port, parse_bytes  # noqa: E402
from vs_redis import no_persistence  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def proc_status(pid):
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            k, _, v = line.partition(":")
            if k in ("VmRSS", "RssAnon", "RssFile", "RssShmem"):
                out[k] = int(v.split()[0]) * 1024
    return out


def glibc_free(conn):
    text = conn.cmd("MEMORY", "MALLOC-STATS")
    text = text.decode() if isinstance(text, bytes) else str(text)
    # The totals after the last <heap>: free chunks in fastbins and the other bins.
    tail = text[text.rfind("</heap>"):]
    return sum(int(m) for m in re.findall(r'<total type="(?:fast|rest)" count="\d+" size="(\d+)"', tail))


def churn(args, port, values, requests, seed):
    out = subprocess.run([args.churn, "--port", str(port), "--requests", str(requests),
                          "--values", values, "--seed", str(seed)],
                         capture_output=True, text=True, check=True).stdout.split()
    return dict(zip(out[0::2], (float(x) for x in out[1::2])))


def run(args, name, spec, maxmemory, values):
    path, _, env_text = spec.partition(":")
    env = dict(os.environ)
    for kv in filter(None, env_text.split(",")):
        k, _, v = kv.partition("=")
        env[k] = v
    port = free_port()
    common = ["--maxmemory", str(maxmemory), "--maxmemory-policy", "allkeys-lru"]
    if "redis" in os.path.basename(path):
        argv = [path, "--port", str(port), "--save", "", "--appendonly", "no", *common]
    else:
        argv = [path, "--port", str(port), "--threads", str(args.threads), *no_persistence(),
                *common]
    old_env = os.environ.copy()
    os.environ.clear()
    os.environ.update(env)
    try:
        server = Server(name, argv, port)
    finally:
        os.environ.clear()
        os.environ.update(old_env)
    try:
        c = server.conn
        idle_other = proc_status(server.proc.pid)["RssAnon"] - int(c.info()["used_memory"])
        seed = 100
        while True:
            churn(args, port, values, args.chunk, seed)
            seed += 1
            info = c.info()
            if int(info["evicted_keys"]) >= args.fills * c.cmd("DBSIZE"):
                break
        c.cmd("CONFIG", "RESETSTAT")
        samples = []
        stop = threading.Event()

        def sample():
            while not stop.wait(0.2):
                samples.append(proc_status(server.proc.pid)["VmRSS"])

        t = threading.Thread(target=sample)
        t.start()
        load = churn(args, port, values, args.requests, seed)
        stop.set()
        t.join()
        st = proc_status(server.proc.pid)
        info = c.info()
        used = int(info["used_memory"])
        if "allocator_resident" in info:
            free = int(info["allocator_resident"]) - int(info["allocator_allocated"])
        elif info.get("mem_allocator") == "libc":
            free = glibc_free(c)
        else:  # mimalloc: no figure of its own; what anon grew by beyond the data
            free = st["RssAnon"] - used - idle_other
        t0 = time.perf_counter()
        c.cmd("MEMORY", "PURGE")
        purge_ms = (time.perf_counter() - t0) * 1000
        time.sleep(0.2)
        purged = proc_status(server.proc.pid)["VmRSS"]
        return {
            "keys": c.cmd("DBSIZE"), "used": used, "rss": st["VmRSS"],
            "max": max(samples + [st["VmRSS"]]), "file": st["RssFile"], "anon": st["RssAnon"],
            "free": free, "other": st["RssAnon"] - used - free, "purged": purged,
            "purge_ms": purge_ms,
            "hit": load["hits"] / max(1, load["gets"]), "rps": load["rps"],
        }
    finally:
        server.stop()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("servers", nargs="+")
    ap.add_argument("--churn", default=os.path.join(HERE, "..", "build", "bench", "churn"))
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--maxmemory", default="64mb")
    ap.add_argument("--values", default="32,300,mixed")
    ap.add_argument("--fills", type=float, default=3)
    ap.add_argument("--chunk", type=int, default=2_000_000)
    ap.add_argument("--requests", type=int, default=4_000_000)
    ap.add_argument("--rounds", type=int, default=1)
    args = ap.parse_args()
    with open("/proc/loadavg") as f:
        print(f"# load {f.read().split()[0]}; --threads {args.threads} fills {args.fills} "
              f"requests {args.requests}", flush=True)
    cols = ("keys", "hit", "used", "rss", "max", "file", "anon", "free", "other", "purged")
    print("maxmemory\tvalues\tround\tserver\t" + "\t".join(cols) + "\trss/mm\tmax/mm\tanon/mm"
          "\tfree/used\tpurge_ms\trps", flush=True)
    mb = 2**20
    for mm_text in args.maxmemory.split(","):
        mm = parse_bytes(mm_text)
        for values in args.values.split(","):
            for r in range(args.rounds):
                for s in args.servers:
                    name, _, spec = s.partition("=")
                    x = run(args, name, spec, mm, values)
                    cells = [str(x["keys"]), f"{x['hit']:.4f}"] + [
                        f"{x[k] / mb:.1f}" for k in cols[2:]]
                    print(f"{mm_text}\t{values}\t{r + 1}\t{name}\t" + "\t".join(cells) +
                          f"\t{x['rss'] / mm:.3f}\t{x['max'] / mm:.3f}\t{x['anon'] / mm:.3f}"
                          f"\t{x['free'] / max(1, x['used']):.3f}\t{x['purge_ms']:.1f}\t{x['rps']:.0f}",
                          flush=True)


if __name__ == "__main__":
    sys.exit(main())
