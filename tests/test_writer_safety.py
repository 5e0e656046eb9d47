"""Writer safety (issue 7, "nothing lost, nothing wrong"): values that do not fit their column are
refused on every write path (TypeMismatchError naming the column and the first bad row),
timestamps and datetimes become exact milliseconds, DATE integers are real dates, text is checked
at the write call, a failed flush or close still leaves a readable file, an existing file is not
replaced unless asked, and an "auto" column's schema names the encoding its chunks use."""

from __future__ import annotations

import datetime
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from interop.official import official_python, official_table

import tsfile
from tsfile._write import chunk_encode, encoders
from tsfile.errors import (
    AlreadyExistsError,
    EncodeError,
    TsFileError,
    TypeMismatchError,
    UnsupportedError,
)
from tsfile.schema import ColumnSchema, TableSchema
from tsfile.tablet import Tablet
from tsfile.types import ColumnCategory, Compressor, TSDataType, TSEncoding
from tsfile.writer import TsFileTableWriter, TsFileWriter

T = TSDataType
TAG = ColumnCategory.TAG
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DAY_MS = 86_400_000
JAN_1_2024_MS = 1_704_067_200_000  # 2024-01-01T00:00:00Z

SCHEMA = TableSchema(
    "t",
    [
        ColumnSchema("dev", T.STRING, TAG),
        ColumnSchema("i", T.INT32),
        ColumnSchema("l", T.INT64),
        ColumnSchema("f", T.FLOAT),
        ColumnSchema("x", T.DOUBLE),
        ColumnSchema("d", T.DATE),
        ColumnSchema("ts", T.TIMESTAMP),
        ColumnSchema("s", T.STRING),
        ColumnSchema("b", T.BLOB),
        ColumnSchema("o", T.BOOLEAN),
    ],
)


def _schema(*cols, name="t"):
    return TableSchema(name, list(cols))


def read(path, table="t"):
    return tsfile.read_table(path, table)


def refused(call, column, row, match=None):
    """call() raises TypeMismatchError naming column and row (and a TypeError and ValueError)."""
    with pytest.raises(TypeMismatchError, match=match) as info:
        call()
    assert isinstance(info.value, TypeError) and isinstance(info.value, ValueError)
    where = f"column {column!r}:" if row is None else f"column {column!r}, row {row}:"
    assert where in str(info.value), str(info.value)


@pytest.fixture
def writer(tmp_path):
    w = TsFileTableWriter(tmp_path / "w.tsfile", SCHEMA)
    yield w
    w.close()


# -- 1. values that do not fit their column --------------------------------------------------


def test_write_dataframe_refuses_values_that_do_not_fit_an_int32(writer):
    pd = pytest.importorskip("pandas")

    def frame(values, **kw):
        return pd.DataFrame({"time": np.arange(len(values)), "i": values}, **kw)

    # the review's cases: 1.5 was stored as 1, 2**40 as 0, 1e10 as INT32 min
    refused(lambda: writer.write_dataframe(frame([1.0, 1.5])), "i", 1, "1.5 is not an integer")
    big = np.array([3, 4, 2**40], dtype=np.int64)
    refused(lambda: writer.write_dataframe(frame(big)), "i", 2, "out of the INT32 range")
    refused(lambda: writer.write_dataframe(frame([1e10])), "i", 0, "out of the INT32 range")
    refused(lambda: writer.write_dataframe(frame([1.0, np.inf])), "i", 1)
    strings = pd.Series(["1", "2"], dtype=object)
    refused(lambda: writer.write_dataframe(frame(strings)), "i", 0, "needs an int")
    refused(lambda: writer.write_dataframe(frame([True, False])), "i", 0, "bools")


def test_write_dataframe_accepts_exact_integral_floats_and_nan_as_null(tmp_path):
    pd = pytest.importorskip("pandas")
    path = tmp_path / "a.tsfile"
    # An int column that pandas made float64 because of a NaN: exact values, NaN is a null.
    df = pd.DataFrame({"time": [1, 2, 3], "i": [7, np.nan, -(2**31)], "l": [2.0**62, 1, 2]})
    df["x"] = pd.array([1, None, 2**53], dtype="Int64")
    with TsFileTableWriter(path, SCHEMA) as w:
        w.write_dataframe(df)
    out = read(path)
    assert out["i"].tolist() == [7, None, -(2**31)]
    assert out["l"].tolist() == [2**62, 1, 2]
    assert out["x"].tolist() == [1.0, None, 2.0**53]


def test_write_arrays_refuses_inexact_numbers(writer):
    ts = np.arange(3)
    cases = [
        ("i", np.array([1.0, 2.0, np.nan]), 2, "not an integer"),  # NaN is a value here
        ("l", np.array([0.0, 2.0**63, 0.0]), 1, "out of the INT64 range"),
        ("l", np.array([0, 1, 2**63], dtype=np.uint64), 2, "out of the INT64 range"),
        ("x", np.array([0, 2**53 + 1, 0], dtype=np.int64), 1, "no exact DOUBLE"),
        ("f", np.array([0, 0, 2**24 + 1], dtype=np.int64), 2, "no exact FLOAT"),
        ("f", np.array([1.0, 3.5e38, np.inf]), 1, "out of the FLOAT range"),
        ("x", np.array([True, False, True]), 0, "bools"),
        ("o", np.array([1, 0, 1]), 0, "BOOLEAN"),
        ("ts", np.array(["a", "b", "c"]), 0, "TIMESTAMP got <U1"),
        ("i", np.array([1, "2", 3], dtype=object), 1, "needs an int"),
    ]
    for column, values, row, match in cases:
        refused(lambda c=column, v=values: writer.write_arrays(ts, {c: v}), column, row, match)


def test_write_arrays_converts_exact_values(tmp_path):
    path = tmp_path / "a.tsfile"
    with TsFileTableWriter(path, SCHEMA) as w:
        w.write_arrays(
            np.arange(3),
            {
                "i": np.array([1.0, -(2.0**31), 2.0**31 - 1]),
                "l": np.array([2**63 - 1, 0, 5], dtype=np.uint64),
                "f": np.array([0.1, -np.inf, np.nan]),  # rounding to float32 is FLOAT's meaning
                "x": np.array([2**53, -(2**60), 3], dtype=np.int64),  # exact doubles
            },
        )
    out = read(path)
    assert out["i"].tolist() == [1, -(2**31), 2**31 - 1]
    assert out["l"].tolist() == [2**63 - 1, 0, 5]
    assert out["f"][:2].tolist() == [np.float32(0.1), -np.inf] and np.isnan(out["f"][2])
    assert out["x"].tolist() == [2.0**53, -(2.0**60), 3.0]


