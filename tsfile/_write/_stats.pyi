import numpy as np

def page_min_max_sum(
    values: np.ndarray, offsets: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]: ...
def numeric_chunk_stats(
    values: np.ndarray, times: np.ndarray, offsets: np.ndarray, page_bytes: bool
) -> tuple[list[bytes | None] | None, tuple | None]: ...
