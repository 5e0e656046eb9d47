"""Statistics (format notes section 6): count, start/end time and the typed part."""

from __future__ import annotations

import struct
from dataclasses import dataclass

from tsfile._format.bytes import Cursor
from tsfile.types import TSDataType

T = TSDataType
VECTOR = T.VECTOR


@dataclass(slots=True)
class Statistics:
    count: int
    start_time: int
    end_time: int
    min: object = None
    max: object = None
    first: object = None
    last: object = None
    sum: object = None


_FIXED = {
    # data type: (struct of the typed part: min, max, first, last, sum)
    T.INT32: struct.Struct(">iiiiq"),
    T.DATE: struct.Struct(">iiiiq"),
    T.INT64: struct.Struct(">qqqqd"),
    T.TIMESTAMP: struct.Struct(">qqqqd"),
    T.FLOAT: struct.Struct(">ffffd"),
    T.DOUBLE: struct.Struct(">ddddd"),
}
_HEAD = struct.Struct(">qq")


def read_statistics(cur: Cursor, data_type: int) -> Statistics:
    count = cur.uvarint("statistics count")
    cur.need(16, "statistics start/end time")
    start, end = _HEAD.unpack_from(cur.buf, cur.pos)
    cur.pos += 16
    st = Statistics(count, start, end)
    t = data_type
    fixed = _FIXED.get(t)
    if fixed is not None:
        cur.need(fixed.size, "statistics")
        st.min, st.max, st.first, st.last, st.sum = fixed.unpack_from(cur.buf, cur.pos)
        cur.pos += fixed.size
    elif t == T.BOOLEAN:
        st.first = cur.u8("statistics first") != 0
        st.last = cur.u8("statistics last") != 0
        st.sum = cur.i64("statistics sum")
    elif t == T.TEXT:
        st.first = cur.binstr_bytes("statistics first")
        st.last = cur.binstr_bytes("statistics last")
    elif t == T.STRING:
        st.first = cur.binstr_bytes("statistics first")
        st.last = cur.binstr_bytes("statistics last")
        st.min = cur.binstr_bytes("statistics min")
        st.max = cur.binstr_bytes("statistics max")
    elif t in (T.BLOB, T.VECTOR):
        pass
    else:
        raise cur.error(f"statistics of unknown data type {t}")
    return st


def check_data_type(cur: Cursor, code: int, at: int) -> int:
    if code in (T.UNKNOWN,) or code > T.STRING:
        raise cur.error(f"unknown data type {code}", at)
    return code


__all__ = ["Statistics", "read_statistics", "check_data_type", "TSDataType"]
