"""TsFileReader sources other than a local path: bytes / PathLike paths, seekable binary file
objects read by byte ranges (tsfile._read.source), fsspec URLs; and the bytes such a reader
fetches for a query that needs part of a file."""

import io
import os
import pathlib
import weakref

import numpy as np
import pytest

import tsfile
from tsfile import ColumnCategory, ColumnSchema, TableSchema, TSDataType, TsFileTableWriter
from tsfile.exceptions import FileOpenError, FileReadError

ROWS_PER_GROUP = 2_000
GROUPS = 100


@pytest.fixture(scope="module")
def grouped_file(tmp_path_factory):
    """A table file of GROUPS chunk groups (one per flush), time 0.. in steps of 1."""
    path = tmp_path_factory.mktemp("sources") / "groups.tsfile"
    schema = TableSchema(
        "t",
        [
            ColumnSchema("dev", TSDataType.STRING, ColumnCategory.TAG),
            ColumnSchema("x", TSDataType.INT64, ColumnCategory.FIELD),
            ColumnSchema("s", TSDataType.STRING, ColumnCategory.FIELD),
        ],
    )
    rng = np.random.default_rng(7)
    with TsFileTableWriter(str(path), schema) as w:
        for g in range(GROUPS):
            ts = np.arange(g * ROWS_PER_GROUP, (g + 1) * ROWS_PER_GROUP, dtype=np.int64)
            x = rng.integers(-(10**12), 10**12, ts.size)
            s = np.array([f"v{i % 97}" for i in range(ts.size)], dtype=object)
            w.write_arrays(ts, {"dev": "d1", "x": x, "s": s})
            w.flush()
    return path


def _rows(source, **kw):
    cols = tsfile.read_table(source, "t", **kw)
    return cols["time"].tolist(), cols["x"].tolist(), list(cols["s"])


class Tracking(io.BytesIO):
    """A file object that checks the reader's manners: sized reads only, short reads."""

    def __init__(self, data, max_read=None):
        super().__init__(data)
        self.max_read = max_read
        self.sizes = []
        self.closed_calls = 0

    def read(self, size=-1):
        assert size is not None and size >= 0, "an unsized read"
        self.sizes.append(size)
        if self.max_read is not None:
            size = min(size, self.max_read)
        return super().read(size)

    def close(self):
        self.closed_calls += 1
        super().close()


@pytest.mark.parametrize(
    "make", [str, pathlib.Path, os.fsencode, np.str_], ids=["str", "Path", "bytes", "np.str_"]
)
def test_path_forms_read_the_same(grouped_file, make):
    assert _rows(make(str(grouped_file))) == _rows(str(grouped_file))


def test_file_object_reads_what_the_path_reads_with_short_reads_and_its_cursor_kept(grouped_file):
    src = Tracking(grouped_file.read_bytes(), max_read=1000)
    src.seek(11)
    assert _rows(src, start_time=5_000, end_time=150_000) == _rows(
        str(grouped_file), start_time=5_000, end_time=150_000
    )
    assert src.tell() == 11
    assert src.closed_calls == 0
    assert src.sizes  # it was read through read(n)


