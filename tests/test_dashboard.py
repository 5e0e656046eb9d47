"""The published dashboard (issue 9): the committed asv results, published as asv_bench/publish.sh
--publish-only does, render in headless Chromium with no network: the TS_2DIFF decode graph has
its three paths as three series, each over at least MIN_COMMITS commits.

Needs asv, Playwright (the Python package only: it drives the installed Chromium, e.g. Debian's
`chromium`, through `executable_path`) and a Chromium binary. Skipped without them unless
TSFILE_REQUIRE_CHROMIUM=1 (CI sets it): then their absence is a failure.
"""

import functools
import http.server
import json
import os
import shutil
import sys
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "asv_bench" / "results"
MACHINE = "tsfile-vm"
GRAPH = "ts2diff.DecodeW0.time_decode"
PATHS = ["per_value", "batch", "simd"]
MIN_COMMITS = 20
CHROMIUM_NAMES = ["chromium", "chromium-browser", "google-chrome", "chrome"]


def _missing(what):
    if os.environ.get("TSFILE_REQUIRE_CHROMIUM", "") == "1":
        pytest.fail(f"TSFILE_REQUIRE_CHROMIUM=1 but {what} is missing")
    pytest.skip(f"{what} not installed")


@pytest.fixture(scope="module")
def chromium():
    try:
        import asv  # noqa: F401
    except ImportError:
        _missing("asv")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("playwright")
    exe = os.environ.get("TSFILE_CHROMIUM") or next(
        (p for p in map(shutil.which, CHROMIUM_NAMES) if p), None
    )
    if exe is None:
        _missing("a chromium executable")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=exe, headless=True, args=["--no-sandbox"])
        yield browser
        browser.close()


def _dashboard():
    sys.path.insert(0, str(ROOT / "asv_bench"))
    try:
        import dashboard
    finally:
        sys.path.pop(0)
    return dashboard


def _publish(results_dir, html_dir):
    return _dashboard().publish(results_dir, html_dir)


def test_asv_page_loads_nothing_remote_once_made_offline():
    asv = pytest.importorskip("asv")
    page = (Path(asv.__file__).parent / "www" / "index.html").read_text()
    assert _dashboard().remote_assets(page), "asv's page loads from CDNs (what this fixes)"
    assert _dashboard().remote_assets(_dashboard().point_at_vendor(page)) == []


def test_make_offline_names_a_remote_script_it_cannot_replace(tmp_path):
    (tmp_path / "index.html").write_text(
        '<script src="https://cdn.example.org/new-lib.js"></script>'
        '<a href="https://github.com/airspeed-velocity/asv/">asv</a>'
    )
    with pytest.raises(RuntimeError, match=r"index.html: https://cdn.example.org/new-lib.js"):
        _dashboard().make_offline(tmp_path)


@pytest.fixture
def serve():
    """Serve a directory on 127.0.0.1; yields a function returning the base URL."""
    servers = []

    def start(directory):
        handler = functools.partial(_QuietHandler, directory=str(directory))
        server = _QuietServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}/"

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


class _QuietServer(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        pass  # the browser closing a connection early is no failure of the page


def _graph_series(browser, base_url):
    """Open the TS_2DIFF decode graph and return ({series label: commits plotted}, the addresses
    the page tried to load from outside 127.0.0.1)."""
    page = browser.new_page()
    outside = []

    def only_local(route):
        if route.request.url.startswith(base_url):
            route.continue_()
        else:  # offline: anything else would fail without internet
            outside.append(route.request.url)
            route.abort()

    page.route("**/*", only_local)
    try:
        page.goto(f"{base_url}#{GRAPH}")
        page.wait_for_function(
            "() => { const p = window.jQuery && jQuery('#main-graph').data('plot');"
            " return p && p.getData().some(s => s.data && s.data.length); }",
            timeout=60_000,
        )
        series = page.evaluate(
            "() => jQuery('#main-graph').data('plot').getData()"
            ".filter(s => s.label && s.data)"
            ".map(s => [s.label, s.data.filter(d => d[1] !== null).length])"
        )
    finally:
        page.close()
    return dict(series), outside


def _series_by_path(series, dtype="int64"):
    """{path: commits} of the `dtype` series with at least one point (asv labels a series by the
    parameters that differ between the plotted series, e.g. 'dtype-int64; path-simd')."""
    found = {}
    for label, commits in series.items():
        params = dict(part.strip().split("-", 1) for part in label.split(";") if "-" in part)
        if commits and params.get("dtype", dtype) == dtype and params.get("path") in PATHS:
            found[params["path"]] = commits
    return found


def _check_graph(series):
    """The dashboard's promise for the TS_2DIFF decode graph: a series per path, each over at
    least MIN_COMMITS commits."""
    by_path = _series_by_path(series)
    assert sorted(by_path) == sorted(PATHS), f"series {sorted(series)}: a path is missing"
    short = {path: n for path, n in by_path.items() if n < MIN_COMMITS}
    assert not short, f"fewer than {MIN_COMMITS} commits plotted: {short}"


def _copy_results(tmp_path):
    dst = tmp_path / "results"
    shutil.copytree(RESULTS, dst)
    return dst


def _rendered(chromium, serve, results, tmp_path):
    series, outside = _graph_series(chromium, serve(_publish(results, tmp_path / "html")))
    assert outside == [], f"the page loads from outside (not offline): {outside}"
    return series


def test_ts2diff_decode_graph_renders_three_paths_over_the_history(chromium, serve, tmp_path):
    _check_graph(_rendered(chromium, serve, _copy_results(tmp_path), tmp_path))


def _result_files(results_dir):
    return [f for f in (results_dir / MACHINE).glob("*.json") if f.name != "machine.json"]


def _drop_path(results_dir, path):
    """Blank the `path` figures of GRAPH in every result file (that series goes missing)."""
    for f in _result_files(results_dir):
        data = json.loads(f.read_text())
        entry = data["results"].get(GRAPH)
        if entry is None:
            continue
        columns = data["result_columns"]
        names = [p.strip("'") for p in entry[columns.index("params")][1]]
        # one value per combination, the first parameter (dtype) outermost
        result = entry[columns.index("result")]
        for i in range(len(result)):
            if names[i % len(names)] == path:
                result[i] = None
        f.write_text(json.dumps(data))


def test_the_check_fails_when_a_series_is_missing(chromium, serve, tmp_path):
    results = _copy_results(tmp_path)
    _drop_path(results, "simd")
    series = _rendered(chromium, serve, results, tmp_path)
    with pytest.raises(AssertionError, match="a path is missing"):
        _check_graph(series)


def test_the_check_fails_when_the_history_is_short(chromium, serve, tmp_path):
    results = _copy_results(tmp_path)
    by_date = sorted(_result_files(results), key=lambda f: json.loads(f.read_text())["date"])
    for f in by_date[: len(by_date) - (MIN_COMMITS - 1)]:
        f.unlink()
    series = _rendered(chromium, serve, results, tmp_path)
    with pytest.raises(AssertionError, match="fewer than"):
        _check_graph(series)
