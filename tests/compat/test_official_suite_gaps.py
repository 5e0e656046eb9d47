"""Behaviours where the official 2.5 test suite (apache/tsfile python/tests, run against both
packages by the harness outside this repository) found ours different, each checked here by our
own snippet run on both packages: the official behaviour is the expected one."""

import pytest

from .both import run_official, same_on_both

ALREADY_EXISTS = """
import tsfile
from tsfile.exceptions import AlreadyExistsError, ErrorCode
path = os.path.join(tmp, "exists.tsfile")
open(path, "wb").close()
try:
    tsfile.TsFileWriter(path)
    out["raised"] = None
except AlreadyExistsError as exc:
    out["raised"] = [exc.code == ErrorCode.ALREADY_EXIST, exc.message]
"""


def test_already_exists_error_has_the_official_message():
    # before: message was our text ("'...' exists; pass overwrite=True to replace it")
    assert same_on_both(ALREADY_EXISTS)["raised"] == [True, "Resource already exists"]


def test_already_exists_error_text_still_names_the_path(tmp_path):
    import tsfile
    from tsfile.exceptions import AlreadyExistsError

    path = tmp_path / "exists.tsfile"
    path.touch()
    with pytest.raises(AlreadyExistsError) as ei:
        tsfile.TsFileWriter(str(path))
    assert str(path) in str(ei.value) and "overwrite=True" in str(ei.value)
    assert isinstance(ei.value, FileExistsError)


TABLET_ROW_API = """
import numpy as np
from tsfile import Tablet, TSDataType
tablet = Tablet(["i32", "i64"], [TSDataType.INT32, TSDataType.INT64])
def kinds(fn, *args):
    try:
        fn(*args)
    except Exception as exc:
        return [isinstance(exc, TypeError), isinstance(exc, OverflowError)]
    return None
def overflow(fn, *args):
    kind = kinds(fn, *args)
    return None if kind is None else kind[1]
out["float_for_int32"] = kinds(tablet.add_value_by_name, "i32", 2, 10.0)
out["np_float_for_int64"] = kinds(tablet.add_value_by_index, 1, 3, np.float64(7.0))
out["int64_max_for_int32"] = overflow(tablet.add_value_by_index, 0, 20, np.iinfo(np.int64).max)
out["int32_max_for_int32"] = overflow(tablet.add_value_by_index, 0, 30, np.iinfo(np.int32).max)
out["stored"] = [tablet.get_value_list_by_name("i32")[i] for i in (2, 20, 30)]
"""


def test_tablet_row_api_refuses_floats_and_overflow_as_the_official_tablet():
    out = same_on_both(TABLET_ROW_API)
    # before: 10.0 and 7.0 were stored as 10 and 7, and the overflow was a TypeMismatchError
    # that was not an OverflowError
    assert out["float_for_int32"] == [True, False]
    assert out["np_float_for_int64"] == [True, False]
    assert out["int64_max_for_int32"] is True  # ours is also a TypeMismatchError (TypeError)
    assert out["int32_max_for_int32"] is None
    assert out["stored"] == [None, None, 2147483647]


def test_tablet_overflow_error_names_the_column_and_row():
    from tsfile import Tablet, TSDataType
    from tsfile.errors import TypeMismatchError, ValueOutOfRangeError

    tablet = Tablet(["v"], [TSDataType.INT32])
    with pytest.raises(ValueOutOfRangeError, match=r"column 'v', row 4: 2147483648 is out") as ei:
        tablet.add_value_by_name("v", 4, 2**31)
    assert isinstance(ei.value, (TypeMismatchError, OverflowError))
    assert (ei.value.column, ei.value.row) == ("v", 4)


BAD_PROPERTY_KEY = """
import tsfile
from tsfile.exceptions import TsFileCorruptedError
path = os.path.join(tmp, "bad-key.tsfile")
w = tsfile.TsFileWriter(path)
w.add_tsfile_property("bad-key", b"value")
w.close()
data = open(path, "rb").read()
assert data.count(b"bad-key") == 1
open(path, "wb").write(data.replace(b"bad-key", b"bad-\\xffey", 1))
with tsfile.TsFileReader(path) as reader:
    out["opened"] = True
    try:
        reader.get_tsfile_properties()
        out["properties"] = None
    except TsFileCorruptedError as exc:
        out["properties"] = "TsFile property key is not valid UTF-8" in str(exc)
"""


