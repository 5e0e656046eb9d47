import numpy as np

def numeric_chunk_stats(
    values: np.ndarray,
    times: np.ndarray,
    offsets: np.ndarray,
    page_bytes: bool,
    seg_offsets: np.ndarray | None = None,
    seg_batch: np.ndarray | None = None,
) -> tuple[list[bytes | None] | None, tuple | None]: ...
def implementations() -> list[str]: ...
def active_implementation() -> str: ...