def test_every_write_path_refuses_a_fractional_int(tmp_path):
    pa = pytest.importorskip("pyarrow")
    with TsFileTableWriter(tmp_path / "a.tsfile", SCHEMA) as w:
        batch = pa.table({"time": pa.array([1, 2, 3]), "i": pa.array([1.0, None, 2.5])})
        refused(lambda: w.write_arrow_batch(batch), "i", 2, "2.5 is not an integer")
        tab = Tablet.from_arrays([1, 2], {"i": np.array([1.0, 2.0])}, types={"i": T.INT64})
        tab.set_table_name("t")
        w.write_table(tab)  # exact: accepted
        refused(
            lambda: Tablet.from_arrays([1, 2], {"i": np.array([1.0, 2.5])}, types={"i": T.INT32}),
            "i",
            1,
        )
        row = Tablet(["i", "x"], [T.INT32, T.DOUBLE], 3)
        refused(lambda: row.add_value_by_index(0, 2, 1.5), "i", 2, "needs an int")
        refused(lambda: row.add_value_by_name("i", 1, 2**31), "i", 1, "out of the INT32 range")
        refused(lambda: row.add_value_by_index(0, 0, True), "i", 0, "needs an int")
        refused(lambda: row.add_value_by_index(1, 0, 2**53 + 1), "x", 0, "no exact DOUBLE")
        refused(lambda: row.add_value_by_index(1, 0, True), "x", 0, "needs a float")
        with TsFileWriter(tmp_path / "low.tsfile") as low:
            low.register_table(SCHEMA)
            refused(
                lambda: low.write_arrays("t", [1], {"i": np.array([2**40])}), "i", 0, "INT32 range"
            )


def test_write_table_names_the_tablet_row(tmp_path):
    # An INT64 tablet into the INT32 column: row 2 of the tablet (row 1 has no timestamp, so the
    # writer sees it as its second row) is out of range.
    tab = Tablet(["i"], [T.INT64], 3)
    tab.add_timestamp(0, 10)
    tab.add_timestamp(2, 12)
    tab.add_value_by_index(0, 0, 1)
    tab.add_value_by_index(0, 2, 2**40)
    with TsFileTableWriter(tmp_path / "a.tsfile", SCHEMA) as w:
        refused(lambda: w.write_table(tab), "i", 2, "out of the INT32 range")


def test_a_refused_write_leaves_nothing_behind(tmp_path):
    path = tmp_path / "a.tsfile"
    with TsFileTableWriter(path, SCHEMA) as w:
        w.write_arrays([1, 2], {"dev": "a", "i": np.array([1, 2])})
        with pytest.raises(TypeMismatchError):
            w.write_arrays([3, 4], {"dev": "a", "l": np.array([5, 6]), "i": np.array([3, 4.5])})
        w.write_arrays([5], {"dev": "a", "i": np.array([5])})
    out = read(path)
    assert out["time"].tolist() == [1, 2, 5]
    assert out["i"].tolist() == [1, 2, 5]
    assert out["l"].tolist() == [None, None, None]


def test_write_arrays_refuses_one_column_given_twice_by_case(tmp_path):
    """Column names are case-insensitive. write_dataframe refuses a frame with "v" and "V"
    ("duplicate column"), but write_arrays({"v": a, "V": b}) keeps b and silently drops a."""
    p = tmp_path / "d.tsfile"
    with pytest.raises(ValueError, match="duplicate"):
        with TsFileTableWriter(p, _schema(ColumnSchema("v", T.INT32))) as w:
            w.write_arrays(
                np.arange(3),
                {"v": np.array([1, 2, 3], np.int32), "V": np.array([4, 5, 6], np.int32)},
            )


def test_write_arrays_refuses_a_null_mask_for_an_unknown_column(tmp_path):
    """A typo in `columns` raises ColumnNotExistError, but the same typo in `null_masks` is
    silently ignored: the nulls the caller meant for column "v" are written as values."""
    p = tmp_path / "n.tsfile"
    with pytest.raises(tsfile.ColumnNotExistError):
        with TsFileTableWriter(p, _schema(ColumnSchema("v", T.INT32))) as w:
            w.write_arrays(
                np.arange(3),
                {"v": np.array([1, 2, 3], np.int32)},
                null_masks={"vv": np.array([False, True, False])},
            )


def test_from_arrays_refuses_a_null_mask_for_an_unknown_column():
    with pytest.raises(tsfile.ColumnNotExistError, match="vv"):
        Tablet.from_arrays(
            np.arange(2), {"v": np.array([1, 2], np.int32)}, null_masks={"vv": [True, False]}
        )
    with pytest.raises(ValueError, match="duplicate"):
        Tablet.from_arrays(np.arange(1), {"v": np.array([1]), "V": np.array([2])})


# -- 2. timestamps ---------------------------------------------------------------------------


def test_float_timestamps_are_refused_not_truncated(writer):
    pd = pytest.importorskip("pandas")
    refused(lambda: writer.write_arrays(np.array([0.5, 1.9, 2.99, 1e19]), {}), "time", 0)
    refused(lambda: writer.write_arrays(np.array([0.0, 1.0, 1e19]), {}), "time", 2, "INT64")
    refused(lambda: writer.write_arrays(np.array([0.0, np.nan]), {}), "time", 1)
    df = pd.DataFrame({"time": [0.0, 1.0, 2.5], "i": [1, 2, 3]})
    refused(lambda: writer.write_dataframe(df), "time", 2, "not an integer")
    df = pd.DataFrame({"time": [0.0, np.nan], "i": [1, 2]})
    refused(lambda: writer.write_dataframe(df), "time", 1, "null")
    tab = Tablet(["i"], [T.INT32], 2)
    refused(lambda: tab.add_timestamp(1, 2**63), "time", 1, "out of the TIMESTAMP range")
    refused(lambda: tab.add_timestamp(0, 0.5), "time", 0)
    refused(lambda: tab.set_timestamp_list([1, 2.5]), "time", 1)


def test_integral_float_timestamps_are_accepted(tmp_path):
    path = tmp_path / "a.tsfile"
    with TsFileTableWriter(path, SCHEMA) as w:
        w.write_arrays(np.array([3.0, 1.0, 2.0**62]), {"i": np.arange(3)})
    assert read(path)["time"].tolist() == [1, 3, 2**62]


@pytest.mark.parametrize("unit", ["s", "ms", "us", "ns"])
def test_datetime64_timestamps_become_milliseconds(tmp_path, unit):
    path = tmp_path / "a.tsfile"
    times = np.array(["2024-01-01T00:00:00", "2024-01-02T00:00:01"], dtype=f"datetime64[{unit}]")
    with TsFileTableWriter(path, SCHEMA) as w:
        w.write_arrays(times, {"i": np.arange(2), "ts": times})
    out = read(path)
    want = [JAN_1_2024_MS, JAN_1_2024_MS + DAY_MS + 1000]
    assert out["time"].tolist() == want
    assert out["ts"].tolist() == want


def test_sub_millisecond_and_nat_timestamps_are_refused(writer):
    times = np.array(["2024-01-01T00:00:00.001", "2024-01-01T00:00:00.0015"], "datetime64[us]")
    refused(lambda: writer.write_arrays(times, {}), "time", 1, "sub-millisecond")
    nat = np.array(["2024-01-01", "NaT"], dtype="datetime64[ns]")
    refused(lambda: writer.write_arrays(nat, {}), "time", 1, "NaT")
    far = np.array([0, 2**62], dtype="datetime64[s]")  # 2**62 s is beyond INT64 milliseconds
    refused(lambda: writer.write_arrays(far, {}), "time", 1, "millisecond range")
    refused(lambda: writer.write_arrays([1, 2], {"ts": times}), "ts", 1, "sub-millisecond")
    objects = np.array([datetime.datetime(2024, 1, 1), np.datetime64("NaT")], dtype=object)
    refused(lambda: writer.write_arrays(objects, {}), "time", 1, "NaT")
    row = Tablet(["ts"], [T.TIMESTAMP], 2)
    refused(lambda: row.add_value_by_index(0, 1, np.datetime64("NaT")), "ts", 1, "NaT")
    refused(lambda: row.add_timestamp(0, np.datetime64("NaT", "ms")), "time", 0, "NaT")


