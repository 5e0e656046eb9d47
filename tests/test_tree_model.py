"""The tree model (register_timeseries / register_device / write_row_record / write_tablet, and
reading tree files): files byte-identical to the official 2.5 writer's, the official fixtures read
back, per-series statistics, the tree as a table, and the writer's safety rules for tree calls.

The official files are committed (tests/fixtures/tree, made by tests/interop/make_tree_fixtures.py
from tests/interop/tree_cases.py), so these tests need no official venv; the test that the
official reader reads our tree files runs when it is available (TSFILE_OFFICIAL_PYTHON; CI).
"""

from __future__ import annotations

import datetime
import math
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "interop"))

import tree_cases  # noqa: E402

import tsfile  # noqa: E402
from tsfile import (  # noqa: E402
    AlreadyExistsError,
    ClosedError,
    ColumnNotExistError,
    Compressor,
    DeviceNotExistError,
    DeviceSchema,
    EncodeError,
    Field,
    OutOfOrderError,
    RowRecord,
    Tablet,
    TimeseriesSchema,
    TSDataType,
    TSEncoding,
    TsFileReader,
    TsFileWriter,
    TypeMismatchError,
)
from tsfile.tree import (  # noqa: E402
    BoolTimeseriesStatistic,
    FloatTimeseriesStatistic,
    IntTimeseriesStatistic,
    StringTimeseriesStatistic,
    TextTimeseriesStatistic,
    TimeseriesStatistic,
)

T = TSDataType
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "tree"
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def expected_points(case) -> dict:
    """{device: {measurement: {time: value}}} of everything a case writes (nulls write none)."""
    out = {}
    for op in case["ops"]:
        if op[0] == "row":
            _, dev, t, fields = op
            for m, v in fields:
                if v is not None:
                    out.setdefault(dev, {}).setdefault(m, {})[t] = v
        elif op[0] == "tablet":
            _, dev, names, times, cols = op
            for m in names:
                for t, v in zip(times, cols[m], strict=True):
                    if v is not None:
                        out.setdefault(dev, {}).setdefault(m, {})[t] = v
    return out


def expected_chunk_counts(case) -> dict:
    """{(device, measurement): chunks}: one chunk per flush interval in which it got a point."""
    flushed = 0
    seen = set()
    for op in case["ops"]:
        if op[0] == "flush":
            flushed += 1
        elif op[0] == "row":
            seen.update((op[1], m, flushed) for m, v in op[3] if v is not None)
        else:
            _, dev, names, _times, cols = op
            seen.update((dev, m, flushed) for m in names if any(v is not None for v in cols[m]))
    counts = {}
    for dev, m, _ in seen:
        counts[(dev, m)] = counts.get((dev, m), 0) + 1
    return counts


def read_device(reader, dev, measurements):
    """{measurement: {time: value}} read with query_timeseries (the row API)."""
    got = {m: {} for m in measurements}
    with reader.query_timeseries(dev, measurements, INT64_MIN, INT64_MAX) as rs:
        while rs.next():
            t = rs.get_value_by_index(1)
            for i, m in enumerate(measurements):
                if not rs.is_null_by_index(i + 2):
                    got[m][t] = rs.get_value_by_index(i + 2)
    return got


def write_case(case, path):
    tree_cases.write_case(tsfile, case, str(path), official=False)


# -- files byte-identical to the official writer's --------------------------------------------


@pytest.mark.parametrize("name", sorted(tree_cases.CASES))
def test_same_bytes_as_official_writer(name, tmp_path):
    ours = tmp_path / f"{name}.tsfile"
    write_case(tree_cases.CASES[name](), ours)
    official = (FIXTURES / f"{name}.tsfile").read_bytes()
    mine = ours.read_bytes()
    if mine != official:
        at = next(
            (i for i, (a, b) in enumerate(zip(mine, official, strict=False)) if a != b),
            min(len(mine), len(official)),
        )
        pytest.fail(f"{name}: first difference at byte {at} ({len(mine)} vs {len(official)})")


# -- the official files read back ---------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(tree_cases.CASES))
def test_official_tree_files_read_back(name):
    case = tree_cases.CASES[name]()
    want = expected_points(case)
    with TsFileReader(FIXTURES / f"{name}.tsfile") as r:
        for dev, series in want.items():
            got = read_device(r, dev, sorted(series))
            for m in series:
                assert got[m] == series[m], (dev, m)


def test_all_timeseries_schemas_name_type_encoding_compression():
    case = tree_cases.rows_case()
    with TsFileReader(FIXTURES / "tree_rows.tsfile") as r:
        schemas = r.get_all_timeseries_schemas()
    want = {}
    for dev, m, ty, enc, comp in case["series"]:
        want.setdefault(dev, []).append(
            TimeseriesSchema(m, T[ty], TSEncoding[enc], Compressor[comp])
        )
    assert sorted(schemas) == sorted(want)
    for dev, series in want.items():
        assert isinstance(schemas[dev], DeviceSchema)
        assert schemas[dev].get_device_name() == dev
        by_name = sorted(series, key=lambda s: s.get_timeseries_name())
        assert schemas[dev].get_timeseries_list() == by_name