def test_a_one_percent_query_reads_a_few_percent_of_the_bytes(grouped_file):
    size = grouped_file.stat().st_size
    src = io.BytesIO(grouped_file.read_bytes())
    with tsfile.TsFileReader(src) as r:
        opened = r.bytes_fetched
        total = GROUPS * ROWS_PER_GROUP
        t1 = total // 2
        names, types, ts, cols, nulls = r.read_columns("t", ["x"], t1, t1 + total // 100 - 1)
        assert len(ts) == total // 100
        fetched = r.bytes_fetched
    assert opened < size * 0.02, (opened, size)
    assert fetched < size * 0.05, (fetched, size)


def test_the_reader_keeps_the_object_until_closed_then_lets_it_go(grouped_file):
    src = Tracking(grouped_file.read_bytes())
    ref = weakref.ref(src)
    r = tsfile.TsFileReader(src)
    del src
    assert ref() is not None
    r.close()
    import gc

    gc.collect()
    assert ref() is None


def test_objects_that_are_not_files_are_refused():
    with pytest.raises(TypeError, match="seekable binary file object"):
        tsfile.TsFileReader(object())

    class Pipe(io.RawIOBase):
        def readable(self):
            return True

        def seekable(self):
            return False

    with pytest.raises(TypeError, match="seekable"):
        tsfile.TsFileReader(Pipe())


def test_a_size_probe_failure_is_a_file_open_error(grouped_file):
    class NoEnd(io.BytesIO):
        def seek(self, pos, whence=0):
            if whence == os.SEEK_END:
                raise OSError("no end here")
            return super().seek(pos, whence)

    with pytest.raises(FileOpenError, match="size"):
        tsfile.TsFileReader(NoEnd(grouped_file.read_bytes()))


def test_a_read_failure_is_a_file_read_error_naming_the_range(grouped_file):
    class Failing(io.BytesIO):
        fail = False

        def read(self, size=-1):
            if self.fail:
                raise OSError("remote read failed")
            return super().read(size)

    src = Failing(grouped_file.read_bytes())
    src.seek(3)
    with tsfile.TsFileReader(src) as r:
        src.fail = True
        with pytest.raises(FileReadError, match=r"bytes \d+\.\.\d+"):
            r.read_columns("t", ["x"])
    assert src.tell() == 3


def test_a_truncated_or_foreign_file_object_is_corrupt_data(grouped_file):
    data = grouped_file.read_bytes()
    with pytest.raises(tsfile.CorruptDataError):
        tsfile.TsFileReader(io.BytesIO(data[: len(data) // 2]))
    with pytest.raises(tsfile.CorruptDataError):
        tsfile.TsFileReader(io.BytesIO(b"not a tsfile at all" * 10))
    with pytest.raises(tsfile.CorruptDataError):
        tsfile.TsFileReader(io.BytesIO(b""))


def test_a_chunk_whose_header_lies_about_its_size_is_corrupt_data(grouped_file):
    """A chunk data size pointing past the data area: fetched up to the metadata, then the engine
    refuses it (never a read past the mapping)."""
    data = bytearray(grouped_file.read_bytes())
    with tsfile.TsFileReader(str(grouped_file)) as r:
        off = min(
            c.offset for tsm in r._series("t", r._devices("t")[0][1]).values() for c in tsm.chunks
        )
    # the chunk header: marker, varstr name (a 1-byte zigzag length here), uvarint data size
    name_len = data[off + 1] >> 1
    pos = off + 2 + name_len
    k = 1
    while data[pos + k - 1] & 0x80:  # the length of the data-size varint, kept
        k += 1
    data[pos : pos + k] = bytes([0xFF] * (k - 1) + [0x7F])  # the largest size of k bytes
    with tsfile.TsFileReader(io.BytesIO(bytes(data))) as r:
        with pytest.raises(tsfile.CorruptDataError):
            r.read_columns("t", ["x"])


def test_threads_share_a_file_object_reader(grouped_file):
    from concurrent.futures import ThreadPoolExecutor

    expect = _rows(str(grouped_file))
    with tsfile.TsFileReader(io.BytesIO(grouped_file.read_bytes())) as r:

        def query(_):
            names, types, ts, cols, nulls = r.read_columns("t", ["x", "s"])
            return ts.tolist(), cols["x"].tolist(), list(cols["s"])

        with ThreadPoolExecutor(4) as pool:
            results = list(pool.map(query, range(8)))
    assert all(res == expect for res in results)


def test_an_fsspec_url(grouped_file):
    fsspec = pytest.importorskip("fsspec")
    fs = fsspec.filesystem("memory")
    with fs.open("/sources/groups.tsfile", "wb") as f:
        f.write(grouped_file.read_bytes())
    assert _rows("memory://sources/groups.tsfile") == _rows(str(grouped_file))
    with pytest.raises(FileOpenError):
        tsfile.TsFileReader("memory://sources/missing.tsfile")
