"""The chunk of one non-aligned series (tree model, format notes 5.3 and recipe 12.2).

A non-aligned chunk holds both the timestamps and the values of one measurement: each page body is
``uvarint(len(time bytes)) + time bytes + value bytes``, compressed as a whole with the series'
compression; the timestamps are encoded with the writer's time encoding (TS_2DIFF: the official
readers decode non-aligned times as TS_2DIFF whatever the file says). Pages hold page_size points.
A chunk with one page gets marker 0x05 and no page statistics; with several pages 0x01 and value
statistics (count, times, typed part) in every page header. There are no nulls: a null value is
simply a point the series does not have.

The header, marker and page-header helpers are the aligned chunk writer's (tsfile._write.chunk).
"""

from __future__ import annotations

import numpy as np

from tsfile._format.bytes import uvarint
from tsfile._write import encoders
from tsfile._write.chunk import (
    Chunk,
    _chunk_header,
    _chunk_marker,
    _page_header,
    _refuse,
    page_bounds,
)
from tsfile._write.statistics import value_statistics
from tsfile.compression import compress
from tsfile.types import Compressor, TSDataType, TSEncoding


def series_chunk(
    measurement, data_type, encoding, compressor, times, values, page_size, time_encoding
) -> Chunk:
    """The chunk of one series: `times` (int64, increasing) and its `values` (numpy array of the
    type's storage dtype; a list of bytes for TEXT/STRING/BLOB), one value per timestamp."""
    data_type = TSDataType(data_type)
    compressor = Compressor(compressor)
    encoding = TSEncoding(encoding)
    if isinstance(values, np.ndarray):
        values = np.ascontiguousarray(values)
    times = np.ascontiguousarray(times, dtype=np.int64)
    bounds = page_bounds(times.shape[0], page_size)
    multi = len(bounds) > 2
    page_stat_bytes, stats = value_statistics(data_type, values, times, bounds, multi)
    encode_times = encoders.value_encoder(time_encoding, TSDataType.INT64)
    encode_values = encoders.value_encoder(encoding, data_type)
    page_loss = encoders.page_loss(encoding, data_type)
    parts = [b""]
    size = 0
    for p in range(len(bounds) - 1):
        a, b = bounds[p], bounds[p + 1]
        time_bytes = encode_times(times[a:b])
        value_bytes = encode_values(values[a:b])
        if page_loss is not None:
            lost = page_loss(values[a:b], value_bytes)
            if lost is not None:
                _refuse(measurement, data_type, encoding, values, times, a, lost)
        body = uvarint(len(time_bytes)) + time_bytes + value_bytes
        stored = compress(compressor, body)
        head = _page_header(len(body), len(stored))
        if multi:
            head += page_stat_bytes[p]
        parts += (head, stored)
        size += len(head) + len(stored)
    parts[0] = _chunk_header(
        _chunk_marker(multi), measurement, size, data_type, compressor, encoding
    )
    return Chunk(measurement, data_type, parts, stats, encoding)