def test_pandas_datetimes_become_milliseconds(tmp_path):
    pd = pytest.importorskip("pandas")
    path = tmp_path / "a.tsfile"
    naive = pd.to_datetime(["2024-01-01 00:00:00", "2024-01-01 00:00:00.250"], format="ISO8601")
    aware = naive.tz_localize("Europe/Berlin")  # UTC+1 in winter
    with TsFileTableWriter(path, SCHEMA) as w:
        w.write_dataframe(pd.DataFrame({"time": naive, "dev": "naive", "ts": aware}))
        w.write_dataframe(pd.DataFrame({"time": aware, "dev": "aware", "ts": [naive[0], pd.NaT]}))
    out = read(path)
    hour = 3_600_000
    assert out["dev"].tolist() == ["aware", "aware", "naive", "naive"]
    assert out["time"].tolist() == [
        JAN_1_2024_MS - hour,
        JAN_1_2024_MS - hour + 250,
        JAN_1_2024_MS,
        JAN_1_2024_MS + 250,
    ]
    assert out["ts"].tolist() == [
        JAN_1_2024_MS,
        None,
        JAN_1_2024_MS - hour,
        JAN_1_2024_MS - hour + 250,
    ]
    ns = pd.DataFrame({"time": pd.to_datetime([0, 1_500_000], unit="ns")})
    with TsFileTableWriter(tmp_path / "b.tsfile", SCHEMA) as w:
        refused(lambda: w.write_dataframe(ns), "time", 1, "sub-millisecond")


def test_from_arrays_and_row_api_datetimes(tmp_path):
    path = tmp_path / "a.tsfile"
    times = np.array(["2024-01-01", "2024-01-02"], dtype="datetime64[ns]")
    tab = Tablet.from_arrays(times, {"ts": times}, table_name="t")
    assert tab.get_data_type_list() == [T.TIMESTAMP]
    row = Tablet(["ts"], [T.TIMESTAMP], 1)
    row.add_timestamp(0, datetime.datetime(2024, 1, 3, tzinfo=datetime.timezone.utc))
    row.add_value_by_index(0, 0, datetime.datetime(2024, 1, 3, 0, 0, 0, 5000))
    row.set_table_name("t")
    with TsFileTableWriter(path, SCHEMA) as w:
        w.write_table(tab)
        w.write_table(row)
    out = read(path)
    want = [JAN_1_2024_MS + k * DAY_MS for k in range(3)]
    assert out["time"].tolist() == want
    assert out["ts"].tolist() == [*want[:2], want[2] + 5]


def test_arrow_timestamps_and_dates(tmp_path):
    pa = pytest.importorskip("pyarrow")
    path = tmp_path / "a.tsfile"
    seconds = JAN_1_2024_MS // 1000
    batch = pa.table(
        {
            "time": pa.array([seconds, seconds + 1], pa.timestamp("s", tz="UTC")),
            "ts": pa.array([seconds * 10**6, None], pa.timestamp("us")),
            "d": pa.array([datetime.date(2024, 2, 29), None], pa.date32()),
        }
    )
    with TsFileTableWriter(path, SCHEMA) as w:
        w.write_arrow_batch(batch)
    out = read(path)
    assert out["time"].tolist() == [JAN_1_2024_MS, JAN_1_2024_MS + 1000]
    assert out["ts"].tolist() == [JAN_1_2024_MS, None]
    assert out["d"].tolist() == [20240229, None]
    bad = pa.table({"time": pa.array([1, None], pa.int64())})
    with TsFileTableWriter(tmp_path / "b.tsfile", SCHEMA) as w:
        refused(lambda: w.write_arrow_batch(bad), "time", 1, "null")


def test_write_arrays_refuses_masked_timestamps(tmp_path):
    """write_arrays takes a numpy.ma.MaskedArray's mask for FIELD columns (a masked value is a
    null) but for the timestamps it silently writes the data under the mask: row 2 below is
    stored with time 2, a value the caller said is missing. A null time must be refused
    (TypeMismatchError, as the DataFrame and Arrow paths refuse a null time)."""
    p = tmp_path / "m.tsfile"
    ts = np.ma.array([1, 2], mask=[False, True])
    with pytest.raises(TypeMismatchError, match="time"):
        with TsFileTableWriter(p, _schema(ColumnSchema("v", T.INT32))) as w:
            w.write_arrays(ts, {"v": np.array([10, 20], dtype=np.int32)})


def test_tablet_from_arrays_refuses_masked_timestamps(tmp_path):
    """Same defect through Tablet.from_arrays + write_table."""
    p = tmp_path / "m.tsfile"
    ts = np.ma.array([1, 2], mask=[False, True])
    with pytest.raises(TypeMismatchError, match="time"):
        tablet = Tablet.from_arrays(ts, {"v": np.array([10, 20], dtype=np.int32)}, table_name="t")
        with TsFileTableWriter(p, _schema(ColumnSchema("v", T.INT32))) as w:
            w.write_table(tablet)


def test_nat_and_masked_timestamps_are_refused_on_every_path(tmp_path):
    pd = pytest.importorskip("pandas")
    nat = np.array(["2024-01-01", "NaT"], dtype="datetime64[ms]")
    masked = np.ma.array([1, 2], mask=[False, True])
    with TsFileTableWriter(tmp_path / "a.tsfile", SCHEMA) as w:
        for ts in (nat, masked, np.array([5, None], dtype=object)):
            refused(lambda ts=ts: w.write_arrays(ts, {"l": np.array([1, 2])}), "time", 1)
            refused(lambda ts=ts: Tablet.from_arrays(ts, {"l": np.array([1, 2])}), "time", 1)
        frame = pd.DataFrame({"time": pd.to_datetime([0, None]), "l": [1, 2]})
        refused(lambda: w.write_dataframe(frame), "time", 1)
        tablet = Tablet(["l"], [T.INT64], 2)
        refused(lambda: tablet.add_timestamp(1, np.datetime64("NaT")), "time", 1)
    assert read(tmp_path / "a.tsfile")["time"].tolist() == []


def test_a_bool_is_not_a_row_index():
    tablet = Tablet(["l"], [T.INT64], 2)
    with pytest.raises(TypeError, match="row index"):
        tablet.add_timestamp(True, 5)  # was row 1
    with pytest.raises(TypeError, match="row index"):
        tablet.add_value_by_index(0, True, 5)
    with pytest.raises(TypeError, match="column index"):
        tablet.add_value_by_index(False, 0, 5)
    tablet.add_timestamp(np.int64(1), 5)  # numpy integers are indexes
    assert tablet.get_timestamp_list() == [None, 5]


# -- 3. DATE -------------------------------------------------------------------------------