def _stat_expectation(ty, points):
    """The official statistic object for a series' points {time: value}."""
    times = sorted(points)
    vals = [points[t] for t in times]
    common = (True, len(times), times[0], times[-1])
    if ty in ("INT32", "INT64", "TIMESTAMP", "DATE"):
        if ty == "DATE":
            vals = [v.year * 10000 + v.month * 100 + v.day for v in vals]
        return IntTimeseriesStatistic(
            *common, float(sum(vals)), min(vals), max(vals), vals[0], vals[-1]
        )
    if ty in ("FLOAT", "DOUBLE"):
        return FloatTimeseriesStatistic(
            *common, math.fsum(vals), min(vals), max(vals), vals[0], vals[-1]
        )
    if ty == "BOOLEAN":
        return BoolTimeseriesStatistic(*common, float(sum(vals)), vals[0], vals[-1])
    if ty == "STRING":
        by_bytes = sorted(vals, key=lambda s: s.encode("utf-8"))
        return StringTimeseriesStatistic(*common, by_bytes[0], by_bytes[-1], vals[0], vals[-1])
    if ty == "TEXT":
        return TextTimeseriesStatistic(*common, vals[0], vals[-1])
    return TimeseriesStatistic(*common)


def test_timeseries_metadata_statistics_of_every_type():
    case = tree_cases.rows_case()
    want = expected_points(case)
    types = {(d, m): ty for d, m, ty, _e, _c in case["series"]}
    chunks = expected_chunk_counts(case)
    assert set(chunks.values()) == {1, 2}  # the case has series on one and on both sides
    with TsFileReader(FIXTURES / "tree_rows.tsfile") as r:
        meta = r.get_timeseries_metadata()
    assert sorted(meta) == sorted(tsfile._format.device.tree_device_id(d).segments for d in want)
    for dev, series in want.items():
        segments = tsfile._format.device.tree_device_id(dev).segments
        group = meta[segments]
        assert group.segments == segments and group.table_name == segments[0]
        assert [ts.measurement_name for ts in group.timeseries] == sorted(series)
        for ts in group.timeseries:
            ty = types[(dev, ts.measurement_name)]
            exp = _stat_expectation(ty, series[ts.measurement_name])
            got = ts.statistic
            assert ts.data_type == T[ty]
            assert ts.chunk_meta_count == chunks[(dev, ts.measurement_name)]
            assert type(got) is type(exp)
            if isinstance(exp, (IntTimeseriesStatistic, FloatTimeseriesStatistic)):
                # sums are the writer's floating-point additions: equal up to rounding
                assert got.sum == pytest.approx(exp.sum, rel=1e-9, abs=1e-6)
                got = type(got)(**{**got.__dict__, "sum": exp.sum})
            assert got == exp, (dev, ts.measurement_name)
            timeline = TimeseriesStatistic(True, exp.row_count, exp.start_time, exp.end_time)
            assert ts.timeline_statistic == timeline


def test_timeseries_metadata_of_chosen_devices_and_a_missing_one():
    with TsFileReader(FIXTURES / "tree_rows.tsfile") as r:
        one = r.get_timeseries_metadata(["root.sg1.d2"])
        assert list(one) == [("root.sg1", "d2")]
        by_tuple = r.get_timeseries_metadata([("root.sg1", "d2")])
        assert by_tuple == one
        with pytest.raises(DeviceNotExistError, match="root.nope"):
            r.get_timeseries_metadata(["root.nope"])


# -- the tree read as a table -----------------------------------------------------------------


def test_query_table_on_tree_rows_levels_and_nulls(tmp_path):
    path = tmp_path / "t.tsfile"
    with TsFileWriter(path) as w:
        w.register_timeseries("root.sg1.d1", TimeseriesSchema("a", T.INT64))
        w.register_timeseries("root.sg1.d1", TimeseriesSchema("b", T.DOUBLE))
        w.register_timeseries("root.x.y.z.d2", TimeseriesSchema("a", T.INT64))
        for i in range(4):
            fields = [Field("a", i, T.INT64)]
            if i % 2:
                fields.append(Field("b", i * 0.5, T.DOUBLE))
            w.write_row_record(RowRecord("root.sg1.d1", i, fields))
            w.write_row_record(RowRecord("root.x.y.z.d2", 10 + i, [Field("a", -i, T.INT64)]))
    with TsFileReader(path) as r:
        with r.query_table_on_tree(["a", "b"], 1, 11) as rs:
            names = rs.get_metadata().get_column_list()
            rows = []
            while rs.next():
                rows.append([rs.get_value_by_index(i) for i in range(1, len(names) + 1)])
        with r.query_table_on_tree(["b"]) as rs:
            only_b = []
            while rs.next():
                only_b.append((rs.get_value_by_index(1), rs.get_value_by_name("b")))
        with pytest.raises(ColumnNotExistError):
            r.query_table_on_tree(["zz"])
    assert names == ["time", "col_0", "col_1", "col_2", "col_3", "col_4", "a", "b"]
    assert rows == [
        [1, "root", "sg1", "d1", None, None, 1, 0.5],
        [2, "root", "sg1", "d1", None, None, 2, None],
        [3, "root", "sg1", "d1", None, None, 3, 1.5],
        [10, "root", "x", "y", "z", "d2", 0, None],
        [11, "root", "x", "y", "z", "d2", -1, None],
    ]
    # only the devices that have b (the official reader raises NotSupportedError here)
    assert only_b == [(1, 0.5), (3, 1.5)]
    df = tsfile.to_dataframe(path)
    assert list(df.columns) == ["time", "col_0", "col_1", "col_2", "col_3", "col_4", "a", "b"]
    assert df["a"].tolist() == [0, 1, 2, 3, 0, -1, -2, -3]
    assert str(df["a"].dtype) == "Int64" and str(df["b"].dtype) == "Float64"
    assert df["b"].isna().tolist() == [True, False, True, False] + [True] * 4


