"""Review of the dataset view's opening path (commit 8b19f4a: collector paused while the view
is built, series of a device sharing one shard list, symlinks resolved per directory, index
version 4 with each table's columns once in "schemas").

Findings, each with its test below:
- an index of arrays nested past the recursion limit (a few hundred kB) made the view raise
  RecursionError from json.load instead of rebuilding the index;
- index entries of the right JSON types but out of range were taken as they were: a negative
  row count made ``len(df[name])`` raise ValueError (``__len__() should return >= 0``), a
  device with more or fewer tag values than its table has TAG columns became series of other
  names that read nothing (their counts saying otherwise), a device with rows whose start
  time is after its end time was kept; a tree device without nodes or segments was an
  IndexError. Such an index is rebuilt now;
- a FIFO at the index path (a directory others may write to) made the opening hang, waiting
  for a writer: only a regular file is read now;
- the catalog tested each series present in all files so far against the list of a file's
  fields: quadratic in a table's width when devices lack fields (2,000 fields, 100 files of
  20 devices: 7.6 s, against 1.3 s before 8b19f4a; now 0.6 s);
- the check that overlapping shards repeat no time ran once per shard list instead of once per
  device and set of files: a device whose fields are all null in one file gives each field a
  list of its own, and each read the device's timestamps in the same overlapping files again
  (40 fields of 200,000 rows: 285 ms to open, 12 ms before 8b19f4a and now).

The rest checks what the commit must keep: a view opened from its index equals the view read
from the files on random datasets (devices in some files only, fields all null in some files,
time-overlapping shards, file names out of time order, null tags), any index node replaced by
a value of another JSON type is rebuilt, symlinked names are deduplicated as a realpath per file
did, and the collector is enabled again after an opening that failed, unless the user had
disabled it.
"""

from __future__ import annotations

import copy
import gc
import json
import os
import random
import threading
import warnings

import numpy as np
import pytest

import tsfile
from tsfile._dataset import gcpause
from tsfile._dataset.files import _distinct_files, expand_paths
from tsfile._dataset.index import index_path
from tsfile.types import ColumnCategory, TSDataType
from tsfile.writer import TsFileWriter

_TABLES = {
    "t1": (("id",), {"a": TSDataType.DOUBLE, "b": TSDataType.INT64, "s": TSDataType.STRING}),
    "t2": (("site", "unit"), {"x": TSDataType.INT32, "y": TSDataType.BOOLEAN}),
}
_DEVICES = {
    "t1": [("d1",), ("d2",), (None,), ("",)],
    "t2": [("n", "u1"), (None, "u2"), ("n", None)],
}
_NP = {
    TSDataType.DOUBLE: np.float64,
    TSDataType.INT64: np.int64,
    TSDataType.INT32: np.int32,
    TSDataType.BOOLEAN: bool,
    TSDataType.STRING: object,
}


def _write_dataset(directory, seed):
    """A few files of two tables: devices in some files only, fields all null for a device
    in some files, times of a device spread over files that overlap in time (never
    repeated), file names in another order than time."""
    rng = random.Random(seed)
    os.makedirs(directory, exist_ok=True)
    names = rng.sample([f"{c}{d}" for c in "kqxz" for d in range(10)], rng.randint(1, 5))
    used = {}
    for fname in names:
        w = TsFileWriter(os.path.join(directory, fname + ".tsfile"))
        for table in rng.sample(sorted(_TABLES), rng.randint(1, 2)):
            tags, fields = _TABLES[table]
            w.register_table(
                tsfile.TableSchema(
                    table,
                    [tsfile.ColumnSchema(t, TSDataType.STRING, ColumnCategory.TAG) for t in tags]
                    + [
                        tsfile.ColumnSchema(f, dt, ColumnCategory.FIELD) for f, dt in fields.items()
                    ],
                )
            )
            times, tag_values = [], {t: [] for t in tags}
            values, masks = {f: [] for f in fields}, {f: [] for f in fields}
            for dev in rng.sample(_DEVICES[table], rng.randint(0, len(_DEVICES[table]))):
                free = [t for t in range(40) if t not in used.setdefault((table, dev), set())]
                ts = sorted(rng.sample(free, min(len(free), rng.randint(1, 5))))
                used[(table, dev)].update(ts)
                all_null = {f for f in fields if rng.random() < 0.3}
                for t in ts:
                    times.append(t)
                    for tag, v in zip(tags, dev, strict=True):
                        tag_values[tag].append(v)
                    for f, dt in fields.items():
                        masks[f].append(f in all_null or rng.random() < 0.1)
                        values[f].append(
                            f"v{t}"
                            if dt == TSDataType.STRING
                            else bool(t % 2)
                            if dt == TSDataType.BOOLEAN
                            else rng.randint(-50, 50)
                        )
            if not times:
                continue
            columns = {t: np.array(v, dtype=object) for t, v in tag_values.items()}
            for f, dt in fields.items():
                columns[f] = np.ma.MaskedArray(
                    np.array(values[f], dtype=_NP[dt]), mask=np.array(masks[f])
                )
            w.write_arrays(table, np.array(times, dtype=np.int64), columns)
        w.close()
    return directory


