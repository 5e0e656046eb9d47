"""The format layer shared by the reader and the writer (issue 8, item 5): one set of codes and
format constants, declared once for Python (tsfile.types, tsfile._format.constants) and once for
Cython (tsfile/_format/codes.pxd), and every table that still names codes agreeing with them."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from tsfile._format import codes, constants
from tsfile._read import engine
from tsfile.types import ColumnCategory, Compressor, TSDataType, TSEncoding

ROOT = Path(__file__).resolve().parent.parent


def _members(enum_cls, prefix: str = "") -> dict[str, int]:
    """{name without prefix: value} of an enum's members."""
    return {
        name[len(prefix) :]: int(m)
        for name, m in enum_cls.__members__.items()
        if name.startswith(prefix)
    }


# (Cython enum of codes.pxd, its member prefix, the Python declaration)
CODE_PAIRS = [
    (codes.DataTypeCode, "T_", TSDataType),
    (codes.EncodingCode, "E_", TSEncoding),
    (codes.CompressorCode, "C_", Compressor),
    (codes.ColumnCategoryCode, "CAT_", ColumnCategory),
    (codes.IndexNodeTypeCode, "NODE_", constants.IndexNodeType),
]


@pytest.mark.parametrize(
    "pxd_enum, prefix, py_enum", CODE_PAIRS, ids=lambda x: getattr(x, "__name__", x)
)
def test_pxd_codes_equal_python_enums(pxd_enum, prefix, py_enum):
    # Same names and same values in both directions: a code added, removed or renumbered on one
    # side only fails here.
    assert _members(pxd_enum, prefix) == _members(py_enum)
    assert len(_members(pxd_enum, prefix)) == len(pxd_enum.__members__)


def test_pxd_markers_and_version_equal_python_constants():
    pxd = _members(codes.MarkerCode, "MARKER_")
    py = _members(constants.Marker)
    py["TIME_COLUMN_MASK"] = constants.TIME_COLUMN_MASK
    py["VALUE_COLUMN_MASK"] = constants.VALUE_COLUMN_MASK
    assert pxd == py
    assert int(codes.FormatVersionCode.FORMAT_VERSION) == constants.VERSION


def test_header_and_tail_constants():
    assert constants.HEADER == b"TsFile\x04"
    assert constants.HEADER_SIZE == 7
    assert constants.TAIL_SIZE == 10


def _engine_source() -> str:
    return (ROOT / "tsfile" / "_read" / "engine.pyx").read_text()


def test_engine_encoding_enum_and_names_agree_with_tsencoding():
    """The read engine still spells encoding codes for its codec dispatch (owned by the codec
    contract); every code it spells must be the format's."""
    src = _engine_source()
    spelled = dict(re.findall(r"^\s+E_(\w+) = (\d+)\s*$", src, re.M))
    assert spelled, "no E_ codes found in engine.pyx (update this test if they moved)"
    for name, value in spelled.items():
        assert TSEncoding[name] == int(value), name
    table = re.search(r"_ENCODING_NAMES = \{(.*?)\}", src, re.S)
    if table is not None:
        for code, name in re.findall(r"(\d+): \"(\w+)\"", table.group(1)):
            assert TSEncoding(int(code)).name == name


def test_engine_spells_no_type_or_compression_codes_of_its_own():
    # The engine cimports them from codes.pxd; a local copy could drift.
    src = _engine_source()
    assert not re.search(r"^\s+[TC]_[A-Z0-9_]+ = \d+\s*$", src, re.M)
    assert "from tsfile._format.codes cimport" in src


@pytest.mark.parametrize("dt", [t for t in TSDataType if t != TSDataType.UNKNOWN], ids=str)
def test_engine_numpy_dtype_is_the_types_table(dt):
    assert engine.numpy_dtype(int(dt)) == dt.numpy_dtype


def test_written_file_starts_and_ends_with_the_constants(tmp_path):
    from tsfile import ColumnCategory as Cat
    from tsfile import ColumnSchema, TableSchema, Tablet, TsFileWriter

    path = tmp_path / "f.tsfile"
    schema = TableSchema(
        "t", [ColumnSchema("id", TSDataType.STRING, Cat.TAG), ColumnSchema("v", TSDataType.INT64)]
    )
    with TsFileWriter(str(path)) as w:
        w.register_table(schema)
        tab = Tablet(["id", "v"], [TSDataType.STRING, TSDataType.INT64], 2)
        for r in range(2):
            tab.add_timestamp(r, r)
            tab.add_value_by_name("id", r, "d")
            tab.add_value_by_name("v", r, np.int64(r))
        w.write_table(tab)
    data = path.read_bytes()
    assert data.startswith(constants.HEADER)
    assert data.endswith(constants.MAGIC)
    # the chunk group of the one device follows the header
    assert data[constants.HEADER_SIZE] == constants.Marker.CHUNK_GROUP_HEADER
