"""get_all_timeseries_schemas of a table-model file gives every device's series.

The official 2.5 reader returns, for a table-model file too, {device path: DeviceSchema} of
every device ("tab.d2.null" for a null tag), each with its field series (name order, data
type, encoding, compression of the chunks); ours returns {} because it walks tree-model
devices only, so a caller learns nothing of the file from it. Checked against the official
wheel on this file (written by ours, byte-identical to the official writer's). Fixed in
stop 23 (the official lists tree and table devices of a mixed file alike: tests/test_tree_model.py).
"""

from __future__ import annotations

import tsfile
from tsfile import ColumnCategory, ColumnSchema, TableSchema, Tablet
from tsfile import TSDataType as T


def test_table_model_devices_are_listed(tmp_path):
    path = str(tmp_path / "t.tsfile")
    schema = TableSchema(
        "tab",
        [
            ColumnSchema("dev", T.STRING, ColumnCategory.TAG),
            ColumnSchema("v", T.DOUBLE, ColumnCategory.FIELD),
            ColumnSchema("s", T.STRING, ColumnCategory.FIELD),
        ],
    )
    with tsfile.TsFileTableWriter(path, schema) as w:
        tab = Tablet(["dev", "v", "s"], [T.STRING, T.DOUBLE, T.STRING], 2)
        for i in range(2):
            tab.add_timestamp(i, i)
            if i == 0:
                tab.add_value_by_index(0, i, "d1")
            tab.add_value_by_index(1, i, 1.5)
            tab.add_value_by_index(2, i, "x")
        w.write_table(tab)
    with tsfile.TsFileReader(path) as r:
        got = r.get_all_timeseries_schemas()
    assert sorted(got) == ["tab.d1", "tab.null"]
    for dev in got.values():
        assert [
            (s.get_timeseries_name(), s.get_data_type()) for s in dev.get_timeseries_list()
        ] == [
            ("s", T.STRING),
            ("v", T.DOUBLE),
        ]
