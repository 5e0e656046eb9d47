from collections.abc import Iterator
from typing import Any

import numpy as np
from numpy.typing import DTypeLike

from tsfile.types import TSDataType

HAS_SIMD: bool
DEFAULT_MAX_POINT_NUMBER: int

def count_values(data: Any, dtype: TSDataType | DTypeLike) -> int: ...
def decode(
    data: Any, dtype: TSDataType | DTypeLike, count: int | None = None, path: str = "auto"
) -> np.ndarray: ...
def decode_into(data: Any, out: np.ndarray, path: str = "auto") -> int: ...
def encode(
    values: Any,
    dtype: TSDataType | DTypeLike | None = None,
    max_point_number: int = 2,
    block_size: int = 128,
    prev_min_delta: int = 0,
) -> bytes: ...
def encode_prefix(
    values: Any, dtype: TSDataType | DTypeLike | None = None, max_point_number: int = 2
) -> tuple[np.ndarray, bytes]: ...
def last_min_delta(
    values: Any,
    dtype: TSDataType | DTypeLike | None = None,
    max_point_number: int = 2,
    block_size: int = 128,
    prev_min_delta: int = 0,
) -> int: ...

class Ts2DiffFloatDecoder(Iterator[float]):
    def __init__(self, data: Any, dtype: TSDataType | DTypeLike) -> None: ...
    def has_next(self) -> bool: ...
    def next(self) -> float: ...
    def __next__(self) -> float: ...

# the codec contract rows (a capsule tsfile.codecs._registry reads)
CODEC_ROWS: object
