#!/usr/bin/env bash
# Runs everything in bench/ once with tiny parameters against a Release build, so that
# none of it rots (the figures mean nothing), then the 1-minute soak (docs/SOAK.md),
# whose checker must find 0 violations. Prints each one's time; stops at the first that
# fails, with the tail of its output. Needs what scripts/setup.sh installs (redis-server,
# redis-benchmark, python3-redis) and nothing else: no memtier or valkey.
#
#   bash bench/smoke.sh [BUILD_DIR]    (default build; a Release build with the bench
#                                       targets, -DRINGCACHE_BENCH=ON, its default)
set -euo pipefail
cd "$(dirname "$0")/.."
B=$(realpath "${1:-build}")
for f in ringcache bench/loadgen bench/queue_load bench/churn bench/eviction_sim; do
  [[ -x $B/$f ]] || { echo "smoke: $B/$f is missing (cmake --build $B)" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=$tmp/out
py=/usr/bin/python3   # Debian's, with python3-redis (scripts/setup.sh), as ctest runs them
start=$(date +%s.%N)

run() {  # NAME COMMAND...: its output shows only if it fails, or after 5 minutes
  local name=$1 t0
  shift
  t0=$(date +%s.%N)
  if ! timeout -k 10 300 "$@" >"$out" 2>&1; then
    echo "smoke: FAILED: $name: $*" >&2
    tail -n 60 "$out" >&2
    exit 1
  fi
  printf '%6.1f s  %s\n' "$(echo "$(date +%s.%N) - $t0" | bc)" "$name"
}

for f in bench/*.py bench/*.sh; do   # a script added to bench/ is added here too
  [[ $f == bench/smoke.sh || $f == bench/soak_checks.py ]] && continue   # the latter: soak.py's
  grep -q "$f" bench/smoke.sh || { echo "smoke: bench/smoke.sh does not run $f" >&2; exit 1; }
done
# The scripts import each other from bench/, which is first on their sys.path.
run "no bench/*.py shadows the standard library" "$py" -c '
import os, sys
bad = [f for f in os.listdir("bench") if f.endswith(".py") and f[:-3] in sys.stdlib_module_names]
sys.exit(f"shadowing the standard library: {bad}" if bad else 0)'

# Google Benchmark binaries: every case once, on a hundredth of its data (bench/bench_size.h).
for b in "$B"/bench/*_bench; do
  run "$(basename "$b")" env RINGCACHE_BENCH_SMOKE=1 "$b" --benchmark_min_time=0.001
done
run eviction_sim "$B/bench/eviction_sim" --keys 20000 --requests 60000 --warmup 20000 \
  --sizes 0.01 --jobs 2

rc=(--ringcache "$B/ringcache")
# bench/vs_redis.sh runs bench/vs_redis.py
run vs_redis.sh env BUILD="$B" bash bench/vs_redis.sh --rounds 1 --n1 2000 --n16 20000 \
  --keys 20000
run ab.sh env CHRT= SECS=1 LOADGEN="$B/bench/loadgen" bash bench/ab.sh 1 16 10000 1 \
  "$B/ringcache" redis-server
run bulk_load.sh env KEYS=20000 bash bench/bulk_load.sh "$B/ringcache"
run alternate.py "$py" bench/alternate.py --rounds 1 \
  --server "t1=$B/ringcache --threads 1" \
  --server "t2=$B/ringcache --threads 2 --cluster-enabled yes" \
  --load "redis-benchmark -p {port} -t mset -n 5000 -P 16 -r 1000 -q" \
  --load "$B/bench/loadgen --port {port} --conns 4 --pipeline 16 --new-keys --seconds 0.3"
run aof.py "$py" bench/aof.py "${rc[@]}" --loadgen "$B/bench/loadgen" --rounds 1 \
  --keys 5000 --seconds 0.3
run bitmap_ops.py "$py" bench/bitmap_ops.py "${rc[@]}" --rounds 1 --bytes 65536 \
  --requests 2000 --scan-requests 200
run eviction.py "$py" bench/eviction.py "${rc[@]}" --maxmemory 2mb --universe 100000 \
  --warmup 20000 --requests 10000 --values 32,mixed --halve --halve-seconds 0.3
run evict_latency.py "$py" bench/evict_latency.py "${rc[@]}" --loadgen "$B/bench/loadgen" \
  --rounds 1 --prefill 20000 --requests 10000 --limits 0,2mb --shed 1mb
run expiry.py "$py" bench/expiry.py "${rc[@]}" --rounds 1 --keys 20000 --lead-ms 1000 \
  --max-wait-ms 5000
run growth.py "$py" bench/growth.py "${rc[@]}" --loadgen "$B/bench/loadgen" --rounds 1 \
  --keys 100000
run hash_set.py "$py" bench/hash_set.py "${rc[@]}" --rounds 1 --hashes 5000 \
  --elements 5000 --requests 5000
run job_queue.py "$py" bench/job_queue.py "${rc[@]}" --loadgen "$B/bench/queue_load" \
  --rounds 1 --seconds 0.5 --samples 50
run list_bench.py "$py" bench/list_bench.py "${rc[@]}" --rounds 1 --lists 5000 \
  --elements 20000 --requests 5000
alloc=()   # the server on each other allocator the build found
for b in "$B"/bench/ringcache-*; do alloc+=("$(basename "$b")=$b"); done
run persistence.py "$py" bench/persistence.py "${rc[@]}" --loadgen "$B/bench/loadgen" \
  --rounds 1 --keys 20000 --min-seconds 1
run rdb_load.py "$py" bench/rdb_load.py "${rc[@]}" --rounds 1 --keys 20000
run replication.py "$py" bench/replication.py "${rc[@]}" --rounds 1 --keys 20000 \
  --lag-seconds 0.3 --masters redis-yes,ringcache
run rss_churn.py "$py" bench/rss_churn.py --churn "$B/bench/churn" --maxmemory 2mb \
  --values mixed --fills 1 --chunk 20000 --requests 20000 rc="$B/ringcache" "${alloc[@]}" \
  redis=redis-server
run scripting.py "$py" bench/scripting.py "${rc[@]}" --rounds 1 --requests 5000 \
  --range 1000 --clients 4 --procs 2 --seconds 0.3
for mode in oversubscribe scale cpu cluster; do
  # scale puts T threads on cpus 0..T-1 and the client on the rest: 1 thread on 2 cpus
  run "threads.py --mode $mode" "$py" bench/threads.py "${rc[@]}" --loadgen "$B/bench/loadgen" \
    --mode "$mode" --rounds 1 --threads "$([[ $mode == scale ]] && echo 1 || echo 1,2)" \
    --cpus 2 --requests 5000 --seconds 0.3
done
run transactions.py "$py" bench/transactions.py "${rc[@]}" --rounds 1 --seconds 0.3
run zset_del.py "$py" bench/zset_del.py "${rc[@]}" --rounds 1 --members 20000
run zset_ops.py "$py" bench/zset_ops.py "${rc[@]}" --rounds 1 --members 20000 \
  --requests 5000

run "soak.py, 1 minute" "$py" bench/soak.py "${rc[@]}" --minutes 1 --report "$tmp/soak.md"
grep -m1 "checker violations" "$tmp/soak.md" | tr -d "|*"
printf '%6.1f s  in all\n' "$(echo "$(date +%s.%N) - $start" | bc)"
