#!/usr/bin/env bash
# Builds the libFuzzer targets with clang into build-fuzz and runs each for a bounded
# time (default 60 s), as many at once as there are cores. A crash stops the script (once
# the targets fuzzed beside it are done) with libFuzzer's report and the input, saved as
# <work>/artifacts/<target>/crash-* (timeout-*, oom-*); rerun one with
#   build-fuzz/tests/fuzz/<target> <file>
# Usage: tests/fuzz/run.sh [seconds per target] [target...]
# Environment:
#   FUZZ_WORK   where new inputs (corpus/<target>), artifacts and full logs (logs/<target>.log)
#               go; default build-fuzz. The checked-in seeds stay as they are.
#   FUZZ_FLAGS  more libFuzzer flags (tests/fuzz/nightly.sh: fork mode).
#   FUZZ_KEEP_GOING=1  run every target even when one fails; exit with the last failure.
#   FUZZ_PARALLEL  targets fuzzed at once (default: one per core, `nproc`). Each fuzzer is
#               one process on one core, so on 2 cores two targets take the time of one;
#               each still gets its full time on a core of its own. Their reports are
#               printed in the targets' order once each batch is done.
set -euo pipefail
cd "$(dirname "$0")/../.."

seconds="${1:-60}"
shift || true
targets=("$@")
if ((${#targets[@]} == 0)); then targets=(resp_parser_fuzz dispatch_fuzz rdb_value_fuzz); fi
work="${FUZZ_WORK:-build-fuzz}"
read -r -a extra <<<"${FUZZ_FLAGS:-}"

CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DRINGCACHE_FUZZ=ON -DRINGCACHE_TESTS=OFF -DRINGCACHE_BENCH=OFF >/dev/null
cmake --build build-fuzz -j "$(nproc)" --target "${targets[@]}"

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:${ASAN_OPTIONS:-}
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:${UBSAN_OPTIONS:-}
parallel="${FUZZ_PARALLEL:-$(nproc)}"
((parallel >= 1)) || parallel=1
failed=0
# Fuzzes targets[i] in the background; its pid goes to pids[i].
pids=()
start() {
  local t=${targets[$1]}
  local seeds="tests/fuzz/corpus/${t%_fuzz}" corpus="$work/corpus/$t"
  local artifacts="$work/artifacts/$t" log="$work/logs/$t.log"
  mkdir -p "$corpus" "$artifacts" "$(dirname "$log")"
  echo "fuzz: $t for ${seconds}s (seeds $seeds, corpus $corpus, log $log)"
  "build-fuzz/tests/fuzz/$t" "$corpus" "$seeds" -max_total_time="$seconds" -max_len=4096 \
    -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="$artifacts/" \
    "${extra[@]}" >"$log" 2>&1 &
  pids[$1]=$!
}
for ((first = 0; first < ${#targets[@]}; first += parallel)); do
  last=$((first + parallel < ${#targets[@]} ? first + parallel : ${#targets[@]}))
  for ((i = first; i < last; i++)); do start "$i"; done
  stop=0
  for ((i = first; i < last; i++)); do
    t=${targets[$i]}
    status=0
    wait "${pids[$i]}" || status=$?
    echo "==== fuzz: $t"
    tail -n 40 "$work/logs/$t.log"
    if ((status != 0)); then
      echo "fuzz: $t failed (exit $status); inputs in $work/artifacts/$t" >&2
      failed=$status
      if [[ "${FUZZ_KEEP_GOING:-0}" != 1 ]]; then stop=1; fi
    fi
  done
  if ((stop)); then exit "$failed"; fi
done
exit "$failed"