def test_a_non_utf8_property_key_fails_only_when_properties_are_read():
    # before: TsFileReader(path) itself raised CorruptDataError
    out = same_on_both(BAD_PROPERTY_KEY)
    assert out == {"opened": True, "properties": True}


def test_a_non_utf8_property_key_error_names_the_file_offset(tmp_path):
    import tsfile

    path = tmp_path / "bad-key.tsfile"
    with tsfile.TsFileWriter(str(path)) as w:
        w.add_tsfile_property("bad-key", b"value")
    data = path.read_bytes()
    at = data.index(b"bad-key") + 4
    path.write_bytes(data[:at] + b"\xff" + data[at + 1 :])
    with tsfile.TsFileReader(str(path)) as reader:
        assert reader.get_all_table_schemas() == {}  # the rest of the file reads
        with pytest.raises(tsfile.errors.CorruptDataError, match=f"at file offset {at}$"):
            reader.get_tsfile_properties()


WRITE_TIME_COLUMN_NAMED_ID = """
import numpy as np, pandas as pd
from tsfile import ColumnCategory, ColumnSchema, TableSchema, TSDataType, TsFileTableWriter
schema = TableSchema("t", [
    ColumnSchema("id", TSDataType.TIMESTAMP, ColumnCategory.TIME),
    ColumnSchema("region", TSDataType.STRING, ColumnCategory.TAG),
    ColumnSchema("v", TSDataType.DOUBLE, ColumnCategory.FIELD),
])
with TsFileTableWriter(PATH, schema) as w:
    w.write_dataframe(pd.DataFrame({"id": np.arange(5, dtype=np.int64) * 10,
                                    "region": ["r"] * 5, "v": np.arange(5) * 0.5}))
"""

READ_TIME_COLUMN_BY_NAME = """
import tsfile
for key, names in [("all", None), ("fields", ["region", "v"]), ("with_id", ["id", "v"]),
                   ("only_id", ["id"]), ("id_last", ["v", "id"])]:
    df = tsfile.to_dataframe(PATH, table_name="t", column_names=names)
    same = bool(df["id"].equals(df["time"])) if "id" in df and "time" in df else None
    out[key] = [list(df.columns), same, [int(x) for x in df.iloc[:, 0]]]
"""


def test_to_dataframe_returns_a_time_column_asked_for_by_name_under_both_names(tmp_path):
    # The file is the official writer's: ours leaves an explicit TIME column out of the table
    # schema it writes (README, deliberate differences), so only a file written by the official
    # package has a TIME column named "id".
    path = repr(str(tmp_path / "time-named-id.tsfile"))
    run_official(WRITE_TIME_COLUMN_NAMED_ID.replace("PATH", path))
    out = same_on_both(READ_TIME_COLUMN_BY_NAME.replace("PATH", path))
    # before: with "id" asked for, only "time" came back (df["id"] was a KeyError)
    assert out["with_id"][:2] == [["time", "id", "v"], True]
    assert out["only_id"][:2] == [["time", "id"], True]
    assert out["all"][0][0] == "id"


DATAFRAME_OPTIONS = """
from tsfile import TsFileDataFrame
OPTIONS = ["max_prepared_series", "descriptor_cache_size", "max_open_files", "query_workers",
           "query_parallel_min_rows"]
def refused(make, name):
    '''[ValueError?, TypeError?, names the option?] of what make() raises.'''
    try:
        make()
    except Exception as exc:
        return [isinstance(exc, ValueError), isinstance(exc, TypeError), name in str(exc)]
    return None
for option in OPTIONS:
    for value in (-1, 1.5, True, "32", 0):
        out[f"{option}={value!r}"] = refused(
            lambda: TsFileDataFrame("missing.tsfile", use_index=True, **{option: value}), option)
    env = "TSFILE_DATAFRAME_" + option.upper()
    for raw in ("invalid", "-1", "1.5"):
        os.environ[env] = raw
        out[f"{env}={raw}"] = refused(
            lambda: TsFileDataFrame("missing.tsfile", use_index=True), env)
    del os.environ[env]
out["without_index"] = refused(
    lambda: TsFileDataFrame("missing.tsfile", max_prepared_series=32), "use_index=True")
"""


