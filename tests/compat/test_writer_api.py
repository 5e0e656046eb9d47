"""dataframe_to_tsfile, file properties and the process-wide config, as the official package's."""

import pytest

import tsfile
from tsfile import ColumnCategory, ColumnSchema, Compressor, TableSchema, TSDataType, TSEncoding
from tsfile.errors import TypeMismatchError, UnsupportedError
from tsfile.exceptions import NotSupportedError

from .both import run_ours, same_on_both

PROPERTIES = """
import tsfile
from tsfile.exceptions import FileWriteError
w = tsfile.TsFileWriter("p.tsfile")
w.add_tsfile_property("k", b"first")
w.flush()
w.add_tsfile_property("k", b"\\x00\\xff\\x80")
w.add_tsfile_property("empty", b"")
w.add_tsfile_property("nul\\x00key", b"v")
for name, value in [("str", "text"), ("bytearray", bytearray(b"x")), ("none", None),
                    ("subclass", type("B", (bytes,), {})(b"x")), ("int", 3)]:
    err = error_of(w.add_tsfile_property, name, value)
    out[f"{name}_is_type_error"] = err is not None and "TypeError" in err
w.close()
with tsfile.TsFileReader("p.tsfile") as r:
    props = r.get_tsfile_properties()
out["props"] = {k: (None if v is None else v.hex()) for k, v in sorted(props.items())}
"""


def test_properties_follow_the_official_type_rules():
    # before: str values were encoded and stored, bytearray and None accepted
    out = same_on_both(PROPERTIES)
    assert all(v for k, v in out.items() if k.endswith("_is_type_error"))
    assert out["props"]["k"] == "00ff80" and out["props"]["empty"] == ""
    assert out["props"]["nul\x00key"] == b"v".hex()
    assert out["props"]["encryptLevel"] == b"0".hex() and out["props"]["encryptKey"] is None


def test_property_type_errors_name_the_key(tmp_path):
    with tsfile.TsFileWriter(tmp_path / "p.tsfile") as w:
        with pytest.raises(TypeMismatchError, match="property value of 'k' must be bytes, got str"):
            w.add_tsfile_property("k", "v")
        with pytest.raises(TypeError, match="property key must be a str"):
            w.add_tsfile_property(b"k", b"v")


DATAFRAME = """
import datetime
import pandas as pd
import tsfile
from tsfile.utils import dataframe_to_tsfile
df = pd.DataFrame({
    "Time": [30, 10, 20, 40],
    "dev": ["b", "a", "a", "b"],
    "i32": pd.Series([1, 2, 3, 4], dtype="int32"),
    "i64": [10, 20, 30, 40],
    "f32": pd.Series([0.5, 1.5, 2.5, 3.5], dtype="float32"),
    "f64": [0.25, None, 1.25, 2.25],
    "ok": [True, False, True, False],
    "s": ["x", "y", None, "z"],
    "blob": [b"a", b"b", b"c", b"d"],
    "day": [datetime.date(2024, 1, d) for d in (1, 2, 3, 4)],
})
dataframe_to_tsfile(df, "d.tsfile", table_name="T1", tag_column=["dev"])
with tsfile.TsFileReader("d.tsfile") as r:
    schema = r.get_table_schema("t1")
    out["schema"] = [[c.get_column_name(), int(c.get_data_type()), int(c.get_category())]
                     for c in schema.get_columns()
                     if c.get_category() != tsfile.ColumnCategory.TIME]
back = tsfile.to_dataframe("d.tsfile", "t1")
out["columns"] = list(back.columns)
out["rows"] = [[None if pd.isna(v) else (v.isoformat() if isinstance(v, datetime.date)
                else v.hex() if isinstance(v, bytes) else v) for v in row]
               for row in back.astype(object).itertuples(index=False)]
dataframe_to_tsfile(pd.DataFrame({"v": [1.0, 2.0]}, index=[100, 200]), "i.tsfile")
out["index_as_time"] = tsfile.to_dataframe("i.tsfile", "default_table")["time"].tolist()
def message(fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except Exception as exc:
        return [type(exc).__name__ if type(exc).__name__ in ("ValueError", "TypeError")
                else [c.__name__ for c in type(exc).__mro__ if c.__name__ in
                      ("ValueError", "TypeError")][0], str(exc).split(" in ")[0]]
    return None
out["empty"] = message(dataframe_to_tsfile, pd.DataFrame(), "e1.tsfile")
out["only_time"] = message(dataframe_to_tsfile, pd.DataFrame({"time": [1]}), "e2.tsfile")
out["no_time_col"] = message(dataframe_to_tsfile, pd.DataFrame({"time": [1], "v": [1.0]}),
                             "e3.tsfile", time_column="ts")
out["bad_tag"] = message(dataframe_to_tsfile, pd.DataFrame({"time": [1], "v": [1.0]}),
                         "e4.tsfile", tag_column=["nope"])
out["text_time"] = message(dataframe_to_tsfile,
                           pd.DataFrame({"time": pd.Series(["a"], dtype=object), "v": [1.0]}),
                           "e5.tsfile")[0]
"""


