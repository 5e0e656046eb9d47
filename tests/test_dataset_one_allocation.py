"""tsfile.read_table over many files decodes every file into ONE set of result arrays
(tsfile._read.columns): the result equals the concatenation of the one-file reads, for any
number of threads, with nulls, text, tag and value filters, time ranges that cut pages and prune
files, files that lack columns (schema="union"), files failing in the middle of the decode, and
more files than are kept open at once."""

from __future__ import annotations

import threading
import warnings

import numpy as np
import pytest

import tsfile
from tsfile._dataset import scan
from tsfile._read import columns, engine
from tsfile.errors import CorruptDataError
from tsfile.reader import TsFileReader
from tsfile.types import ColumnCategory, TSDataType
from tsfile.writer import TsFileWriter

FILES = 5
ROWS = 200  # per device and file, written as two chunk groups of 100 rows
SPAN = 1000  # file k holds the times k * SPAN .. k * SPAN + ROWS - 1
DEVICES = (("north", "a"), ("north", "b"), (None, "c"))  # (site, id): one null tag


def _write(path, k, extra=None):
    cols = [
        tsfile.ColumnSchema("site", TSDataType.STRING, ColumnCategory.TAG),
        tsfile.ColumnSchema("id", TSDataType.STRING, ColumnCategory.TAG),
        tsfile.ColumnSchema("v", TSDataType.INT64, ColumnCategory.FIELD),
        tsfile.ColumnSchema("s", TSDataType.STRING, ColumnCategory.FIELD),
        tsfile.ColumnSchema("d", TSDataType.DOUBLE, ColumnCategory.FIELD),
        tsfile.ColumnSchema("day", TSDataType.DATE, ColumnCategory.FIELD),
    ]
    if extra:
        cols.append(tsfile.ColumnSchema(extra, TSDataType.INT32, ColumnCategory.FIELD))
    w = TsFileWriter(str(path), overwrite=True, page_size=32)  # several pages per chunk
    w.register_table(tsfile.TableSchema("m", cols))
    for half in range(2):
        for n, (site, dev) in enumerate(DEVICES):
            t = np.arange(ROWS // 2, dtype=np.int64) + k * SPAN + half * (ROWS // 2)
            v = np.ma.MaskedArray(t * 3 + n, mask=(t % 7) == 3)
            s = np.array([None if x % 5 == 1 else f"{dev}{x}" for x in t.tolist()], object)
            columns = {"site": site, "id": dev, "v": v, "s": s}
            if n != 1:  # device b never has a value of d: a value chunk missing for it
                columns["d"] = t + 0.25
            columns["day"] = np.ma.MaskedArray(20240101 + t % 28, mask=(t % 9) == 4)
            if extra:
                columns[extra] = (t % 11).astype(np.int32)
            w.write_arrays("m", t, columns)
        w.flush()
    w.close()
    return str(path)


@pytest.fixture(autouse=True, params=["small jobs", "default jobs"])
def job_size(request, monkeypatch):
    """Jobs of a few chunk groups / columns each (many jobs on these small files, shared by
    the threads in any order), and the default size (one job per file and phase here)."""
    if request.param == "small jobs":
        monkeypatch.setattr(columns, "JOB_VALUES", 150)


@pytest.fixture
def files(tmp_path):
    return [_write(tmp_path / f"part{k:03d}.tsfile", k) for k in range(FILES)]


def _concat(paths, **kw):
    """The one-file read_table on every file, the results one after the other."""
    parts = [tsfile.read_table(p, "m", **kw) for p in paths]
    out = {}
    for key in parts[0]:
        arrays = [p[key] for p in parts]
        masked = any(isinstance(a, np.ma.MaskedArray) for a in arrays)
        out[key] = np.ma.concatenate(arrays) if masked else np.concatenate(arrays)
    return out


def _via_blocks(paths, column_names=None, **kw):
    """The same query served block by block by query_table (another code path: no
    read_columns), in read_table's form."""
    names, parts = None, []
    for path in paths:
        with TsFileReader(path) as r, r.query_table("m", column_names, **kw) as rs:
            names = rs.get_metadata().get_column_list()
            while (b := rs.get_next_tsblock()) is not None:
                parts.append(b)
    out = {"time": np.concatenate([b.timestamps for b in parts])}
    for name in names[1:]:
        values = np.concatenate([b.columns[name] for b in parts])
        mask = np.concatenate([b.nulls.get(name, np.zeros(len(b), bool)) for b in parts])
        masked = mask.any() and values.dtype != object
        out[name] = np.ma.MaskedArray(values, mask=mask) if masked else values
    return out


def _same(got, want):
    assert list(got) == list(want)
    for key in want:
        x, y = got[key], want[key]
        assert isinstance(x, np.ma.MaskedArray) == isinstance(y, np.ma.MaskedArray), key
        assert x.dtype == y.dtype, key
        if isinstance(y, np.ma.MaskedArray):
            assert np.array_equal(np.ma.getmaskarray(x), np.ma.getmaskarray(y)), key
            assert np.array_equal(x.filled(0), y.filled(0)), key
        else:
            assert x.tolist() == y.tolist(), key


QUERIES = {
    "everything": {},
    "columns": {"column_names": ["s", "id", "v"]},
    "range cuts pages, prunes files": {"start_time": 1050, "end_time": 3120},
    "tag filter": {"tag_filter": tsfile.tag_eq("id", "b")},
    "null tag": {"tag_filter": tsfile.tag_eq("id", "c"), "column_names": ["site", "v"]},
    "value filter": {"value_filter": tsfile.col("v") > 6000, "column_names": ["id", "s"]},
    "all filters": {
        "start_time": 1010,
        "end_time": 4150,
        "tag_filter": tsfile.tag_eq("site", "north"),
        "value_filter": tsfile.col("d") < 3100,
    },
}


@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("query", list(QUERIES))
def test_one_allocation_equals_the_concatenated_one_file_reads(tmp_path, files, query, threads):
    kw = QUERIES[query]
    got = tsfile.read_table(str(tmp_path), "m", threads=threads, **kw)
    _same(got, _concat(files, **kw))
    _same(got, _via_blocks(files, **kw))


def test_the_files_are_decoded_into_one_allocation_not_concatenated(tmp_path, files, monkeypatch):
    def refuse(*_a, **_k):
        raise AssertionError("the files' results were concatenated")

    monkeypatch.setattr(scan, "concat_columns", refuse)
    got = tsfile.read_table(str(tmp_path), "m", threads=2)
    _same(got, _concat(files))
    # every column is a view of one array sized for all the files' rows
    assert got["time"].base is not None and got["time"].base.size >= FILES * ROWS * 3
    assert got["v"].data.base is not None


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_more_files_than_are_kept_open_read_in_batches(tmp_path, monkeypatch, threads):
    paths = [_write(tmp_path / f"p{k}.tsfile", k, extra="e" if k == 3 else None) for k in range(5)]
    monkeypatch.setattr(scan, "MAX_OPEN_READS", 2)
    opened, live, peak = [], set(), [0]
    lock = threading.Lock()
    original, original_close = TsFileReader.__init__, TsFileReader.close

    def counting(self, path):
        original(self, path)
        with lock:
            opened.append(path)
            live.add(id(self))
            peak[0] = max(peak[0], len(live))

    def closing(self):
        with lock:
            live.discard(id(self))
        original_close(self)

    monkeypatch.setattr(TsFileReader, "__init__", counting)
    monkeypatch.setattr(TsFileReader, "close", closing)
    got = tsfile.read_table(str(tmp_path), "m", threads=threads, schema="union")
    assert len(opened) == 5  # one reader per file
    assert peak[0] <= 2 and not live  # never more than MAX_OPEN_READS open, all closed after
    want = _concat(paths[:3] + paths[4:])
    assert list(got) == ["time", "site", "id", "v", "s", "d", "day", "e"]
    rows = len(got["time"])
    e = got["e"]
    assert isinstance(e, np.ma.MaskedArray) and e.mask.sum() == rows - 3 * ROWS
    assert not e.mask[3 * 3 * ROWS : 4 * 3 * ROWS].any()  # the fourth file's rows hold e
    keep = np.ones(rows, bool)
    keep[3 * 3 * ROWS : 4 * 3 * ROWS] = False
    _same({k: got[k][keep] for k in want}, want)


def _damage_a_value_page(path):
    """Overwrite the first bytes of the body of a value page of ``v`` (in its second chunk
    group): the metadata stay intact, so the file is planned and fails while decoding."""
    with TsFileReader(path) as r:
        read = r._plan_columns("m", ["v"], None, None, "auto", None, None)
        _task, group = read.groups[1]
        body = engine.read_chunk(r._fv, group.values[0]).page_info()[0][0]
    with open(path, "r+b") as f:
        f.seek(body)
        f.write(b"\xff" * 8)


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_a_file_failing_in_the_decode_is_named_or_skipped(tmp_path, files, threads):
    _damage_a_value_page(files[2])
    with pytest.raises(CorruptDataError, match=files[2]):
        tsfile.read_table(str(tmp_path), "m", threads=threads)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = tsfile.read_table(str(tmp_path), "m", threads=threads, on_error="skip")
    messages = [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]
    assert len(messages) == 1 and files[2] in messages[0]
    _same(got, _concat(files[:2] + files[3:]))


def test_one_file_read_columns_is_the_same_for_any_thread_count(files):
    with TsFileReader(files[1]) as r:
        want = r.read_columns("m", None, 1020, 1170)
        for threads in (2, 3):
            got = r.read_columns("m", None, 1020, 1170, threads=threads)
            assert got[0] == want[0] and np.array_equal(got[2], want[2])
            for name in want[0][1:]:
                assert got[3][name].tolist() == want[3][name].tolist(), name
                assert sorted(got[4]) == sorted(want[4])


@pytest.mark.parametrize("threads", [0, -2])
def test_threads_below_one_are_refused(tmp_path, files, threads):
    with pytest.raises(ValueError, match="threads must be >= 1"):
        tsfile.read_table(str(tmp_path), "m", threads=threads)


@pytest.mark.parametrize("threads", [1, 2])
def test_a_planned_scanner_reads_into_one_allocation_too(tmp_path, files, threads):
    kw = QUERIES["range cuts pages, prunes files"]
    scanner = scan.Scanner(str(tmp_path), "m", threads=threads, **kw)  # metadata read first
    assert scanner.pruned == [files[0], files[4]]
    _same(scanner.read_table(), _concat(files, **kw))


def test_only_the_queried_tables_index_is_walked(tmp_path, monkeypatch):
    from tsfile._dataset import files as files_mod

    paths = []
    for k in range(2):
        path = tmp_path / f"two{k}.tsfile"
        w = TsFileWriter(str(path), overwrite=True)
        for name in ("m", "other"):
            cols = [
                tsfile.ColumnSchema("id", TSDataType.STRING, ColumnCategory.TAG),
                tsfile.ColumnSchema("v", TSDataType.INT64, ColumnCategory.FIELD),
            ]
            w.register_table(tsfile.TableSchema(name, cols))
            t = np.arange(5, dtype=np.int64) + 10 * k
            w.write_arrays(name, t, {"id": "a", "v": t})
        w.close()
        paths.append(str(path))
    walked = []
    original = files_mod._table_devices

    def spy(reader, key, n_tags):
        walked.append(key)
        return original(reader, key, n_tags)

    monkeypatch.setattr(files_mod, "_table_devices", spy)
    got = tsfile.read_table(str(tmp_path), "m")
    assert got["v"].tolist() == [0, 1, 2, 3, 4, 10, 11, 12, 13, 14]
    assert walked == ["m", "m"]


@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("query", ["everything", "columns", "range cuts pages, prunes files"])
def test_arrow_and_pandas_over_files_equal_the_concatenated_one_file_results(
    tmp_path, files, query, threads
):
    pd = pytest.importorskip("pandas")
    pa = pytest.importorskip("pyarrow")

    kw = QUERIES[query]
    arrow = tsfile.read_arrow(str(tmp_path), "m", threads=threads, **kw)
    assert arrow.equals(pa.concat_tables([tsfile.read_arrow(p, "m", **kw) for p in files]))
    frame = tsfile.to_dataframe(str(tmp_path), "m", threads=threads, **kw)
    parts = [tsfile.to_dataframe(p, "m", **kw) for p in files]
    pd.testing.assert_frame_equal(frame, pd.concat([p for p in parts if len(p)], ignore_index=True))


def test_arrow_and_pandas_over_files_are_not_concatenated_per_file(tmp_path, files, monkeypatch):
    pd = pytest.importorskip("pandas")
    pa = pytest.importorskip("pyarrow")

    def refuse(*_a, **_k):
        raise AssertionError("per-file results were concatenated")

    want_arrow = pa.concat_tables([tsfile.read_arrow(p, "m") for p in files])
    want_frame = pd.concat([tsfile.to_dataframe(p, "m") for p in files], ignore_index=True)
    monkeypatch.setattr(pa, "concat_tables", refuse)
    monkeypatch.setattr(pd, "concat", refuse)
    assert tsfile.read_arrow(str(tmp_path), "m").equals(want_arrow)
    pd.testing.assert_frame_equal(tsfile.to_dataframe(str(tmp_path), "m"), want_frame)


@pytest.mark.parametrize("threads", [1, 2])
def test_an_invalid_date_names_its_file_or_skips_it(tmp_path, files, monkeypatch, threads):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")  # read_arrow below

    from tsfile import dataframe

    # the writer refuses invalid dates: the check is told that the third file's first DATE
    # value (20240113; each file's day column starts elsewhere) is one
    original = dataframe._invalid_date

    def invalid(values, mask):
        if len(values) and int(values[0]) == 20240113:
            return 20240113
        return original(values, mask)

    monkeypatch.setattr(dataframe, "_invalid_date", invalid)
    with pytest.raises(CorruptDataError, match=files[2]):
        tsfile.read_arrow(str(tmp_path), "m", threads=threads)
    with pytest.raises(CorruptDataError, match=files[2]):
        tsfile.to_dataframe(str(tmp_path), "m", threads=threads)
    others = files[:2] + files[3:]
    with pytest.warns(RuntimeWarning, match=files[2]):
        frame = tsfile.to_dataframe(str(tmp_path), "m", threads=threads, on_error="skip")
    want = pd.concat([tsfile.to_dataframe(p, "m") for p in others], ignore_index=True)
    pd.testing.assert_frame_equal(frame, want)
    with pytest.warns(RuntimeWarning, match=files[2]):
        arrow = tsfile.read_arrow(str(tmp_path), "m", threads=threads, on_error="skip")
    assert arrow.num_rows == len(want)


def test_a_failing_map_raises_only_once_its_running_jobs_have_ended():
    """JobPool.map: item 0 fails while item 1 is still running; the error reaches the caller
    only after item 1 ended (the caller then closes the readers the jobs use)."""
    started, ended = threading.Event(), threading.Event()

    def fn(x):
        if x == 0:
            assert started.wait(10)
            raise ValueError("item 0")
        started.set()
        threading.Event().wait(0.2)
        ended.set()

    with columns.JobPool(2) as pool:
        with pytest.raises(ValueError, match="item 0"):
            pool.map(fn, [0, 1])
        assert ended.is_set()  # before close() waits for the pool's threads


def test_the_files_are_planned_on_the_calling_thread(files, monkeypatch):
    """Planning holds the GIL but for short waits: two threads planning at once only handed the
    GIL back and forth (100 files: ~75 ms on two threads, ~45 on one). The decode still runs on
    both threads, and the result is the files' results in order."""
    planners = set()
    plan = TsFileReader._plan_columns

    def recording(self, *args):
        planners.add(threading.get_ident())
        return plan(self, *args)

    monkeypatch.setattr(TsFileReader, "_plan_columns", recording)
    got = tsfile.read_table(files, "m", threads=2)
    assert planners == {threading.get_ident()}
    want = _concat(files)
    assert list(got) == list(want)
    for key in want:
        assert np.array_equal(np.ma.getdata(got[key]), np.ma.getdata(want[key])), key
        assert np.array_equal(np.ma.getmaskarray(got[key]), np.ma.getmaskarray(want[key])), key


def test_a_time_chunk_that_fails_to_decode_has_no_tag_slot_written(files, monkeypatch):
    """Tag slots are written once every time chunk decoded: a time chunk whose statistics lie
    about its rows (the capacity is read from the file: up to 1,024 rows a stored byte,
    allocated untouched) raises CorruptDataError before 8 bytes a claimed row of every tag
    column are written."""
    from tsfile._read import tagfill

    cleared = []
    clear, fill_runs = tagfill.clear, tagfill.fill_runs
    monkeypatch.setattr(
        tagfill, "clear", lambda col, lo, hi: cleared.append((lo, hi)) or clear(col, lo, hi)
    )
    monkeypatch.setattr(
        tagfill,
        "fill_runs",
        lambda col, a, b, v: cleared.append((a, b)) or fill_runs(col, a, b, v),
    )

    def lying(self, *args):
        raise CorruptDataError("time page holds 100 timestamps, its statistics say 100000000")

    monkeypatch.setattr(TsFileReader, "_decode_times_many", lying)
    with pytest.raises(CorruptDataError, match="statistics say"):
        tsfile.read_table(files[0], "m", threads=1)
    assert cleared == []
