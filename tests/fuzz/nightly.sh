#!/usr/bin/env bash
# Long fuzzing, outside CI (a nightly job, or by hand on a spare machine): each target for
# longer (default 20 minutes), on a corpus kept between runs, in libFuzzer's fork mode so
# that a crash or a hang is saved and the run goes on to find the next one. CI's 60 s per
# target (tests/fuzz/run.sh) replays the seeds and catches shallow bugs; the deeper ones
# (a two-command pipeline that hung the dispatch harness took ~130k inputs, ~10 minutes)
# need these hours.
#
# Usage: tests/fuzz/nightly.sh [seconds per target] [target...]
#   FUZZ_HOME  where the corpus (corpus/<target>), the inputs that failed
#              (artifacts/<target>/crash-*, timeout-*, oom-*) and the logs live; default
#              ~/.cache/ringcache-fuzz, outside the build tree so that a clean build keeps it.
#   FUZZ_JOBS  parallel fuzzing processes per target (default 1; one per spare core).
#              Targets run side by side on the cores left: nproc / FUZZ_JOBS at a time
#              (FUZZ_PARALLEL, tests/fuzz/run.sh).
# Exits 1 when this run saved a new failing input (listed at the end), non-zero when the
# build or a fuzzer failed otherwise, else 0.
set -euo pipefail
cd "$(dirname "$0")/../.."

seconds="${1:-1200}"
shift || true
home="${FUZZ_HOME:-${HOME:-/tmp}/.cache/ringcache-fuzz}"
mkdir -p "$home"
before="$(mktemp)"
trap 'rm -f "$before"' EXIT
find "$home" -path '*/artifacts/*' -type f | sort >"$before"

# Fork mode: crashes, hangs and OOMs are written to artifacts/ and fuzzing carries on;
# new inputs are merged into the first corpus directory (only those that add coverage).
status=0
fork_jobs="${FUZZ_JOBS:-1}"
parallel=$(($(nproc) / fork_jobs))
FUZZ_WORK="$home" FUZZ_KEEP_GOING=1 FUZZ_PARALLEL="${FUZZ_PARALLEL:-$((parallel > 0 ? parallel : 1))}" \
  FUZZ_FLAGS="-fork=$fork_jobs -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1" \
  tests/fuzz/run.sh "$seconds" "$@" || status=$?

found="$(find "$home" -path '*/artifacts/*' -type f | sort | comm -13 "$before" -)"
for d in "$home"/corpus/*/; do
  echo "corpus: $(find "$d" -type f | wc -l) inputs in $d"
done
if [[ -n "$found" ]]; then
  echo "nightly fuzz: new failing inputs (reproduce: build-fuzz/tests/fuzz/<target> <file>):"
  echo "$found"
  exit 1
fi
if ((status != 0)); then
  echo "nightly fuzz: failed (exit $status) without saving an input: see the build output or $home/logs" >&2
  exit "$status"
fi
echo "nightly fuzz: nothing new failed"
