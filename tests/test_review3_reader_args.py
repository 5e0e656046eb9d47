"""Review 3 of the read side: wrong arguments from a new user get the package's own errors.

A missing path in a many-file read raised Python's bare FileNotFoundError (not a TsFileError,
unlike the one-file reader's TsFileNotFoundError), and a table or column name of the wrong type
reached ``.lower()`` in the one-file functions (AttributeError)."""

import numpy as np
import pytest

import tsfile
from tsfile import ColumnCategory, ColumnSchema, TableSchema, TSDataType


@pytest.fixture(scope="module")
def small_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("args") / "small.tsfile"
    schema = TableSchema(
        "t",
        [
            ColumnSchema("dev", TSDataType.STRING, ColumnCategory.TAG),
            ColumnSchema("v", TSDataType.INT64, ColumnCategory.FIELD),
        ],
    )
    with tsfile.TsFileTableWriter(str(path), schema) as w:
        w.write_arrays(np.arange(10, dtype=np.int64), {"dev": "a", "v": np.arange(10)})
    return str(path)


READS = [tsfile.read_table, tsfile.to_dataframe, tsfile.read_arrow]


@pytest.mark.parametrize("read", READS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("on_error", ["raise", "skip"])
def test_missing_file_in_a_list_is_the_packages_not_found_error(
    small_file, tmp_path, read, on_error
):
    missing = str(tmp_path / "nope.tsfile")
    with pytest.raises(tsfile.TsFileNotFoundError, match="nope.tsfile") as info:
        read([small_file, missing], "t", on_error=on_error)
    # still what callers of the one-file reader catch: FileNotFoundError with its filename
    assert isinstance(info.value, FileNotFoundError)
    assert info.value.filename == missing


def test_glob_and_directory_without_files_are_the_packages_not_found_error(tmp_path):
    with pytest.raises(tsfile.TsFileNotFoundError, match="no file matches"):
        tsfile.read_table(str(tmp_path / "*.tsfile"), "t")
    (tmp_path / "sub").mkdir()
    with pytest.raises(tsfile.TsFileNotFoundError, match="no .tsfile files"):
        tsfile.read_table(str(tmp_path / "sub"), "t")
    with pytest.raises(tsfile.TsFileNotFoundError):
        tsfile.TsFileDataFrame([str(tmp_path / "nope.tsfile")])


@pytest.mark.parametrize("read", READS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("many", [False, True], ids=["one", "many"])
def test_table_name_of_the_wrong_type_is_a_type_error(small_file, read, many):
    for bad in (5, b"t", ["t"]):
        with pytest.raises(TypeError, match="table_name must be a str"):
            read([small_file] if many else small_file, bad)


@pytest.mark.parametrize("many", [False, True], ids=["one", "many"])
def test_to_dataframe_column_name_of_the_wrong_type_is_column_not_exist(small_file, many):
    with pytest.raises(tsfile.ColumnNotExistError, match="1"):
        tsfile.to_dataframe([small_file] if many else small_file, "t", column_names=[1])


@pytest.mark.parametrize("read", READS, ids=lambda f: f.__name__)
def test_first_table_of_damaged_files_raises_their_error(small_file, tmp_path, read):
    """Without a table name, the table is the first table of the first file that opens. When
    none opens, the read said "no table in any of N files" (TableNotExistError), hiding the
    files' damage: with on_error="raise" it is the damaged file's CorruptDataError, naming it."""
    data = open(small_file, "rb").read()
    bad = tmp_path / "cut.tsfile"
    bad.write_bytes(data[: len(data) // 2])
    with pytest.raises(tsfile.CorruptDataError, match="cut.tsfile"):
        read([str(bad)])
    with pytest.raises(tsfile.CorruptDataError, match="cut.tsfile"):
        read([str(bad), small_file])
    with pytest.warns(RuntimeWarning, match="cut.tsfile"):
        got = read([str(bad), small_file], on_error="skip")
    assert len(got) == 10 if not isinstance(got, dict) else len(got["time"]) == 10
    with pytest.raises(tsfile.TableNotExistError, match="1 could not be read"):
        read([str(bad)], on_error="skip")
