"""tsfile.constants: TIME_COLUMN and the enums, the same classes as tsfile.types'."""

import tsfile
import tsfile.constants as constants
import tsfile.types as types

from .both import same_on_both

ENUMS = """
import tsfile.constants as c
out["time"] = c.TIME_COLUMN
for name in ("TSDataType", "TSEncoding", "Compressor", "ColumnCategory", "FileReadBackend"):
    out[name] = {m.name: int(m) for m in getattr(c, name)}
out["numeric"] = sorted(t.name for t in c.NUMERIC_DATASET_FIELD_TYPES)
"""


def test_official_enum_members_have_the_same_values_here():
    from .both import run_official, run_ours

    ours, official = run_ours(ENUMS), run_official(ENUMS)
    assert ours["time"] == official["time"] == "time"
    assert ours["numeric"] == official["numeric"]
    for name in ("TSDataType", "TSEncoding", "Compressor", "ColumnCategory", "FileReadBackend"):
        # ours may have more members (e.g. TSEncoding.ALP); every official one is here, equal
        for member, value in official[name].items():
            assert ours[name].get(member) == value, (name, member)


def test_enums_are_the_types_module_classes_not_copies():
    for name in ("TSDataType", "TSEncoding", "Compressor", "ColumnCategory"):
        assert getattr(constants, name) is getattr(types, name) is getattr(tsfile, name)
    assert tsfile.TIME_COLUMN == "time"
    assert tsfile.FileReadBackend is constants.FileReadBackend


def test_star_import_gives_the_official_names():
    namespace = {}
    exec("from tsfile.constants import *", namespace)
    assert {"TIME_COLUMN", "TSDataType", "TSEncoding", "Compressor", "ColumnCategory"} <= set(
        namespace
    )
    same_on_both("from tsfile.constants import *\nout['t'] = TIME_COLUMN")
