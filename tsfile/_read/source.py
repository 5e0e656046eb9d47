"""Reading a TsFile from a binary file object or an fsspec URL by byte ranges.

A local path is memory-mapped by the reader (tsfile.reader). Anything else (``io.BytesIO``, an
open file, an object of a remote file system) becomes a :class:`RangeSource`: an anonymous
mapping the size of the file, zero pages until their bytes are fetched. The engine and the index
walker read that mapping exactly as they read a mapped file; the reader fetches, before it reads
them, the bytes of the tail and the metadata (once, when the file is opened) and the bytes of each
chunk it decodes (its header first, then header + data). Nearby ranges are fetched in one read,
so a query that needs a part of a file reads that part, never the whole file.

The file object stays the caller's: it is never closed (an fsspec URL's file, opened here, is),
its cursor is restored after every read, short reads are completed, and reads are sized (a
``read()`` without a size is never issued). Errors of the file object are
:class:`tsfile.exceptions.FileOpenError` while its size is probed and
:class:`tsfile.exceptions.FileReadError` afterwards, naming the byte range.
"""

from __future__ import annotations

import mmap
import os
import threading

from tsfile._format.bytes import Cursor
from tsfile._format.constants import OLD_HEADER_SIZE
from tsfile._format.metadata import read_file_metadata, read_tail
from tsfile.exceptions import FileOpenError, FileReadError

# Gaps smaller than this inside a range being fetched are read with it (one request, not two:
# a remote request costs more than the bytes between).
COALESCE_BYTES = 64 * 1024
# The first read of a file's tail: the TsFileMetadata of a small file fits; a larger one is read
# once its size is known.
TAIL_GUESS = 16 * 1024
# The first read of a chunk: its header (marker, measurement name, data size, codes) fits here
# unless the name is longer, in which case the rest is fetched once the name's length is known.
CHUNK_HEADER_GUESS = 512


def is_file_object(source) -> bool:
    return hasattr(source, "read") and hasattr(source, "seek")


def is_url(source) -> bool:
    return isinstance(source, str) and "://" in source and not os.path.exists(source)


def url_fs(url: str):
    """(fsspec file system, path) of a URL. Errors of the package naming the URL: without fsspec
    or the protocol's file system (s3fs...) MissingDependencyError (an ImportError), for a
    protocol fsspec does not know InvalidPathError (a ValueError); fsspec's own were a bare
    ImportError / ValueError that named no URL, from deep inside a many-file read."""
    from tsfile.errors import MissingDependencyError
    from tsfile.exceptions import InvalidPathError

    try:
        import fsspec
    except ImportError:
        raise MissingDependencyError(
            f"{url}: reading a URL needs fsspec (pip install fsspec)"
        ) from None
    try:
        return fsspec.core.url_to_fs(url)
    except ImportError as exc:  # fsspec knows the protocol, its package is not installed
        raise MissingDependencyError(f"{url}: {exc}") from None
    except ValueError as exc:  # "Protocol not known: ..."
        raise InvalidPathError(f"{url}: {exc}") from None


def open_url(url: str):
    """A binary file object of an fsspec URL (``memory://``, ``file://``, ``s3://`` with s3fs);
    MissingDependencyError (an ImportError) naming fsspec when it is not installed.

    Opened without fsspec's read cache (``cache_type="none"``): RangeSource keeps what it
    fetched and joins nearby ranges itself, and a remote file system's default cache reads
    ahead by whole blocks (s3fs: 50 MB), so that a query needing a part of a file would fetch
    all of it. A file system whose files take no cache type is opened as it opens."""
    fs, path = url_fs(url)
    try:
        try:
            return _open_rb(fs, path)
        except FileNotFoundError:
            # s3fs answers from the listing it cached (a directory read earlier in the
            # process): a file written since is "not found" there. Asked again without it.
            fs.invalidate_cache(path)
            return _open_rb(fs, path)
    except FileNotFoundError as exc:
        from tsfile.errors import TsFileNotFoundError

        raise TsFileNotFoundError(2, str(exc) or "No such file", url) from None
    except OSError as exc:
        raise FileOpenError(f"{url}: cannot open: {exc}") from None


def _open_rb(fs, path):
    try:
        return fs.open(path, "rb", cache_type="none")
    except TypeError:  # an implementation without the cache_type keyword
        return fs.open(path, "rb")


