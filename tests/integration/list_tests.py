"""Lists the test classes of Python test modules, for tests/CMakeLists.txt: one ctest entry
per class lets `ctest -j` run them side by side.

  list_tests.py test_a.py test_b.py ...

prints one line per unittest.TestCase class with tests, `<module>.<Class>`, in file
order. Classes are partly generated (differential_pair.per_thread_count), so the modules
are imported rather than read. A module that does not import prints `<module>` alone: its
entry then runs the whole module and fails with the import error, instead of vanishing.
"""

import importlib
import os
import sys
import unittest


def classes(module):
    loader = unittest.TestLoader()
    for name, value in vars(module).items():
        if (isinstance(value, type) and issubclass(value, unittest.TestCase)
                and value.__module__ == module.__name__ and loader.getTestCaseNames(value)):
            yield name


def main(paths):
    for path in paths:
        directory, filename = os.path.split(os.path.abspath(path))
        name = os.path.splitext(filename)[0]
        if directory not in sys.path:
            sys.path.insert(0, directory)
        try:
            found = list(classes(importlib.import_module(name)))
        except Exception as e:  # noqa: BLE001  (any import failure: run the module whole)
            print("%s: %s" % (filename, e), file=sys.stderr)
            found = []
        for cls in found or [None]:
            print(name if cls is None else "%s.%s" % (name, cls))


if __name__ == "__main__":
    main(sys.argv[1:])
