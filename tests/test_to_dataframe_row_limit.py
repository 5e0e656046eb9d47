"""to_dataframe's ``max_row_num``, one file and many: a negative limit used to drop the last row
(``df.iloc[:-1]``) where the official function returns an empty DataFrame; 0 with
``as_iterator`` raised range()'s own ValueError, a negative one gave an empty iterator; a float
was truncated on one path and a pandas TypeError on the other."""

from __future__ import annotations

import numpy as np
import pytest
from dataset_shards import write_shards

import tsfile
from tsfile.exceptions import InvalidArgumentError


@pytest.fixture
def files(tmp_path):
    return [str(p) for p in write_shards(tmp_path, files=3, rows=40)]


@pytest.fixture(params=["one file", "many files"])
def source(request, files):
    return files[0] if request.param == "one file" else files


def _rows(source):
    return len(tsfile.to_dataframe(source, "m"))


@pytest.mark.parametrize("limit", [0, -1, -5])
def test_a_limit_of_zero_or_less_gives_an_empty_frame(source, limit):
    assert _rows(source) > 0
    df = tsfile.to_dataframe(source, "m", max_row_num=limit)
    assert len(df) == 0


@pytest.mark.parametrize("limit", [1, 7, np.int64(39), 10**9])
def test_a_positive_limit_keeps_the_first_rows(source, limit):
    whole = tsfile.to_dataframe(source, "m")
    df = tsfile.to_dataframe(source, "m", max_row_num=limit)
    n = min(int(limit), len(whole))
    assert len(df) == n
    assert df["time"].tolist() == whole["time"].iloc[:n].tolist()


@pytest.mark.parametrize("limit", [0, -1])
def test_iterator_batches_need_at_least_one_row(source, limit):
    with pytest.raises(InvalidArgumentError, match="max_row_num must be >= 1"):
        tsfile.to_dataframe(source, "m", max_row_num=limit, as_iterator=True)


@pytest.mark.parametrize("limit", [2.7, "5", True])
def test_a_limit_that_is_no_int_is_a_type_error(source, limit):
    for as_iterator in (False, True):
        with pytest.raises(TypeError, match="max_row_num must be an int"):
            tsfile.to_dataframe(source, "m", max_row_num=limit, as_iterator=as_iterator)


def test_iterator_batches_cover_every_row_once(source):
    whole = tsfile.to_dataframe(source, "m")
    batches = list(tsfile.to_dataframe(source, "m", max_row_num=7, as_iterator=True))
    assert all(len(b) == 7 for b in batches[:-1]) and 1 <= len(batches[-1]) <= 7
    assert sum(len(b) for b in batches) == len(whole)
    assert [t for b in batches for t in b["time"].tolist()] == whole["time"].tolist()
