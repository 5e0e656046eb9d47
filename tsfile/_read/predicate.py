"""Value filters of table queries (``value_filter=``): predicate objects, pyarrow's DNF form,
validation against the table schema, pruning by statistics, and the row mask.

Two ways to write a filter, one meaning:

- predicate objects: ``tsfile.col("temp") > 30``, ``col("f0").isin([1, 2])``,
  ``col("f0").not_in([3])``, combined with ``&`` (AND) and ``|`` (OR);
- pyarrow's form (``pyarrow.parquet.read_table(filters=...)``): a list of ``(column, op, value)``
  tuples is their AND, a list of such lists the OR of those ANDs; ops ``= == != < <= > >= in
  not in``.

Columns: numeric FIELD columns (INT32, INT64, FLOAT, DOUBLE, TIMESTAMP, DATE) and ``time`` (the
table's TIME column, by its name or as "time"). Names are case-insensitive like column_names.
Semantics: a NULL value matches nothing (not even ``!=`` or ``not in``); values compare exactly
(an INT64 column against 2.5 compares with 2.5, a FLOAT column's float32 values are compared as
the doubles they are, so ``== 0.1`` does not match ``float32(0.1)``); NaN values never match
``< <= > >= ==`` nor ``in`` (they match ``!=`` and ``not in``, as in IEEE and pyarrow); DATE
takes ``datetime.date`` or ``yyyyMMdd`` ints.

The query runs in three steps, cheapest first:

1. ``bind`` checks the filter against the schema before any data is read (unknown column:
   ColumnNotExistError; TAG/ATTRIBUTE/non-numeric column or bad operator: InvalidFilterError;
   a value of the wrong type: TypeMismatchError; each names the column) and rewrites every
   constant to the column's domain (an integer column's bounds become integers, or the
   comparison becomes ALWAYS/NEVER);
2. ``time_range`` narrows the query's time range; ``may_match`` drops chunk groups whose chunk
   statistics (min/max, times) show that no row can match;
3. ``evaluate`` masks the decoded rows. It is the one place that turns decoded columns into a
   selection: SIMD predicate kernels plug in there.
"""

from __future__ import annotations

import datetime
import math
from dataclasses import dataclass

import numpy as np

from tsfile.errors import ColumnNotExistError, InvalidFilterError, TypeMismatchError
from tsfile.types import ColumnCategory, TSDataType

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1

# operator spellings accepted -> the canonical one
_OPS = {
    "=": "==",
    "==": "==",
    "!=": "!=",
    "<": "<",
    "<=": "<=",
    ">": ">",
    ">=": ">=",
    "in": "in",
    "not in": "not in",
}
_SET_OPS = ("in", "not in")

# numeric column types -> (numpy dtype of decoded values, integer range or None for floats)
_NUMERIC = {
    TSDataType.INT32: (np.dtype(np.int32), (-(2**31), 2**31 - 1)),
    TSDataType.DATE: (np.dtype(np.int32), (-(2**31), 2**31 - 1)),
    TSDataType.INT64: (np.dtype(np.int64), (INT64_MIN, INT64_MAX)),
    TSDataType.TIMESTAMP: (np.dtype(np.int64), (INT64_MIN, INT64_MAX)),
    TSDataType.FLOAT: (np.dtype(np.float32), None),
    TSDataType.DOUBLE: (np.dtype(np.float64), None),
}

TIME = "time"  # the key of the timestamps in evaluate()'s columns


# -- the user's side: predicate objects ----------------------------------------------------------


class Predicate:
    """A value filter; ``&`` and ``|`` combine predicates (and DNF lists) into AND / OR."""

    def __and__(self, other):
        return And((self, as_predicate(other)))

    def __or__(self, other):
        return Or((self, as_predicate(other)))

    def __rand__(self, other):
        return And((as_predicate(other), self))

    def __ror__(self, other):
        return Or((as_predicate(other), self))

    def __bool__(self):
        # `a < col("x") < b` would silently keep only one comparison
        raise TypeError("use & and | to combine value filters (not and / or / chained <)")


@dataclass(frozen=True, eq=False)
class Comparison(Predicate):
    """``column op value``; for ``in`` / ``not in`` the value is a tuple of values."""

    column: str
    op: str
    value: object

    def __repr__(self):
        return f"({self.column} {self.op} {self.value!r})"


