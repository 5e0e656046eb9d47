# Stub only: no module of this name exists at run time. These are the names the shared body
# tsfile/codecs/_serial_codec.pxi gives every serial codec module (RLBE, SPRINTZ, CHIMP; CAMEL's
# decode has a default dtype and its own stub); their stubs import them from here.
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
