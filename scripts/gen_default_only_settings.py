#!/usr/bin/env python3
"""Writes shard/state/default_only_settings_data.cc: Redis 7.0 settings for features that
ringcache lacks, each with the one value that describes ringcache as it is (Redis's
default), and whether Redis lets CONFIG SET change it; and the name of every Redis 7.0
setting, so that one ringcache lacks is refused as such rather than as a typo.

A redis.conf names many of these; ringcache takes each at that value, so such a file
loads, and refuses any other value, so no setting is accepted and ignored. The names and
reasons are chosen here; the values and mutability come from the reference server.
Rerun when a feature lands (its settings then become real rows in config_params.cc and
leave this list):
    python3 scripts/gen_default_only_settings.py shard/state/default_only_settings_data.cc
Needs redis-server (7.0.15, Debian's) on PATH, and python3-redis.
"""
import socket
import subprocess
import sys
import tempfile
import time

import redis

# Why ringcache takes only the default, by feature; the error text names it.
NO_ACL = "ringcache has no ACL users or ACL log"
NO_DEFRAG = "ringcache does no active defragmentation"
NO_REPLICATION = "ringcache's replication has no such setting yet (docs/REPLICATION.md)"
NO_TYPE = "ringcache has no such data type yet"
NO_TLS = "ringcache has no TLS"
NO_SOCKET = "ringcache listens on TCP only"
NO_TRACKING = "ringcache has no client-side caching"
NO_SYSLOG = "ringcache logs to stdout or its logfile only"
NO_TUNING = "ringcache has no such tuning"
BY_DESIGN = "ringcache always behaves as Redis's default here"

SETTINGS = [
    # ACL (issue: tenancy).
    ("acl-pubsub-default", NO_ACL), ("aclfile", NO_ACL), ("acllog-max-len", NO_ACL),
    # Defragmentation: off by default; its thresholds only matter when on.
    ("activedefrag", NO_DEFRAG), ("active-defrag-cycle-max", NO_DEFRAG),
    ("active-defrag-cycle-min", NO_DEFRAG), ("active-defrag-ignore-bytes", NO_DEFRAG),
    ("active-defrag-max-scan-fields", NO_DEFRAG), ("active-defrag-threshold-lower", NO_DEFRAG),
    ("active-defrag-threshold-upper", NO_DEFRAG),
    # Replication and what only a replica or its master reads.
    ("min-replicas-to-write", NO_REPLICATION), ("min-replicas-max-lag", NO_REPLICATION),
    ("min-slaves-to-write", NO_REPLICATION), ("min-slaves-max-lag", NO_REPLICATION),
    ("propagation-error-behavior", NO_REPLICATION), ("rdb-del-sync-files", NO_REPLICATION),
    ("repl-backlog-size", NO_REPLICATION), ("repl-backlog-ttl", NO_REPLICATION),
    ("repl-disable-tcp-nodelay", NO_REPLICATION), ("repl-diskless-load", NO_REPLICATION),
    ("repl-diskless-sync", NO_REPLICATION), ("repl-diskless-sync-delay", NO_REPLICATION),
    ("repl-diskless-sync-max-replicas", NO_REPLICATION),
    ("repl-ping-replica-period", NO_REPLICATION), ("repl-ping-slave-period", NO_REPLICATION),
    ("repl-timeout", NO_REPLICATION), ("replica-announce-ip", NO_REPLICATION),
    ("replica-announce-port", NO_REPLICATION), ("replica-announced", NO_REPLICATION),
    ("replica-ignore-disk-write-errors", NO_REPLICATION),
    ("replica-ignore-maxmemory", NO_REPLICATION), ("replica-lazy-flush", NO_REPLICATION),
    ("replica-priority", NO_REPLICATION),
    ("replica-serve-stale-data", NO_REPLICATION), ("slave-announce-ip", NO_REPLICATION),
    ("slave-announce-port", NO_REPLICATION), ("slave-ignore-maxmemory", NO_REPLICATION),
    ("slave-lazy-flush", NO_REPLICATION), ("slave-priority", NO_REPLICATION),
    ("slave-serve-stale-data", NO_REPLICATION),
    ("shutdown-timeout", NO_REPLICATION),
    # Types still to come (streams, HyperLogLog).
    ("stream-node-max-bytes", NO_TYPE), ("stream-node-max-entries", NO_TYPE),
    ("hll-sparse-max-bytes", NO_TYPE),
    # TLS: off while tls-port is 0; the rest only matter when on.
    ("tls-port", NO_TLS), ("tls-auth-clients", NO_TLS), ("tls-ca-cert-dir", NO_TLS),
    ("tls-ca-cert-file", NO_TLS), ("tls-cert-file", NO_TLS), ("tls-ciphers", NO_TLS),
    ("tls-ciphersuites", NO_TLS), ("tls-client-cert-file", NO_TLS),
    ("tls-client-key-file", NO_TLS), ("tls-client-key-file-pass", NO_TLS),
    ("tls-cluster", NO_TLS), ("tls-dh-params-file", NO_TLS), ("tls-key-file", NO_TLS),
    ("tls-key-file-pass", NO_TLS), ("tls-prefer-server-ciphers", NO_TLS),
    ("tls-protocols", NO_TLS), ("tls-replication", NO_TLS), ("tls-session-cache-size", NO_TLS),
    ("tls-session-cache-timeout", NO_TLS), ("tls-session-caching", NO_TLS),
    ("unixsocket", NO_SOCKET), ("unixsocketperm", NO_SOCKET), ("socket-mark-id", NO_SOCKET),
    ("tracking-table-max-keys", NO_TRACKING),
    ("syslog-enabled", NO_SYSLOG), ("syslog-facility", NO_SYSLOG), ("syslog-ident", NO_SYSLOG),
    # Off by default, and off in ringcache.
    ("oom-score-adj", NO_TUNING), ("oom-score-adj-values", NO_TUNING),
    ("maxmemory-clients", NO_TUNING), ("enable-module-command", NO_TUNING),
    ("server_cpulist", NO_TUNING), ("bio_cpulist", NO_TUNING),
    ("aof_rewrite_cpulist", NO_TUNING), ("bgsave_cpulist", NO_TUNING),
    ("bind-source-addr", NO_TUNING), ("always-show-logo", NO_TUNING),
    ("ignore-warnings", NO_TUNING), ("jemalloc-bg-thread", "ringcache uses glibc's malloc"),
    # What ringcache does whatever the setting: the old log files go after a rewrite, and
    # SIGINT and SIGTERM shut down as Redis's default does (a save when save points are set).
    ("aof-disable-auto-gc", BY_DESIGN), ("shutdown-on-sigint", BY_DESIGN),
    ("shutdown-on-sigterm", BY_DESIGN),
]