@dataclass(frozen=True, eq=False)
class And(Predicate):
    parts: tuple

    def __repr__(self):
        return "(" + " AND ".join(map(repr, self.parts)) + ")"


@dataclass(frozen=True, eq=False)
class Or(Predicate):
    parts: tuple

    def __repr__(self):
        return "(" + " OR ".join(map(repr, self.parts)) + ")"


class Column:
    """``col(name)``: comparisons with it make predicates (``col("temp") >= 30``)."""

    __slots__ = ("name",)
    __hash__ = None  # == builds a predicate

    def __init__(self, name):
        if not isinstance(name, str):
            raise TypeError(f"column name must be a str, not {type(name).__name__}")
        self.name = name

    def __eq__(self, value):
        return Comparison(self.name, "==", value)

    def __ne__(self, value):
        return Comparison(self.name, "!=", value)

    def __lt__(self, value):
        return Comparison(self.name, "<", value)

    def __le__(self, value):
        return Comparison(self.name, "<=", value)

    def __gt__(self, value):
        return Comparison(self.name, ">", value)

    def __ge__(self, value):
        return Comparison(self.name, ">=", value)

    def isin(self, values):
        return Comparison(self.name, "in", _value_tuple(self.name, values))

    def not_in(self, values):
        return Comparison(self.name, "not in", _value_tuple(self.name, values))

    def between(self, lower, upper):
        """``lower <= column <= upper``."""
        return And((self >= lower, self <= upper))

    def __repr__(self):
        return f"col({self.name!r})"


def col(name: str) -> Column:
    """The column ``name`` of a value filter: ``col("temp") > 30``."""
    return Column(name)


def _value_tuple(column, values):
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise InvalidFilterError(
            f"value filter on column {column!r}: 'in' / 'not in' take a list of values, "
            f"not {type(values).__name__}"
        )
    return tuple(values)


def as_predicate(value_filter) -> Predicate:
    """A Predicate from a predicate object or pyarrow's DNF list form."""
    if isinstance(value_filter, Predicate):
        return value_filter
    if isinstance(value_filter, (list, tuple)) and value_filter:
        if all(isinstance(x, list) for x in value_filter):
            return Or(tuple(_conjunction(x) for x in value_filter))
        return _conjunction(value_filter)
    raise InvalidFilterError(
        "value_filter must be a predicate (tsfile.col(name) > value ...) or a non-empty list of "
        f"(column, op, value) tuples or of lists of them, not {value_filter!r}"
    )


def _conjunction(terms) -> Predicate:
    if not terms:
        raise InvalidFilterError("value_filter: an empty list of (column, op, value) tuples")
    parts = []
    for term in terms:
        if not (isinstance(term, tuple) and len(term) == 3):
            raise InvalidFilterError(
                f"value_filter: expected a (column, op, value) tuple, not {term!r}"
            )
        name, op, value = term
        canonical = _OPS.get(op.lower() if isinstance(op, str) else op)
        if canonical is None:
            raise InvalidFilterError(
                f"value filter on column {name!r}: unknown operator {op!r} (expected one of "
                f"{', '.join(_OPS)})"
            )
        if canonical in _SET_OPS:
            value = _value_tuple(name, value)
        parts.append(Comparison(name, canonical, value))
    return parts[0] if len(parts) == 1 else And(tuple(parts))


def decide_absent_columns(value_filter, lacks, decided):
    """``value_filter`` for a file whose table lacks some of the columns it names
    (``lacks(name)``: True for such a column; ``schema="union"`` reads that file's rows with
    them NULL, and NULL matches nothing): each comparison of such a column decided False, and
    the AND / OR around it simplified. Returns False (no row can match) or the Predicate left;
    the names decided are added to ``decided`` (a set), so that a name no file holds can still
    be reported. The filter's form is checked first (as_predicate)."""
    return _decide(as_predicate(value_filter), lacks, decided)