def _clean(values):
    return [None if v != v else float(v) for v in values]


def _observe(directory, **kw):
    """Everything the view lists and reads, or the error it opens with."""
    try:
        df = tsfile.TsFileDataFrame(str(directory), show_progress=False, **kw)
    except (tsfile.TsFileError, ValueError) as exc:
        return ("error", type(exc).__name__, str(exc))
    with df:
        names = [str(n) for n in df.list_timeseries()]
        meta = df.list_timeseries_metadata()
        out = {
            "names": names,
            "meta": {n: [str(v) for v in meta.loc[n]] for n in names},
            "series": {
                n: (df[n].timestamps.tolist(), _clean(df[n][:].tolist()), len(df[n])) for n in names
            },
        }
        if names:
            got = df.loc[5:30, names[::-1]]
            out["loc"] = (got.timestamps.tolist(), [_clean(r) for r in got.values.tolist()])
    return out


@pytest.mark.parametrize("seed", range(12))
def test_a_view_from_its_index_equals_the_view_from_the_files(tmp_path, seed):
    d = _write_dataset(tmp_path / "data", seed)
    fresh = _observe(d)
    assert _observe(d, use_index=True) == fresh  # writes the index
    assert _observe(d, use_index=True) == fresh  # reads it
    assert _observe(d, use_index=True, trust_index=False) == fresh


# -- damaged or hostile index files -------------------------------------------------------------


def _index_of(directory):
    return index_path(expand_paths(str(directory)))


def _built(tmp_path):
    d = _write_dataset(tmp_path / "data", 3)
    fresh = _observe(d)
    assert "names" in fresh and fresh["names"]
    _observe(d, use_index=True)
    path = _index_of(d)
    with open(path, encoding="utf-8") as f:
        return d, fresh, path, json.load(f)


def _rebuilt_from(d, path, text, fresh):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _observe(d, use_index=True) == fresh
    with open(path, encoding="utf-8") as f:
        assert json.load(f)["version"] == 4  # written again


def test_an_index_nested_past_the_recursion_limit_is_rebuilt(tmp_path):
    d, fresh, path, _doc = _built(tmp_path)
    deep = '{"version":4,"schemas":' + "[" * 100_000 + "]" * 100_000 + ',"files":[]}'
    _rebuilt_from(d, path, deep, fresh)
    deep = '{"version":4,"schemas":[],"files":' + '{"a":' * 100_000 + "1" + "}" * 100_000 + "}"
    _rebuilt_from(d, path, deep, fresh)


def _first_device(doc):
    for entry in doc["files"]:
        for t in entry["tables"].values():
            if t["devices"]:
                return t["devices"][0]
    raise AssertionError("no device")


@pytest.mark.parametrize(
    "damage",
    [
        "count -1",
        "count min",
        "tags one more",
        "tags one fewer",
        "tags none",
        "start after end",
    ],
)
def test_device_entries_out_of_range_are_rebuilt(tmp_path, damage):
    d, fresh, path, doc = _built(tmp_path)
    dev = _first_device(doc)
    assert dev[1] > 0
    if damage == "count -1":
        dev[1] = -1
    elif damage == "count min":
        dev[1] = -(2**63)
    elif damage == "tags one more":
        dev[0].append("x")
    elif damage == "tags one fewer":
        dev[0].pop()
    elif damage == "tags none":
        dev[0] = []
    else:
        dev[2], dev[3] = dev[3] + 1, dev[3]
    _rebuilt_from(d, path, json.dumps(doc), fresh)


