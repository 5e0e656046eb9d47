"""TsFileDataFrame lists a table-model series only where the device holds a value of the field.

The official view (tsfile 2.5 dataset reader, _metadata_field_stats) surfaces a device's numeric
field only when the field's value statistics count a non-null value; a field the device never
wrote (every cell null) is no series: absent from list_timeseries and len(), and df[name] is a
KeyError. Ours built the table catalog as devices x numeric schema fields, so it lists such a
phantom series (all NaN, its count the device's rows), as its tree catalog already refused to
(a tree series with no point is dropped there).

Fixed by per-device value counts in tsfile/_dataset/files.py's FileInfo (DeviceStats.absent,
also in the dataset index) and the table catalog in tsfile/dataset.py skipping fields counted 0.
"""

from __future__ import annotations

import pytest

import tsfile
from tsfile import ColumnCategory, ColumnSchema, TableSchema, Tablet, TsFileDataFrame
from tsfile import TSDataType as T


def _write(path):
    """Table t: device d1 writes a only (b null in every row), d2 writes a and b."""
    schema = TableSchema(
        "t",
        [
            ColumnSchema("dev", T.STRING, ColumnCategory.TAG),
            ColumnSchema("a", T.DOUBLE, ColumnCategory.FIELD),
            ColumnSchema("b", T.INT64, ColumnCategory.FIELD),
        ],
    )
    with tsfile.TsFileTableWriter(path, schema) as w:
        for dev, has_b in (("d1", False), ("d2", True)):
            tab = Tablet(["dev", "a", "b"], [T.STRING, T.DOUBLE, T.INT64], 3)
            for i in range(3):
                tab.add_timestamp(i, i)
                tab.add_value_by_index(0, i, dev)
                tab.add_value_by_index(1, i, i / 2)
                if has_b:
                    tab.add_value_by_index(2, i, i)
            w.write_table(tab)


def test_a_field_a_device_never_wrote_is_no_series(tmp_path):
    path = str(tmp_path / "p.tsfile")
    _write(path)
    df = TsFileDataFrame(path, show_progress=False)
    try:
        # as the official 2.5 view lists them (checked against it on this file)
        assert [str(s) for s in df.list_timeseries()] == ["t.d1.a", "t.d2.a", "t.d2.b"]
        assert len(df) == 3
        with pytest.raises(KeyError):
            df["t.d1.b"]
    finally:
        df.close()
