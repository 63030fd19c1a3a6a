#!/usr/bin/env python3
"""Writes one ctest entry per gtest suite of a test binary (all its cases and parameters
in one process), where gtest_discover_tests would write one per case.

A process per case paid for a process start and, in the integration suite, a ringcache
and a redis-server start per case (~2,800 server processes per build); a process per
suite lets its cases share servers (tests/integration/shared_servers.h). Run after each
link of the binary (tests/CMakeLists.txt); ctest includes the file written.

Usage: gtest_groups.py BINARY OUT.cmake --prefix P [--suffix S] [--label L] [--env K=V]...
"""
import argparse
import subprocess
import sys


def suites(binary):
    """(suite name, number of cases) in the binary's order."""
    listing = subprocess.run([binary, "--gtest_list_tests"], check=True, capture_output=True,
                             text=True, timeout=120).stdout
    out = []
    for line in listing.splitlines():
        if not line.strip() or line.startswith("Running main()"):
            continue
        if not line.startswith(" "):
            out.append([line.split("#")[0].strip().rstrip("."), 0])
        elif out:
            out[-1][1] += 1
    return out


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
    for suite, cases in suites(args.binary):
        name = bracket(args.prefix + suite + args.suffix)
        lines.append("add_test(%s %s %s --gtest_brief=1)" % (
            name, bracket(args.binary), bracket("--gtest_filter=" + suite + ".*")))
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