def _decide(p, lacks, decided):
    if isinstance(p, And):
        parts = [_decide(x, lacks, decided) for x in p.parts]
        if any(x is False for x in parts):
            return False
        return parts[0] if len(parts) == 1 else And(tuple(parts))
    if isinstance(p, Or):
        parts = [x for x in (_decide(x, lacks, decided) for x in p.parts) if x is not False]
        if not parts:
            return False
        return parts[0] if len(parts) == 1 else Or(tuple(parts))
    if isinstance(p, Comparison) and isinstance(p.column, str) and lacks(p.column):
        decided.add(p.column)
        return False
    return p


# -- binding to a table: validation and constants in the column's domain ------------------------


@dataclass(frozen=True)
class Leaf:
    """A bound comparison: ``column`` is the result name (a FIELD column or TIME); ``value`` is
    a numpy scalar of the compare dtype (a numpy array for in / not in)."""

    column: str
    op: str
    value: object
    dtype: np.dtype


@dataclass(frozen=True)
class Const:
    """A comparison decided by the constant alone: every non-NULL row (True) or none (False)."""

    column: str
    matches: bool


@dataclass(frozen=True)
class BoundAnd:
    parts: tuple


@dataclass(frozen=True)
class BoundOr:
    parts: tuple


def bind(value_filter, schema, table_name):
    """Check ``value_filter`` against the table schema and bind its constants; raises before
    any data is read. Returns the bound predicate (Leaf / Const / BoundAnd / BoundOr)."""
    return _bind(as_predicate(value_filter), _ColumnLookup(schema, table_name))


class _ColumnLookup:
    """Column name -> (result name, data type) of the columns a value filter may use."""

    def __init__(self, schema, table_name):
        self.table_name = table_name
        self.by_name = {c.column_name: c for c in schema.columns}
        self.time_names = {TIME} | {
            c.column_name.lower() for c in schema.columns if c.category == ColumnCategory.TIME
        }

    def resolve(self, name):
        if not isinstance(name, str):
            raise InvalidFilterError(f"value filter: column name {name!r} is not a str")
        c = self.by_name.get(name) or self.by_name.get(name.lower())
        if c is None or c.category == ColumnCategory.TIME:
            if name.lower() in self.time_names:
                return TIME, TSDataType.INT64
            raise ColumnNotExistError(
                f"value filter: no column {name!r} in table {self.table_name!r}"
            )
        if c.category != ColumnCategory.FIELD:
            raise InvalidFilterError(
                f"value filter on column {name!r}: it is a {c.category.name} column; filter "
                "tags with tag_filter= (value filters take FIELD columns and time)"
            )
        if c.data_type not in _NUMERIC:
            raise InvalidFilterError(
                f"value filter on column {name!r}: its type {TSDataType(c.data_type).name} is "
                "not numeric (value filters take INT32, INT64, FLOAT, DOUBLE, TIMESTAMP, DATE)"
            )
        return c.column_name, TSDataType(c.data_type)


def _bind(p, lookup):
    if isinstance(p, And):
        return BoundAnd(tuple(_bind(x, lookup) for x in p.parts))
    if isinstance(p, Or):
        return BoundOr(tuple(_bind(x, lookup) for x in p.parts))
    if isinstance(p, Comparison):
        return _bind_comparison(p, lookup)
    raise InvalidFilterError(f"value_filter: {p!r} is not a predicate")


def _bind_comparison(p, lookup):
    name, data_type = lookup.resolve(p.column)
    op = _OPS.get(p.op)
    if op is None:
        raise InvalidFilterError(f"value filter on column {p.column!r}: unknown operator {p.op!r}")
    dtype, int_range = _NUMERIC[data_type]
    if op in _SET_OPS:
        numbers = [_number(p.column, data_type, v) for v in p.value]
        return _bind_set(name, op, numbers, dtype, int_range)
    number = _number(p.column, data_type, p.value)
    if int_range is None:
        return _bind_float(name, op, number, dtype)
    return _bind_int(name, op, number, dtype, int_range)


def _number(column, data_type, value):
    """The constant as a Python int or float; TypeMismatchError names the column."""
    if data_type == TSDataType.DATE and isinstance(value, datetime.date):
        if isinstance(value, datetime.datetime):
            value = value.date()
        return value.year * 10000 + value.month * 100 + value.day
    if isinstance(value, (bool, np.bool_)) or not isinstance(
        value, (int, float, np.integer, np.floating)
    ):
        raise TypeMismatchError(
            f"value filter on column {column!r}: {value!r} ({type(value).__name__}) cannot be "
            f"compared with a {TSDataType(data_type).name} column"
        )
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    return value


