#!/usr/bin/env python3
"""Fails when a library reaches up the layering instead of down.

Usage: check_layers.py SOURCE_DIR FOLDER=ARCHIVE ...   (lowest layer first)

A folder may include only its own headers and those of the folders before it, and its
library may use only symbols that it or the libraries before it define. The link alone
catches neither: inline code in a header links anywhere, and an upward call resolves
whenever the program pulled in the object defining it for some other reason.
"""
import os
import re
import subprocess
import sys


def symbols(archive):
    """The external symbols `archive` defines and those it leaves undefined."""
    out = subprocess.run(["nm", "-g", archive], check=True, capture_output=True,
                         text=True).stdout
    defined, undefined = set(), set()
    for fields in map(str.split, out.splitlines()):
        if len(fields) == 3:
            defined.add(fields[2])
        elif len(fields) == 2 and fields[0] == "U":
            undefined.add(fields[1])
    return defined, undefined


def main():
    root, layers = sys.argv[1], [a.split("=", 1) for a in sys.argv[2:]]
    bad = []
    for i, (folder, _) in enumerate(layers[:-1]):
        higher = re.compile(r'#include "(%s)/' % "|".join(f for f, _ in layers[i + 1:]))
        for dirpath, _, files in os.walk(os.path.join(root, folder)):
            for name in sorted(files):
                if not name.endswith((".h", ".cc")):
                    continue
                path = os.path.join(dirpath, name)
                with open(path, encoding="utf-8") as f:
                    for line in f:
                        if higher.match(line):
                            bad.append(f"{os.path.relpath(path, root)}: {line.strip()}")

    tables = [symbols(archive) for _, archive in layers]
    below = set()
    for i, (folder, archive) in enumerate(layers):
        defined, undefined = tables[i]
        below |= defined
        above = set().union(*(d for d, _ in tables[i + 1:]))
        for sym in sorted((undefined & above) - below):
            name = subprocess.run(["c++filt", sym], capture_output=True, text=True).stdout
            bad.append(f"{os.path.basename(archive)} ({folder}) uses {name.strip()}")

    if bad:
        print("upward dependencies (lowest layer first: %s):" %
              " <- ".join(f for f, _ in layers))
        print("\n".join("  " + b for b in bad))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
