#!/usr/bin/env bash
# ringcache vs Debian's redis-server, side by side in one run: throughput, server CPU per
# operation and memory per key, printed as ratios. See bench/vs_redis.py for options.
# BUILD names the build folder (default build).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD:-build}
bash scripts/setup.sh
if [[ ! -x $build/ringcache ]]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$build" --target ringcache >/dev/null
exec /usr/bin/python3 bench/vs_redis.py --ringcache "$build/ringcache" "$@"
