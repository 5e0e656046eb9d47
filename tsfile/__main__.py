"""Command line: ``python -m tsfile bench [SECTION ...] [OPTIONS]`` runs the quick benchmarks.

With no section every section runs with its defaults; options (see
``python -m tsfile bench SECTION --help``) belong to one section, so name that section first.
"""

import importlib
import sys

# Benchmark sections: name -> module with a ``main(argv)`` function.
SECTIONS = {
    "ts2diff": "tsfile._bench.ts2diff",
    "read": "tsfile._bench.read",
    "write": "tsfile._bench.write",
    "floats": "tsfile._bench.floats",
    "basic": "tsfile._bench.basic",
    "filter": "tsfile._bench.filter",
    "dataset": "tsfile._bench.dataset",
    "skip": "tsfile._bench.skip",
}

USAGE = f"usage: python -m tsfile bench [SECTION ...] [OPTIONS]; sections: {', '.join(SECTIONS)}"


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] != "bench":
        print(USAGE, file=sys.stderr)
        return 2
    argv = argv[1:]
    names = []
    while argv and not argv[0].startswith("-"):
        name = argv.pop(0)
        if name not in SECTIONS:
            print(f"unknown section {name!r}; choose from {', '.join(SECTIONS)}", file=sys.stderr)
            return 2
        names.append(name)
    if argv in (["-h"], ["--help"]) and not names:
        print(USAGE)
        return 0
    if argv and len(names) != 1:
        # Each section has options of its own; the others would fail on them.
        print(f"options {' '.join(argv)} apply to one section: name it first", file=sys.stderr)
        return 2
    for name in names or list(SECTIONS):
        try:
            module = importlib.import_module(SECTIONS[name])
        except ModuleNotFoundError as exc:
            if exc.name != SECTIONS[name]:
                raise
            print(f"[{name}] not available in this build", file=sys.stderr)
            continue
        module.main(argv)
    return 0


if __name__ == "__main__":
    sys.exit(main())