def test_query_table_on_tree_refuses_a_measurement_of_two_types():
    # tree_rows has "v" as INT64 on root.a and DOUBLE on root.a.b.c.d: one column cannot hold
    # both exactly (the official to_dataframe reads them all as the first type it meets)
    path = FIXTURES / "tree_rows.tsfile"
    with TsFileReader(path) as r:
        with pytest.raises(TypeMismatchError, match="'v'"):
            r.query_table_on_tree(["v"])
    with pytest.raises(TypeMismatchError):
        tsfile.to_dataframe(path)
    df = tsfile.to_dataframe(path, column_names=["w", "s_i64"])
    want = expected_points(tree_cases.rows_case())
    assert int(df["w"].notna().sum()) == len(want["root.a.b.c.d"]["w"])
    assert int(df["s_i64"].notna().sum()) == len(want["root.sg1.d1"]["s_i64"])


def test_to_dataframe_of_official_tablets_file_matches_the_case():
    want = expected_points(tree_cases.tablets_case())
    types = {(d, m): T[ty] for d, m, ty, _e, _c in tree_cases.ALL_TYPES_SERIES}
    df = tsfile.to_dataframe(FIXTURES / "tree_tablets.tsfile")
    for dev, series in want.items():
        mine = df[df["col_2"] == dev.split(".")[2]]
        times = mine["time"].tolist()
        assert times == sorted({t for pts in series.values() for t in pts})
        for m, pts in series.items():
            present = mine[m].notna().tolist()
            values = mine[m].tolist()
            got = {t: v for t, v, p in zip(times, values, present, strict=True) if p}
            if types[(dev, m)] == T.FLOAT:
                got = {t: float(v) for t, v in got.items()}
            assert got == pts, (dev, m)


# -- writing: the writer's rules hold for tree calls ------------------------------------------


def _writer(tmp_path, **kw):
    w = TsFileWriter(tmp_path / "w.tsfile", **kw)
    w.register_timeseries("root.sg1.d1", TimeseriesSchema("i", T.INT32))
    w.register_timeseries("root.sg1.d1", TimeseriesSchema("s", T.STRING))
    return w


def _points(path, dev="root.sg1.d1", measurements=("i", "s")):
    """{measurement: {time: value}}; a series registered but never written is not in the file
    (as with the official writer): {} for it."""
    with TsFileReader(path) as r:
        in_file = set(r.get_timeseries_names(dev))
        got = read_device(r, dev, [m for m in measurements if m in in_file])
    return {m: got.get(m, {}) for m in measurements}


def test_unregistered_device_and_series_are_refused(tmp_path):
    with _writer(tmp_path) as w:
        with pytest.raises(DeviceNotExistError, match="root.sg1.nope"):
            w.write_row_record(RowRecord("root.sg1.nope", 1, [Field("i", 1, T.INT32)]))
        # the official writer drops a field of an unregistered series silently
        with pytest.raises(ColumnNotExistError, match="'q'"):
            w.write_row_record(
                RowRecord("root.sg1.d1", 1, [Field("i", 1, T.INT32), Field("q", 2, T.INT32)])
            )
        w.write_row_record(RowRecord("root.sg1.d1", 2, [Field("i", 7, T.INT32)]))
    # the refused row wrote nothing, not even its good field
    assert _points(tmp_path / "w.tsfile") == {"i": {2: 7}, "s": {}}


@pytest.mark.parametrize(
    "field, reason",
    [
        (Field("i", 2**31, T.INT32), "INT32"),
        (Field("i", 1.5, T.INT32), "INT32"),
        (Field("i", "7", T.INT32), "INT32"),
        (Field("i", 1, T.INT64), "INT64"),  # the field's type is not the series'
        (Field("s", b"\xff", T.STRING), "UTF-8"),
        (Field("s", "bad \udc80", T.STRING), ""),
    ],
)
def test_a_bad_value_refuses_the_whole_row_naming_the_series(tmp_path, field, reason):
    with _writer(tmp_path) as w:
        row = RowRecord("root.sg1.d1", 5, [Field("s", "ok", T.STRING), field])
        if field.get_field_name() == "s":
            row = RowRecord("root.sg1.d1", 5, [Field("i", 3, T.INT32), field])
        with pytest.raises(TypeMismatchError, match=f"column '{field.get_field_name()}'") as e:
            w.write_row_record(row)
        assert reason in str(e.value)
        w.write_row_record(RowRecord("root.sg1.d1", 6, [Field("i", 1, T.INT32)]))
    assert _points(tmp_path / "w.tsfile") == {"i": {6: 1}, "s": {}}


