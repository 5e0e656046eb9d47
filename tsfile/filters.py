"""Tag filters of table queries: the official package's ``TagFilter`` and its constructors
(``tag_eq`` ... ``tag_is_not_null``), combined with ``&``, ``|`` and ``~``.

A tag filter is decided per device, on the tag values of its device ID in the metadata index,
before any of the device's series metadata or chunks are read (``TsFileReader.query_table(...,
tag_filter=...)``). Semantics follow the official 2.5 reader, checked against its wheel:

- comparisons and BETWEEN compare strings by code point (the official reader compares UTF-8
  bytes: the same order); a NULL tag matches no comparison, BETWEEN or REGEXP, including
  ``tag_neq`` and ``tag_not_between`` and ``tag_not_regexp``;
- ``tag_regexp`` matches when the pattern is found anywhere in the value (a search, not a full
  match: ``"^n"`` anchors it);
- ``~f`` is the plain negation of ``f`` (so ``~tag_eq(c, v)`` keeps devices whose ``c`` is NULL);
- column names are case-insensitive; a name that is not a TAG column of the table raises
  ColumnNotExistError (as the official reader does).

One deliberate difference: an invalid regular expression raises InvalidFilterError naming the
column (the official reader silently matches nothing).
"""

from __future__ import annotations

import operator
import re

from tsfile.errors import ColumnNotExistError, InvalidFilterError


class TagFilter:
    """Base class of tag filters; ``&``, ``|`` and ``~`` combine them."""

    def __and__(self, other):
        return AndTagFilter(self, other)

    def __or__(self, other):
        return OrTagFilter(self, other)

    def __invert__(self):
        return NotTagFilter(self)


class ComparisonTagFilter(TagFilter):
    """``column <op> value`` (or IS [NOT] NULL); ``op`` is one of the class constants."""

    # The official operator codes (its TagFilterOp enum).
    EQ = 0
    NEQ = 1
    LT = 2
    LTEQ = 3
    GT = 4
    GTEQ = 5
    REGEXP = 6
    NOT_REGEXP = 7
    IS_NULL = 8
    IS_NOT_NULL = 9

    _NO_VALUE_OPS = (IS_NULL, IS_NOT_NULL)
    _SYMBOLS = {
        EQ: "==",
        NEQ: "!=",
        LT: "<",
        LTEQ: "<=",
        GT: ">",
        GTEQ: ">=",
        REGEXP: "=~",
        NOT_REGEXP: "!~",
        IS_NULL: "IS NULL",
        IS_NOT_NULL: "IS NOT NULL",
    }

    def __init__(self, column_name: str, value: str, op: int):
        self.column_name = column_name
        self.value = "" if value is None else value
        self.op = op

    def __repr__(self):
        symbol = self._SYMBOLS.get(self.op, "?")
        if self.op in self._NO_VALUE_OPS:
            return f"TagFilter({self.column_name} {symbol})"
        return f"TagFilter({self.column_name} {symbol} {self.value!r})"


class BetweenTagFilter(TagFilter):
    """``lower <= column <= upper`` (inclusive), or its complement with ``is_not``."""

    def __init__(self, column_name: str, lower: str, upper: str, is_not: bool = False):
        self.column_name = column_name
        self.lower = lower
        self.upper = upper
        self.is_not = is_not

    def __repr__(self):
        op = "NOT BETWEEN" if self.is_not else "BETWEEN"
        return f"TagFilter({self.column_name} {op} {self.lower!r} AND {self.upper!r})"


class AndTagFilter(TagFilter):
    def __init__(self, left: TagFilter, right: TagFilter):
        self.left = left
        self.right = right

    def __repr__(self):
        return f"({self.left} AND {self.right})"


class OrTagFilter(TagFilter):
    def __init__(self, left: TagFilter, right: TagFilter):
        self.left = left
        self.right = right

    def __repr__(self):
        return f"({self.left} OR {self.right})"


class NotTagFilter(TagFilter):
    def __init__(self, filter: TagFilter):  # noqa: A002 - the official keyword name
        self.filter = filter

    def __repr__(self):
        return f"NOT({self.filter})"


class DeviceSetTagFilter(TagFilter):
    """Devices whose tag values, as a tuple in the table's TAG column order (None for a null
    tag), are one of ``tag_tuples``. Decided by one set lookup per device, where an OR of
    tag_eq filters costs a comparison per listed device (tsfile.dask reads chosen devices of a
    file with it)."""

    def __init__(self, tag_tuples):
        self.tag_tuples = frozenset(tuple(t) for t in tag_tuples)

    def __repr__(self):
        return f"TagFilter(device in {len(self.tag_tuples)} tag tuples)"


