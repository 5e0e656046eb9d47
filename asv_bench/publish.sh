#!/usr/bin/env bash
# The dashboard on this machine, as .github/workflows/benchmarks.yml builds it on GitHub:
# measure the commits of main newer than the newest result (asv run NEW) into asv_bench/results,
# publish every result with asv, and make the site work offline (asv_bench/dashboard.py).
#
#   asv_bench/publish.sh [--publish-only] [--machine NAME] [--html-dir DIR]
#
#   --publish-only  measure nothing: publish the results already there (what CI checks)
#   --machine NAME  the asv machine name of the measurements (default tsfile-vm, the machine of
#                   the committed history; use your own name on another computer)
#   --html-dir DIR  where the site goes (default .asv/html); view it with `asv preview` or any
#                   static file server, e.g. python3 -m http.server -d DIR
#
# Builds go through ccache when it is installed (CC="ccache gcc"): consecutive commits share most
# compiled modules. Commit the new files under asv_bench/results afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."

publish_only=0
machine=tsfile-vm
html_dir=.asv/html
while (($#)); do
    case $1 in
        --publish-only) publish_only=1 ;;
        --machine) machine=$2; shift ;;
        --html-dir) html_dir=$2; shift ;;
        *) echo "usage: $0 [--publish-only] [--machine NAME] [--html-dir DIR]" >&2; exit 2 ;;
    esac
    shift
done

if ((!publish_only)); then
    # asv asks about an unknown machine interactively; record it with its defaults once.
    if ! python3 -c "import json, os, sys; sys.exit('$machine' not in json.load(open(os.path.expanduser('~/.asv-machine.json'))))" 2>/dev/null; then
        python3 -m asv machine --machine "$machine" --yes
    fi
    if command -v ccache > /dev/null; then
        export CC="ccache gcc"
    fi
    # NEW: the commits of main after the newest one with results (none: nothing to do).
    nice -n 10 python3 -m asv run --machine "$machine" --skip-existing-commits NEW
fi
python3 asv_bench/dashboard.py publish --html-dir "$html_dir"
