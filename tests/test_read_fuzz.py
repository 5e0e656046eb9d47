"""Bad files: empty, truncated anywhere, wrong magic, corrupt sizes/offsets/counts, and a
property-based fuzz test over real fixture files with flipped, overwritten and cut bytes.

Every failure must be a tsfile.TsFileError subclass (CorruptDataError naming a file offset for
damaged data), never another exception, a crash, a hang or a large allocation."""

from __future__ import annotations

import os
import struct
import tracemalloc

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from interop.expected import fixture_path

import tsfile
from tsfile import CorruptDataError, TsFileError

SMALL = [
    "time_column",
    "allnull_single_page",
    "missing_value_chunk",
    "unicode",
    "enc_dictionary",
    "extremes",
    "two_tables_flushed",
    "comp_snappy",
    "comp_lz4",
    "comp_gzip",
    "tree_nonaligned",
]
_DATA = {}

# A damaged file may make the reader allocate at most this much (the largest fixture's result is
# a few MB): allocations are bounded by the bytes present, never by a count read from the file.
ALLOC_LIMIT = 64 << 20


def _data(name):
    if name not in _DATA:
        p = fixture_path(name)
        _DATA[name] = p.read_bytes() if p.exists() else None
    return _DATA[name]


def _read_everything(path):
    """Open and read every table and tree device fully, both through arrays and rows."""
    with tsfile.TsFileReader(path) as r:
        r.get_all_table_schemas()
        devices = r.get_all_devices()
        for name in r.get_all_table_schemas():
            r.read_columns(name)
            with r.query_table(name, None, 0, 2**40) as rs:
                k = 0
                while rs.next() and k < 200:
                    for i in range(1, rs.get_metadata().get_column_num() + 1):
                        rs.get_value_by_index(i)
                    k += 1
        for d in devices:
            if d.table_name in r.get_all_table_schemas():
                continue
            sensors = r.get_timeseries_names(d)
            with r.query_timeseries(d, sensors) as rs:
                while rs.get_next_tsblock() is not None:
                    pass


def _check_file(tmp_path, data, tag="f"):
    p = tmp_path / f"{tag}.tsfile"
    p.write_bytes(data)
    tracemalloc.start()
    try:
        _read_everything(p)
    except CorruptDataError as exc:
        # a damaged structure names its file offset; a damaged DATE value its column and row
        assert "offset" in str(exc) or "row" in str(exc), str(exc)
    except TsFileError:
        pass
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert peak < ALLOC_LIMIT, f"peak allocation {peak} bytes"


def _needs(name):
    data = _data(name)
    assert data is not None, f"fixture {name} not present"
    return data


def test_empty_file(tmp_path):
    p = tmp_path / "empty.tsfile"
    p.write_bytes(b"")
    with pytest.raises(CorruptDataError, match="offset 0"):
        tsfile.TsFileReader(p)


def test_wrong_magic_and_version(tmp_path):
    data = bytearray(_needs("comp_snappy"))
    bad = bytearray(data)
    bad[0:6] = b"TsFilX"
    p = tmp_path / "m.tsfile"
    p.write_bytes(bad)
    with pytest.raises(CorruptDataError, match="magic"):
        tsfile.TsFileReader(p)
    bad = bytearray(data)
    bad[6] = 3
    p.write_bytes(bad)
    with pytest.raises(tsfile.UnsupportedError, match="version 3"):
        tsfile.TsFileReader(p)
    bad = bytearray(data)
    bad[-1] = ord("X")
    p.write_bytes(bad)
    with pytest.raises(CorruptDataError, match="tail magic"):
        tsfile.TsFileReader(p)


def test_corrupt_metadata_size(tmp_path):
    data = bytearray(_needs("comp_snappy"))
    p = tmp_path / "s.tsfile"
    for size in (0, -5, len(data), 2**31 - 1, 1):
        data[-10:-6] = struct.pack(">i", size)
        p.write_bytes(data)
        with pytest.raises(CorruptDataError):
            _read_everything(p)


@pytest.mark.parametrize("name", ["comp_snappy", "missing_value_chunk", "tree_nonaligned"])
def test_truncated_anywhere(tmp_path, name):
    data = _needs(name)
    step = max(1, len(data) // 150)
    for cut in list(range(0, len(data), step)) + [len(data) - 1, len(data) - 10]:
        p = tmp_path / "t.tsfile"
        p.write_bytes(data[:cut])
        # without the tail the file is incomplete: always an error
        with pytest.raises(CorruptDataError):
            _read_everything(p)


@pytest.mark.parametrize("name", ["missing_value_chunk", "two_tables_flushed", "tree_nonaligned"])
def test_every_metadata_byte_flipped(tmp_path, name):
    """Flip each byte of the metadata area (where sizes, offsets and counts live)."""
    data = _needs(name)
    with tsfile.TsFileReader(fixture_path(name)) as r:
        meta_offset = r._meta.meta_offset
    positions = range(meta_offset, len(data) - 10)
    step = max(1, len(positions) // 120)
    for i in positions[::step]:
        bad = bytearray(data)
        bad[i] ^= 0xFF
        _check_file(tmp_path, bytes(bad))


@settings(
    max_examples=int(os.environ.get("TSFILE_FUZZ_EXAMPLES", "120")),
    deadline=2000,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    name=st.sampled_from(SMALL),
    flips=st.lists(
        st.tuples(st.floats(0, 1, exclude_max=True), st.integers(1, 255)), min_size=1, max_size=6
    ),
    cut=st.one_of(st.none(), st.floats(0, 1)),
    keep_tail=st.booleans(),
)
def test_fuzz_real_files(tmp_path, name, flips, cut, keep_tail):
    data = _data(name)
    if data is None:
        return
    bad = bytearray(data)
    for where, xor in flips:
        bad[int(where * len(bad))] ^= xor
    if cut is not None:
        n = int(cut * len(bad))
        # cut bytes out of the middle, keeping the tail (so the file still "looks" complete)
        bad = bad[:n] + bad[-10:] if keep_tail and n < len(bad) - 10 else bad[:n]
    _check_file(tmp_path, bytes(bad))
