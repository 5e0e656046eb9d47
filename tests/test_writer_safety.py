"""Writer safety (issue 7, "nothing lost, nothing wrong"): values that do not fit their column are
refused on every write path (TypeMismatchError naming the column and the first bad row),
timestamps and datetimes become exact milliseconds, DATE integers are real dates, text is checked
at the write call, a failed flush or close still leaves a readable file, an existing file is not
replaced unless asked, and an "auto" column's schema names the encoding its chunks use."""

from __future__ import annotations

import datetime
import os

import numpy as np
import pytest
from interop.official import official_python, official_table

import tsfile
from tsfile._write import encoders
from tsfile.errors import AlreadyExistsError, TypeMismatchError, UnsupportedError
from tsfile.schema import ColumnSchema, TableSchema
from tsfile.tablet import Tablet
from tsfile.types import ColumnCategory, Compressor, TSDataType, TSEncoding
from tsfile.writer import TsFileTableWriter, TsFileWriter

T = TSDataType
TAG = ColumnCategory.TAG
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


# -- 5. a failed flush or close still leaves a readable file ------------------------------


class _Boom(RuntimeError):
    pass


def _break_int64_encoder(monkeypatch):
    """From now on, encoding an INT64 value page raises (as a bug in a codec would)."""
    real = encoders.value_encoder

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
