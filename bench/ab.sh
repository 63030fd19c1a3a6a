#!/bin/bash
# Server CPU per command of several server binaries (and redis-server) under one load,
# in the same run: bench/loadgen (memtier-style: 50 connections, SET:GET 1:10, 32-byte
# values, random keys over KEYS after all of them were written once) for SECS (4) s a round,
# binaries alternating within every round. The server runs at real-time priority
# (CHRT, default chrt -f 10; empty: none), on CPU 1 (--threads 1) or CPUs 0-1, the
# generator on CPU 0, so other work on the machine does not preempt either. Prints each round, then medians and ratios to
# the first binary.
#
#   bash bench/ab.sh THREADS PIPELINE KEYS ROUNDS BINARY...    (BINARY: a ringcache or
#   redis-server; e.g. bash bench/ab.sh 1 16 1000000 3 /usr/bin/redis-server build/ringcache)
# A ringcache runs with --save "" and --dir a fresh empty directory: it loads no stray
# dump.rdb and leaves none.
set -euo pipefail
T=$1 P=$2 K=$3 R=$4
shift 4
LG=${LOADGEN:-$(dirname "$0")/../build/bench/loadgen}
secs=${SECS:-4}
rt=${CHRT-chrt -f 10}
dirs=$(mktemp -d)
trap 'rm -rf "$dirs"' EXIT
declare -A cpu rate
for r in $(seq "$R"); do
  for b in "$@"; do
    port=$((20000 + RANDOM % 20000))
    cpus=$([ "$T" = 1 ] && echo 1 || echo 0,1)
    if [[ $(basename "$b") == redis-server* ]]; then
      args=(--port "$port" --save "" --appendonly no)
    else
      args=(--port "$port" --threads "$T" --save "" --dir "$(mktemp -d -p "$dirs")")
    fi
    $rt taskset -c "$cpus" "$b" "${args[@]}" >/dev/null 2>&1 &
    pid=$!
    until redis-cli -p "$port" ping >/dev/null 2>&1; do
      kill -0 "$pid" 2>/dev/null || { echo "ab.sh: $b exited at start" >&2; exit 1; }
      sleep 0.05
    done
    "$LG" --port "$port" --keys "$K" --new-keys --requests "$K" --pipeline 64 --conns 4 \
      --threads 1 >/dev/null
    n0=$(redis-cli -p "$port" info stats | awk -F: '/total_commands_processed/{print $2+0}')
    c0=$(awk '{print $14 + $15}' /proc/$pid/stat)
    $rt taskset -c 0 "$LG" --port "$port" --threads 1 --conns 50 --pipeline "$P" \
      --keys "$K" --ratio 1:10 --seconds "$secs" >/dev/null 2>&1
    c1=$(awk '{print $14 + $15}' /proc/$pid/stat)
    n1=$(redis-cli -p "$port" info stats | awk -F: '/total_commands_processed/{print $2+0}')
    kill "$pid"
    wait "$pid" 2>/dev/null || true
    us=$(echo "scale=4; ($c1 - $c0) * 1000000 / $(getconf CLK_TCK) / ($n1 - $n0)" | bc)
    kps=$(((n1 - n0) / (secs * 1000)))
    echo "round $r $b: ${kps}k commands/s, ${us} us CPU/command"
    cpu[$b]+="$us "
    rate[$b]+="$kps "
  done
done
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
first=$1
c_first=$(echo "${cpu[$first]}" | median)
r_first=$(echo "${rate[$first]}" | median)
echo "medians of $R rounds, --threads $T, pipeline $P, $K keys (ratios to $first):"
for b in "$@"; do
  c=$(echo "${cpu[$b]}" | median)
  k=$(echo "${rate[$b]}" | median)
  printf '  %-40s %7sk/s (%.2fx)  %7s us CPU/command (%.2fx)\n' "$b" "$k" \
    "$(echo "$k / $r_first" | bc -l)" "$c" "$(echo "$c / $c_first" | bc -l)"
done
