#!/usr/bin/env bash
# Builds the libFuzzer targets with clang into build-fuzz and runs each for a bounded
# time (default 60 s). A crash stops the script with libFuzzer's report and the input,
# saved as build-fuzz/artifacts/<target>/crash-*; rerun one with
#   build-fuzz/tests/fuzz/<target> <file>
# Usage: tests/fuzz/run.sh [seconds per target] [target...]
# New inputs found go to build-fuzz/corpus/<target> (the checked-in seeds stay as they are).
set -euo pipefail
cd "$(dirname "$0")/../.."

seconds="${1:-60}"
shift || true
targets=("$@")
if ((${#targets[@]} == 0)); then targets=(resp_parser_fuzz dispatch_fuzz); fi

CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DRINGCACHE_FUZZ=ON -DRINGCACHE_TESTS=OFF -DRINGCACHE_BENCH=OFF >/dev/null
cmake --build build-fuzz -j "$(nproc)" --target "${targets[@]}"

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:${ASAN_OPTIONS:-}
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:${UBSAN_OPTIONS:-}
for t in "${targets[@]}"; do
  seeds="tests/fuzz/corpus/${t%_fuzz}"
  work="build-fuzz/corpus/$t"
  artifacts="build-fuzz/artifacts/$t"
  mkdir -p "$work" "$artifacts"
  echo "fuzz: $t for ${seconds}s (seeds $seeds)"
  "build-fuzz/tests/fuzz/$t" "$work" "$seeds" -max_total_time="$seconds" -max_len=4096 \
    -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="$artifacts/" \
    2>&1 | tail -n 40
  status=${PIPESTATUS[0]}
  if ((status != 0)); then
    echo "fuzz: $t failed (exit $status); inputs in $artifacts" >&2
    exit "$status"
  fi
done
