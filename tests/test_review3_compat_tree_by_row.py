"""query_tree_by_row over devices of different measurements gives the series that exist.

In the tree model devices often hold different measurements. The official 2.5 reader answers
query_tree_by_row(devices, measurements) with the ``<device>.<measurement>`` series the file
holds (outer-joined on time), leaving out the pairs it lacks; ours raises ColumnNotExistError as
soon as one device lacks one measurement, so such a query cannot be made at all.

Checked against the official wheel on the fixture below (its own writer's file): devices
root.sg1.d1 (s_i64, no s_date) and root.sg1.d2 (s_date, no s_i64) give the columns time,
root.sg1.d1.s_i64, root.sg1.d2.s_date, and the first three rows below.

tests/test_query_by_row.py::test_tree_missing_series has the cases of a missing measurement or
device (checked against the same wheel: the pairs that exist, or the time column alone).
"""

from __future__ import annotations

import datetime
from pathlib import Path

import tsfile

TREE = str(Path(__file__).resolve().parent / "fixtures" / "tree" / "tree_tablets.tsfile")


def test_devices_of_different_measurements():
    with tsfile.TsFileReader(TREE) as r:
        with r.query_tree_by_row(["root.sg1.d1", "root.sg1.d2"], ["s_i64", "s_date"], 0, 3) as rs:
            names = rs.get_metadata().get_column_list()
            rows = []
            while rs.next():
                rows.append([rs.get_value_by_index(i) for i in range(1, len(names) + 1)])
    assert names == ["time", "root.sg1.d1.s_i64", "root.sg1.d2.s_date"]
    assert rows == [
        [0, None, datetime.date(1989, 11, 23)],
        [1, 864751, datetime.date(2068, 6, 29)],
        [2, 87276, datetime.date(2068, 11, 1)],
    ]