def _bind_float(name, op, number, dtype):
    """A float column against a number, compared as doubles (float32 values widen exactly)."""
    if isinstance(number, float) and math.isnan(number):
        # NaN matches no ordering or equality; x != NaN holds for every non-NULL x
        return Const(name, op == "!=")
    value = _as_double(number)
    if value == number:
        return Leaf(name, op, np.float64(value), dtype)
    # an int no double equals (above 2**53, or beyond the double range): compare with the
    # doubles on either side of it, so that the result is the exact comparison's
    lo, hi = (
        (np.nextafter(value, -math.inf), value)
        if value > number
        else (value, np.nextafter(value, math.inf))
    )
    if op in ("==", "!="):
        return Const(name, op == "!=")
    if op in ("<", "<="):
        return Leaf(name, "<=", np.float64(lo), dtype)
    return Leaf(name, ">=", np.float64(hi), dtype)


def _as_double(number):
    """float(number), or an infinity for an int beyond the double range."""
    try:
        return float(number)
    except OverflowError:
        return math.inf if number > 0 else -math.inf


def _bind_int(name, op, number, dtype, int_range):
    """An integer column against any number: an equivalent integer comparison, or a Const."""
    lo, hi = int_range
    if isinstance(number, float):
        if math.isnan(number):
            return Const(name, op == "!=")
        if math.isinf(number):
            below_all = number < 0
            return Const(name, op in ("!=", ">", ">=") if below_all else op in ("!=", "<", "<="))
        if number != math.floor(number):
            # no integer equals a fraction; x < 2.5 <=> x <= 2, x > 2.5 <=> x >= 3
            if op in ("==", "!="):
                return Const(name, op == "!=")
            op, number = (
                ("<=", math.floor(number)) if op in ("<", "<=") else (">=", math.ceil(number))
            )
        number = int(number)
    if number > hi:
        return Const(name, op in ("!=", "<", "<="))
    if number < lo:
        return Const(name, op in ("!=", ">", ">="))
    return Leaf(name, op, dtype.type(number), dtype)


def _bind_set(name, op, numbers, dtype, int_range):
    """in / not in: the members the column can hold (NaN and, for integer columns, fractions
    and out-of-range numbers can never be equal to a value)."""
    keep = []
    for x in numbers:
        if isinstance(x, float) and math.isnan(x):
            continue
        if int_range is None:
            if _as_double(x) != x:
                continue  # an int no double equals
        else:
            if not int_range[0] <= x <= int_range[1]:  # infinities too
                continue
            if isinstance(x, float) and x != math.floor(x):
                continue
            x = int(x)
        keep.append(x)
    if not keep:
        return Const(name, op == "not in")
    compare = np.float64 if int_range is None else dtype.type
    return Leaf(name, op, np.array(sorted(set(keep)), dtype=compare), dtype)


# -- what a bound predicate needs ----------------------------------------------------------------


def columns_of(bound):
    """The result names a bound predicate reads (TIME included), in first-use order."""
    out = []

    def walk(b):
        if isinstance(b, (BoundAnd, BoundOr)):
            for x in b.parts:
                walk(x)
        elif b.column not in out:
            out.append(b.column)

    walk(bound)
    return out


def time_range(bound):
    """[lo, hi] holding every timestamp the predicate can match (INT64 bounds if unknown)."""
    if isinstance(bound, BoundAnd):
        ranges = [time_range(x) for x in bound.parts]
        return max(r[0] for r in ranges), min(r[1] for r in ranges)
    if isinstance(bound, BoundOr):
        ranges = [time_range(x) for x in bound.parts]
        return min(r[0] for r in ranges), max(r[1] for r in ranges)
    if bound.column != TIME:
        return INT64_MIN, INT64_MAX
    if isinstance(bound, Const):
        return (INT64_MIN, INT64_MAX) if bound.matches else (INT64_MAX, INT64_MIN)
    return _value_range(bound)