def test_dataframe_to_tsfile_infers_the_schema_and_checks_its_input():
    # before: there was no tsfile.utils / tsfile.dataframe_to_tsfile
    out = same_on_both(DATAFRAME)
    assert out["schema"] == [
        ["dev", TSDataType.STRING, ColumnCategory.TAG],
        ["i32", TSDataType.INT32, ColumnCategory.FIELD],
        ["i64", TSDataType.INT64, ColumnCategory.FIELD],
        ["f32", TSDataType.FLOAT, ColumnCategory.FIELD],
        ["f64", TSDataType.DOUBLE, ColumnCategory.FIELD],
        ["ok", TSDataType.BOOLEAN, ColumnCategory.FIELD],
        ["s", TSDataType.STRING, ColumnCategory.FIELD],
        ["blob", TSDataType.BLOB, ColumnCategory.FIELD],
        ["day", TSDataType.DATE, ColumnCategory.FIELD],
    ]
    assert [r[0] for r in out["rows"]] == [10, 20, 30, 40]  # device a, then b, by time
    assert out["index_as_time"] == [100, 200]
    assert out["empty"] == ["ValueError", "DataFrame cannot be None or empty"]
    assert out["text_time"] == "TypeError"
    assert tsfile.dataframe_to_tsfile is tsfile.utils.dataframe_to_tsfile
    assert tsfile.utils.to_dataframe is tsfile.to_dataframe


CONFIG = """
import tsfile
from tsfile import TSEncoding, Compressor, TSDataType
from tsfile.exceptions import NotSupportedError
w = tsfile.TsFileWriter("first.tsfile")  # the official config is set up by the first writer
w.close()
cfg = tsfile.get_tsfile_config()
out["keys"] = sorted(cfg)
out["defaults"] = {k: (int(v) if not isinstance(v, float) else v) for k, v in sorted(cfg.items())
                   if k != "chunk_group_size_threshold_"}
tsfile.set_tsfile_config({"page_writer_max_point_num_": 500,
                          "float_encoding_type_": TSEncoding.PLAIN})
cfg = tsfile.get_tsfile_config()
out["set"] = [cfg["page_writer_max_point_num_"], int(cfg["float_encoding_type_"])]
def kind(bad):
    err = error_of(tsfile.set_tsfile_config, bad)
    return None if err is None else ("NotSupportedError" if "NotSupportedError" in err
                                     else "TypeError" if "TypeError" in err else err)
out["negative"] = kind({"chunk_group_size_threshold_": -2000})
out["datatype_as_compression"] = kind({"time_compress_type_": TSDataType.DOUBLE})
out["bitmap_float"] = kind({"float_encoding_type_": TSEncoding.BITMAP})
out["paa"] = kind({"time_compress_type_": Compressor.PAA})
out["gorilla_time"] = kind({"time_encoding_type_": TSEncoding.GORILLA})
out["backend"] = int(tsfile.get_file_read_backend())
tsfile.TsFileWriter("t.tsfile", 12345).close()
out["threshold"] = tsfile.get_tsfile_config()["chunk_group_size_threshold_"]
"""


def test_config_keys_defaults_and_checks_are_the_official_ones():
    # before: no get_tsfile_config / set_tsfile_config
    out = same_on_both(CONFIG)
    assert out["set"] == [500, TSEncoding.PLAIN]
    assert out["negative"] == out["datatype_as_compression"] == "TypeError"
    assert out["bitmap_float"] == out["paa"] == out["gorilla_time"] == "NotSupportedError"
    assert out["threshold"] == 12345


CONFIG_EFFECT = """
import numpy as np
import tsfile
from tsfile import ColumnCategory, ColumnSchema, Compressor, TableSchema, TSDataType, TSEncoding
from tsfile._format.metadata import read_file_metadata
schema = TableSchema("t", [ColumnSchema("f", TSDataType.FLOAT, ColumnCategory.FIELD),
                           ColumnSchema("i", TSDataType.INT32, ColumnCategory.FIELD)])
def written(path):
    with tsfile.TsFileTableWriter(path, schema) as w:
        w.write_arrays(np.arange(2500), {"f": np.ones(2500, np.float32),
                                         "i": np.arange(2500, dtype=np.int32)})
    with open(path, "rb") as fh:
        data = fh.read()
    cols = read_file_metadata(data, len(data), path).schemas["t"].get_columns()
    return {c.get_column_name(): [int(c.encoding), int(c.compression)] for c in cols}
out["before"] = written("a.tsfile")
tsfile.set_tsfile_config({"float_encoding_type_": TSEncoding.PLAIN,
                          "default_compression_type_": Compressor.GZIP,
                          "page_writer_max_point_num_": 1000})
out["after"] = written("b.tsfile")
with tsfile.TsFileTableWriter("c.tsfile", schema, compression=Compressor.SNAPPY,
                              encodings={TSDataType.FLOAT: TSEncoding.GORILLA}) as w:
    pass
out["options_win"] = [w._writer._compression.name, w._writer._encodings[TSDataType.FLOAT].name,
                      w._writer._page_size]
"""


