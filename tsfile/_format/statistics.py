"""Statistics (format notes section 6): count, start/end time and the typed part."""

from __future__ import annotations

from dataclasses import dataclass

from tsfile._format.bytes import Cursor
from tsfile.types import TSDataType

BOOLEAN, INT32, INT64, FLOAT, DOUBLE, TEXT, VECTOR, UNKNOWN, TIMESTAMP, DATE, BLOB, STRING = range(
    12
)


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


def read_statistics(cur: Cursor, data_type: int) -> Statistics:
    count = cur.uvarint("statistics count")
    start = cur.i64("statistics start time")
    end = cur.i64("statistics end time")
    st = Statistics(count, start, end)
    t = data_type
    if t == BOOLEAN:
        st.first = cur.u8("statistics first") != 0
        st.last = cur.u8("statistics last") != 0
        st.sum = cur.i64("statistics sum")
    elif t in (INT32, DATE):
        st.min, st.max, st.first, st.last = (cur.i32("statistics") for _ in range(4))
        st.sum = cur.i64("statistics sum")
    elif t in (INT64, TIMESTAMP):
        st.min, st.max, st.first, st.last = (cur.i64("statistics") for _ in range(4))
        st.sum = cur.f64("statistics sum")
    elif t == FLOAT:
        st.min, st.max, st.first, st.last = (cur.f32("statistics") for _ in range(4))
        st.sum = cur.f64("statistics sum")
    elif t == DOUBLE:
        st.min, st.max, st.first, st.last = (cur.f64("statistics") for _ in range(4))
        st.sum = cur.f64("statistics sum")
    elif t == TEXT:
        st.first = cur.binstr_bytes("statistics first")
        st.last = cur.binstr_bytes("statistics last")
    elif t == STRING:
        st.first = cur.binstr_bytes("statistics first")
        st.last = cur.binstr_bytes("statistics last")
        st.min = cur.binstr_bytes("statistics min")
        st.max = cur.binstr_bytes("statistics max")
    elif t in (BLOB, VECTOR):
        pass
    else:
        raise cur.error(f"statistics of unknown data type {t}")
    return st


def check_data_type(cur: Cursor, code: int, at: int) -> int:
    if code in (UNKNOWN,) or code > STRING:
        raise cur.error(f"unknown data type {code}", at)
    return code


__all__ = ["Statistics", "read_statistics", "check_data_type", "TSDataType"]
