"""Integer arguments are checked by one definition (tsfile._args.int_arg) wherever they are
taken (the reads' ``threads``, the writer's options, to_dataframe's ``max_row_num``): a float, a
str or a bool is a TypeError naming the argument, a value below the minimum a ValueError naming
it, with the same words everywhere."""

import numpy as np
import pytest
from dataset_shards import write_shards

import tsfile
from tsfile._args import int_arg


@pytest.fixture
def files(tmp_path):
    return [str(p) for p in write_shards(tmp_path, files=2, rows=20)]


@pytest.mark.parametrize("bad", [1.5, 2.0, "2", True, [2]])
def test_threads_of_a_read_that_is_no_int(files, bad):
    for source in (files[0], files):
        for fn in (tsfile.read_table, tsfile.to_dataframe, tsfile.read_arrow):
            with pytest.raises(TypeError, match="threads must be an int"):
                fn(source, "m", threads=bad)


@pytest.mark.parametrize("bad", [0, -1])
def test_threads_below_one(files, bad):
    for source in (files[0], files):
        with pytest.raises(ValueError, match=f"threads must be >= 1, got {bad}"):
            tsfile.read_table(source, "m", threads=bad)


def test_numpy_integers_are_ints(files):
    a = tsfile.to_dataframe(files, "m", threads=np.int64(2))
    b = tsfile.to_dataframe(files, "m", threads=1)
    assert len(a) > 0 and a.equals(b)


def test_int_arg_itself():
    assert int_arg("n", np.int32(3), 1) == 3 and type(int_arg("n", np.int32(3))) is int
    with pytest.raises(TypeError, match=r"n must be an int, got 1\.5"):
        int_arg("n", 1.5)
    with pytest.raises(ValueError, match="n must be >= 2, got 1"):
        int_arg("n", 1, 2)
    assert int_arg("n", -7) == -7  # no minimum: any int
