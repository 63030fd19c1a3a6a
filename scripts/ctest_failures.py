#!/usr/bin/env python3
"""Prints why each failed test of the last ctest run in a build folder failed.

CI's record keeps only the tail of the log, where ctest lists failed tests by name and
nothing else; this summary is printed last so the reason stays in that tail.
Usage: ctest_failures.py BUILD_DIR
"""
import pathlib
import re
import sys

MAX_LINES_PER_TEST = 30


def sections(log):
    """Yields (test name, passed, output lines) for each test in LastTest.log."""
    name, out, in_output = None, [], False
    for line in log.splitlines():
        m = re.match(r"\d+/\d+ Test: (.*)$", line)
        if m:
            name, out, in_output = m.group(1), [], False
        elif line == "Output:":
            in_output = True
        elif line == "<end of output>":
            in_output = False
        elif in_output:
            out.append(line)
        elif name and line.startswith("Test ") and not line.startswith("Test time"):
            # "Test Passed.", "Test Failed.", or how it ended otherwise (a timeout).
            yield name, line == "Test Passed.", out
            name = None


def why(out):
    """The lines that say why: gtest failures and what follows them, else the tail."""
    keep = []
    for i, line in enumerate(out):
        if re.search(r"Failure$|FAIL|ERROR|Error:|Sanitizer|runtime error|Timeout|terminate", line):
            keep.extend(out[i:i + 6])
    lines = list(dict.fromkeys(keep)) if keep else out[-MAX_LINES_PER_TEST:]
    return [l for l in lines if not l.startswith("[----------]")][:MAX_LINES_PER_TEST]


def main():
    log_path = pathlib.Path(sys.argv[1]) / "Testing" / "Temporary" / "LastTest.log"
    if not log_path.exists():
        print(f"ctest_failures: no {log_path}")
        return
    failed = [(n, o) for n, ok, o in sections(log_path.read_text(errors="replace")) if not ok]
    print(f"==== why {len(failed)} test(s) failed in {sys.argv[1]} ====")
    for name, out in failed:
        print(f"--- {name}")
        for line in why(out):
            print("    " + line[:300])


if __name__ == "__main__":
    main()