def _value_range(leaf):
    """[lo, hi] of the values an integer Leaf can match."""
    v = leaf.value
    if leaf.op == "in":
        return int(v[0]), int(v[-1])
    if leaf.op in ("!=", "not in"):
        return INT64_MIN, INT64_MAX
    v = int(v)
    return {
        "==": (v, v),
        "<": (INT64_MIN, v - 1),
        "<=": (INT64_MIN, v),
        ">": (v + 1, INT64_MAX),
        ">=": (v, INT64_MAX),
    }[leaf.op]


def may_match(bound, stats):
    """False only if no row described by ``stats`` can match. ``stats``: result name ->
    (min, max) of the non-NULL values (times for TIME), None if all are NULL; a name missing
    from ``stats`` is unknown (may match)."""
    if isinstance(bound, BoundAnd):
        return all(may_match(x, stats) for x in bound.parts)
    if isinstance(bound, BoundOr):
        return any(may_match(x, stats) for x in bound.parts)
    if bound.column not in stats:
        return True
    mm = stats[bound.column]
    if mm is None:
        return False  # only NULLs: no comparison matches
    if isinstance(bound, Const):
        return bound.matches
    lo, hi = mm
    if isinstance(lo, float) and (math.isnan(lo) or math.isnan(hi)):
        return True  # NaN in the statistics: min/max bound nothing
    return _range_may_match(bound, lo, hi)


def _range_may_match(leaf, lo, hi):
    v = leaf.value
    op = leaf.op
    if op == "in":
        return bool(np.any((v >= lo) & (v <= hi)))
    if op in ("!=", "not in"):
        if isinstance(lo, float):
            # a float column's min/max leave NaN out (the writers skip it, as the official
            # one does): a page of 5.0 and NaN has min == max == 5.0, and its NaN rows match
            return True
        if op == "!=":
            return not (lo == hi == v)
        return not (lo == hi and bool(np.any(v == lo)))
    return {
        "==": lo <= v <= hi,
        "<": lo < v,
        "<=": lo <= v,
        ">": hi > v,
        ">=": hi >= v,
    }[op]


# -- the row mask --------------------------------------------------------------------------------


def evaluate(bound, columns, path="auto"):
    """The selection of a block: a bool array, True where the row matches.

    ``columns``: result name -> (values, null mask or None) for every name of
    ``columns_of(bound)``; TIME's values are the int64 timestamps. All arrays have the block's
    length. Comparisons of numeric columns run on the predicate kernels of
    tsfile._read.pushdown on decode path ``path`` ("per_value", "batch", "simd", "auto": one test
    per value, scalar C per block, the ISA kernels; the same result on every path)."""
    if isinstance(bound, BoundAnd):
        mask = evaluate(bound.parts[0], columns, path)
        for x in bound.parts[1:]:
            mask &= evaluate(x, columns, path)
        return mask
    if isinstance(bound, BoundOr):
        mask = evaluate(bound.parts[0], columns, path)
        for x in bound.parts[1:]:
            mask |= evaluate(x, columns, path)
        return mask
    values, nulls = columns[bound.column]
    if isinstance(bound, Const):
        mask = np.full(len(values), bound.matches, np.bool_)
    else:
        mask = _compare(bound, values, path)
    if nulls is not None:
        mask &= ~nulls  # NULL never matches
    return mask


# Column dtypes and operators the predicate kernels take (the rest, `in` / `not in`, in numpy).
_KERNEL_DTYPES = frozenset(np.dtype(t) for t in (np.int32, np.int64, np.float32, np.float64))
_KERNEL_OPS = frozenset(("==", "!=", "<", "<=", ">", ">="))


def _compare(leaf, values, path="auto"):
    v = leaf.value
    op = leaf.op
    if (
        op in _KERNEL_OPS
        and isinstance(values, np.ndarray)
        and values.dtype in _KERNEL_DTYPES
        and isinstance(v, (int, float, np.integer, np.floating))
        and not isinstance(v, (bool, np.bool_))
    ):
        from tsfile._read import pushdown

        operand = v.item() if isinstance(v, np.generic) else v  # the exact Python number
        return pushdown.select(np.ascontiguousarray(values), op, operand, form="mask", path=path)
    if op == "in":
        return np.isin(values, v)
    if op == "not in":
        return ~np.isin(values, v)
    if op == "==":
        return values == v
    if op == "!=":
        return values != v
    if op == "<":
        return values < v
    if op == "<=":
        return values <= v
    if op == ">":
        return values > v
    return values >= v