def main():
    out_path = sys.argv[1]
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.Popen(["redis-server", "--port", str(port), "--save", "",
                                 "--dir", tmp], stdout=subprocess.DEVNULL)
        try:
            r = redis.Redis(port=port, decode_responses=True)
            for _ in range(100):
                try:
                    r.ping()
                    break
                except redis.ConnectionError:
                    time.sleep(0.05)
            every_name = sorted(r.config_get("*"))
            rows = []
            for name, why in SETTINGS:
                got = r.config_get(name)
                assert name in got, name
                value = got[name]
                try:
                    r.config_set(name, value)
                    runtime = True
                except redis.ResponseError as e:
                    assert "immutable" in str(e) or "protected" in str(e), (name, e)
                    runtime = False
                rows.append((name, value, runtime, why))
        finally:
            proc.terminate()
            proc.wait()
    whys = sorted({why for _, _, _, why in rows})
    lines = [
        "// Generated by scripts/gen_default_only_settings.py from redis-server 7.0.15: do not",
        "// edit; rerun the script.",
        "",
        '#include "shard/state/default_only_settings.h"',
        "",
        "namespace rc {",
        "",
        "namespace {",
        "",
    ]
    for i, why in enumerate(whys):
        lines.append(f'constexpr std::string_view kWhy{i} = "{why}";')
    lines += ["", "}  // namespace", "",
              "const std::vector<DefaultOnlySetting>& DefaultOnlySettings() {",
              "  static const std::vector<DefaultOnlySetting> settings = {"]
    for name, value, runtime, why in rows:
        lines.append(f'      {{"{name}", "{value}", {"true" if runtime else "false"}, '
                     f"kWhy{whys.index(why)}}},")
    lines += ["  };", "  return settings;", "}", "",
              "const std::vector<std::string_view>& RedisSettingNames() {",
              "  static const std::vector<std::string_view> names = {"]
    lines += [f'      "{n}",' for n in every_name]
    lines += ["  };", "  return names;", "}", "", "}  // namespace rc", ""]
    with open(out_path, "w") as f:
        f.write("\n".join(lines))


if __name__ == "__main__":
    main()
