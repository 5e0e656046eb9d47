"""TsFileReader on an ``s3://`` URL (fsspec with s3fs), against a bucket served on this machine by
moto's S3 server (no AWS account, no network beyond 127.0.0.1). The server counts the bytes it
sends, so a 1 % time-range query is measured where it costs: on the wire.

Skipped without ``moto[server]`` and ``s3fs`` (the ``test`` extra installs them)."""

from __future__ import annotations

import numpy as np
import pytest
from s3_moto import filesystem, serve, use_server

import tsfile
from tsfile import ColumnCategory, ColumnSchema, TableSchema, TSDataType, TsFileTableWriter

for _needed in ("moto.server", "s3fs", "fsspec", "werkzeug.serving"):
    pytest.importorskip(_needed)

ROWS_PER_GROUP = 2_000
GROUPS = 100
BUCKET = "tsfile-test"


@pytest.fixture(scope="module")
def s3(tmp_path_factory):
    """(endpoint URL, CountingApp, local file, its key) of a moto S3 server on 127.0.0.1 holding
    a table file of GROUPS chunk groups."""
    with serve() as (endpoint, app):
        path = _write_groups(tmp_path_factory.mktemp("s3") / "groups.tsfile")
        fs = filesystem(endpoint)
        fs.call_s3("create_bucket", Bucket=BUCKET)
        fs.pipe(f"{BUCKET}/groups.tsfile", path.read_bytes())
        yield endpoint, app, path


@pytest.fixture
def s3_url(s3, monkeypatch):
    """``s3://`` URLs open on the moto server (fsspec's configuration for the s3 protocol)."""
    endpoint, app, path = s3
    use_server(monkeypatch, endpoint)
    app.reset()
    return f"s3://{BUCKET}/groups.tsfile", app, path


def _write_groups(path):
    schema = TableSchema(
        "t",
        [
            ColumnSchema("dev", TSDataType.STRING, ColumnCategory.TAG),
            ColumnSchema("x", TSDataType.INT64, ColumnCategory.FIELD),
            ColumnSchema("s", TSDataType.STRING, ColumnCategory.FIELD),
        ],
    )
    rng = np.random.default_rng(11)
    with TsFileTableWriter(str(path), schema) as w:
        for g in range(GROUPS):
            ts = np.arange(g * ROWS_PER_GROUP, (g + 1) * ROWS_PER_GROUP, dtype=np.int64)
            x = rng.integers(-(10**12), 10**12, ts.size)
            s = np.array([f"v{i % 89}" for i in range(ts.size)], dtype=object)
            w.write_arrays(ts, {"dev": "d1", "x": x, "s": s})
            w.flush()
    return path


def test_an_s3_url_reads_what_the_path_reads(s3_url):
    url, app, path = s3_url
    got = tsfile.read_table(url, "t")
    want = tsfile.read_table(str(path), "t")
    assert set(got) == set(want)
    assert all(np.array_equal(got[k], want[k]) for k in want)
    assert app.gets > 0  # it went through the server


def test_a_one_percent_query_on_s3_fetches_a_few_percent_of_the_file(s3_url):
    url, app, path = s3_url
    size = path.stat().st_size
    total = GROUPS * ROWS_PER_GROUP
    t1 = total // 2
    with tsfile.TsFileReader(url) as r:
        opened = app.bytes_sent
        ts = r.read_columns("t", ["x"], t1, t1 + total // 100 - 1)[2]
        fetched_by_reader = r.bytes_fetched
    assert len(ts) == total // 100
    # on the wire: the tail and index when opened, then the chunks of the range
    assert opened < size * 0.03, (opened, size)
    assert app.bytes_sent < size * 0.05, (app.bytes_sent, size)
    assert app.bytes_sent <= fetched_by_reader + 64 * 1024  # no read-ahead beyond the ranges
    print(
        f"s3 1 % query: {app.bytes_sent:,} of {size:,} bytes "
        f"({100 * app.bytes_sent / size:.2f} %) in {app.gets} GET requests"
    )


def test_a_missing_s3_object_is_file_not_found(s3_url):
    url, _app, _path = s3_url
    with pytest.raises(FileNotFoundError):
        tsfile.TsFileReader(url.replace("groups", "missing"))
