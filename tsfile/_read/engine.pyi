"""Type stubs of the read hot path (tsfile/_read/engine.pyx)."""

from types import EllipsisType

import numpy as np

PATH_CODES: dict[str, int]
# columns of a page plan (plan_pages): "from", "end", "rows", "out"
PLAN_COLUMNS: dict[str, int]

def numpy_dtype(data_type: int) -> np.dtype: ...
def path_counts() -> dict[tuple[str, str], int]: ...
def reset_path_counts() -> None: ...

class FileView:
    size: int
    path: str
    data_end: int
    def __init__(self, owner: object, path: str, data_end: int) -> None: ...
    def release(self) -> None: ...

class Chunk:
    n_pages: int
    marker: int
    data_type: int
    compression: int
    encoding: int
    offset: int
    data_start: int
    data_end: int
    measurement: str
    def page_info(self) -> list[tuple[int, int, int, bool, int, int, int]]: ...

class Scratch:
    def reset(self, keep_bytes: int) -> None: ...

def new_scratch() -> Scratch: ...
def read_chunk(fv: FileView, off: int, max_pages: int = ..., stop_after: int = ...) -> Chunk: ...
def plan_pages(
    ch: Chunk, t1: int, t2: int, page_lo: int = ..., page_hi: int = ...
) -> np.ndarray: ...
def read_time_chunk(
    fv: FileView,
    ch: Chunk,
    t1: int,
    t2: int,
    path: int,
    out_ts: np.ndarray,
    pos: int,
    s: Scratch,
    chunk_inside: bool = ...,
    page_lo: int = ...,
    page_hi: int = ...,
    plan: np.ndarray | None = ...,
) -> tuple[int, np.ndarray]: ...
def read_time_chunks(
    fv: FileView,
    chunks: list[Chunk],
    t1: int,
    t2: int,
    path: int,
    out_ts: np.ndarray,
    starts: list[int],
    caps: list[int],
    insides: list[bool],
    page_los: list[int],
    page_his: list[int],
    s: Scratch,
) -> list[tuple[int, np.ndarray]]: ...
def prepare_time_chunks(
    fv: FileView,
    chunks: list[Chunk],
    t1: int,
    t2: int,
    path: int,
    out_ts: np.ndarray,
    starts: list[int],
    caps: list[int],
    insides: list[bool],
    page_los: list[int],
    page_his: list[int],
) -> TimeBatch: ...

class TimeBatch:
    """A time job prepared by prepare_time_chunks; run(s) decodes it, once."""

    def run(self, s: Scratch) -> list[tuple[int, np.ndarray]]: ...

def run_time_batches(
    batches: list[TimeBatch], s: Scratch
) -> list[list[tuple[int, np.ndarray]]]: ...

class ValueBatch:
    """The field columns of a prepared time job's chunk groups (prepare_value_groups)."""

def prepare_value_groups(
    fv: FileView,
    tb: TimeBatch,
    groups: list[
        tuple[
            list[int | None],
            list[int],
            list[np.ndarray],
            list[np.ndarray],
            int,
            list[str] | None,
        ]
        | None
    ],
) -> ValueBatch: ...
def run_ahead_batches(
    batches: list[TimeBatch], values: list[ValueBatch | None], s: Scratch
) -> list[tuple[list[tuple[int, np.ndarray]], list[list[int] | None] | None]]: ...
def page_value_ranges(
    fv: FileView, ch: Chunk
) -> list[tuple[float, float] | None | EllipsisType]: ...
def check_aligned_pages(fv: FileView, tch: Chunk, vch: Chunk) -> None: ...
def read_value_chunk(
    fv: FileView,
    ch: Chunk,
    plan: np.ndarray,
    expect_type: int,
    path: int,
    out_vals: np.ndarray,
    out_null: np.ndarray,
    pos: int,
    s: Scratch,
    expect_name: str | None = None,
) -> int: ...
def touch_offsets(fv: FileView, offsets: list[int | None]) -> None: ...
def read_value_chunks(
    fv: FileView,
    tch: Chunk,
    plan: np.ndarray,
    offsets: list[int],
    types: list[int],
    path: int,
    out_vals: list[np.ndarray],
    out_nulls: list[np.ndarray],
    pos: int,
    s: Scratch,
    checked: list[Chunk] | None = None,
    names: list[str | None] | None = None,
) -> list[int]: ...
def read_value_groups(
    fv: FileView,
    groups: list[
        tuple[
            Chunk,
            np.ndarray,
            list[int],
            list[int],
            list[np.ndarray],
            list[np.ndarray],
            int,
            list[str | None] | None,
        ]
    ],
    path: int,
    s: Scratch,
) -> list[list[int]]: ...
def read_nonaligned_chunk(
    fv: FileView,
    ch: Chunk,
    t1: int,
    t2: int,
    path: int,
    out_ts: np.ndarray,
    out_vals: np.ndarray,
    pos: int,
    s: Scratch,
) -> int: ...
def c_decompress(compression: int, src: bytes, usize: int) -> bytes: ...
def set_row_ranges(on: bool) -> bool: ...
def reads_row_ranges(encoding: int, data_type: int) -> bool: ...
def decode_value_rows(
    encoding: int,
    data_type: int,
    data: object,
    start: int,
    stop: int,
    path: str = ...,
    compression: str | None = ...,
    size: int = ...,
) -> tuple[np.ndarray, int]: ...