def test_config_sets_the_defaults_of_later_writers():
    out = run_ours(CONFIG_EFFECT)
    assert out["before"] == {"f": [TSEncoding.GORILLA, Compressor.LZ4], "i": [4, Compressor.LZ4]}
    assert out["after"] == {"f": [TSEncoding.PLAIN, Compressor.GZIP], "i": [4, Compressor.GZIP]}
    assert out["options_win"] == ["SNAPPY", "GORILLA", 1000]


def test_config_refuses_unknown_keys_and_changes_nothing_on_error():
    # the official package ignores an unknown key (a typo goes unnoticed): README table
    out = run_ours(
        """
import tsfile
before = tsfile.get_tsfile_config()
out["unknown"] = error_of(tsfile.set_tsfile_config, {"page_writer_max_point_num_": 7, "nope_": 1})
out["unchanged"] = tsfile.get_tsfile_config() == before
"""
    )
    assert "TypeMismatchError" in out["unknown"] and out["unchanged"]


def test_config_errors_are_the_package_classes():
    with pytest.raises(UnsupportedError):
        tsfile.set_tsfile_config({"boolean_encoding_type_": TSEncoding.GORILLA})
    with pytest.raises(NotSupportedError):
        tsfile.set_tsfile_config({"default_compression_type_": Compressor.SDT})
    with pytest.raises(TypeMismatchError, match="max_degree_of_index_node_ must be >= 2"):
        tsfile.set_tsfile_config({"max_degree_of_index_node_": 1})
    assert tsfile.get_tsfile_config()["max_degree_of_index_node_"] == 256
    schema = TableSchema("t", [ColumnSchema("v", TSDataType.INT64)])
    assert schema.get_columns()[0].get_category() == ColumnCategory.FIELD


HELPERS = """
import datetime
import pandas as pd
from tsfile.tsfile_table_writer import (TsFileTableWriter, infer_object_column_type,
                                        validate_dataframe_for_tsfile)
import tsfile
out["writer_is_the_package_one"] = TsFileTableWriter is tsfile.TsFileTableWriter
def infer(values):
    return int(infer_object_column_type(pd.Series(values, dtype=object)))
out["inferred"] = [infer([None, True]), infer([b"x"]), infer([datetime.date(2024, 1, 2)]),
                   infer(["s"]), infer([None])]
out["unknown_object"] = "TypeError" in error_of(infer_object_column_type,
                                                pd.Series([object()], dtype=object))
def message(df):
    try:
        validate_dataframe_for_tsfile(df)
    except ValueError as exc:
        return str(exc).split(".")[0].split(":")[0]
    return None
out["ok"] = message(pd.DataFrame({"time": [1], "v": [1.0]}))
out["none_name"] = message(pd.DataFrame([[1, 2]], columns=[None, "v"]))
out["empty_name"] = message(pd.DataFrame([[1, 2]], columns=["", "v"]))
out["duplicate"] = message(pd.DataFrame([[1, 2]], columns=["V", "v"]))
out["empty"] = message(pd.DataFrame())
"""


def test_table_writer_module_helpers_as_official():
    # before: no tsfile.tsfile_table_writer module (the official suite imports it)
    out = same_on_both(HELPERS)
    assert out["inferred"] == [TSDataType.BOOLEAN, TSDataType.BLOB, TSDataType.DATE, 11, 11]
    assert out["ok"] is None and out["none_name"] == out["empty_name"]
    assert out["none_name"] == "Column name cannot be None or empty"
    assert out["duplicate"] == "Column names must be unique (case-insensitive)"


def test_validate_refuses_dtypes_no_column_can_hold():
    import pandas as pd

    from tsfile.utils import validate_dataframe_for_tsfile

    # the official helper lets a complex column through (its write then fails)
    with pytest.raises(
        ValueError, match=r"Data types not supported by tsfile:\n  - v: dtype=complex"
    ):
        validate_dataframe_for_tsfile(pd.DataFrame({"v": [1j]}))
