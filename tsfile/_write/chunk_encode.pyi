from collections.abc import Sequence

import numpy as np

class ChunkData:
    """Read-only bytes-like data of one chunk, in pooled memory (buffer protocol)."""

    def __len__(self) -> int: ...
    def __bytes__(self) -> bytes: ...
    def __buffer__(self, flags: int, /) -> memoryview: ...

def release_pool() -> None: ...
def pool_info() -> tuple[int, int]: ...
def supports(encoding: int, data_type: int, compressor: int) -> bool: ...
def page_limit(encoding: int, data_type: int) -> int | None: ...
def encode_pages(
    values: np.ndarray,
    offsets: Sequence[int] | np.ndarray,
    encoding: int,
    data_type: int,
    compressor: int,
    *,
    bounds: Sequence[int] | np.ndarray | None = None,
    present: np.ndarray | None = None,
    times: np.ndarray | None = None,
    value_times: np.ndarray | None = None,
    segments: tuple[np.ndarray, np.ndarray] | None = None,
) -> tuple[ChunkData, tuple | None]: ...

class ChunkEncoder:
    """One chunk's pages in `ranges` runs, each encoded without the GIL (any thread, any order),
    joined by result()."""

    def __init__(
        self,
        values: np.ndarray,
        offsets: Sequence[int] | np.ndarray,
        encoding: int,
        data_type: int,
        compressor: int,
        *,
        bounds: Sequence[int] | np.ndarray | None = None,
        present: np.ndarray | None = None,
        times: np.ndarray | None = None,
        value_times: np.ndarray | None = None,
        segments: tuple[np.ndarray, np.ndarray] | None = None,
        ranges: int = 1,
        check_order: bool = False,
    ) -> None: ...
    @property
    def ranges(self) -> int: ...
    @property
    def rising(self) -> bool | None: ...
    def encode(self, r: int) -> None: ...
    def result(self) -> tuple[list[ChunkData], tuple | None]: ...

def strictly_increasing(times: np.ndarray) -> bool: ...
def snappy_compress_raw(data: bytes | bytearray | memoryview) -> bytes: ...
def lz4_compress_raw(data: bytes | bytearray | memoryview) -> bytes: ...
def lz4_available() -> bool: ...
