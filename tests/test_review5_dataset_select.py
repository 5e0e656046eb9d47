"""Selecting series of a TsFileDataFrame with a boolean mask built from one of its listing
columns: ``df[df["field"] == "x"]``. The mask's index is positions (0 .. n-1, as the listing
column's), which the view took as series names: it held series named "1", "3"... that no lookup
found. The official view reads those labels as positions."""

from __future__ import annotations

import numpy as np
import pytest
from dataset_shards import write_shards

from tsfile import TsFileDataFrame


@pytest.fixture
def df(tmp_path):
    write_shards(tmp_path, files=2, rows=10, devices=("a", "b", "c"))
    with TsFileDataFrame(str(tmp_path), show_progress=False) as view:
        yield view


def test_a_mask_of_a_listing_column_selects_by_position(df):
    assert [str(n) for n in df.list_timeseries()] == [
        "m.a.x", "m.a.ts", "m.b.x", "m.b.ts", "m.c.x", "m.c.ts",
    ]  # fmt: skip
    picked = df[df["field"] == "x"]
    assert [str(n) for n in picked.list_timeseries()] == ["m.a.x", "m.b.x", "m.c.x"]
    assert len(picked) == 3
    assert picked[1].name == "m.b.x"
    assert picked["m.c.x"][:3].tolist() == [2.5, 3.5, 4.5]
    got = picked.loc[0:2, [0, 2]]
    assert got.series_names == ["m.a.x", "m.c.x"]
    assert np.array_equal(got.values, [[0.5, 2.5], [1.5, 3.5], [2.5, 4.5]])
    # a mask of the subset's own listing: positions within the subset
    again = picked[picked["id"] != "a"]
    assert [str(n) for n in again.list_timeseries()] == ["m.b.x", "m.c.x"]


def test_a_mask_of_the_metadata_listing_selects_by_name(df):
    meta = df.list_timeseries_metadata()
    picked = df[meta["id"] == "b"]
    assert [str(n) for n in picked.list_timeseries()] == ["m.b.x", "m.b.ts"]
    assert picked["m.b.ts"][0] == 0.0


def test_a_mask_naming_series_the_view_lacks_is_a_key_error(df):
    meta = df.list_timeseries_metadata()
    sub = df[meta["id"] == "a"]
    with pytest.raises(KeyError, match="m.b.x"):
        sub[meta["id"] == "b"]
    with pytest.raises(IndexError):
        sub[df["field"] == "ts"]  # positions 1, 3, 5 of a view of two series
