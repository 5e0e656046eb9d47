"""FLOAT/DOUBLE RLE, as the Java writer writes it (FloatEncoder over an INT32/INT64 RLE encoder:
IoTDB's own examples declare FLOAT series ``encoding=RLE``). The values are scaled to integers
(10**p, p = 2 by default) as for FLOAT/DOUBLE TS_2DIFF, and the integers RLE-encoded. The reader
refused every such chunk ("encoding RLE of a FLOAT chunk ... is not supported (corrupt chunk
header?)"); the official 2.5 package cannot read them either (it fails with an out-of-memory
error)."""

from __future__ import annotations

import javafix
import numpy as np
import pytest

import tsfile
from tsfile.codecs import _registry, rle_float
from tsfile.types import TSDataType as T
from tsfile.types import TSEncoding as E

NAME = "java_tree_nonaligned"
DEVICES = ["root.sg1.d1", "root.sg1.d2", "root.ln.wf01.wt01.x"]


@pytest.mark.parametrize("path", ["per_value", "batch", "auto"])
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("series", ["f_rle", "d_rle"])
def test_java_float_rle_series(device, series, path):
    exp = javafix.expected(NAME)[(device, series)]
    with tsfile.TsFileReader(javafix.path(NAME)) as r:
        rs = r.query_timeseries(device, [series], start_time=-(2**62), end_time=2**62, path=path)
        got = {}
        while rs.next():
            if not rs.is_null_by_index(2):
                got[rs.get_value_by_index(1)] = rs.get_value_by_index(2)
    assert got.keys() == exp.keys()
    for t, v in exp.items():
        assert javafix.same(got[t], v, lossy_2dp=True), (t, got[t], v)
    # the series spans 3 chunks of 100-point pages: multi-page chunks with page statistics
    assert len(got) > 200


def test_java_float_rle_in_a_time_range():
    exp = javafix.expected(NAME)[("root.sg1.d1", "f_rle")]
    times = sorted(exp)
    t1, t2 = times[50], times[180]
    with tsfile.TsFileReader(javafix.path(NAME)) as r:
        rs = r.query_timeseries("root.sg1.d1", ["f_rle"], start_time=t1, end_time=t2)
        got = []
        while rs.next():
            got.append((rs.get_value_by_index(1), rs.get_value_by_index(2)))
    want = [t for t in times if t1 <= t <= t2]
    assert [t for t, v in got if v is not None] == want
    assert all(javafix.same(v, exp[t], lossy_2dp=True) for t, v in got if v is not None)


def test_registry_holds_float_rle_for_reading_only():
    from tsfile._write import encoders

    assert _registry.holds(E.RLE, T.FLOAT) and _registry.holds(E.RLE, T.DOUBLE)
    assert T.FLOAT not in encoders.SUPPORTED[E.RLE]
    assert T.DOUBLE not in encoders.SUPPORTED[E.RLE]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_page_layout_prefix_then_rle_block(dtype):
    values = np.array([1.25, 1.25, -3.5, 100.01, 0.0], dtype=dtype)
    page = rle_float.encode(values)
    assert page[0] == 2  # uvarint p = 2, then one INT32/INT64 RLE block of x * 100
    ints = np.round(values.astype(np.float64) * 100).astype(
        np.int32 if dtype == np.float32 else np.int64
    )
    from tsfile.codecs import rle

    assert page[1:] == rle.encode(ints)
    got = rle_float.decode(page, dtype)
    assert got.dtype == dtype and list(got) == list(values)
    assert rle_float.count_values(page, dtype) == 5


def test_overflow_forms_read_back():
    # form 3 (a NaN and a value beyond the int32 range when scaled): raw bits and rounded values
    values = np.array([1.5, np.nan, 3.0e9, -2.25], dtype=np.float32)
    page = rle_float.encode(values)
    got = rle_float.decode(page, np.float32)
    assert np.isnan(got[1]) and got[0] == 1.5 and got[3] == -2.25 and got[2] == np.float32(3.0e9)