def test_invalid_date_integers_are_refused(writer):
    pd = pytest.importorskip("pandas")
    for value in (20241399, 0, 20241301, 20230230, 20230229, 19000229, 9991231, 100000101, -1):
        refused(
            lambda v=value: writer.write_arrays([1, 2], {"d": np.array([20240101, v])}),
            "d",
            1,
            "not a yyyyMMdd date",
        )
    refused(lambda: writer.write_dataframe(pd.DataFrame({"time": [1], "d": [20241399]})), "d", 0)
    refused(
        lambda: Tablet.from_arrays([1], {"d": np.array([20241399])}, types={"d": T.DATE}), "d", 0
    )
    row = Tablet(["d"], [T.DATE], 1)
    refused(lambda: row.add_value_by_index(0, 0, 20240101), "d", 0, "datetime.date")
    refused(lambda: row.add_value_by_index(0, 0, datetime.date(999, 1, 1)), "d", 0, "years")
    noon = np.array(["2024-01-01T12:00"], dtype="datetime64[m]")
    refused(lambda: writer.write_arrays([1], {"d": noon}), "d", 0, "whole days")


def test_date_check_agrees_with_the_calendar():
    # The vectorised yyyyMMdd check against datetime.date, for every MMdd 0000..1299 of years at
    # the range ends and around the leap-year rules (century years, 400-year years).
    from tsfile._write.values import check_date_ints

    def is_date(v):
        try:
            return 1000 <= datetime.date(v // 10000, v // 100 % 100, v % 100).year <= 9999
        except ValueError:
            return False

    years = (999, 1000, 1600, 1700, 1900, 2000, 2023, 2024, 9999, 10000)
    values = [y * 10000 + md for y in years for md in range(1300)] + [0, -20240101, 2**31 - 1]
    for v in values:
        try:
            check_date_ints("d", np.array([v], dtype=np.int32))
            accepted = True
        except TypeMismatchError:
            accepted = False
        assert accepted == is_date(v), v


def test_valid_dates_in_every_form(tmp_path):
    pd = pytest.importorskip("pandas")
    path = tmp_path / "a.tsfile"
    with TsFileTableWriter(path, SCHEMA) as w:
        w.write_arrays([1, 2, 3], {"d": np.array([20240229, 20000229, 99991231])})
        days = np.array(["1000-01-01", "NaT", "2023-12-31"], dtype="datetime64[D]")
        w.write_arrays([4, 5, 6], {"d": days})  # NaT: a null
        dates = [datetime.date(2024, 3, 1), None]
        w.write_dataframe(pd.DataFrame({"time": [7, 8], "d": dates}))
        w.write_dataframe(pd.DataFrame({"time": [9], "d": pd.to_datetime(["2021-06-30"])}))
    assert read(path)["d"].tolist() == [
        20240229,
        20000229,
        99991231,
        10000101,
        None,
        20231231,
        20240301,
        None,
        20210630,
    ]


def test_tablet_date_column_into_an_int32_column_is_refused(tmp_path):
    """A Tablet column declared DATE holding datetime.date(2024, 1, 1), written into a table whose
    column is INT32, is stored silently as the integer 20240101. The reverse (an int into DATE)
    is refused, as every other type mismatch (a str, a float, a TEXT into BLOB) is: a date is not
    an INT32 value."""
    import datetime

    p = tmp_path / "date.tsfile"
    tablet = Tablet(["v"], [T.DATE], 1)
    tablet.set_table_name("t")
    tablet.add_timestamp(0, 0)
    tablet.add_value_by_index(0, 0, datetime.date(2024, 1, 1))
    with pytest.raises(TypeMismatchError, match="'v'"):
        with TsFileTableWriter(p, _schema(ColumnSchema("v", T.INT32))) as w:
            w.write_table(tablet)


def test_date_column_takes_a_whole_day_datetime64_scalar_as_its_array_form(tmp_path):
    """tsfile._write.values documents DATE as taking "datetime64 values that are whole days", and
    write_arrays takes np.array(["2024-01-02"], "datetime64[D]"); but the same value given alone
    (Tablet.add_value_by_index, or an object column of a DataFrame) is refused: "DATE needs a
    datetime.date, got np.datetime64('2024-01-02')". The time column takes the same scalar."""
    p = tmp_path / "d.tsfile"
    tablet = Tablet(["v"], [T.DATE], 1)
    tablet.set_table_name("t")
    tablet.add_timestamp(0, 0)
    tablet.add_value_by_index(0, 0, np.datetime64("2024-01-02"))
    with TsFileTableWriter(p, _schema(ColumnSchema("v", T.DATE))) as w:
        w.write_table(tablet)
    import datetime

    assert tsfile.to_dataframe(str(p), "t")["v"].tolist() == [datetime.date(2024, 1, 2)]


def test_tz_aware_datetimes_into_date_take_their_own_day(tmp_path):
    pd = pytest.importorskip("pandas")
    pa = pytest.importorskip("pyarrow")
    tokyo = pd.to_datetime(["2024-01-02 00:00"]).tz_localize("Asia/Tokyo")
    new_york = pd.to_datetime(["2024-03-05 00:00"]).tz_localize("America/New_York")
    path = tmp_path / "a.tsfile"
    with TsFileTableWriter(path, SCHEMA) as w:
        w.write_dataframe(pd.DataFrame({"time": [1], "d": tokyo}))  # 2024-01-01T15:00Z
        w.write_dataframe(pd.DataFrame({"time": [2], "d": new_york}))  # 2024-03-05T05:00Z
        arrow = pa.table({"time": pa.array([3], pa.int64()), "d": pa.array(tokyo)})
        w.write_arrow_batch(arrow)
        # the time column still converts aware datetimes to UTC
        w.write_dataframe(pd.DataFrame({"time": tokyo, "l": [4]}))
    got = read(path)
    assert got["d"].tolist()[:3] == [20240102, 20240305, 20240102]
    assert got["time"].tolist()[3] == JAN_1_2024_MS + 15 * 3_600_000


# -- 4. text -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "bad, match",
    [
        ("\ud800", "not valid Unicode"),
        (7, "needs a str"),
        (1.5, "needs a str"),
        (b"\xff\xfe", "not valid UTF-8"),
    ],
)
def test_bad_text_is_refused_at_the_write_call(tmp_path, bad, match):
    path = tmp_path / "a.tsfile"
    values = np.array(["ok", bad, "ok"], dtype=object)
    with TsFileTableWriter(path, SCHEMA) as w:
        w.write_arrays([1], {"dev": "a", "s": np.array(["first"], dtype=object)})
        w.flush()
        refused(lambda: w.write_arrays([2, 3, 4], {"dev": "a", "s": values}), "s", 1, match)
        w.write_arrays([5], {"dev": "a", "s": np.array(["last"], dtype=object)})
    out = read(path)  # the file was completed: both good writes are in it
    assert out["time"].tolist() == [1, 5]
    assert out["s"].tolist() == ["first", "last"]