def tag_eq(column_name: str, value: str) -> TagFilter:
    """Devices whose tag ``column_name`` equals ``value``."""
    return ComparisonTagFilter(column_name, value, ComparisonTagFilter.EQ)


def tag_neq(column_name: str, value: str) -> TagFilter:
    """Devices whose tag is not NULL and differs from ``value``."""
    return ComparisonTagFilter(column_name, value, ComparisonTagFilter.NEQ)


def tag_lt(column_name: str, value: str) -> TagFilter:
    return ComparisonTagFilter(column_name, value, ComparisonTagFilter.LT)


def tag_lteq(column_name: str, value: str) -> TagFilter:
    return ComparisonTagFilter(column_name, value, ComparisonTagFilter.LTEQ)


def tag_gt(column_name: str, value: str) -> TagFilter:
    return ComparisonTagFilter(column_name, value, ComparisonTagFilter.GT)


def tag_gteq(column_name: str, value: str) -> TagFilter:
    return ComparisonTagFilter(column_name, value, ComparisonTagFilter.GTEQ)


def tag_regexp(column_name: str, pattern: str) -> TagFilter:
    """Devices whose tag contains a match of ``pattern`` (anchor it with ``^``/``$``)."""
    return ComparisonTagFilter(column_name, pattern, ComparisonTagFilter.REGEXP)


def tag_not_regexp(column_name: str, pattern: str) -> TagFilter:
    """Devices whose tag is not NULL and contains no match of ``pattern``."""
    return ComparisonTagFilter(column_name, pattern, ComparisonTagFilter.NOT_REGEXP)


def tag_is_null(column_name: str) -> TagFilter:
    return ComparisonTagFilter(column_name, "", ComparisonTagFilter.IS_NULL)


def tag_is_not_null(column_name: str) -> TagFilter:
    return ComparisonTagFilter(column_name, "", ComparisonTagFilter.IS_NOT_NULL)


def tag_between(column_name: str, lower: str, upper: str) -> TagFilter:
    """Devices with ``lower <= tag <= upper``."""
    return BetweenTagFilter(column_name, lower, upper, is_not=False)


def tag_not_between(column_name: str, lower: str, upper: str) -> TagFilter:
    """Devices with a non-NULL tag outside ``[lower, upper]``."""
    return BetweenTagFilter(column_name, lower, upper, is_not=True)


# -- evaluation ----------------------------------------------------------------------------------

_C = ComparisonTagFilter
# op -> test of a non-NULL tag value against the filter's value
_COMPARE = {
    _C.EQ: operator.eq,
    _C.NEQ: operator.ne,
    _C.LT: operator.lt,
    _C.LTEQ: operator.le,
    _C.GT: operator.gt,
    _C.GTEQ: operator.ge,
}


def compile_tag_filter(tag_filter, tag_columns, table_name):
    """A function ``tags -> bool`` deciding the filter on one device's tag values (the tuple of
    DeviceID.tag_values, in the order of ``tag_columns``: the table's TAG column names).

    Checks the whole filter first (column names, argument types, regular expressions), so a bad
    filter raises before anything of the table is read."""
    index = {name.lower(): i for i, name in enumerate(tag_columns)}
    return _compile(tag_filter, index, table_name)


def decide_absent_tags(tag_filter, lacks, decided):
    """``tag_filter`` for a file whose table lacks some of the TAG columns it names
    (``lacks(name)``: True for such a column; ``schema="union"`` reads that file's rows with
    them NULL): each test of such a column decided as on a NULL tag (IS NULL true, every other
    test false, ``~`` negating it), and the AND / OR / NOT around it simplified. Returns True
    (every device), False (none) or the TagFilter left; the names decided are added to
    ``decided`` (a set), so that a name no file holds can still be reported. Anything that is
    not a tag filter is returned as it is, for compile_tag_filter to refuse."""
    if isinstance(tag_filter, (AndTagFilter, OrTagFilter)):
        left = decide_absent_tags(tag_filter.left, lacks, decided)
        right = decide_absent_tags(tag_filter.right, lacks, decided)
        final = isinstance(tag_filter, OrTagFilter)  # True decides an OR, False an AND
        if left is final or right is final:
            return final
        if left is not final and isinstance(left, bool):
            return right
        if right is not final and isinstance(right, bool):
            return left
        return type(tag_filter)(left, right)
    if isinstance(tag_filter, NotTagFilter):
        inner = decide_absent_tags(tag_filter.filter, lacks, decided)
        return (not inner) if isinstance(inner, bool) else NotTagFilter(inner)
    if isinstance(tag_filter, (ComparisonTagFilter, BetweenTagFilter)):
        name = tag_filter.column_name
        if isinstance(name, str) and lacks(name):
            decided.add(name)
            return (
                isinstance(tag_filter, ComparisonTagFilter)
                and tag_filter.op == ComparisonTagFilter.IS_NULL
            )
    return tag_filter