def test_a_bad_timestamp_is_refused(tmp_path):
    with _writer(tmp_path) as w:
        for bad in (1.5, "3", None, 2**63):
            with pytest.raises(TypeMismatchError, match="time"):
                w.write_row_record(RowRecord("root.sg1.d1", bad, [Field("i", 1, T.INT32)]))


def test_duplicate_timestamps_are_refused_decreasing_ones_sorted(tmp_path):
    with _writer(tmp_path) as w:
        w.write_row_record(RowRecord("root.sg1.d1", 5, [Field("i", 5, T.INT32)]))
        w.write_row_record(RowRecord("root.sg1.d1", 3, [Field("i", 3, T.INT32)]))
        # the official writer writes both points of a timestamp given twice
        with pytest.raises(OutOfOrderError, match="timestamp 5"):
            w.write_row_record(RowRecord("root.sg1.d1", 5, [Field("i", 9, T.INT32)]))
        # another series may have that timestamp
        w.write_row_record(RowRecord("root.sg1.d1", 5, [Field("s", "x", T.STRING)]))
        tab = Tablet(["i"], [T.INT32], 3)
        tab.set_table_name("root.sg1.d1")
        for r, t in enumerate((7, 8, 7)):
            tab.add_timestamp(r, t)
            tab.add_value_by_index(0, r, t)
        with pytest.raises(OutOfOrderError, match="timestamp 7"):
            w.write_tablet(tab)
        w.flush()
        # across a flush the timestamp is accepted again (a second chunk), as officially
        w.write_row_record(RowRecord("root.sg1.d1", 5, [Field("s", "y", T.STRING)]))
    with TsFileReader(tmp_path / "w.tsfile") as r:
        ts, vals = r._read_series(
            r._series("root.sg1", r._find_device("root.sg1.d1")[1])["i"], INT64_MIN, INT64_MAX, 0
        )
        assert ts.tolist() == [3, 5] and vals.tolist() == [3, 5]


def test_tablet_nulls_write_no_point_and_a_bad_cell_names_its_row(tmp_path):
    with _writer(tmp_path) as w:
        tab = Tablet(["i", "s"], [T.INT32, T.STRING], 4)
        tab.set_table_name("root.sg1.d1")
        for r in range(4):
            tab.add_timestamp(r, 10 + r)
        tab.add_value_by_index(0, 0, 1)
        tab.add_value_by_index(0, 2, 3)
        tab.add_value_by_index(1, 1, "b")
        tab.add_value_by_index(1, 3, "d")
        w.write_tablet(tab)
        bad = Tablet(["i"], [T.INT64], 2)  # the series is INT32
        bad.set_table_name("root.sg1.d1")
        with pytest.raises(TypeMismatchError, match="'i'"):
            w.write_tablet(bad)
        unknown = Tablet(["zz"], [T.INT32], 1)
        unknown.set_table_name("root.sg1.d1")
        with pytest.raises(ColumnNotExistError):
            w.write_tablet(unknown)
        other = Tablet(["i"], [T.INT32], 1)
        other.set_table_name("root.sg1.d9")
        with pytest.raises(DeviceNotExistError):
            w.write_tablet(other)
    assert _points(tmp_path / "w.tsfile") == {"i": {10: 1, 12: 3}, "s": {11: "b", 13: "d"}}


def test_register_rules(tmp_path):
    with _writer(tmp_path) as w:
        with pytest.raises(AlreadyExistsError):
            w.register_timeseries("root.sg1.d1", TimeseriesSchema("i", T.DOUBLE))
        # register_device is all or nothing: a clash leaves "new" unregistered too
        dev = DeviceSchema(
            "root.sg1.d1", [TimeseriesSchema("new", T.INT32), TimeseriesSchema("s", T.STRING)]
        )
        with pytest.raises(AlreadyExistsError):
            w.register_device(dev)
        with pytest.raises(ColumnNotExistError):
            w.write_row_record(RowRecord("root.sg1.d1", 1, [Field("new", 1, T.INT32)]))
        with pytest.raises(ValueError, match="twice"):
            w.register_device(DeviceSchema("root.x", [TimeseriesSchema("a", T.INT32)] * 2))
        with pytest.raises(ValueError, match="not a device path"):
            w.register_timeseries("root..x", TimeseriesSchema("a", T.INT32))
        # an encoding the type cannot have is refused when registering, not at flush
        with pytest.raises(tsfile.UnsupportedError):
            w.register_timeseries("root.y", TimeseriesSchema("a", T.TEXT, TSEncoding.GORILLA))
        w.register_device(DeviceSchema("root.sg2.d", [TimeseriesSchema("b", T.BOOLEAN)]))
        w.write_row_record(RowRecord("root.sg2.d", 1, [Field("b", True, T.BOOLEAN)]))
    assert _points(tmp_path / "w.tsfile", "root.sg2.d", ["b"]) == {"b": {1: True}}