def test_bad_text_on_every_path(writer):
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"time": [1, 2], "s": pd.Series(["a", "\udc80"], dtype=object)})
    refused(lambda: writer.write_dataframe(df), "s", 1, "not valid Unicode")
    df = pd.DataFrame({"time": [1, 2], "dev": pd.Series(["a", "\udc80"], dtype=object)})
    refused(lambda: writer.write_dataframe(df), "dev", 1, "not valid Unicode")
    refused(lambda: writer.write_arrays([1], {"dev": "\ud800"}), "dev", None)
    refused(lambda: writer.write_arrays([1, 2], {"dev": np.array(["a", 3], object)}), "dev", 1)
    unicode_array = np.array(["ok", "\ud800"])  # numpy str arrays hold lone surrogates too
    refused(lambda: writer.write_arrays([1, 2], {"s": unicode_array}), "s", 1, "not valid Unicode")
    ascii_bytes = np.array([b"ok", b"\xc3"])
    refused(lambda: writer.write_arrays([1, 2], {"s": ascii_bytes}), "s", 1, "not valid UTF-8")
    row = Tablet(["s"], [T.STRING], 2)
    refused(lambda: row.add_value_by_index(0, 1, "x\ud800"), "s", 1, "not valid Unicode")
    bad_bytes = {"s": np.array([b"\xff"], object)}
    refused(lambda: Tablet.from_arrays([1], bad_bytes, types={"s": T.STRING}), "s", 0, "UTF-8")
    assert Tablet.from_arrays([1], bad_bytes).get_data_type_list() == [T.BLOB]  # inferred


def test_valid_utf8_bytes_are_text_and_blob_needs_bytes(tmp_path, writer):
    path = tmp_path / "a.tsfile"
    with TsFileTableWriter(path, SCHEMA) as w:
        w.write_arrays([1, 2], {"s": np.array(["é", "ü".encode()], object), "b": [b"\xff", b""]})
    out = read(path)
    assert out["s"].tolist() == ["é", "ü"]
    assert out["b"].tolist() == [b"\xff", b""]
    # BLOB refuses str, as the official Tablet does
    refused(lambda: writer.write_arrays([1], {"b": np.array(["x"], object)}), "b", 0, "bytes")
    refused(lambda: writer.write_arrays([1], {"b": np.array(["x"])}), "b", 0, "bytes")
    row = Tablet(["b"], [T.BLOB], 1)
    refused(lambda: row.add_value_by_index(0, 0, "x"), "b", 0, "BLOB needs bytes")


def test_table_name_that_is_not_unicode_is_refused_before_the_file_is_touched(tmp_path):
    """A table name with a lone surrogate is refused (TypeMismatchError, not a bare
    UnicodeEncodeError) when the schema is made, before any file is touched: the existing file
    stays as it was (it was once truncated with overwrite=True, and close() then failed)."""
    p = tmp_path / "precious.tsfile"
    p.write_bytes(b"precious")
    with pytest.raises(TypeMismatchError, match="table name") as info:
        w = TsFileTableWriter(
            p, _schema(ColumnSchema("v", T.INT32), name="t\udc80"), overwrite=True
        )
        w.write_arrays(np.arange(3), {"v": np.array([1, 2, 3], np.int32)})
        w.close()
    assert p.read_bytes() == b"precious"
    assert not isinstance(info.value, UnicodeError), repr(info.value)


def test_property_key_that_is_not_unicode_does_not_lose_the_file(tmp_path):
    """add_tsfile_property("k\\udc80", ...) is refused at the call, so close() completes the
    file (the key was once accepted, close() raised UnicodeEncodeError writing the tail, and
    every row was lost)."""
    p = tmp_path / "prop.tsfile"
    w = TsFileTableWriter(p, _schema(ColumnSchema("v", T.INT32)))
    w.write_arrays(np.arange(5), {"v": np.arange(5, dtype=np.int32)})
    w.flush()
    with pytest.raises(TypeMismatchError, match="property key"):
        w.add_tsfile_property("k\udc80", "v")
    w.close()
    assert tsfile.read_table(str(p), "t")["v"].tolist() == [0, 1, 2, 3, 4]


def test_names_and_properties_that_are_not_unicode_are_refused(tmp_path):
    for make in (
        lambda: ColumnSchema("v\udc80", T.INT32),
        lambda: TableSchema("t\ud800", [ColumnSchema("v", T.INT32)]),
    ):
        with pytest.raises(TypeMismatchError, match="not valid Unicode"):
            make()
    path = tmp_path / "a.tsfile"
    with TsFileTableWriter(path, SCHEMA) as w:
        w.write_arrays([1], {"l": np.array([1])})
        with pytest.raises(TypeMismatchError, match="property key"):
            w.add_tsfile_property("k\udc80", "v")
        with pytest.raises(TypeMismatchError, match="property value"):
            w.add_tsfile_property("k", "v\udc80")
        w.add_tsfile_property("k", "v\u00e9".encode())
    assert read(path)["l"].tolist() == [1]


# -- 5. a failed flush or close still leaves a readable file ------------------------------


class _Boom(RuntimeError):
    pass


def _break_int64_encoder(monkeypatch):
    """From now on, encoding an INT64 value page raises (as a bug in a codec would), on the
    per-page path and in the whole-chunk C encoder (which takes LZ4, the default, since it
    compresses LZ4 itself)."""
    real = encoders.value_encoder
    real_encoder = chunk_encode.ChunkEncoder

    def chunk_encoder(values, offsets, encoding, data_type, *args, **kw):
        if TSDataType(data_type) == T.INT64:
            raise _Boom("injected encoder failure")
        return real_encoder(values, offsets, encoding, data_type, *args, **kw)

    monkeypatch.setattr(chunk_encode, "ChunkEncoder", chunk_encoder)

    def value_encoder(encoding, data_type):
        if TSDataType(data_type) == T.INT64:

            def encode(values):
                raise _Boom("injected encoder failure")

            return encode
        return real(encoding, data_type)

    monkeypatch.setattr(encoders, "value_encoder", value_encoder)


def _assert_only_first_device(path):
    out = read(path)
    assert out["dev"].tolist() == ["a", "a"]
    assert out["l"].tolist() == [1, 2]
    if official_python() is not None:
        got = official_table(path, "t")
        assert got["time"] == [1, 2] and got["l"] == [1, 2]


def test_close_completes_the_file_when_flushing_fails(tmp_path, monkeypatch):
    path = tmp_path / "a.tsfile"
    w = TsFileTableWriter(path, SCHEMA)
    w.write_arrays([1, 2], {"dev": "a", "l": np.array([1, 2])})
    w.flush()
    w.write_arrays([3, 4], {"dev": "b", "l": np.array([3, 4])})
    _break_int64_encoder(monkeypatch)
    with pytest.raises(_Boom) as info:
        w.close()
    assert "device ('b',)" in "".join(info.value.__notes__)
    monkeypatch.undo()
    _assert_only_first_device(path)
    w.close()  # closed: a no-op


def test_flush_failure_keeps_the_writer_usable(tmp_path, monkeypatch):
    path = tmp_path / "a.tsfile"
    with TsFileTableWriter(path, SCHEMA) as w:
        w.write_arrays([1, 2], {"dev": "a", "l": np.array([1, 2])})
        w.flush()
        w.write_arrays([3, 4], {"dev": "b", "l": np.array([3, 4])})
        _break_int64_encoder(monkeypatch)
        with pytest.raises(_Boom):
            w.flush()
        monkeypatch.undo()
        w.write_arrays([5], {"dev": "c", "l": np.array([5])})
    out = read(path)  # b's rows were dropped once, not written twice
    assert out["dev"].tolist() == ["a", "a", "c"]
    assert out["l"].tolist() == [1, 2, 5]


