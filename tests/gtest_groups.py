#!/usr/bin/env python3
"""Writes one ctest entry per gtest suite of a test binary (all its cases in one process;
one per parameter value of a parameterized suite), where gtest_discover_tests would
write one per case.

A process per case paid for a process start and, in the integration suite, a ringcache
and a redis-server start per case (~2,800 server processes per build); a process per
suite lets its cases share servers (tests/integration/shared_servers.h). Run after each
link of the binary (tests/CMakeLists.txt); ctest includes the file written.

Usage: gtest_groups.py BINARY OUT.cmake --prefix P [--suffix S] [--label L] [--env K=V]...
"""
import argparse
import subprocess
import sys


def groups(binary):
    """(gtest filter, entry name, number of cases) in the binary's order: a suite, or for
    a value-parameterized one ("Prefix/Suite", cases "Case/Param") a suite and a value,
    so that its parameters run side by side."""
    listing = subprocess.run([binary, "--gtest_list_tests"], check=True, capture_output=True,
                             text=True, timeout=120).stdout
    out = {}
    suite = None
    for line in listing.splitlines():
        if not line.strip() or line.startswith("Running main()"):
            continue
        if not line.startswith(" "):
            suite = line.split("#")[0].strip().rstrip(".")
            continue
        case = line.split("#")[0].strip()
        if "/" in suite and "/" in case:
            param = case.rsplit("/", 1)[1]
            key = ("%s.*/%s" % (suite, param), "%s/%s" % (suite, param))
        else:
            key = (suite + ".*", suite)
        out[key] = out.get(key, 0) + 1
    return [(f, name, n) for (f, name), n in out.items()]


def bracket(s):
    return "[==[" + s + "]==]"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("binary")
    p.add_argument("out")
    p.add_argument("--prefix", required=True)
    p.add_argument("--suffix", default="")
    p.add_argument("--label", default="")
    p.add_argument("--env", action="append", default=[])
    args = p.parse_args()
    lines = []
    for gtest_filter, entry, cases in groups(args.binary):
        name = bracket(args.prefix + entry + args.suffix)
        lines.append("add_test(%s %s %s --gtest_brief=1)" % (
            name, bracket(args.binary), bracket("--gtest_filter=" + gtest_filter)))
        # SKIP_RETURN_CODE: tests/gtest_main.cc. COST: ctest starts the largest suites
        # first until it has measured times of its own.
        props = ["SKIP_RETURN_CODE 77", "COST %d" % cases]
        if args.label:
            props.append("LABELS " + bracket(args.label))
        if args.env:
            props.append("ENVIRONMENT " + bracket(";".join(args.env)))
        lines.append("set_tests_properties(%s PROPERTIES %s)" % (name, " ".join(props)))
    with open(args.out, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())