def test_lossy_encoding_refused_at_the_call_with_the_buffered_points(tmp_path):
    # SPRINTZ cannot store a prediction error of exactly the type's minimum (format notes 8.9);
    # here it arises only once the second call completes a block of 9 with the first's points,
    # so the trial encoding must include the buffered points (flush writes them in one page)
    low = int(np.iinfo(np.int64).min)
    with TsFileWriter(tmp_path / "w.tsfile", page_size=20) as w:
        w.register_timeseries("root.a.b", TimeseriesSchema("v", T.INT64, TSEncoding.SPRINTZ))
        tab = Tablet(["v"], [T.INT64], 2)
        tab.set_table_name("root.a.b")
        for r, v in enumerate((0, low)):
            tab.add_timestamp(r, r)
            tab.add_value_by_index(0, r, v)
        w.write_tablet(tab)  # a tail: stored
        zeros = Tablet(["v"], [T.INT64], 7)
        zeros.set_table_name("root.a.b")
        for r in range(7):
            zeros.add_timestamp(r, 2 + r)
            zeros.add_value_by_index(0, r, 0)
        with pytest.raises(EncodeError, match="root.a.b.*'v'.*at time 1"):
            w.write_tablet(zeros)
        w.write_row_record(RowRecord("root.a.b", 20, [Field("v", 4, T.INT64)]))
    # the refused call wrote nothing, the flush did not fail
    assert _points(tmp_path / "w.tsfile", "root.a.b", ["v"])["v"] == {0: 0, 1: low, 20: 4}


def test_memory_threshold_flushes_and_closed_writer_refuses(tmp_path):
    w = _writer(tmp_path, memory_threshold=64)
    for t in range(20):
        w.write_row_record(RowRecord("root.sg1.d1", t, [Field("i", t, T.INT32)]))
    w.close()
    with pytest.raises(ClosedError):
        w.write_row_record(RowRecord("root.sg1.d1", 99, [Field("i", 1, T.INT32)]))
    with TsFileReader(tmp_path / "w.tsfile") as r:
        group = r.get_timeseries_metadata(["root.sg1.d1"])[("root.sg1", "d1")]
        (i_meta,) = [ts for ts in group.timeseries if ts.measurement_name == "i"]
        assert i_meta.chunk_meta_count > 1 and i_meta.statistic.row_count == 20
    assert _points(tmp_path / "w.tsfile")["i"] == {t: t for t in range(20)}


def test_tree_and_table_model_in_one_file(tmp_path):
    from tsfile import ColumnCategory, ColumnSchema, TableSchema

    path = tmp_path / "mixed.tsfile"
    with TsFileWriter(path) as w:
        w.register_table(
            TableSchema(
                "t",
                [
                    ColumnSchema("tag", T.STRING, ColumnCategory.TAG),
                    ColumnSchema("f", T.INT64, ColumnCategory.FIELD),
                ],
            )
        )
        w.register_timeseries("root.sg1.d1", TimeseriesSchema("v", T.DOUBLE))
        w.write_arrays("t", np.array([1, 2]), {"tag": "x", "f": np.array([10, 20])})
        w.write_row_record(RowRecord("root.sg1.d1", 3, [Field("v", 0.25, T.DOUBLE)]))
        with pytest.raises(ValueError, match="share its index"):
            w.register_timeseries("t.x", TimeseriesSchema("v", T.DOUBLE))
    with TsFileReader(path) as r:
        assert read_device(r, "root.sg1.d1", ["v"]) == {"v": {3: 0.25}}
        # tree and table devices alike, as the official 2.5 reader lists this file (checked:
        # root.sg1.d1 [v DOUBLE PLAIN UNCOMPRESSED], t.x [f INT64 TS_2DIFF LZ4])
        schemas = r.get_all_timeseries_schemas()
        assert list(schemas) == ["root.sg1.d1", "t.x"]
        assert [s.get_timeseries_name() for s in schemas["t.x"].get_timeseries_list()] == ["f"]
        with r.query_table("t", ["f"]) as rs:
            got = []
            while rs.next():
                got.append(rs.get_value_by_name("f"))
        assert got == [10, 20]


# -- Field and RowRecord ----------------------------------------------------------------------


def test_field_accessors_and_conversions():
    f = Field("x", 7, T.INT32)
    assert f.get_int_value() == 7 and isinstance(f.get_int_value(), np.int32)
    assert f.get_long_value() == 7 and f.get_double_value() == 7.0
    assert f.get_string_value() == "7" and str(f) == "7"
    assert Field("x", None, T.INT32).get_int_value() is None
    assert Field("x", None, T.INT32).is_null()
    with pytest.raises(OverflowError):
        Field("x", 2**40, T.INT64).get_int_value()
    with pytest.raises(OverflowError):
        Field("x", 1e300, T.DOUBLE).get_float_value()
    with pytest.raises(TypeError):
        Field("x", "a", T.STRING).get_int_value()
    with pytest.raises(TypeError):
        Field("x", 1).get_int_value()  # no data type
    assert Field("b", True, T.BOOLEAN).get_bool_value() is True
    with pytest.raises(TypeError):
        Field("b", 1, T.BOOLEAN).get_bool_value()
    day = datetime.date(2024, 1, 4)
    assert Field("d", day, T.DATE).get_date_value() == day
    assert Field("d", day, T.DATE).get_int_value() == 20240104
    assert Field("d", 20240104, T.DATE).get_date_value() == day
    assert Field("d", day, T.DATE).get_string_value() == "2024-01-04"
    assert Field("t", 5, T.TIMESTAMP).get_timestamp_value() == 5
    assert Field("z", b"\x00a", T.BLOB).get_bytes_value() == b"\x00a"
    with pytest.raises(TypeError):
        Field("z", "a", T.STRING).get_bytes_value()
    assert Field("f", 1.5, T.FLOAT).get_object_value(T.FLOAT) == np.float32(1.5)


