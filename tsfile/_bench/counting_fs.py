"""An fsspec file system over local files that counts the bytes read through it, for measuring
what a query fetches when its files are read as remote ones (by ranges, tsfile._read.source):
``counting://<absolute path>`` is the local file, and every ``read`` of every file opened through
it adds to ``CountingFileSystem.bytes_read`` (``reads``: the calls). Registered under the
protocol ``counting`` by ``register()``.
"""

from __future__ import annotations

import threading

from fsspec.implementations.local import LocalFileSystem

PROTOCOL = "counting"


class CountingFileSystem(LocalFileSystem):
    protocol = PROTOCOL
    root_marker = "/"
    bytes_read = 0
    reads = 0
    _lock = threading.Lock()

    @classmethod
    def reset(cls):
        with cls._lock:
            cls.bytes_read = cls.reads = 0

    @classmethod
    def _strip_protocol(cls, path):
        path = path[len(PROTOCOL) + 3 :] if path.startswith(PROTOCOL + "://") else path
        return LocalFileSystem._strip_protocol(path)

    def unstrip_protocol(self, name):
        return f"{PROTOCOL}://{self._strip_protocol(name)}"

    def _open(self, path, mode="rb", **kwargs):
        if mode != "rb":
            # the counting is of reads: a file opened to write (or append, or update) is the
            # local file system's. The wrapper has no write: "wb" truncated the file and then
            # failed on the first write, losing it.
            return super()._open(path, mode, **kwargs)
        return _CountingFile(open(self._strip_protocol(path), "rb"))  # noqa: SIM115 - returned


class _CountingFile:
    """A file whose reads add to CountingFileSystem's counters."""

    def __init__(self, raw):
        self._raw = raw

    def _count(self, n):
        with CountingFileSystem._lock:
            CountingFileSystem.bytes_read += n
            CountingFileSystem.reads += 1

    def read(self, n=-1):
        data = self._raw.read(n)
        self._count(len(data))
        return data

    def read1(self, n=-1):
        data = self._raw.read1(n)
        self._count(len(data))
        return data

    def readinto(self, b):
        n = self._raw.readinto(b)
        self._count(n or 0)
        return n

    def writable(self):
        return False

    def flush(self):
        pass

    def seek(self, offset, whence=0):
        return self._raw.seek(offset, whence)

    def tell(self):
        return self._raw.tell()

    def seekable(self):
        return True

    def readable(self):
        return True

    def close(self):
        self._raw.close()

    @property
    def closed(self):
        return self._raw.closed

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def register():
    import fsspec

    fsspec.register_implementation(PROTOCOL, CountingFileSystem, clobber=True)


__all__ = ["CountingFileSystem", "PROTOCOL", "register"]
