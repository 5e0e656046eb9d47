"""Command line: ``python -m tsfile bench [SECTION ...]`` runs the quick benchmarks."""

import argparse
import importlib
import sys

# Benchmark sections: name -> module with a ``main(argv)`` function.
SECTIONS = {
    "ts2diff": "tsfile._bench.ts2diff",
    "read": "tsfile._bench.read",
    "write": "tsfile._bench.write",
    "floats": "tsfile._bench.floats",
    "basic": "tsfile._bench.basic",
}


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m tsfile")
    sub = parser.add_subparsers(dest="command", required=True)
    bench = sub.add_parser("bench", help="quick benchmarks with baselines from the same run")
    bench.add_argument("sections", nargs="*", help=f"any of {', '.join(SECTIONS)} (default: all)")
    args, rest = parser.parse_known_args(argv)

    if args.command == "bench":
        names = args.sections or list(SECTIONS)
        for name in names:
            if name not in SECTIONS:
                parser.error(f"unknown section {name!r}; choose from {', '.join(SECTIONS)}")
        for name in names:
            try:
                module = importlib.import_module(SECTIONS[name])
            except ModuleNotFoundError as exc:
                if exc.name != SECTIONS[name]:
                    raise
                print(f"[{name}] not available in this build", file=sys.stderr)
                continue
            module.main(rest)
    return 0


if __name__ == "__main__":
    sys.exit(main())