def test_row_record_accessors():
    r = RowRecord("root.a.b", 10, [Field("x", 1, T.INT32)])
    r.add_field("y", "s", T.STRING)
    assert r.get_fields_num() == 2 and r.get_fields()[1].get_string_value() == "s"
    assert str(r) == "10\t\t1\t\ts"
    r.set_timestamp(11)
    r.set_device_id("root.a.c")
    r.set_field(0, Field("x", 2, T.INT32))
    assert (r.get_timestamp(), r.get_device_id(), r.get_fields()[0].get_value()) == (
        11,
        "root.a.c",
        2,
    )
    assert RowRecord("root.a", 1).get_fields() == []


def test_schema_classes_defaults_and_repr():
    s = TimeseriesSchema("Temp", T.DOUBLE)
    assert (s.get_encoding_type(), s.get_compression_type()) == (
        TSEncoding.PLAIN,
        Compressor.UNCOMPRESSED,
    )
    assert s.get_timeseries_name() == "Temp"  # the tree model keeps case
    assert repr(s) == "TimeseriesSchema(Temp, DOUBLE, PLAIN, UNCOMPRESSED)"
    d = DeviceSchema("root.sg1.d1", [s])
    assert (
        repr(d)
        == "DeviceSchema(root.sg1.d1, [TimeseriesSchema(Temp, DOUBLE, PLAIN, UNCOMPRESSED)])"
    )
    with pytest.raises(TypeError):
        DeviceSchema("root.x", ["not a schema"])
    with pytest.raises(TypeError):
        TimeseriesSchema("", T.INT32)


# -- the official reader reads our tree files -------------------------------------------------


def test_official_reader_reads_our_tree_files(tmp_path):
    from interop.official import read_with_official, skip_unless_official

    skip_unless_official()
    for name, make in sorted(tree_cases.CASES.items()):
        case = make()
        path = tmp_path / f"{name}.tsfile"
        write_case(case, path)
        got = read_with_official(path)["devices"]
        for dev, series in expected_points(case).items():
            values = got[dev]["values"]
            times = values["time"]
            for m, pts in series.items():
                col = values[f"{dev}.{m}"]
                have = {t: v for t, v in zip(times, col, strict=True) if v is not None}
                assert have == pts, (name, dev, m)


# -- aligned tree devices (register_device(..., aligned=True), an extension) -------------------


def _write_aligned(path):
    """An aligned device (3 series, rows with some or all values null, out of time order, a
    flush, a tablet) beside a non-aligned one; returns {measurement: {time: value}} and the
    row times of the aligned device."""
    want = {"x": {}, "s": {}, "f": {}}
    rows = []
    with TsFileWriter(path) as w:
        w.register_device(
            DeviceSchema(
                "root.sg1.al",
                [
                    TimeseriesSchema("x", T.INT64, TSEncoding.TS_2DIFF, Compressor.LZ4),
                    TimeseriesSchema("s", T.STRING),
                    TimeseriesSchema("f", T.FLOAT, TSEncoding.GORILLA),
                ],
            ),
            aligned=True,
        )
        w.register_timeseries("root.sg1.na", TimeseriesSchema("x", T.INT64))
        for i in range(30):
            t = 1000 - i
            fields = []
            if i % 3:
                fields.append(Field("x", i, T.INT64))
                want["x"][t] = i
            if i % 2:
                fields.append(Field("s", f"v{i}", T.STRING))
                want["s"][t] = f"v{i}"
            w.write_row_record(RowRecord("root.sg1.al", t, fields))  # i = 0: all null
            rows.append(t)
            w.write_row_record(RowRecord("root.sg1.na", i, [Field("x", i, T.INT64)]))
            if i == 15:
                w.flush()
        tab = Tablet(["f", "x"], [T.FLOAT, T.INT64], 3)
        tab.set_table_name("root.sg1.al")
        for r in range(3):
            tab.add_timestamp(r, 2000 + r)
            tab.add_value_by_index(0, r, r * 0.5)
            want["f"][2000 + r] = r * 0.5
            rows.append(2000 + r)
        w.write_tablet(tab)
    return want, sorted(rows)


