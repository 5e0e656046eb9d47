"""Review 4 of the read pipeline (tsfile._read.ahead) with on_error="skip": a file whose field
column fails to decode in the helper's engine call (a corrupt page body) leaves the null bits
that call wrote before the failure in its reserved rows. When the time phase then drops that
file (a corrupt time chunk in a later chunk group), the next files' rows move down onto those
rows, and the bits were kept: rows of a sound file read as null on two threads, not on one."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tsfile
from tsfile._read import ahead, columns
from tsfile.reader import TsFileReader
from tsfile.types import ColumnCategory, TSDataType
from tsfile.writer import TsFileWriter

T = TSDataType


def _write(path, k, rows=400):
    """Two chunk groups of ``rows`` rows; c0 null in every third row (shifted by k), c1 never."""
    cols = [tsfile.ColumnSchema("id", T.STRING, ColumnCategory.TAG)]
    cols += [tsfile.ColumnSchema(n, T.DOUBLE, ColumnCategory.FIELD) for n in ("c0", "c1")]
    w = TsFileWriter(str(path), overwrite=True)
    w.register_table(tsfile.TableSchema("m", cols))
    for half in range(2):
        t = np.arange(rows, dtype=np.int64) + k * 10**6 + half * rows
        data = {"id": "a", "c0": np.arange(rows) * 1.5 + k, "c1": np.arange(rows) * -2.0}
        w.write_arrays("m", t, data, null_masks={"c0": (np.arange(rows) + k) % 3 == 0})
        w.flush()
    w.close()
    return str(path)


def _break(path):
    """The page body of c1 in the first chunk group, and the time chunk of the second, overwritten
    (their headers intact: the plan and the checks pass, the decode fails)."""
    with TsFileReader(path) as r:
        read = r._plan_columns("m", None, None, None, "auto", None, None)
        (_t, g1), (_t2, g2) = read.groups
        c1_at, next_at = g1.values[1], g2.time_chunk.offset
        t2 = g2.time_chunk
        t2_lo, t2_hi = t2.data_start, t2.data_end
    b = bytearray(open(path, "rb").read())
    for at in range(next_at - 24, next_at - 4):  # the end of c1's (one) page body
        assert at > c1_at
        b[at] ^= 0x5A
    for at in range(max(t2_lo + 8, t2_hi - 24), t2_hi - 4):
        b[at] ^= 0xA5
    open(path, "wb").write(bytes(b))


@pytest.mark.parametrize("threads", [2, 3])
def test_a_file_dropped_after_its_values_failed_ahead_leaves_no_null_bits(
    tmp_path, monkeypatch, threads
):
    monkeypatch.setattr(ahead, "_WAKE_VALUES", 1)
    monkeypatch.setattr(ahead, "_RESERVE_MIN_EXTRA", 0)
    monkeypatch.setattr(columns, "JOB_VALUES", 1)  # a time job per chunk group
    paths = [_write(tmp_path / f"p{k}.tsfile", k) for k in range(4)]
    _break(paths[1])
    with pytest.raises(tsfile.TsFileError):
        tsfile.read_table(paths[1], "m")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = tsfile.read_table(paths, "m", threads=1, on_error="skip")
        got = tsfile.read_table(paths, "m", threads=threads, on_error="skip")
    sound = [tsfile.read_table(p, "m") for p in (paths[0], *paths[2:])]
    assert len(want["time"]) == sum(len(s["time"]) for s in sound)
    for key in want:
        assert np.array_equal(np.ma.getdata(got[key]), np.ma.getdata(want[key])), key
        assert np.array_equal(np.ma.getmaskarray(got[key]), np.ma.getmaskarray(want[key])), key
        whole = np.ma.concatenate([s[key] for s in sound]) if key != "id" else None
        if whole is not None:
            assert np.array_equal(np.ma.getmaskarray(want[key]), np.ma.getmaskarray(whole)), key