class RangeSource:
    """The bytes of a file object, fetched by ranges into ``buf`` (see the module docstring).
    Safe to share by threads: fetches are serialised, and a range is readable once fetch()
    returns."""

    def __init__(self, fileobj, name: str, owned: bool):
        if not is_file_object(fileobj) or not hasattr(fileobj, "tell"):
            raise TypeError(
                f"TsFileReader needs a path or a seekable binary file object, got "
                f"{type(fileobj).__name__}"
            )
        seekable = getattr(fileobj, "seekable", None)
        try:
            can_seek = seekable is None or seekable()
        except Exception as exc:  # noqa: BLE001 - a closed file: ValueError, any other object's
            raise FileOpenError(f"{name}: cannot use the file object: {exc}") from None
        if not can_seek:
            raise TypeError(f"{name}: TsFileReader needs a seekable binary file object")
        self.file = fileobj
        self.name = name
        self.owned = owned
        self.size = self._probe_size()
        self.buf = mmap.mmap(-1, self.size) if self.size else b""
        self._have = []  # sorted, disjoint [start, end) ranges already in buf
        self._lock = threading.Lock()
        self.bytes_read = 0
        self.reads = 0

    def _probe_size(self) -> int:
        f = self.file
        try:
            pos = f.tell()
        except Exception as exc:  # noqa: BLE001 - any failure of the caller's object
            raise FileOpenError(f"{self.name}: cannot tell the position: {exc}") from None
        try:
            try:
                f.seek(0, os.SEEK_END)
                size = f.tell()
            finally:
                f.seek(pos, os.SEEK_SET)
        except Exception as exc:  # noqa: BLE001
            raise FileOpenError(f"{self.name}: cannot find the size: {exc}") from None
        if not isinstance(size, int) or size < 0:
            raise FileOpenError(f"{self.name}: the file object reports size {size!r}")
        return size

    # -- fetching --------------------------------------------------------------------------

    def fetch(self, start: int, end: int) -> None:
        """Make bytes [start, end) (clamped to the file) present in buf."""
        start, end = max(0, int(start)), min(self.size, int(end))
        if start >= end:
            return
        with self._lock:
            for lo, hi in self._missing(start, end):
                self._read_into(lo, hi)
                self._add(lo, hi)

    def _missing(self, start, end):
        """The gaps of [start, end) not yet fetched, gaps closer than COALESCE_BYTES joined."""
        gaps, pos = [], start
        for lo, hi in self._have:
            if hi <= pos:
                continue
            if lo >= end:
                break
            if lo > pos:
                gaps.append([pos, lo])
            pos = max(pos, hi)
        if pos < end:
            gaps.append([pos, end])
        joined = []
        for g in gaps:
            if joined and g[0] - joined[-1][1] < COALESCE_BYTES:
                joined[-1][1] = g[1]  # re-reads the few bytes between: one read, not two
            else:
                joined.append(g)
        return joined

    def _add(self, lo, hi):
        merged = []
        for a, b in self._have:
            if b < lo or a > hi:
                merged.append((a, b))
            else:
                lo, hi = min(lo, a), max(hi, b)
        merged.append((lo, hi))
        merged.sort()
        self._have = merged

    def _read_into(self, lo: int, hi: int) -> None:
        """Read bytes [lo, hi) of the file object into buf (short reads completed), leaving its
        cursor where it was."""
        f = self.file
        try:
            pos = f.tell()
            try:
                f.seek(lo, os.SEEK_SET)
                at = lo
                while at < hi:
                    data = f.read(hi - at)
                    if not data:
                        raise EOFError(f"the file ends at byte {at}")
                    n = len(data)
                    if n > hi - at:
                        raise OSError(f"read({hi - at}) returned {n} bytes")
                    self.buf[at : at + n] = data
                    at += n
            finally:
                f.seek(pos, os.SEEK_SET)
        except Exception as exc:  # noqa: BLE001 - any failure of the caller's object
            raise FileReadError(
                f"{self.name}: cannot read bytes {lo}..{hi}: {type(exc).__name__}: {exc}"
            ) from None
        self.bytes_read += hi - lo
        self.reads += 1

    def fetch_metadata(self) -> None:
        """The header, the tail, the TsFileMetadata and the index area: what opening the file
        and walking its index read."""
        # the header, with the 6 bytes an old file's version string takes (read_tail names it)
        self.fetch(0, OLD_HEADER_SIZE)
        self.fetch(self.size - TAIL_GUESS, self.size)
        meta_start = read_tail(self.buf, self.size, self.name)
        self.fetch(meta_start, self.size)
        meta = read_file_metadata(self.buf, self.size, self.name)
        self.fetch(meta.meta_offset, meta_start)

    def fetch_chunk(self, offset: int, data_end: int) -> None:
        """The header and data of the chunk at ``offset`` (chunks end before ``data_end``, the
        metadata). A header that does not parse is left to the engine to report."""
        end = min(offset + CHUNK_HEADER_GUESS, data_end)
        self.fetch(offset, end)
        cur = Cursor(self.buf, offset + 1, end, self.name)
        try:
            name_len = max(cur.svarint("measurement name length"), 0)  # -1: an empty name
            if cur.pos + name_len + 16 > end:  # a long name: fetch the rest of the header
                end = min(cur.pos + name_len + 16, data_end)
                self.fetch(offset, end)
                cur = Cursor(self.buf, cur.pos, end, self.name)
            cur.pos += name_len
            data_size = cur.uvarint("chunk data size")
        except Exception:  # noqa: BLE001 - the engine names what is wrong with the header
            return
        self.fetch(offset, min(cur.pos + 3 + data_size, data_end))

    def close(self) -> None:
        if self.owned:
            try:
                self.file.close()
            except Exception:  # noqa: BLE001, S110 - closing a file we opened: nothing to do
                pass
        self.file = None


__all__ = ["RangeSource", "is_file_object", "is_url", "open_url"]
