"""The committed performance history (issue 9): every benchmark of the asv suite has results on at
least MIN_COMMITS first-parent commits of this branch, measured on the history's machine.

A result counts when it was measured with the benchmark's current code (asv keys a benchmark's
history on a hash of its source, its ``version``: an edited benchmark starts a new history and
its old points are no longer drawn) and at least one of its parameter combinations has a value
(a failed or skipped combination is stored as null). Only first-parent commits count, because
asv's graphs draw only those.
"""

import json
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "asv_bench" / "results"
MACHINE = "tsfile-vm"
MIN_COMMITS = 20


def _first_parent_commits():
    try:
        out = subprocess.run(
            ["git", "-C", str(ROOT), "rev-list", "--first-parent", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        pytest.skip(f"no git history here ({exc})")
    commits = set(out.split())
    if len(commits) < MIN_COMMITS:
        pytest.skip(f"a shallow clone ({len(commits)} commits): the history cannot be checked")
    return commits


def _has_value(result):
    values = result if isinstance(result, list) else [result]
    return any(v is not None and v == v for v in values)  # v == v: not NaN


def commits_per_benchmark(results_dir, commits):
    """{benchmark name: set of first-parent commits with a value at the benchmark's version}."""
    benchmarks = json.loads((results_dir / "benchmarks.json").read_text())
    versions = {name: b["version"] for name, b in benchmarks.items() if name != "version"}
    measured = {name: set() for name in versions}
    for path in (results_dir / MACHINE).glob("*.json"):
        if path.name == "machine.json":
            continue
        data = json.loads(path.read_text())
        if data["commit_hash"] not in commits:
            continue
        columns = data["result_columns"]
        for name, entry in data["results"].items():
            if name not in versions or entry is None:
                continue
            row = dict(zip(columns, entry, strict=False))
            if row.get("version") == versions[name] and _has_value(row.get("result")):
                measured[name].add(data["commit_hash"])
    return measured


def short_histories(results_dir, commits):
    measured = commits_per_benchmark(results_dir, commits)
    return {name: len(c) for name, c in measured.items() if len(c) < MIN_COMMITS}


def test_every_benchmark_has_a_history():
    commits = _first_parent_commits()
    short = short_histories(RESULTS, commits)
    assert not short, f"benchmarks with results on fewer than {MIN_COMMITS} commits: {short}"


def test_the_check_fails_when_a_benchmark_history_is_short(tmp_path):
    """The check above can fail: drop the newest results of one benchmark from a copy."""
    commits = _first_parent_commits()
    copy = tmp_path / "results"
    (copy / MACHINE).mkdir(parents=True)
    (copy / "benchmarks.json").write_text((RESULTS / "benchmarks.json").read_text())
    victim = "ts2diff.DecodeW0.time_decode"
    for path in (RESULTS / MACHINE).glob("*.json"):
        data = json.loads(path.read_text())
        if path.name != "machine.json" and victim in data.get("results", {}):
            del data["results"][victim]
        (copy / MACHINE / path.name).write_text(json.dumps(data))
    assert short_histories(copy, commits).get(victim) == 0