def _nodes(obj, path=()):
    yield path
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _nodes(v, (*path, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _nodes(v, (*path, i))


def _json_kind(v):
    return "int" if type(v) is int else type(v).__name__


_DELETE = object()
_FIXED_KEYS = {"version", "schemas", "files", "path", "size", "mtime_ns", "tables", "schema"}


def test_any_index_node_of_another_type_or_range_is_rebuilt(tmp_path):
    """Every node of the index replaced by values of other JSON types (three of them, drawn;
    ints also by values past int64, and by -1 where a schema position or a row count goes),
    every fixed key deleted: the view is the fresh one (the index rebuilt)."""
    d, fresh, path, doc = _built(tmp_path)
    others = [None, True, 1.5, "x", [], {}, 7, [1], {"a": 1}]
    rng = random.Random(1)
    cases = 0
    for node in list(_nodes(doc))[1:]:
        value = doc
        for p in node:
            value = value[p]
        in_tags = len(node) == 8 and node[4] == "devices" and node[6] == 0
        replacements = [
            v
            for v in others
            if _json_kind(v) != _json_kind(value)
            and not (in_tags and (v is None or type(v) is str))  # a tag's own kinds
        ]
        replacements = rng.sample(replacements, min(3, len(replacements)))  # a test's time
        if type(value) is int:
            replacements += [2**63, -(2**63) - 1]
            is_count = len(node) == 7 and node[4] == "devices" and node[6] == 1
            if node[-1] == "schema" or is_count:
                replacements.append(-1)
        if node[-1] in _FIXED_KEYS:
            replacements.append(_DELETE)
        for replacement in replacements:
            damaged = copy.deepcopy(doc)
            parent = damaged
            for p in node[:-1]:
                parent = parent[p]
            if replacement is _DELETE:
                del parent[node[-1]]
            else:
                parent[node[-1]] = replacement
            _rebuilt_from(d, path, json.dumps(damaged), fresh)
            cases += 1
    assert cases > 100, cases


def test_an_index_of_version_3_or_other_versions_is_rebuilt(tmp_path):
    d, fresh, path, doc = _built(tmp_path)
    for version in (3, 5, "4", None):
        _rebuilt_from(d, path, json.dumps({**doc, "version": version}), fresh)


def test_a_fifo_at_the_index_path_is_not_waited_on(tmp_path):
    # opening the index for reading waited for a writer of the FIFO: the view hung
    d = _write_dataset(tmp_path / "data", 3)
    fresh = _observe(d)
    path = _index_of(d)
    os.mkfifo(path)
    got = []
    opener = threading.Thread(target=lambda: got.append(_observe(d, use_index=True)), daemon=True)
    opener.start()
    opener.join(60)
    if opener.is_alive():  # let the blocked open go on before failing
        os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
        opener.join(60)
        pytest.fail("the view waited on a FIFO at its index path")
    assert got == [fresh]
    assert os.path.isfile(path)  # the index written over it
    assert _observe(d, use_index=True) == fresh


def test_two_threads_opening_the_same_directory_at_once(tmp_path, collector_enabled):
    d = _write_dataset(tmp_path / "data", 5)
    fresh = _observe(d)
    for _round in range(4):
        for p in (tmp_path / "data").glob(".tsfile-turbo-dataset*"):
            p.unlink()
        results, errors = [], []

        def run(trust, results=results, errors=errors):
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("error")
                    results.append(_observe(d, use_index=True, trust_index=trust))
            except BaseException as exc:  # noqa: BLE001 - reported below
                errors.append(exc)

        threads = [threading.Thread(target=run, args=(k % 2 == 0,)) for k in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == [] and results == [fresh] * 3
    assert gc.isenabled() and gcpause._readers == 0
    assert _observe(d, use_index=True) == fresh


# -- paths ----------------------------------------------------------------------------------------


def _by_realpath(paths):
    """The reference: one realpath per name (the code before 8b19f4a)."""
    seen, out = set(), []
    for p in dict.fromkeys(paths):
        key = os.path.realpath(p)
        if key not in seen:
            seen.add(key)
            out.append(p)
    return out


def test_symlinked_names_are_deduplicated_as_by_a_realpath_each(tmp_path):
    root = tmp_path / "r"
    (root / "d" / "sub").mkdir(parents=True)
    (root / "e").mkdir()
    for n in ("a", "b"):
        (root / "d" / f"{n}.tsfile").write_bytes(b"x")
    os.symlink("a.tsfile", root / "d" / "la.tsfile")
    os.symlink("la.tsfile", root / "d" / "chain.tsfile")
    os.symlink(root / "d" / "b.tsfile", root / "e" / "abs.tsfile")
    os.symlink("../d", root / "e" / "dlink")
    os.symlink("..", root / "d" / "sub" / "loop")
    os.symlink("../e/dlink", root / "d" / "sub" / "dd")
    os.symlink("missing.tsfile", root / "d" / "dangling.tsfile")
    os.symlink("self", root / "d" / "self")
    os.symlink("l2", root / "e" / "l1.tsfile")
    os.symlink("l1.tsfile", root / "e" / "l2")
    os.link(root / "d" / "a.tsfile", root / "e" / "hard.tsfile")
    names = [
        "d/a.tsfile",
        "d/b.tsfile",
        "d/la.tsfile",
        "d/chain.tsfile",
        "e/abs.tsfile",
        "e/dlink/a.tsfile",
        "e/dlink/la.tsfile",
        "d/sub/loop/a.tsfile",
        "d/sub/loop/sub/loop/b.tsfile",
        "d/sub/dd/a.tsfile",
        "d/sub/dd/sub/dd/chain.tsfile",
        "d/dangling.tsfile",
        "d/self/a.tsfile",
        "e/l1.tsfile",
        "e/hard.tsfile",
        "d/nothing.tsfile",
    ]
    rng = random.Random(0)
    for _ in range(300):
        pick = [str(root / rng.choice(names)) for _ in range(rng.randint(1, 8))]
        assert _distinct_files(pick) == _by_realpath(pick), pick
    # the same through expand_paths: relative names, '..', bytes, recursive globs
    cwd = os.getcwd()
    os.chdir(root)
    try:
        for given in (
            ["d", "e"],
            ["e", "d"],
            "d/**/*.tsfile",
            ["d/sub/../a.tsfile", b"d/la.tsfile", "e/dlink/a.tsfile", "./d/./b.tsfile"],
            [b"d/sub/loop/sub/loop/b.tsfile", "e/abs.tsfile"],
            ["d/sub/loop/sub/loop/*.tsfile", "d/*.tsfile"],
        ):
            got = expand_paths(given)
            assert got == _by_realpath(got)
            assert set(map(os.path.realpath, got)) == set(
                map(os.path.realpath, _expanded_without_dedupe(given))
            )
    finally:
        os.chdir(cwd)


def _expanded_without_dedupe(given):
    import tsfile._dataset.files as files

    keep = files._distinct_files
    files._distinct_files = list
    try:
        return files.expand_paths(given)
    finally:
        files._distinct_files = keep


# -- the collector's pause ---------------------------------------------------------------------


@pytest.fixture
def broken_dataset(tmp_path):
    d = _write_dataset(tmp_path / "data", 2)
    good = sorted(p for p in os.listdir(d) if p.endswith(".tsfile"))[0]
    with open(os.path.join(d, good), "rb") as f:
        head = f.read(200)
    with open(os.path.join(d, "zz_broken.tsfile"), "wb") as f:
        f.write(head)
    return d


@pytest.mark.parametrize("use_index", [False, True])
@pytest.mark.parametrize("user_enabled", [True, False])
def test_the_collector_is_restored_after_an_opening_fails(broken_dataset, use_index, user_enabled):
    was = gc.isenabled()
    try:
        (gc.enable if user_enabled else gc.disable)()
        with pytest.raises(tsfile.TsFileError):
            tsfile.TsFileDataFrame(str(broken_dataset), show_progress=False, use_index=use_index)
        assert gc.isenabled() is user_enabled
        assert gcpause._readers == 0
        with pytest.raises(tsfile.TsFileError):
            tsfile.TsFileDataFrame(
                [str(broken_dataset / "nothing.tsfile")], show_progress=False, use_index=use_index
            )
        assert gc.isenabled() is user_enabled
    finally:
        (gc.enable if was else gc.disable)()


def test_the_collector_is_restored_after_an_interrupt_while_scanning(
    tmp_path, monkeypatch, collector_enabled
):
    import tsfile.dataset as dataset

    d = _write_dataset(tmp_path / "data", 4)
    real = dataset.read_file_info
    calls = []

    def interrupted(*args, **kw):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*args, **kw)

    monkeypatch.setattr(dataset, "read_file_info", interrupted)
    if len([p for p in os.listdir(d) if p.endswith(".tsfile")]) < 2:
        pytest.skip("one file")
    assert gc.isenabled()
    with pytest.raises(KeyboardInterrupt):
        tsfile.TsFileDataFrame(str(d), show_progress=False)
    assert gc.isenabled() and gcpause._readers == 0


def test_views_opened_inside_an_opening_and_on_threads_leave_the_collector_enabled(
    tmp_path, monkeypatch, collector_enabled
):
    import tsfile.dataset as dataset

    d = _write_dataset(tmp_path / "data", 6)
    inner = []
    real = dataset.read_file_info

    def nested(*args, **kw):
        if not inner:  # a view opened while the outer one is being built
            inner.append(None)
            with tsfile.TsFileDataFrame(str(d), show_progress=False) as v:
                inner[0] = len(v)
            assert not gc.isenabled()  # the outer opening still holds the pause
        return real(*args, **kw)

    monkeypatch.setattr(dataset, "read_file_info", nested)
    assert gc.isenabled()
    with tsfile.TsFileDataFrame(str(d), show_progress=False) as v:
        assert len(v) == inner[0]
    assert gc.isenabled() and gcpause._readers == 0
    monkeypatch.setattr(dataset, "read_file_info", real)
    threads = [
        threading.Thread(target=lambda: tsfile.TsFileDataFrame(str(d), show_progress=False).close())
        for _ in range(4)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert gc.isenabled() and gcpause._readers == 0


# -- a tree-model file's index entries ----------------------------------------------------------

_TREE_FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "tree", "tree_rows.tsfile")


def _tree_built(tmp_path):
    import shutil

    d = tmp_path / "tree"
    d.mkdir()
    shutil.copy(_TREE_FIXTURE, d / "tree_rows.tsfile")
    fresh = _observe(d)
    assert "names" in fresh and fresh["names"]
    _observe(d, use_index=True)
    path = _index_of(d)
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    assert doc["files"][0]["tree"]
    return d, fresh, path, doc


@pytest.mark.parametrize("damage", ["no nodes", "no segments", "count -1", "start after end"])
def test_tree_device_entries_out_of_range_are_rebuilt(tmp_path, damage):
    # an empty node or segment list was an IndexError of the view (opening, or reading)
    d, fresh, path, doc = _tree_built(tmp_path)
    dev = doc["files"][0]["tree"][0]
    series = dev[2][0]  # [measurement, type, count, start, end]
    assert series[2] > 0
    if damage == "no nodes":
        dev[0] = []
    elif damage == "no segments":
        dev[1] = []
    elif damage == "count -1":
        series[2] = -1
    else:
        series[3], series[4] = series[4] + 1, series[4]
    _rebuilt_from(d, path, json.dumps(doc), fresh)


def test_any_tree_index_node_of_another_type_is_rebuilt(tmp_path):
    d, fresh, path, doc = _tree_built(tmp_path)
    others = [None, True, 1.5, "x", [], {}, 7, [1]]
    rng = random.Random(2)
    cases = 0
    for node in list(_nodes(doc["files"][0]["tree"]))[1:]:
        value = doc["files"][0]["tree"]
        for p in node:
            value = value[p]
        in_segments = len(node) == 3 and node[1] == 1
        replacements = [
            v
            for v in others
            if _json_kind(v) != _json_kind(value)
            and not (in_segments and (v is None or type(v) is str))  # a segment's own kinds
        ]
        for replacement in rng.sample(replacements, min(3, len(replacements))):
            damaged = copy.deepcopy(doc)
            parent = damaged["files"][0]["tree"]
            for p in node[:-1]:
                parent = parent[p]
            parent[node[-1]] = replacement
            _rebuilt_from(d, path, json.dumps(damaged), fresh)
            cases += 1
    assert cases > 50, cases


# -- the catalog of a wide table -----------------------------------------------------------------


class _CountedName(str):
    """A field name counting its comparisons (each file's names are objects of their own, as
    the names read from different files are)."""

    compared = 0

    def __eq__(self, other):
        _CountedName.compared += 1
        return str.__eq__(self, other)

    __hash__ = str.__hash__


def test_the_catalog_of_a_wide_sparse_table_compares_each_name_a_few_times():
    # each file tested every series present in all files so far against the list of its
    # fields: quadratic in the table's width (2,000 fields: 6x the time of the catalog before
    # 8b19f4a); now dict lookups
    import tsfile.dataset as dataset
    from tsfile._dataset.files import DeviceStats, FileInfo, TableInfo

    width, files = 400, 20
    rng = random.Random(0)
    infos = []
    for k in range(files):
        names = [_CountedName(f"f{i}") for i in range(width)]
        columns = [(_CountedName("id"), TSDataType.STRING, ColumnCategory.TAG)] + [
            (n, TSDataType.DOUBLE, ColumnCategory.FIELD) for n in names
        ]
        absent = tuple(rng.sample(names, 1 + k % 3))
        devices = [DeviceStats((f"d{j}",), 1, k, k, absent) for j in range(2)]
        infos.append(FileInfo(f"/x/f{k:02d}.tsfile", 1, 1, {"t": TableInfo(columns, devices)}))
    _CountedName.compared = 0
    catalog = dataset._table_catalog(infos)
    assert len(catalog) == 2 * width
    for s in catalog.values():
        lacking = [k for k in range(files) if s.field in infos[k].tables["t"].devices[0].absent]
        assert [sh.path for sh in s.shards] == [
            f"/x/f{k:02d}.tsfile" for k in range(files) if k not in lacking
        ]
    # per field, device and file: about 7 comparisons here (the catalog before 8b19f4a about
    # 5); the quadratic test made about 35, and more the wider the table
    assert _CountedName.compared < 15 * width * files * 2


# -- the check that overlapping shards repeat no time ------------------------------------------


def _write_null_then_overlapping(directory, fields, repeat):
    """a: the device with every field null (so each field's series has a shard list of its
    own); b and c: the device's rows overlapping in time, c repeating one of b's times when
    ``repeat``."""
    os.makedirs(directory, exist_ok=True)
    cols = [tsfile.ColumnSchema("id", TSDataType.STRING, ColumnCategory.TAG)] + [
        tsfile.ColumnSchema(f"f{i}", TSDataType.DOUBLE, ColumnCategory.FIELD) for i in range(fields)
    ]
    for name, ts, null in (
        ("a", np.arange(-20, -10), True),
        ("b", np.arange(0, 40, 2), False),
        ("c", np.arange(1, 40, 2) - (1 if repeat else 0) * (np.arange(20) == 5), False),
    ):
        w = TsFileWriter(os.path.join(directory, f"{name}.tsfile"))
        w.register_table(tsfile.TableSchema("t", cols))
        data = {"id": "x"}
        for i in range(fields):
            data[f"f{i}"] = np.ma.MaskedArray(
                np.arange(len(ts), dtype=np.float64), mask=np.full(len(ts), null)
            )
        w.write_arrays("t", np.asarray(ts, dtype=np.int64), data)
        w.close()
    return directory


def test_overlapping_shards_are_checked_once_per_device_and_set_of_files(tmp_path, monkeypatch):
    # the series of a device whose fields are all null in one file each have a list of their
    # own naming the same files: each list was checked, reading the device's timestamps in
    # both overlapping files once per field (40 fields of 200,000 rows: 12 -> 285 ms)
    import tsfile.dataset as dataset

    d = _write_null_then_overlapping(tmp_path / "ok", fields=12, repeat=False)
    reads = []
    real = dataset.TsFileDataFrame._timestamps

    def counted(self, series, path):
        reads.append(os.path.basename(path))
        return real(self, series, path)

    monkeypatch.setattr(dataset.TsFileDataFrame, "_timestamps", counted)
    for use_index in (False, True, True):
        reads.clear()
        with tsfile.TsFileDataFrame(str(d), show_progress=False, use_index=use_index) as df:
            assert len(df) == 12
            assert df["t.x.f3"].timestamps.tolist() == list(range(40))
        assert sorted(reads) == ["b.tsfile", "c.tsfile"]
    bad = _write_null_then_overlapping(tmp_path / "bad", fields=12, repeat=True)
    with pytest.raises(tsfile.TsFileError, match="Duplicate timestamp 10"):
        tsfile.TsFileDataFrame(str(bad), show_progress=False)
