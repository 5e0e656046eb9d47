"""Reader errors about file content name where they were found, and inconsistent files are
never read as silently wrong values (the differential tests' findings, reduced to one case each).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import tsfile
from tsfile.errors import CorruptDataError, UnsupportedError

HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "fixtures" / "official"
PARTIAL = HERE / "differential" / "data"


def _patched(tmp_path, name, offset, old, new):
    data = bytearray((FIXTURES / f"{name}.tsfile").read_bytes())
    assert data[offset] == old
    data[offset] = new
    p = tmp_path / f"{name}.tsfile"
    p.write_bytes(bytes(data))
    return p


def _offset(exc):
    """The offset the message ends with ("... at file offset N")."""
    m = re.findall(r"file offset (\d+)", str(exc))
    assert m, str(exc)
    return int(m[-1])


@pytest.mark.parametrize("batch_size", [0, 1, 8])
def test_value_page_beyond_its_time_page_fails_before_any_row(batch_size):
    # partial_middle: v's first page holds 8 values at times 0..12, its time page 8 rows at
    # 0..7 (the official writer left the second tablet's rows out of v's pages). The page
    # headers tell before any row is decoded; the error names v's first page body (offset 356).
    with tsfile.TsFileReader(PARTIAL / "partial_middle.tsfile") as r:
        rs = r.query_table("t", ["a", "v"], batch_size=batch_size)
        with pytest.raises(CorruptDataError, match="does not cover") as ei:
            rs.get_next_tsblock()
        assert _offset(ei.value) == 356
        # a range inside the first page too (the later page is never read)
        with pytest.raises(CorruptDataError, match="does not cover"):
            r.read_columns("t", ["v"], 5, 7)
        # columns that are consistent still read
        _n, _t, ts, cols, _nulls = r.read_columns("t", ["a"])
        assert ts.tolist() == list(range(15)) and cols["a"].tolist() == list(range(15))


def test_value_page_row_count_differs_from_its_time_page():
    with tsfile.TsFileReader(PARTIAL / "partial_prefix.tsfile") as r:
        with pytest.raises(CorruptDataError, match="value page has 3 rows, its time page 8"):
            r.read_columns("t", ["v"])


@pytest.mark.parametrize("enc", [1, 14, 15])  # DICTIONARY, CAMEL, ALP
def test_encoding_that_cannot_hold_the_type_names_the_header_byte(tmp_path, enc):
    # tree_nonaligned: the encoding byte of the first chunk header (INT64) is at offset 23
    path = _patched(tmp_path, "tree_nonaligned", 23, 0, enc)
    with tsfile.TsFileReader(path) as r:
        dev = r.get_all_devices()[0]
        with pytest.raises(UnsupportedError) as ei:
            with r.query_timeseries(dev, r.get_timeseries_names(dev)) as rs:
                while rs.get_next_tsblock() is not None:
                    pass
        assert _offset(ei.value) == 23


def test_schema_type_mismatch_names_the_series_metadata(tmp_path):
    path = _patched(tmp_path, "extremes", 8360, 5, 4)  # a TEXT column declared DOUBLE
    with tsfile.TsFileReader(path) as r:
        with pytest.raises(CorruptDataError, match="has type TEXT") as ei:
            for t in r.get_all_table_schemas():
                r.read_columns(t)
        assert _offset(ei.value) > 0


def test_invalid_date_in_the_row_api_names_its_chunk(tmp_path):
    path = _patched(tmp_path, "extremes", 916, 177, 145)  # a PLAIN DATE 99991231 -> 99991198
    with tsfile.TsFileReader(path) as r:
        with pytest.raises(CorruptDataError, match="99991198.*file offset"):
            for t in r.get_all_table_schemas():
                with r.query_table(t, None) as rs:
                    while rs.next():
                        for i in range(1, rs.get_metadata().get_column_num() + 1):
                            rs.get_value_by_index(i)


def test_device_outside_its_tables_index_root(tmp_path):
    path = _patched(tmp_path, "extremes", 7887, ord("p"), ord("P"))  # 'plain' -> 'Plain'
    with tsfile.TsFileReader(path) as r:
        with pytest.raises(CorruptDataError, match="does not belong") as ei:
            r.get_all_devices()
        assert _offset(ei.value) > 0


def test_table_listed_with_capitals_is_found_as_listed(tmp_path):
    path = _patched(tmp_path, "two_tables_flushed", 17930, ord("a"), ord("A"))  # schema 'Alpha'
    with tsfile.TsFileReader(FIXTURES / "two_tables_flushed.tsfile") as r:
        want = r.read_columns("alpha")
    with tsfile.TsFileReader(path) as r:
        assert "Alpha" in r.get_all_table_schemas()
        assert r.get_table_schema("Alpha").table_name == "alpha"  # TableSchema lower-cases
        got = r.read_columns("Alpha")
    assert np.array_equal(got[2], want[2])
    for name in want[3]:
        assert np.array_equal(got[3][name], want[3][name]), name


def test_encrypt_level_error_names_the_property(tmp_path):
    path = _patched(tmp_path, "time_column", 419, ord("0"), ord(" "))
    with pytest.raises(UnsupportedError, match="encrypt") as ei:
        tsfile.TsFileReader(path)
    assert _offset(ei.value) == 418  # the property value's varstr length byte


def test_invalid_date_in_dataframe_and_arrow_names_its_chunk(tmp_path):
    path = _patched(tmp_path, "extremes", 916, 177, 145)  # a PLAIN DATE 99991231 -> 99991198
    from tsfile.dataframe import read_arrow

    for read in (tsfile.to_dataframe, read_arrow):
        with pytest.raises(CorruptDataError, match="99991198.*file offset") as ei:
            read(path, "defaults")
        assert _offset(ei.value) > 0
    with tsfile.TsFileReader(path) as r, r.query_table("defaults", None) as rs:
        with pytest.raises(CorruptDataError, match="99991198.*file offset"):
            while rs.read_arrow_batch() is not None:
                pass


def test_invalid_date_values_are_found():
    from tsfile.dataframe import _invalid_date

    valid = [20240229, 99991231, 10101, 19700101, 20241231]
    assert _invalid_date(np.array(valid, np.int32), None) is None
    for bad in (20230229, 0, 20241301, 20240431, -5, 100000101, 20240100):
        assert _invalid_date(np.array([20240101, bad], np.int32), None) == bad
        assert _invalid_date(np.array([20240101, bad]), np.array([False, True])) is None
