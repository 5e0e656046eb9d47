from collections.abc import Sequence

import numpy as np

def supports(encoding: int, data_type: int, compressor: int) -> bool: ...
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
) -> tuple[bytearray, tuple | None]: ...
def snappy_compress_raw(data: bytes | bytearray | memoryview) -> bytes: ...
def lz4_compress_raw(data: bytes | bytearray | memoryview) -> bytes: ...
def lz4_available() -> bool: ...