def test_aligned_device_rows_and_layout(tmp_path):
    path = tmp_path / "al.tsfile"
    want, rows = _write_aligned(path)
    with TsFileReader(path) as r:
        assert read_device(r, "root.sg1.al", ["x", "s", "f"]) == want
        with r.query_timeseries("root.sg1.al", ["x"]) as rs:
            times = []
            while rs.next():
                times.append(rs.get_value_by_index(1))
        # every row, also those whose values are all null (chunk group by chunk group, as the
        # official reader returns them: the second group holds earlier times)
        assert sorted(times) == rows and times != rows
        group = r.get_timeseries_metadata(["root.sg1.al"])[("root.sg1", "al")]
        for ts in group.timeseries:
            assert ts.layout == 1 and ts.locator_flags == 1
            # a value chunk for every series in every chunk group (f has values only in the
            # last one): the readers pair value chunks with time chunks by position
            assert ts.chunk_meta_count == ts.time_chunk_meta_count == 2
            assert ts.timeline_statistic.row_count == len(rows)
            assert ts.statistic.row_count == len(want[ts.measurement_name])
        schemas = r.get_all_timeseries_schemas()
        assert [s.get_timeseries_name() for s in schemas["root.sg1.al"].get_timeseries_list()] == [
            "f",
            "s",
            "x",
        ]


def test_aligned_device_rules(tmp_path):
    with TsFileWriter(tmp_path / "al.tsfile") as w:
        dev = DeviceSchema("root.a.b", [TimeseriesSchema("x", T.INT32)])
        w.register_device(dev, aligned=True)
        with pytest.raises(AlreadyExistsError):
            w.register_device(dev, aligned=True)
        with pytest.raises(ValueError, match="aligned"):
            w.register_timeseries("root.a.b", TimeseriesSchema("y", T.INT32))
        w.write_row_record(RowRecord("root.a.b", 5, [Field("x", 1, T.INT32)]))
        # one time column: a timestamp the device has is refused, whichever series it names
        with pytest.raises(OutOfOrderError, match="'root.a.b': timestamp 5"):
            w.write_row_record(RowRecord("root.a.b", 5, []))
        w.register_device(
            DeviceSchema("root.a.c", [TimeseriesSchema("v", T.INT64, TSEncoding.SPRINTZ)]),
            aligned=True,
        )
        low = int(np.iinfo(np.int64).min)
        w.write_row_record(RowRecord("root.a.c", 0, [Field("v", 0, T.INT64)]))
        w.write_row_record(RowRecord("root.a.c", 1, [Field("v", low, T.INT64)]))
        zeros = Tablet(["v"], [T.INT64], 7)
        zeros.set_table_name("root.a.c")
        for r in range(7):
            zeros.add_timestamp(r, 2 + r)
            zeros.add_value_by_index(0, r, 0)
        with pytest.raises(EncodeError, match="root.a.c"):
            w.write_tablet(zeros)
    with TsFileReader(tmp_path / "al.tsfile") as r:
        assert read_device(r, "root.a.b", ["x"]) == {"x": {5: 1}}
        assert read_device(r, "root.a.c", ["v"]) == {"v": {0: 0, 1: low}}


def test_official_reader_reads_our_aligned_tree_devices(tmp_path):
    from interop.official import read_with_official, skip_unless_official

    skip_unless_official()
    path = tmp_path / "al.tsfile"
    want, rows = _write_aligned(path)
    got = read_with_official(path)["devices"]["root.sg1.al"]["values"]
    assert sorted(got["time"]) == rows
    for m, pts in want.items():
        col = got[f"root.sg1.al.{m}"]
        assert {t: v for t, v in zip(got["time"], col, strict=True) if v is not None} == pts, m


def test_a_failed_write_leaves_a_readable_file_with_the_earlier_groups(tmp_path):
    # the second chunk group reaches the disk only in part (ENOSPC after some bytes): close()
    # cuts the file back to the first group and completes it there
    path = tmp_path / "w.tsfile"
    w = _writer(tmp_path)
    w.write_row_record(RowRecord("root.sg1.d1", 1, [Field("i", 1, T.INT32)]))
    w.flush()
    real = w._file.writelines

    def torn(parts):
        real([bytes(parts[0])[:3]])
        raise OSError(28, "No space left on device")

    w._file.writelines = torn
    w.write_row_record(RowRecord("root.sg1.d1", 2, [Field("i", 2, T.INT32)]))
    with pytest.raises(OSError, match="No space"):
        w.flush()
    with pytest.raises(tsfile.TsFileError, match="failed part way"):
        w.write_row_record(RowRecord("root.sg1.d1", 3, [Field("i", 3, T.INT32)]))
    w._file.writelines = real
    w.close()
    assert _points(path) == {"i": {1: 1}, "s": {}}


# -- prepared series (the locator API) -----------------------------------------------------------


def _locators(reader, path, device):
    size = Path(path).stat().st_size
    group = reader.get_timeseries_metadata([device])
    (g,) = group.values()
    return {
        ts.measurement_name: (
            0,
            0,
            size,
            0,
            0,
            ts.locator_flags,
            ts.layout,
            ts.value_metadata_offset,
            ts.value_metadata_length,
            ts.time_metadata_offset,
            ts.time_metadata_length,
        )
        for ts in g.timeseries
    }


def _all_rows(rs):
    names = rs.get_metadata().get_column_list()
    out = []
    while rs.next():
        out.append([rs.get_value_by_index(i) for i in range(1, len(names) + 1)])
    return names, out