def test_close_completes_the_file_after_an_os_error(tmp_path):
    path = tmp_path / "a.tsfile"
    w = TsFileTableWriter(path, SCHEMA)
    w.write_arrays([1, 2], {"dev": "a", "l": np.array([1, 2])})
    w.flush()
    real = w._writer._file

    class DiskFull:
        """The file object, but the first chunk group is written only in part, then ENOSPC
        (the space is back for the tail, which is written after the cut)."""

        failed = False

        def writelines(self, parts):
            if self.failed:
                return real.writelines(parts)
            self.failed = True
            real.write(parts[0])
            real.write(parts[1][: len(parts[1]) // 2])
            raise OSError(28, "No space left on device")

        def __getattr__(self, name):
            return getattr(real, name)

    w._writer._file = DiskFull()
    w.write_arrays([3, 4], {"dev": "b", "l": np.array([3, 4])})
    with pytest.raises(OSError, match="No space left"):
        w.close()
    assert real.closed
    _assert_only_first_device(path)


def test_after_an_os_error_in_flush_nothing_more_is_buffered(tmp_path):
    path = tmp_path / "a.tsfile"
    w = TsFileTableWriter(path, SCHEMA)
    w.write_arrays([1, 2], {"dev": "a", "l": np.array([1, 2])})
    w.flush()
    real = w._writer._file

    class Failing:
        def writelines(self, parts):
            raise OSError(5, "Input/output error")

        def __getattr__(self, name):
            return getattr(real, name)

    w._writer._file = Failing()
    w.write_arrays([3], {"dev": "b", "l": np.array([3])})
    with pytest.raises(OSError, match="Input/output error"):
        w.flush()
    w._writer._file = real
    with pytest.raises(tsfile.TsFileError, match="failed part way"):  # not silently dropped
        w.write_arrays([4], {"dev": "c", "l": np.array([4])})
    w.close()
    _assert_only_first_device(path)


_FSIZE_CHILD = textwrap.dedent(
    """
    import os, resource, signal, sys
    import numpy as np
    sys.path.insert(0, sys.argv[2])
    from tsfile.schema import ColumnSchema, TableSchema
    from tsfile.types import ColumnCategory, Compressor, TSDataType
    from tsfile.writer import TsFileWriter

    path = sys.argv[1]
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    limit = 400_000  # far more than the first chunk group (~8 KB) plus the tail need
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    rng = np.random.default_rng(1)
    w = TsFileWriter(path, compression=Compressor.UNCOMPRESSED)
    w.register_table(TableSchema("t", [
        ColumnSchema("dev", TSDataType.STRING, ColumnCategory.TAG),
        ColumnSchema("v", TSDataType.DOUBLE, ColumnCategory.FIELD)]))
    w.write_arrays("t", np.arange(1000), {"dev": "d1", "v": np.arange(1000) * 0.5})
    w.flush()  # succeeds: these rows are "written"
    w.write_arrays("t", np.arange(1000, 201000), {"dev": "d2", "v": rng.random(200000)})
    try:
        w.flush()  # OSError: File too large
    except OSError:
        pass
    try:
        w.close()
    except OSError:
        pass
    """
)


def test_write_error_after_a_flush_still_leaves_the_flushed_rows(tmp_path):
    """README: "if a flush or close fails, close() still completes the file with every chunk
    group written before the failure". With the file size capped (RLIMIT_FSIZE, as a full disk
    would), a flush of device d1 succeeds and the next flush fails with EFBIG: close() must cut
    the file back to d1's chunk group and write the tail there (the writer once kept a Python
    write buffer whose failed bytes made close() fail again, losing d1's 1,000 rows). The cut
    leaves ample room for the tail under the cap."""
    p = tmp_path / "fsize.tsfile"
    script = tmp_path / "child.py"
    script.write_text(_FSIZE_CHILD)
    proc = subprocess.run(
        [sys.executable, str(script), str(p), ROOT], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    got = tsfile.read_table(str(p), "t")
    assert list(got["time"][:3]) == [0, 1, 2] and len(got["time"]) >= 1000


def test_rows_of_an_accepted_write_call_survive_a_later_encode_error(tmp_path):
    """Call 1 writes 100 good rows to a CAMEL DOUBLE column; call 2 writes [1.0, NaN] (a NaN
    after a page's first value, which CAMEL cannot store). Call 2 alone is refused, at the call,
    with nothing of it buffered; close() then succeeds and the file holds call 1's 100 rows
    (the writer once accepted call 2 and lost both calls' rows at close)."""
    p = tmp_path / "camel.tsfile"
    w = TsFileWriter(str(p))
    w.register_table(_schema(ColumnSchema("v", T.DOUBLE, encoding=tsfile.types.TSEncoding.CAMEL)))
    w.write_arrays("t", np.arange(100), {"v": np.arange(100) * 1.5})
    with pytest.raises(EncodeError, match="refused"):
        w.write_arrays("t", np.arange(100, 102), {"v": np.array([1.0, np.nan])})
    w.close()
    got = tsfile.read_table(str(p), "t")
    assert got["time"].tolist() == list(range(100)), f"{len(got['time'])} rows in the file"


def test_a_write_call_does_not_fail_for_another_call_s_rows(tmp_path):
    """Call 1's [1.0, NaN] for device a (CAMEL) is refused at call 1; call 2's 10,000 good rows
    for device b reach memory_threshold and are flushed without an error about another call's
    rows (the writer once raised EncodeError for a's NaN from call 2, after writing b's rows,
    inviting a retry that wrote them twice)."""
    p = tmp_path / "camel2.tsfile"
    w = TsFileWriter(str(p), memory_threshold=50_000)
    w.register_table(
        _schema(
            ColumnSchema("dev", T.STRING, TAG),
            ColumnSchema("v", T.DOUBLE, encoding=tsfile.types.TSEncoding.CAMEL),
        )
    )
    with pytest.raises(EncodeError, match="refused"):
        w.write_arrays("t", np.arange(2), {"dev": "a", "v": np.array([1.0, np.nan])})
    w.write_arrays("t", np.arange(10_000), {"dev": "b", "v": np.arange(10_000) * 1.5})
    w.close()
    assert len(tsfile.read_table(str(p), "t")["time"]) == 10_000


def test_a_sprintz_value_is_refused_at_the_call_that_makes_it_unstorable(tmp_path):
    # The page flush would write holds rows of several calls: the trial encoding at each call
    # uses the buffered rows too, exactly as flush pages them (here the prediction error of
    # MIN_VALUE arises only once the second call completes a block of 9 with the first's rows).
    schema = TableSchema("t", [ColumnSchema("s", T.INT64, encoding=TSEncoding.SPRINTZ)])
    path = tmp_path / "a.tsfile"
    w = TsFileTableWriter(path, schema, page_size=20)
    w.write_arrays(np.arange(2), {"s": np.array([0, np.iinfo(np.int64).min])})  # a tail: stored
    with pytest.raises(tsfile.EncodeError, match="column 's' .* at time 1 .*refused"):
        w.write_arrays(np.arange(2, 9), {"s": np.zeros(7, np.int64)})
    w.write_arrays(np.arange(2, 4), {"s": np.array([7, 8])})
    w.close()  # nothing raises at flush any more
    assert read(path)["s"].tolist() == [0, np.iinfo(np.int64).min, 7, 8]


def test_lossy_pages_out_of_time_order_are_checked_in_time_order(tmp_path):
    # Rows that do not come after the buffered ones are sorted in with them at flush: the trial
    # encoding sorts the same way (here the NaN becomes the page's second value).
    schema = TableSchema("t", [ColumnSchema("c", T.DOUBLE, encoding=TSEncoding.CAMEL)])
    path = tmp_path / "a.tsfile"
    with TsFileTableWriter(path, schema) as w:
        w.write_arrays([10, 20], {"c": np.array([np.nan, 2.0])})  # NaN first: stored
        with pytest.raises(tsfile.EncodeError, match="nan at time 10"):
            w.write_arrays([5], {"c": np.array([1.0])})
        w.write_arrays([30], {"c": np.array([3.0])})
    got = read(path)["c"]
    assert got.tolist()[1:] == [2.0, 3.0] and np.isnan(got[0])


def test_a_writer_dropped_without_close_completes_its_file(tmp_path):
    import gc

    path = tmp_path / "a.tsfile"
    w = TsFileTableWriter(path, SCHEMA)
    w.write_arrays([1, 2], {"l": np.array([1, 2])})
    with pytest.warns(ResourceWarning, match="not closed"):
        del w
        gc.collect()
    assert read(path)["l"].tolist() == [1, 2]


# -- 6. overwriting --------------------------------------------------------------------------


def test_an_existing_file_is_not_replaced(tmp_path):
    path = tmp_path / "a.tsfile"
    path.write_bytes(b"precious")
    with pytest.raises(AlreadyExistsError, match="overwrite=True"):
        TsFileTableWriter(path, SCHEMA)
    with pytest.raises(FileExistsError):  # AlreadyExistsError is one
        TsFileWriter(path)
    assert path.read_bytes() == b"precious"
    with TsFileTableWriter(path, SCHEMA, overwrite=True) as w:
        w.write_arrays([1], {"l": np.array([1])})
    assert read(path)["l"].tolist() == [1]
    with TsFileWriter(path, overwrite=True) as w:
        w.register_table(SCHEMA)
    assert read(path)["time"].tolist() == []


def test_bad_settings_touch_no_file(tmp_path):
    # Everything is checked before the file is opened: a constructor that fails creates no file,
    # and with overwrite=True it leaves the existing one as it was.
    path = tmp_path / "a.tsfile"
    path.write_bytes(b"precious")
    new = tmp_path / "new.tsfile"
    bad_schema = TableSchema("t", [ColumnSchema("v", T.BOOLEAN, encoding=TSEncoding.GORILLA)])
    bad_compression = TableSchema("t", [ColumnSchema("v", T.INT32, compression=Compressor.SDT)])
    attempts = [
        lambda p, **kw: TsFileTableWriter(p, bad_schema, **kw),
        lambda p, **kw: TsFileTableWriter(p, bad_compression, **kw),
        lambda p, **kw: TsFileTableWriter(p, SCHEMA, compression=Compressor.PAA, **kw),
        lambda p, **kw: TsFileTableWriter(p, SCHEMA, page_size=0, **kw),
        lambda p, **kw: TsFileTableWriter(p, SCHEMA, page_size=1.5, **kw),
        lambda p, **kw: TsFileTableWriter(p, SCHEMA, index_degree=1, **kw),
        lambda p, **kw: TsFileTableWriter(p, SCHEMA, bloom_error_rate=0, **kw),
        lambda p, **kw: TsFileTableWriter(p, SCHEMA, time_encoding=TSEncoding.GORILLA, **kw),
        lambda p, **kw: TsFileWriter(p, encodings={T.INT64: "auto"}, **kw),
        lambda p, **kw: TsFileWriter(p, memory_threshold=-1, **kw),
    ]
    for attempt in attempts:
        with pytest.raises((TypeError, ValueError, UnsupportedError)):
            attempt(new)
        assert not new.exists()
        with pytest.raises((TypeError, ValueError, UnsupportedError)):
            attempt(path, overwrite=True)
        assert path.read_bytes() == b"precious"


def test_the_file_is_created_exclusively(tmp_path, monkeypatch):
    # "xb": an existence check followed by "wb" would replace a file created in between.
    modes = []
    real_open = open

    def spy(file, mode="r", *args, **kwargs):
        if os.fspath(file) == os.fspath(tmp_path / "a.tsfile"):
            modes.append(mode)
        return real_open(file, mode, *args, **kwargs)

    monkeypatch.setattr("builtins.open", spy)
    TsFileTableWriter(tmp_path / "a.tsfile", SCHEMA).close()
    assert modes == ["xb"]


def test_overwrite_writes_a_new_file_and_renames_it_at_close(tmp_path):
    path = tmp_path / "a.tsfile"
    with TsFileTableWriter(path, SCHEMA) as w:
        w.write_arrays(np.arange(5), {"l": np.arange(5)})
    reader = tsfile.TsFileReader(str(path))
    old_inode = os.stat(path).st_ino
    w = TsFileTableWriter(path, SCHEMA, overwrite=True)
    w.write_arrays([7], {"l": np.array([7])})
    w.flush()
    temps = [p.name for p in tmp_path.iterdir() if p.name != "a.tsfile"]
    assert len(temps) == 1 and temps[0].startswith(".a.tsfile.tsfile-tmp-"), temps
    assert os.stat(path).st_ino == old_inode  # untouched until close()
    w.close()
    assert [p.name for p in tmp_path.iterdir()] == ["a.tsfile"]
    assert read(path)["l"].tolist() == [7]
    with reader.query_table("t", ["l"]) as rs:  # the old file, still whole for its reader
        got = []
        while rs.next():
            got.append(rs.get_value_by_index(2))
    reader.close()
    assert got == [0, 1, 2, 3, 4]


def test_a_failed_overwrite_keeps_the_old_file(tmp_path, monkeypatch):
    path = tmp_path / "a.tsfile"
    path.write_bytes(b"precious")
    w = TsFileTableWriter(path, SCHEMA, overwrite=True)
    w.write_arrays([1], {"l": np.array([1])})

    def no_space(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(w._writer._file, "writelines", no_space)
    with pytest.raises(OSError, match="No space") as info:
        w.close()
    assert "incomplete" in "".join(info.value.__notes__)
    assert path.read_bytes() == b"precious"
    assert [p.name for p in tmp_path.iterdir()] == ["a.tsfile"]  # the temporary file is removed


def test_a_directory_is_not_a_writer_path(tmp_path):
    for overwrite in (False, True):
        with pytest.raises(IsADirectoryError, match="directory"):
            TsFileTableWriter(tmp_path, SCHEMA, overwrite=overwrite)
    assert list(tmp_path.iterdir()) == []


# -- 7. "auto" columns declare the encoding their chunks use -------------------------------


def _declared(path):
    with tsfile.TsFileReader(path) as r:
        return {c.column_name: c.encoding for c in r.get_table_schema("t").get_columns()}


def test_auto_column_declares_its_chunks_encoding(tmp_path):
    rng = np.random.default_rng(5)
    schema = TableSchema(
        "t",
        [
            ColumnSchema("dev", T.STRING, TAG),
            ColumnSchema("alp", T.DOUBLE, encoding="auto"),
            ColumnSchema("gorilla", T.DOUBLE, encoding="auto"),
            ColumnSchema("mixed", T.DOUBLE, encoding="auto"),
            ColumnSchema("plain", T.DOUBLE, encoding=TSEncoding.PLAIN),
        ],
    )
    n = 1000
    prices = np.round(100 + np.cumsum(rng.normal(0, 0.1, n)), 2)  # ALP's case
    noise = rng.random(n)  # full precision: GORILLA's
    path = tmp_path / "a.tsfile"
    with TsFileTableWriter(path, schema) as w:
        for dev, mixed in (("a", prices), ("b", noise)):
            w.write_arrays(
                np.arange(n),
                {"dev": dev, "alp": prices, "gorilla": noise, "mixed": mixed, "plain": noise},
            )
    assert _declared(path) == {
        "dev": TSEncoding.PLAIN,
        "alp": TSEncoding.ALP,
        "gorilla": TSEncoding.GORILLA,
        "mixed": TSEncoding.GORILLA,  # chunks differ: the documented fallback
        "plain": TSEncoding.PLAIN,
    }


# -- 8. schemas the writer refuses -----------------------------------------------------------------


def test_field_named_time_is_refused_or_read_back(tmp_path):
    """A FIELD column named "time" (INT32) is accepted by the writer (the official writer makes
    the same bytes), but our reader then refuses the whole file: CorruptDataError "column 'time'
    of t has type INT32 ..., the table schema says INT64". The writer must refuse a column whose
    name is the time column's (case-insensitively), or the reader must read the file."""
    p = tmp_path / "time.tsfile"
    try:
        with TsFileTableWriter(p, _schema(ColumnSchema("time", T.INT32))) as w:
            w.write_arrays(np.arange(2), {"time": np.array([10, 11], np.int32)})
    except (TsFileError, ValueError, TypeError):
        return  # refused at write time: fine
    tsfile.to_dataframe(str(p), "t")  # today: CorruptDataError


def test_a_column_named_like_the_time_column_is_refused(tmp_path):
    for category in (ColumnCategory.FIELD, ColumnCategory.ATTRIBUTE):
        schema = TableSchema("t", [ColumnSchema("Time", T.INT32, category)])
        with pytest.raises(tsfile.InvalidSchemaError, match="'time'"):
            TsFileTableWriter(tmp_path / "a.tsfile", schema)
        w = TsFileWriter(tmp_path / "b.tsfile")
        with pytest.raises(ValueError, match="name of the time column"):
            w.register_table(schema)
        w.close()
        (tmp_path / "b.tsfile").unlink()
    tag = TableSchema("t", [ColumnSchema("time", T.STRING, TAG)])
    with pytest.raises(tsfile.InvalidSchemaError):
        TsFileTableWriter(tmp_path / "a.tsfile", tag)
    assert not (tmp_path / "a.tsfile").exists()
    # with a TIME column of another name, "time" is an ordinary column
    ok = TableSchema(
        "t", [ColumnSchema("ts", T.INT64, ColumnCategory.TIME), ColumnSchema("time", T.INT32)]
    )
    TsFileTableWriter(tmp_path / "a.tsfile", ok).close()


# -- 9. one writer shared by several threads -------------------------------------------------------


def test_writer_shared_by_threads_loses_no_rows(tmp_path):
    """The reader was made safe to share (issue 7); the writer was not, and fails silently: four
    threads each writing 200 batches of 100 rows (their own device) into one TsFileWriter with
    automatic flushes lose rows with no error (78,900 of 80,000 rows in one run; another run
    also raised KeyError ('t', 'd2') from inside the writer). Concurrent writes must all land,
    or the second thread must get a clear error (as a ResultSet used from two threads does)."""
    import threading

    for attempt in range(3):
        p = tmp_path / f"w{attempt}.tsfile"
        w = TsFileWriter(str(p), memory_threshold=200_000)
        w.register_table(
            _schema(
                ColumnSchema("dev", T.STRING, TAG),
                ColumnSchema("v", T.INT64),
                ColumnSchema("s", T.STRING),
            )
        )
        errors = []

        def work(k, w=w, errors=errors):
            try:
                for b in range(200):
                    ts = np.arange(b * 100, b * 100 + 100)
                    w.write_arrays(
                        "t",
                        ts,
                        {"dev": f"d{k}", "v": ts * 10 + k, "s": np.array([f"x{k}"] * 100, object)},
                    )
            except TsFileError as exc:  # a clear refusal is acceptable
                errors.append(exc)

        threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        w.close()
        got = tsfile.read_table(str(p), "t")
        if not errors:  # nothing refused: every row must be in the file
            assert len(got["time"]) == 80_000, f"attempt {attempt}: {len(got['time'])} rows"


# -- 10. duplicate timestamps of one device --------------------------------------------------------


def test_duplicate_timestamps_of_one_device_are_refused(tmp_path):
    """write_arrays([1, 1], v=[1, 2]) writes two rows with time 1 for the same device (and the
    official reader then returns both); the official writer refuses the same tablet with
    DataInconsistencyError, as it refuses timestamps that overlap an earlier write of the device
    (ours accepts those too and writes chunk groups that overlap in time). A time series has one
    value per timestamp: refuse, naming the column 'time' and the row."""
    p = tmp_path / "dup.tsfile"
    with pytest.raises((TsFileError, ValueError)):
        with TsFileTableWriter(p, _schema(ColumnSchema("v", T.INT32))) as w:
            w.write_arrays(np.array([1, 1]), {"v": np.array([1, 2], np.int32)})


def test_duplicate_timestamps_within_a_call_and_against_buffered_rows(tmp_path):
    path = tmp_path / "a.tsfile"
    with TsFileTableWriter(path, SCHEMA) as w:
        with pytest.raises(
            tsfile.OutOfOrderError, match=r"row 3: .*\('a',\) has timestamp 2 twice \(also row 1"
        ):
            w.write_arrays([3, 2, 1, 2], {"dev": "a", "l": np.arange(4)})
        w.write_arrays([1, 2], {"dev": "a", "l": np.array([1, 2])})
        with pytest.raises(tsfile.OutOfOrderError, match="row 1: .* timestamp 2 twice .*earlier"):
            w.write_arrays([5, 2], {"dev": "a", "l": np.array([5, 6])})
        # another device may have the same timestamps; a multi-device call is checked per device
        w.write_arrays([1, 2], {"dev": np.array(["b", "c"]), "l": np.array([3, 4])})
        with pytest.raises(tsfile.OutOfOrderError, match=r"row 2: .*\('b',\) .*also row 0"):
            w.write_arrays([4, 4, 4], {"dev": np.array(["b", "c", "b"]), "l": np.arange(3)})
        w.write_arrays([3], {"dev": "a", "l": np.array([3])})  # not a duplicate: accepted
        w.flush()
        # after a flush the official writer accepts the timestamp again (a new chunk group)
        w.write_arrays([2], {"dev": "a", "l": np.array([9])})
    got = read(path)
    rows = sorted(zip(got["dev"].tolist(), got["time"].tolist(), got["l"].tolist(), strict=True))
    assert rows == [("a", 1, 1), ("a", 2, 2), ("a", 2, 9), ("a", 3, 3), ("b", 1, 3), ("c", 2, 4)]


def test_a_tablet_duplicate_names_the_tablet_rows(tmp_path):
    tablet = Tablet(["l"], [T.INT64], 4)
    for row, t in ((0, 5), (2, 6), (3, 5)):  # row 1 has no timestamp
        tablet.add_timestamp(row, t)
    with TsFileTableWriter(tmp_path / "a.tsfile", SCHEMA) as w:
        with pytest.raises(tsfile.OutOfOrderError, match="row 3: .*timestamp 5 twice .*row 0"):
            w.write_table(tablet)
