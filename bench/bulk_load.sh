#!/bin/bash
# Memory per key of a bulk load through one connection, the way users load a cache:
# KEYS (1M) `SET key:%08d <32 bytes>` fed by `redis-cli --pipe` into ringcache
# --threads 1, --threads 2 and redis-server in turn; prints each one's RSS growth divided
# by KEYS. ringcache runs with --save "" and --dir a fresh empty directory: it loads no
# stray dump.rdb and leaves none.
#
#   bash bench/bulk_load.sh build/ringcache
set -euo pipefail
bin=${1:-build/ringcache}
port=${PORT:-$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}
keys=${KEYS:-1000000}
data=$(mktemp)
dirs=$(mktemp -d)
trap 'rm -rf "$data" "$dirs"' EXIT
python3 - "$keys" > "$data" <<'PY'
import sys
value = "x" * 32
sys.stdout.write("".join(
    "*3\r\n$3\r\nSET\r\n$12\r\nkey:%08d\r\n$32\r\n%s\r\n" % (i, value)
    for i in range(int(sys.argv[1]))))
PY
rss() { awk '/VmRSS/ { print $2 * 1024 }' "/proc/$1/status"; }
measure() {  # pid: waits for the server, loads, prints bytes per key, stops it
  until redis-cli -p "$port" ping >/dev/null 2>&1; do sleep 0.1; done
  local before after
  before=$(rss "$1")
  redis-cli -p "$port" --pipe < "$data" >/dev/null
  sleep 0.5
  after=$(rss "$1")
  awk -v b="$before" -v a="$after" -v n="$keys" 'BEGIN { printf "%.1f", (a - b) / n }'
  kill "$1"
  # measure runs in a $(...) subshell, whose `wait` cannot wait for its parent's child:
  # poll until the server is gone, or the next one finds the port still taken.
  while kill -0 "$1" 2>/dev/null; do sleep 0.05; done
}
line=""
for t in 1 2; do
  "$bin" --port "$port" --threads "$t" --save "" --dir "$(mktemp -d -p "$dirs")" \
    >/dev/null 2>&1 &
  line="$line ringcache-t$t=$(measure $!)B"
done
redis-server --port "$port" --save "" --appendonly no >/dev/null 2>&1 &
line="$line redis=$(measure $!)B"
echo "bytes per key:$line"
