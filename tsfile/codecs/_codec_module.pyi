# Stub only: no module of this name exists at run time. These are the names every codec module
# has with the same signature (CONTRIBUTING.md, "Adding a codec"); the stubs of the modules whose
# names are exactly these (RLBE, SPRINTZ, CHIMP from _serial_codec.pxi; PLAIN, RLE, ZIGZAG)
# import them from here rather than repeat them.
from typing import Any

import numpy as np
from numpy.typing import DTypeLike

from tsfile.types import TSDataType

HAS_SIMD: bool

def decode(
    data: Any, dtype: TSDataType | DTypeLike, count: int | None = None, path: str = "auto"
) -> np.ndarray: ...
def decode_into(data: Any, out: np.ndarray, path: str = "auto") -> int: ...
def encode(values: Any, dtype: TSDataType | DTypeLike | None = None) -> bytes: ...

# the codec contract rows (a capsule tsfile.codecs._registry reads)
CODEC_ROWS: object
