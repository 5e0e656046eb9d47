"""Type stub of tsfile.codecs.ts2diff (TS_2DIFF block delta encoding)."""

from collections.abc import Iterator
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

_Path = Literal["per_value", "batch", "simd", "auto"]
_IntDType = type[np.int32] | type[np.int64] | np.dtype | str

HAS_SIMD: bool
MAX_BLOCK_DELTAS: int
DEFAULT_BLOCK_SIZE: int

def count_values(data: Any, dtype: _IntDType) -> int: ...
def decode_into(
    data: Any, out: npt.NDArray[np.int32] | npt.NDArray[np.int64], path: _Path = "auto"
) -> int: ...
def decode(
    data: Any, dtype: _IntDType, count: int | None = None, path: _Path = "auto"
) -> npt.NDArray[np.int32] | npt.NDArray[np.int64]: ...
def encode(
    values: npt.NDArray[np.int32] | npt.NDArray[np.int64],
    block_size: int = 128,
    path: _Path = "auto",
    prev_min_delta: int = 0,
) -> bytes: ...
def last_min_delta(
    values: npt.NDArray[np.int32] | npt.NDArray[np.int64],
    block_size: int = 128,
    prev_min_delta: int = 0,
) -> int: ...

class Ts2DiffEncoder:
    def __init__(self, dtype: _IntDType = "int64", block_size: int = 128) -> None: ...
    @property
    def dtype(self) -> np.dtype: ...
    def encode(self, value: int) -> None: ...
    def flush(self) -> bytes: ...

class Ts2DiffDecoder:
    def __init__(self, data: Any, dtype: _IntDType = "int64") -> None: ...
    def has_next(self) -> bool: ...
    def next(self) -> int: ...
    def __iter__(self) -> Iterator[int]: ...
    def __next__(self) -> int: ...

# the codec contract rows (a capsule tsfile.codecs._registry reads)
CODEC_ROWS: object