__all__ = [
    "Predicate",
    "Comparison",
    "And",
    "Or",
    "Column",
    "col",
    "as_predicate",
    "bind",
    "decide_absent_columns",
    "columns_of",
    "time_range",
    "may_match",
    "evaluate",
]


# -- planning and blocks (used by tsfile.reader) -------------------------------------------------


def chunk_group_stats(bound_columns, time_offset, value_offsets, series, chunk_stats):
    """may_match()'s statistics of one chunk group: TIME from the time chunk's metadata, each
    filtered field from its value chunk's (None: no chunk, or no non-NULL value).

    ``value_offsets``: field -> value chunk offset or None; ``series``: the device's
    {measurement: TimeseriesMeta}; ``chunk_stats``: a dict the caller keeps per device, filled
    here with {(measurement, offset): Statistics}."""
    stats = {}
    for name in bound_columns:
        if name == TIME:
            st = _chunk_statistics(series, "", time_offset, chunk_stats)
            if st is not None:
                stats[TIME] = (st.start_time, st.end_time)
            continue
        off = value_offsets.get(name)
        if off is None:
            stats[name] = None
            continue
        st = _chunk_statistics(series, name, off, chunk_stats)
        if st is None or not st.layout.has_min_max:
            continue  # unknown: may match
        stats[name] = None if st.count == 0 else (st.min, st.max)
    return stats


def pages_may_match(bound, time_pages, value_ranges):
    """Per page of a chunk group, whether a row of it may match ``bound``: may_match() on the
    page statistics. ``time_pages``: the time chunk's engine page_info() (every page with
    statistics); ``value_ranges``: filtered field -> engine.page_value_ranges() of its value
    chunk (page k of a value chunk holds the values of the rows of time page k), or None for a
    field without a chunk (every row NULL). A value page without statistics (Ellipsis) is
    unknown: may match."""
    keep = []
    for k, page in enumerate(time_pages):
        stats = {TIME: (page[5], page[6])}
        for name, ranges in value_ranges.items():
            if ranges is None or k >= len(ranges):
                stats[name] = None if ranges is None else Ellipsis
            else:
                stats[name] = ranges[k]
        keep.append(may_match(bound, {n: v for n, v in stats.items() if v is not Ellipsis}))
    return keep


def _chunk_statistics(series, measurement, offset, chunk_stats):
    key = (measurement, offset)
    if key not in chunk_stats:
        tsm = series.get(measurement)
        for cm in tsm.chunks if tsm is not None else ():
            chunk_stats[(measurement, cm.offset)] = cm.statistics
    return chunk_stats.get(key)


def filter_block(bound, block, names, types, path="auto"):
    """The rows of ``block`` that match ``bound``, with only the columns ``names[1:]`` (the
    filter's extra columns dropped); None if no row matches."""
    from tsfile._read.resultset import TsBlock

    ts, columns, nulls = filter_columns(
        bound, block.timestamps, block.columns, block.nulls, names, path
    )
    if len(ts) == 0:
        return None
    origins = None if block.origins is None else {k: block.origins.get(k) for k in names[1:]}
    return TsBlock(ts, columns, nulls, types, origins)


def filter_columns(bound, timestamps, columns, nulls, names, path="auto"):
    """read_columns()'s whole-result arrays (or a block's) reduced to the matching rows and to
    the columns ``names[1:]``: (timestamps, columns, nulls), nulls only where a null is left.
    Where every row matches, the arrays are returned as they are (no copy)."""
    inputs = {TIME: (timestamps, None)}
    for name in columns_of(bound):
        if name != TIME:
            inputs[name] = (columns[name], nulls.get(name))
    mask = evaluate(bound, inputs, path)
    whole = bool(mask.all())
    # by index: numpy's take copies a scattered selection several times faster than a bool
    # mask does (no branch per row)
    rows = None if whole else np.flatnonzero(mask)
    out_cols, out_nulls = {}, {}
    for name in names[1:]:
        out_cols[name] = columns[name] if whole else columns[name].take(rows)
        m = nulls.get(name)
        if m is not None:
            m = m if whole else m.take(rows)
            if m.any():
                out_nulls[name] = m
    return (timestamps if whole else timestamps.take(rows)), out_cols, out_nulls