def _column_index(f, index, table_name):
    name = f.column_name
    i = index.get(name.lower()) if isinstance(name, str) else None
    if i is None:
        raise ColumnNotExistError(
            f"tag filter {f!r}: {name!r} is not a TAG column of table {table_name!r}"
        )
    return i


def _text_argument(f, value, what):
    if not isinstance(value, str):
        raise InvalidFilterError(
            f"tag filter on column {f.column_name!r}: the {what} must be a str, not "
            f"{type(value).__name__}"
        )
    return value


def _compile(f, index, table_name):
    if isinstance(f, AndTagFilter):
        left, right = _compile(f.left, index, table_name), _compile(f.right, index, table_name)
        return lambda tags: left(tags) and right(tags)
    if isinstance(f, OrTagFilter):
        left, right = _compile(f.left, index, table_name), _compile(f.right, index, table_name)
        return lambda tags: left(tags) or right(tags)
    if isinstance(f, NotTagFilter):
        inner = _compile(f.filter, index, table_name)
        return lambda tags: not inner(tags)
    if isinstance(f, BetweenTagFilter):
        return _compile_between(f, index, table_name)
    if isinstance(f, DeviceSetTagFilter):
        return _compile_device_set(f, index, table_name)
    if isinstance(f, ComparisonTagFilter):
        return _compile_comparison(f, index, table_name)
    raise InvalidFilterError(f"tag_filter must be a TagFilter, not {type(f).__name__}")


def _compile_device_set(f, index, table_name):
    n_tags = len(index)
    for tags in f.tag_tuples:
        if len(tags) != n_tags:
            raise InvalidFilterError(
                f"{f!r}: the tag tuple {tags!r} has {len(tags)} values, table {table_name!r} "
                f"has {n_tags} TAG columns"
            )
    wanted = f.tag_tuples
    return lambda tags: tuple(tags) in wanted


def _compile_between(f, index, table_name):
    i = _column_index(f, index, table_name)
    lower = _text_argument(f, f.lower, "lower bound")
    upper = _text_argument(f, f.upper, "upper bound")
    if f.is_not:
        return lambda tags: tags[i] is not None and (tags[i] < lower or tags[i] > upper)
    return lambda tags: tags[i] is not None and lower <= tags[i] <= upper


def _compile_comparison(f, index, table_name):
    i = _column_index(f, index, table_name)
    op = f.op
    if op == _C.IS_NULL:
        return lambda tags: tags[i] is None
    if op == _C.IS_NOT_NULL:
        return lambda tags: tags[i] is not None
    value = _text_argument(f, f.value, "value")
    if op in (_C.REGEXP, _C.NOT_REGEXP):
        try:
            pattern = re.compile(value)
        except re.error as exc:
            raise InvalidFilterError(
                f"tag filter on column {f.column_name!r}: invalid regular expression "
                f"{value!r} ({exc})"
            ) from None
        if op == _C.REGEXP:
            return lambda tags: tags[i] is not None and pattern.search(tags[i]) is not None
        return lambda tags: tags[i] is not None and pattern.search(tags[i]) is None
    compare = _COMPARE.get(op)
    if compare is None:
        raise InvalidFilterError(f"tag filter on column {f.column_name!r}: unknown operator {op}")
    return lambda tags: tags[i] is not None and compare(tags[i], value)


__all__ = [
    "TagFilter",
    "ComparisonTagFilter",
    "BetweenTagFilter",
    "AndTagFilter",
    "OrTagFilter",
    "NotTagFilter",
    "DeviceSetTagFilter",
    "tag_eq",
    "tag_neq",
    "tag_lt",
    "tag_lteq",
    "tag_gt",
    "tag_gteq",
    "tag_regexp",
    "tag_not_regexp",
    "tag_is_null",
    "tag_is_not_null",
    "tag_between",
    "tag_not_between",
    "compile_tag_filter",
    "decide_absent_tags",
]
