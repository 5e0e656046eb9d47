from typing import Literal

import numpy as np
from numpy.typing import NDArray

HAS_SIMD: bool
PLANS: tuple[str, str, str]

def implementations() -> list[str]: ...
def active_implementation() -> str: ...
def set_block_skip(plan: Literal["off", "plan_a", "plan_c"]) -> str: ...
def block_skip() -> str: ...
def skip_counts() -> dict[str, int]: ...
def reset_skip_counts() -> None: ...
def time_window(
    data: bytes | bytearray | memoryview | NDArray[np.uint8],
    t1: int,
    t2: int,
    *,
    path: str = "auto",
    rows: bool = False,
    compression: Literal["snappy", "lz4"] | None = None,
    size: int | None = None,
    cap: int | None = None,
) -> tuple[NDArray[np.int64], NDArray[np.int64] | None, dict[str, int | str]]: ...
def decode_rows(
    data: bytes | bytearray | memoryview | NDArray[np.uint8],
    dtype: object,
    start: int,
    stop: int,
    *,
    path: str = "auto",
    compression: Literal["snappy", "lz4"] | None = None,
    size: int | None = None,
    stats: bool = False,
) -> tuple[np.ndarray, int] | tuple[np.ndarray, int, int]: ...
def select_range(
    values: np.ndarray,
    lo: float | None = None,
    hi: float | None = None,
    *,
    lo_inclusive: bool = True,
    hi_inclusive: bool = True,
    negate: bool = False,
    form: Literal["indices", "mask", "bitmap"] = "indices",
    path: str = "auto",
) -> np.ndarray: ...
def select(
    values: np.ndarray,
    op: str,
    operand: float,
    operand2: float | None = None,
    *,
    form: Literal["indices", "mask", "bitmap"] = "indices",
    path: str = "auto",
) -> np.ndarray: ...
def _kernel_loop_i64(
    values: NDArray[np.int64], lo: int, hi: int, form: str, path: str, loops: int
) -> int: ...