@pytest.mark.parametrize("device", ["root.sg1.al", "root.sg1.na"])
def test_prepared_series_read_what_query_timeseries_reads(tmp_path, device):
    path = tmp_path / "al.tsfile"
    _write_aligned(path)
    with TsFileReader(path) as r:
        locs = _locators(r, path, device)
        prepared = {}
        for name, loc in locs.items():
            owner = next(iter(prepared.values()), None)
            prepared[name] = r.prepare_series(loc, time_owner=owner)
        names = sorted(locs)
        with r.query_timeseries(device, names, 0, 10**6) as rs:
            _, want = _all_rows(rs)
        with r.query_prepared_multi([prepared[n] for n in names], 0, 10**6) as rs:
            got_names, got = _all_rows(rs)
        assert got_names == ["time", *names] and got == want
        first = names[0]
        with r.query_timeseries(device, [first]) as rs:
            _, one = _all_rows(rs)
        with r.query_prepared(prepared[first], offset=2, limit=5) as rs:
            assert _all_rows(rs)[1] == one[2:7]
        with r.query_prepared(prepared[first], offset=len(one) + 1) as rs:
            assert _all_rows(rs)[1] == []
        prepared[first].close()
        with pytest.raises(ClosedError):
            r.query_prepared(prepared[first])


def test_prepare_series_refuses_a_locator_that_does_not_point_at_a_record(tmp_path):
    path = tmp_path / "al.tsfile"
    _write_aligned(path)
    with TsFileReader(path) as r:
        loc = list(_locators(r, path, "root.sg1.na")["x"])
        bad_size = loc.copy()
        bad_size[2] += 1
        with pytest.raises(ValueError, match="bytes"):
            r.prepare_series(tuple(bad_size))
        assert r.prepare_series(tuple(bad_size), trust_index=True).name == "x"
        short = loc.copy()
        short[8] -= 1  # the record is longer than the locator says
        with pytest.raises(tsfile.CorruptDataError, match="file offset"):
            r.prepare_series(tuple(short))
        outside = loc.copy()
        outside[7] = 3  # in the data area
        with pytest.raises(tsfile.CorruptDataError, match="outside the metadata area"):
            r.prepare_series(tuple(outside))
        aligned = list(_locators(r, path, "root.sg1.al")["x"])
        wrong_time = aligned.copy()
        wrong_time[9:11] = aligned[7:9]  # a value record where the time column's should be
        with pytest.raises(tsfile.CorruptDataError, match="not a time column"):
            r.prepare_series(tuple(wrong_time))
        with pytest.raises(ValueError, match="11 fields"):
            r.prepare_series(tuple(loc[:5]))


def test_a_row_of_nulls_writes_nothing_for_a_non_aligned_device(tmp_path):
    # no point, so no chunk group either (an empty chunk group header made a different file)
    def write(path, with_null_row):
        with TsFileWriter(path) as w:
            w.register_timeseries("root.sg1.d1", TimeseriesSchema("i", T.INT32))
            w.write_row_record(RowRecord("root.sg1.d1", 1, [Field("i", 1, T.INT32)]))
            w.flush()
            if with_null_row:
                w.write_row_record(RowRecord("root.sg1.d1", 2, [Field("i", None, T.INT32)]))
                w.write_row_record(RowRecord("root.sg1.d1", 3, []))

    write(tmp_path / "a.tsfile", True)
    write(tmp_path / "b.tsfile", False)
    assert (tmp_path / "a.tsfile").read_bytes() == (tmp_path / "b.tsfile").read_bytes()


def test_device_paths_and_segments_are_one_to_one():
    # TreeBuffers keys devices by path and by segments and keeps no alias between them: this
    # holds because the segments joined with "." give the path back (backquotes kept)
    from tsfile._tree.buffer import device_segments

    paths = ["root", "root.d", "root.sg1.d1", "root.sg1.d1.x.y", "root.`a.b`.c", "root.sg.`d1`"]
    for path in paths:
        assert ".".join(device_segments(path)) == path
    assert len({device_segments(p) for p in paths}) == len(paths)


def test_a_tree_device_whose_first_segment_is_a_registered_table_is_refused(tmp_path):
    # "root.sg1.d1" is stored as the DeviceID ("root.sg1", "d1"): the index of a table named
    # "root.sg1", whose device with tag "d1" has that very ID. register_table refuses the table
    # once the device exists; the other order was accepted (checked only the first node, "root")
    # and the file then showed the table's points, not the series'.
    from tsfile import ColumnCategory, ColumnSchema, TableSchema

    def table():
        return TableSchema(
            "root.sg1",
            [
                ColumnSchema("tag", T.STRING, ColumnCategory.TAG),
                ColumnSchema("v", T.INT32, ColumnCategory.FIELD),
            ],
        )

    with TsFileWriter(tmp_path / "a.tsfile") as w:
        w.register_table(table())
        with pytest.raises(ValueError, match="share its index"):
            w.register_timeseries("root.sg1.d1", TimeseriesSchema("x", T.INT32))
        with pytest.raises(ValueError, match="share its index"):
            w.register_device(DeviceSchema("root.sg1.d2", [TimeseriesSchema("x", T.INT32)]))
    with TsFileWriter(tmp_path / "b.tsfile") as w:
        w.register_timeseries("root.sg1.d1", TimeseriesSchema("x", T.INT32))
        with pytest.raises(ValueError, match="share its index"):
            w.register_table(table())
