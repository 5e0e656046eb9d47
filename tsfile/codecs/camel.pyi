from typing import Any

import numpy as np
from numpy.typing import DTypeLike

from tsfile.codecs._serial import SerialDecoder, SerialEncoder
from tsfile.types import TSDataType

HAS_SIMD: bool

def decode(
    data: Any,
    dtype: TSDataType | DTypeLike = ...,
    count: int | None = None,
    path: str = "auto",
) -> np.ndarray: ...
def decode_into(data: Any, out: np.ndarray, path: str = "auto") -> int: ...
def encode(values: Any, dtype: TSDataType | DTypeLike | None = None) -> bytes: ...

class CamelEncoder(SerialEncoder):
    def __init__(self, dtype: TSDataType | DTypeLike = ...) -> None: ...

class CamelDecoder(SerialDecoder):
    def __init__(self, data: Any, dtype: TSDataType | DTypeLike = ...) -> None: ...

# the codec contract rows (a capsule tsfile.codecs._registry reads)
CODEC_ROWS: object
