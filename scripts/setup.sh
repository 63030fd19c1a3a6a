#!/usr/bin/env bash
# Installs whatever Debian packages ringcache needs and the machine lacks. Idempotent:
# a machine that has everything pays one dpkg query.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config
  liburing-dev libabsl-dev googletest libgtest-dev libgmock-dev libbenchmark-dev
  libhiredis-dev redis-tools redis-server python3 python3-redis nodejs npm
  liblzf-dev  # DUMP payloads' LZF strings, as Debian's redis-server compresses them (core/rdb.h)
  libluajit-5.1-dev liblua5.1-0-dev lua-cjson-dev lua-bitop-dev  # scripting (docs/SCRIPTING.md)
  python3-limits  # a library that ships Lua scripts, run by tests/integration/test_scripting_clients.py
  clang libclang-rt-dev  # libFuzzer targets (tests/fuzz/run.sh)
  ccache  # CMakeLists.txt compiles through it when present
  golang-go golang-github-mna-redisc-dev  # a Go cluster client, run by tests/integration/test_cluster.py
  libjemalloc-dev libmimalloc-dev  # RINGCACHE_MALLOC=jemalloc|mimalloc builds (docs/EVICTION.md)
)

# Packages that count as present when their command is: NodeSource's nodejs bundles npm
# (it Provides and Conflicts with Debian's npm), so dpkg-query reports npm missing and
# installing it would try to replace that nodejs.
declare -A COMMAND_OF=([nodejs]=node [npm]=npm)

missing=()
for p in "${PACKAGES[@]}"; do
  if [[ -n "${COMMAND_OF[$p]:-}" ]] && command -v "${COMMAND_OF[$p]}" >/dev/null; then
    continue
  fi
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then SUDO=sudo; fi
  export DEBIAN_FRONTEND=noninteractive
  # Another apt or dpkg (an unattended upgrade, a user's install) may hold a lock: wait
  # for it rather than fail. dpkg's lock has a timeout setting; the package lists' lock
  # (apt-get update) has none, so that step retries.
  APT=($SUDO apt-get -o DPkg::Lock::Timeout=900 -y -q --no-install-recommends)
  update() {
    local out
    for _ in $(seq 180); do
      if out=$("${APT[@]}" update 2>&1); then return 0; fi
      grep -q "Could not get lock" <<<"$out" || { echo "$out" >&2; return 1; }
      echo "setup: waiting for another apt to release its lock"
      sleep 5
    done
    echo "$out" >&2
    return 1
  }
  if ! "${APT[@]}" install "${missing[@]}"; then
    update
    "${APT[@]}" install "${missing[@]}"
  fi
fi