def test_dataframe_read_options_are_checked_as_the_official_view_checks_them():
    # before: max_prepared_series, descriptor_cache_size and query_parallel_min_rows were
    # unknown keywords (TypeError naming no option) and their environment variables ignored
    out = same_on_both(DATAFRAME_OPTIONS)
    assert out["max_prepared_series=-1"] == [True, False, True]
    assert out["query_parallel_min_rows=0"][2] is True
    assert out["descriptor_cache_size=0"][2] is False  # 0 is a valid cache size
    assert out["TSFILE_DATAFRAME_QUERY_PARALLEL_MIN_ROWS=1.5"][2] is True
    assert out["without_index"][0] and out["without_index"][2]


DATAFRAME_PROGRESS = """
import contextlib, io
import pandas as pd
from tsfile import (ColumnCategory, ColumnSchema, TableSchema, TSDataType, TsFileDataFrame,
                    TsFileTableWriter)
paths = []
for i in range(2):
    # a schema per file: the official write_dataframe adds a TIME column to the schema object
    schema = TableSchema("weather", [
        ColumnSchema("device", TSDataType.STRING, ColumnCategory.TAG),
        ColumnSchema("temperature", TSDataType.DOUBLE, ColumnCategory.FIELD),
        ColumnSchema("humidity", TSDataType.DOUBLE, ColumnCategory.FIELD),
        ColumnSchema("status", TSDataType.STRING, ColumnCategory.FIELD),
    ])
    paths.append(os.path.join(tmp, f"part{i}.tsfile"))
    with TsFileTableWriter(paths[-1], schema) as w:
        w.write_dataframe(pd.DataFrame({"time": [3 * i, 3 * i + 1], "device": ["a", "b"],
                                        "temperature": [1.0, 2.0], "humidity": [3.0, 4.0],
                                        "status": ["x", "y"]}))
err = io.StringIO()
with contextlib.redirect_stderr(err):
    with TsFileDataFrame(paths, show_progress=True):
        pass
out["last_line"] = err.getvalue().replace("\\r", "\\n").strip().splitlines()[-1]
"""


def test_dataframe_progress_summary_counts_series_as_the_official_view():
    # before: "... 2/2 (2 files) ... done"; the official line counts each file's numeric series
    out = same_on_both(DATAFRAME_PROGRESS)
    assert out["last_line"] == "Loading TsFile shards: 2/2 (8 series) ... done"


def test_query_parallel_min_rows_keeps_small_reads_on_one_thread(tmp_path, monkeypatch):
    import pandas as pd

    import tsfile.dataset as dataset_module
    from tsfile import ColumnCategory, ColumnSchema, TableSchema, TSDataType, TsFileTableWriter

    paths = []
    for i in range(2):
        schema = TableSchema(
            "t",
            [
                ColumnSchema("d", TSDataType.STRING, ColumnCategory.TAG),
                ColumnSchema("v", TSDataType.DOUBLE, ColumnCategory.FIELD),
            ],
        )
        paths.append(str(tmp_path / f"p{i}.tsfile"))
        with TsFileTableWriter(paths[-1], schema) as w:
            w.write_dataframe(pd.DataFrame({"time": [2 * i, 2 * i + 1], "d": "a", "v": 1.0}))
    workers = []
    real = dataset_module.pool_map
    monkeypatch.setattr(
        dataset_module, "pool_map", lambda fn, items, n: workers.append(n) or real(fn, items, n)
    )
    for min_rows, expected in ((5, 1), (4, 2)):  # the series has 4 rows in 2 shards
        workers.clear()
        with dataset_module.TsFileDataFrame(
            paths,
            show_progress=False,
            use_index=True,
            query_workers=2,
            query_parallel_min_rows=min_rows,
        ) as df:
            assert list(df[0][:]) == [1.0] * 4
            df.loc[0:3, [0]]
        assert workers[-2:] == [expected, expected]
