"""Several files read by fsspec URL (read_table & co. given a URL directory, glob or list): the same
rows as the local files, files outside a time range never read past their metadata, and the
errors of names that match nothing. The bytes are counted through tsfile._bench.counting_fs (a
file system over local files that counts what its files' reads return)."""

from __future__ import annotations

import os

import numpy as np
import pytest

import tsfile

pytest.importorskip("fsspec")

from tsfile._bench.counting_fs import PROTOCOL, CountingFileSystem, register  # noqa: E402

# files of about 1 MB (a remote file's first fetch takes its last 16 KiB in one request: on files
# much smaller than that, metadata alone would pass 5 % of the bytes), split by time
FILES, ROWS_PER_DEVICE, DEVICES = 40, 20_000, 4


@pytest.fixture(scope="module")
def split_dir(tmp_path_factory):
    """FILES files of one table, split by time (file k holds times k*R .. k*R + R - 1 of every
    device)."""
    d = tmp_path_factory.mktemp("urls")
    schema = tsfile.TableSchema(
        "t",
        [
            tsfile.ColumnSchema("dev", tsfile.TSDataType.STRING, tsfile.ColumnCategory.TAG),
            tsfile.ColumnSchema("v", tsfile.TSDataType.INT64, tsfile.ColumnCategory.FIELD),
            tsfile.ColumnSchema("x", tsfile.TSDataType.DOUBLE, tsfile.ColumnCategory.FIELD),
        ],
    )
    rng = np.random.default_rng(5)
    for k in range(FILES):
        with tsfile.TsFileTableWriter(str(d / f"part{k:03d}.tsfile"), schema) as w:
            for dev in range(DEVICES):
                t = np.arange(k * ROWS_PER_DEVICE, (k + 1) * ROWS_PER_DEVICE, dtype=np.int64)
                w.write_arrays(
                    t,
                    {
                        "dev": np.array([f"d{dev}"] * len(t), dtype=object),
                        "v": rng.integers(-(10**9), 10**9, len(t)),
                        "x": rng.normal(size=len(t)),
                    },
                )
    register()
    return d


def _url(path):
    return f"{PROTOCOL}://{os.path.abspath(path)}"


@pytest.mark.parametrize("form", ["directory", "glob", "list"])
def test_urls_read_the_same_rows_as_the_local_files(split_dir, form):
    local = tsfile.to_dataframe(str(split_dir), "t")
    names = sorted(p.name for p in split_dir.glob("*.tsfile"))
    paths = {
        "directory": _url(split_dir) + "/",
        "glob": _url(split_dir) + "/part*.tsfile",
        "list": [_url(split_dir / n) for n in names],
    }[form]
    got = tsfile.to_dataframe(paths, "t")
    assert got.equals(local)
    lo, hi = ROWS_PER_DEVICE * 3 // 2, ROWS_PER_DEVICE * 5 - 1
    arrow = tsfile.read_arrow(paths, "t", start_time=lo, end_time=hi)
    want = local[(local["time"] >= lo) & (local["time"] <= hi)]
    assert arrow.num_rows == len(want)
    assert np.array_equal(arrow.column("v").to_numpy(), want["v"].to_numpy())


def test_a_one_percent_time_range_fetches_a_few_percent_of_the_bytes(split_dir):
    total = sum(p.stat().st_size for p in split_dir.glob("*.tsfile"))
    span = FILES * ROWS_PER_DEVICE
    lo = span // 2
    hi = lo + span // 100 - 1
    CountingFileSystem.reset()
    got = tsfile.to_dataframe(_url(split_dir) + "/", "t", start_time=lo, end_time=hi)
    fetched = CountingFileSystem.bytes_read
    assert len(got) == DEVICES * (hi - lo + 1)
    assert got["time"].min() == lo and got["time"].max() == hi
    # the last 16 KiB of every file (its metadata) and the chunks of the file holding the range
    assert fetched < total * 0.05, (fetched, total)
    CountingFileSystem.reset()
    tsfile.to_dataframe(_url(split_dir) + "/", "t")
    assert CountingFileSystem.bytes_read > total * 0.95  # the counter sees whole reads


def test_url_names_that_match_nothing(split_dir, tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(tsfile.TsFileNotFoundError, match="no .tsfile files in directory"):
        tsfile.read_table(_url(tmp_path / "empty") + "/", "t")
    with pytest.raises(tsfile.TsFileNotFoundError, match="no file matches"):
        tsfile.read_table(_url(split_dir) + "/nothing*.tsfile", "t")
    with pytest.raises(tsfile.TsFileNotFoundError, match="TsFile not found"):
        tsfile.read_table([_url(split_dir / "part000.tsfile"), _url(split_dir / "gone")], "t")


def test_a_url_named_twice_is_read_once(split_dir):
    one = _url(split_dir / "part000.tsfile")
    assert tsfile.to_dataframe([one, one], "t").equals(tsfile.to_dataframe(one, "t"))


def test_the_dataset_view_says_it_reads_local_files(split_dir):
    with pytest.raises(tsfile.TsFileError, match="reads local files"):
        tsfile.TsFileDataFrame(_url(split_dir) + "/", show_progress=False)


@pytest.mark.parametrize("name", ["memory:///no/such/dir/", b"memory:///no/such/dir/"])
def test_the_dataset_view_refuses_a_url_before_listing_it(name):
    # str or bytes, in a list or alone: refused as named, never listed (a remote listing is
    # thousands of requests, or another error on an unreachable host)
    for given in (name, [name]):
        with pytest.raises(tsfile.errors.NotSupportedError, match="reads local files, not memory"):
            tsfile.TsFileDataFrame(given, show_progress=False)
