"""Review 3 of the read side: a damaged on-disk dataset index is rebuilt, never trusted.

TsFileDataFrame(use_index=True) keeps the files' metadata in a JSON index beside them; an index
that cannot be read is documented to be rebuilt. A parseable index of the wrong shape escaped
as AttributeError / TypeError / OverflowError (a top level that is not an object, a table map
that is a list, a column name or a tag that is a list or an object, a count beyond int64)."""

import glob
import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

import tsfile
from tsfile import ColumnCategory, ColumnSchema, TableSchema, TSDataType

TREE = Path(__file__).resolve().parent / "fixtures" / "tree" / "tree_rows.tsfile"


def _write(path, dev, t0):
    schema = TableSchema(
        "t",
        [
            ColumnSchema("dev", TSDataType.STRING, ColumnCategory.TAG),
            ColumnSchema("v", TSDataType.DOUBLE, ColumnCategory.FIELD),
        ],
    )
    with tsfile.TsFileTableWriter(str(path), schema) as w:
        w.write_arrays(np.arange(t0, t0 + 20, dtype=np.int64), {"dev": dev, "v": np.arange(20.0)})


def _values(paths, trust):
    df = tsfile.TsFileDataFrame(paths, use_index=True, trust_index=trust, show_progress=False)
    return {n: df[n][:].tolist() for n in df.list_timeseries()}


def _index(directory):
    (found,) = glob.glob(os.path.join(directory, ".tsfile-turbo-dataset.*.json"))
    return found


def _damage_table(doc, how):
    entry = doc["files"][0]
    table = entry["tables"]["t"]
    if how == "tables_list":
        entry["tables"] = [1]
    elif how == "tables_none":
        entry["tables"] = None
    elif how == "column_name_list":
        doc["schemas"][table["schema"]][0][0] = [1]
    elif how == "schema_out_of_range":
        table["schema"] = len(doc["schemas"])
    elif how == "schema_bool":
        table["schema"] = False
    elif how == "schemas_missing":
        del doc["schemas"]
    elif how == "tag_object":
        table["devices"][0][0][0] = {}
    elif how == "count_beyond_int64":
        table["devices"][0][1] = 2**70
    elif how == "count_bool":
        table["devices"][0][1] = True
    elif how == "size_string":
        entry["size"] = "12"
    elif how == "entry_not_object":
        doc["files"][0] = 7
    return doc


TABLE_DAMAGE = [
    "tables_list",
    "tables_none",
    "column_name_list",
    "schema_out_of_range",
    "schema_bool",
    "schemas_missing",
    "tag_object",
    "count_beyond_int64",
    "count_bool",
    "size_string",
    "entry_not_object",
]


@pytest.fixture(scope="module")
def table_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("index_table")
    _write(d / "a.tsfile", "d1", 0)
    _write(d / "b.tsfile", "d2", 100)
    return d


@pytest.mark.parametrize("trust", [True, False])
@pytest.mark.parametrize("text", ["[]", "null", '"x"', "7"])
def test_index_whose_top_level_is_not_an_object_is_rebuilt(table_dir, tmp_path, trust, text):
    d = tmp_path / "ds"
    shutil.copytree(table_dir, d)
    paths = sorted(str(p) for p in d.glob("*.tsfile"))
    expected = _values(paths, trust)
    Path(_index(d)).write_text(text)
    assert _values(paths, trust) == expected


@pytest.mark.parametrize("trust", [True, False])
@pytest.mark.parametrize("how", TABLE_DAMAGE)
def test_index_with_entries_of_the_wrong_shape_is_rebuilt(table_dir, tmp_path, trust, how):
    d = tmp_path / "ds"
    shutil.copytree(table_dir, d)
    paths = sorted(str(p) for p in d.glob("*.tsfile"))
    expected = _values(paths, trust)
    index = _index(d)
    doc = json.loads(Path(index).read_text())
    Path(index).write_text(json.dumps(_damage_table(doc, how)))
    assert _values(paths, trust) == expected


@pytest.mark.parametrize("how", ["nodes_object", "series_type_unknown", "count_string", "short"])
def test_tree_index_entries_of_the_wrong_shape_are_rebuilt(tmp_path, how):
    d = tmp_path / "tree"
    d.mkdir()
    shutil.copy(TREE, d / "a.tsfile")
    paths = [str(d / "a.tsfile")]
    expected = _values(paths, True)
    index = _index(d)
    doc = json.loads(Path(index).read_text())
    device = doc["files"][0]["tree"][0]
    if how == "nodes_object":
        device[0] = [{}]
    elif how == "series_type_unknown":
        device[2][0][1] = 99
    elif how == "count_string":
        device[2][0][2] = "5"
    else:
        del device[2]
    Path(index).write_text(json.dumps(doc))
    assert _values(paths, True) == expected
