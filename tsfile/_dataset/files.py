"""Many files as one input: expanding paths (a file, a list, a directory, a glob) and what the
metadata of one file says about a table (its columns, and per device the tag values, the row
count and the time range), read from the tail and the index only, never from chunk data.

These facts decide which files a query needs (files whose time range misses the query are
pruned before their data is read), whether the files agree on a table's schema, and what the
dataset view (tsfile.dataset) lists; they are also what its on-disk index stores.
"""

from __future__ import annotations

import errno
import glob
import os
import stat
from dataclasses import dataclass, field

from tsfile._read.source import is_url, url_fs
from tsfile.errors import InvalidSchemaError, TsFileError, TsFileNotFoundError
from tsfile.exceptions import FileOpenError
from tsfile.types import ColumnCategory, TSDataType

TSFILE_SUFFIX = ".tsfile"
_GLOB_CHARS = frozenset("*?[")
# enum members by value: the index stores thousands of columns, and Enum(value) is slow
_TYPES = {int(t): t for t in TSDataType}
_CATEGORIES = {int(c): c for c in ColumnCategory}


# -- paths ---------------------------------------------------------------------------------------


def _is_glob(text):
    return any(ch in _GLOB_CHARS for ch in text)


def is_many(paths):
    """True when ``paths`` names several files: a list or tuple, a directory, or a glob pattern
    that is not itself an existing file's name (a local path or an fsspec URL). One file's path
    or URL keeps the one-file readers."""
    if isinstance(paths, (list, tuple)):
        return True
    if isinstance(paths, (str, bytes, os.PathLike)):
        text = os.fsdecode(paths)
        if is_url(text):
            # a file whose name holds [ ? * is that file, as a local path is (a glob of it
            # matched nothing: "a[1].tsfile" is no pattern matching itself)
            return (_is_glob(text) and not _url_is(text, "file")) or _url_is(text, "dir")
        return os.path.isdir(text) or (_is_glob(text) and not os.path.exists(text))
    return False


def _url_is(url, kind):
    """Whether the URL names a "dir" or a "file" (False when the file system cannot say)."""
    fs, path = url_fs(url)
    try:
        return bool(fs.isdir(path) if kind == "dir" else fs.isfile(path))
    except OSError:
        return False


def _glob_root(path):
    """The part of a glob pattern before its first wildcard's path segment."""
    at = min(path.index(ch) for ch in _GLOB_CHARS if ch in path)
    return path[: path.rfind("/", 0, at) + 1] or path[:at]


def _url_files(url):
    """The ``*.tsfile`` files a URL names, as URLs: its directory's (recursively) or its glob's
    matches (sorted), or the file itself; TsFileNotFoundError when it names nothing,
    FileOpenError naming the URL when its file system fails (a connection refused...)."""
    fs, path = url_fs(url)
    try:
        return _listed(fs, path, url)
    except TsFileError:  # _listed's own (a TsFileNotFoundError is a FileNotFoundError too)
        raise
    except FileNotFoundError as exc:  # a bucket that does not exist...
        raise _not_found(str(exc) or "TsFile not found", url) from None
    except OSError as exc:
        raise FileOpenError(f"{url}: cannot list: {type(exc).__name__}: {exc}") from None


def _listed(fs, path, url):
    glob_like = _is_glob(path)
    # a remote file system keeps the listings it made (s3fs: for the life of the process):
    # files written since by anyone else were not listed, or listed and then not found when
    # opened, their directory's cached listing lacking them. A read of a directory lists it
    # anew, as a local directory's read does.
    fs.invalidate_cache(_glob_root(path) if glob_like else path)
    if fs.isfile(path):  # before the glob test: a file's name may hold [ ? *
        return [url]
    if glob_like:
        # the listing's own entry types: one request, not one more per match to ask its type
        found = [p for p, info in fs.glob(path, detail=True).items() if info["type"] == "file"]
        if not found:
            raise _not_found("no file matches", url)
    elif fs.isdir(path):
        found = [p for p in fs.find(path) if p.endswith(TSFILE_SUFFIX)]
        if not found:
            raise _not_found(f"no {TSFILE_SUFFIX} files in directory", url)
    else:
        raise _not_found("TsFile not found", url)
    return [fs.unstrip_protocol(p) for p in sorted(found)]


def _url_key(url, real_dirs):
    """What tells one file's URLs apart: its file system's canonical URL (``memory://d/x`` and
    ``memory:///d/x``, as a listing spells it, are one file), and for a ``file://`` URL the
    local file's real path, so that the same file named by a path and by a URL is read once
    (it was read once per spelling: its rows repeated)."""
    from fsspec.implementations.local import LocalFileSystem

    fs, path = url_fs(url)
    if type(fs) is LocalFileSystem:
        return _real_path(os.path.abspath(path), real_dirs)
    return fs.unstrip_protocol(path)


def _not_found(what, name):
    """The one-file reader's error for a missing path (a TsFileError, so ``except
    tsfile.TsFileError`` catches it, and a FileNotFoundError with ``filename`` set): a bare
    FileNotFoundError here was the one error of a many-file read outside the package's own."""
    return TsFileNotFoundError(errno.ENOENT, what, name)


def _directory_files(directory):
    """Every ``*.tsfile`` under a directory (recursively), sorted by path."""
    found = []
    for root, _dirs, names in os.walk(directory):
        found.extend(os.path.join(root, n) for n in names if n.endswith(TSFILE_SUFFIX))
    if not found:
        raise _not_found(f"no {TSFILE_SUFFIX} files in directory", directory)
    return sorted(found)


def expand_paths(paths):
    """Absolute paths of the files ``paths`` names, in a deterministic order: a list keeps its
    order (each directory or glob in it expanded in sorted order), a directory gives its
    ``*.tsfile`` files recursively, a glob its matches; duplicates are dropped. A name that
    matches nothing raises TsFileNotFoundError."""
    # bytes are one path (as the one-file reader takes them), not a sequence of ints; a file
    # object is one file, not an iterable of lines (each line was taken for a path)
    if hasattr(paths, "read"):
        raise TypeError(
            f"several files are given as paths, not as a {type(paths).__name__}; a file "
            "object is read by TsFileReader or by read_table & co. given that one object"
        )
    items = [paths] if isinstance(paths, (str, bytes, os.PathLike)) else list(paths)
    if not items:
        raise ValueError("no paths given")
    out = []
    for item in items:
        if not isinstance(item, (str, bytes, os.PathLike)):
            raise TypeError(
                f"a path must be a str, bytes or os.PathLike, not {type(item).__name__}"
            )
        text = os.fsdecode(item)
        if is_url(text):  # fsspec URLs stay URLs: each file is read by ranges (source.py)
            out.extend(_url_files(text))
        elif os.path.isdir(text):
            out.extend(_directory_files(text))
        elif os.path.exists(text):
            out.append(text)
        elif _is_glob(text):
            matches = sorted(p for p in glob.glob(text, recursive=True) if os.path.isfile(p))
            if not matches:
                raise _not_found("no file matches", text)
            out.extend(matches)
        else:
            raise _not_found("TsFile not found", text)
    return _distinct_files(p if is_url(p) else os.path.abspath(p) for p in out)


def _distinct_files(paths):
    """``paths`` without a second name of a file already named: the same file through a
    symlink, or a recursive glob going round a symlink loop (``dir/loop/x.tsfile``,
    ``dir/loop/loop/x.tsfile``...), was read once per name (its rows repeated, or a dataset's
    "duplicate timestamp" error); the first name is kept. A name that cannot be resolved is
    kept as it is (opening it raises the reader's error naming it). Each directory is resolved
    once and each file by one lstat unless it is a link (realpath per file was 8 of the 60 ms
    of opening 1,000 files from their index)."""
    seen, out, real_dirs = set(), [], {}
    for p in dict.fromkeys(paths):
        key = _url_key(p, real_dirs) if is_url(p) else _real_path(p, real_dirs)
        if key not in seen:
            seen.add(key)
            out.append(p)
    return out


def _real_path(path, real_dirs):
    """os.path.realpath(path) for an absolute path, its directory's taken from (and added to)
    ``real_dirs``."""
    try:
        if stat.S_ISLNK(os.lstat(path).st_mode):
            return os.path.realpath(path)
    except OSError:
        return os.path.realpath(path)
    head, tail = os.path.split(path)
    real = real_dirs.get(head)
    if real is None:
        real = real_dirs[head] = os.path.realpath(head)
    return os.path.join(real, tail)


# -- what one file's metadata says -------------------------------------------------------------


@dataclass
class DeviceStats:
    """One device of a table in one file: its tag values (None = null), rows and time range;
    ``absent``: the FIELD columns of which it holds no value in this file (no series, or one
    counting 0 values: the official view lists no series there, tsfile.dataset)."""

    tags: tuple
    count: int
    start: int
    end: int
    absent: tuple = ()


@dataclass
class TableInfo:
    """A table of one file: columns as (name, data type, category) in schema order, devices in
    index order."""

    columns: list
    devices: list = field(default_factory=list)

    def column_map(self):
        return {name: (dtype, cat) for name, dtype, cat in self.columns}

    def time_range(self):
        """(first, last) time of the table's rows in this file, or None when it has none."""
        first = last = None
        for d in self.devices:  # one loop: called for every file of a many-file read
            if d.count > 0:
                if first is None or d.start < first:
                    first = d.start
                if last is None or d.end > last:
                    last = d.end
        return None if first is None else (first, last)

    def tag_names(self):
        return [n for n, _t, c in self.columns if c == ColumnCategory.TAG]


@dataclass
class FileInfo:
    """A file's identity (size, modification time) and its tables; ``tree``: the devices of a
    tree-model file (tsfile._dataset.tree_info.TreeDevice; empty for a file with tables)."""

    path: str
    size: int
    mtime_ns: int
    tables: dict
    tree: list = field(default_factory=list)

    def to_json(self, schemas):
        """The index entry of the file; each table's columns are written once per index, in
        ``schemas`` ({columns as lists: position}, shared by the entries of one index), and
        named by position (most files of a dataset share their schemas)."""
        tables = {}
        for name, info in self.tables.items():
            columns = tuple((n, int(t), int(c)) for n, t, c in info.columns)
            tables[name] = {
                "schema": schemas.setdefault(columns, len(schemas)),
                "devices": [
                    [list(d.tags), d.count, d.start, d.end, list(d.absent)] for d in info.devices
                ],
            }
        return {
            "path": self.path,
            "size": self.size,
            "mtime_ns": self.mtime_ns,
            "tree": [d.to_json() for d in self.tree],
            "tables": tables,
        }

    @classmethod
    def from_json(cls, obj, schemas):
        """The FileInfo of an index entry whose tables name their columns in ``schemas`` (the
        index's (columns, TAG column count) pairs, as schemas_from_json gives them);
        ValueError (the index is then rebuilt) for an entry of another shape than to_json's,
        checked value by value (json_object, json_int, ...): the index is a file anyone may
        edit or damage, and a list where a name belongs made the view fail later with a
        TypeError. The device loop checks its values inline (its tens of thousands of checks
        were most of opening a dataset from its index)."""
        tables = {}
        for name, t in json_object(json_object(obj)["tables"]).items():
            t = json_object(t)
            k = json_int(t["schema"])
            if not 0 <= k < len(schemas):
                raise ValueError(f"dataset index: schema {k} of {len(schemas)}")
            columns, n_tags = schemas[k]
            devices = []
            for tags, n, a, b, absent in json_list(t["devices"]):
                # a device has one value per TAG column (a file's reader pads them), a row
                # count >= 0 and, with rows, start <= end: any other entry made a nonsense
                # view (series of other names reading nothing) or failed later (a negative
                # count: len() of a series raised ValueError)
                if not (
                    type(tags) is list
                    and type(absent) is list
                    and type(n) is int  # not a bool
                    and type(a) is int
                    and type(b) is int
                    and n in _COUNT
                    and a in _INT64
                    and b in _INT64
                    and (a <= b or not n)
                    and len(tags) == n_tags
                    and _TAG_TYPES.issuperset(map(type, tags))
                    and (not absent or _STR_TYPE.issuperset(map(type, absent)))
                ):
                    _device_shape_error(tags, (n, a, b), absent, n_tags)
                devices.append(DeviceStats(tuple(tags), n, a, b, tuple(absent) if absent else ()))
            # the schema's own list, shared by every file of that schema (TableInfo never
            # changes its columns; check_same_schema then compares by identity first)
            tables[name] = TableInfo(columns, devices)
        from tsfile._dataset.tree_info import TreeDevice

        tree = [TreeDevice.from_json(d) for d in json_list(obj.get("tree", []))]
        return cls(
            json_str(obj["path"]), json_int(obj["size"]), json_int(obj["mtime_ns"]), tables, tree
        )


def schemas_to_json(schemas):
    """The index's column lists from to_json's ``schemas`` dict, by position (its insertion
    order: to_json numbers each schema as it adds it)."""
    return [[list(col) for col in columns] for columns in schemas]


def schemas_from_json(value):
    """(columns, number of TAG columns) of each schema of an index's ``schemas``, the columns
    as (name, TSDataType, ColumnCategory); the count checks its devices' tag values."""
    out = []
    for columns in json_list(value):
        columns = [
            (json_str(n), _TYPES[json_int(dt)], _CATEGORIES[json_int(c)])
            for n, dt, c in json_list(columns)
        ]
        out.append((columns, sum(c == ColumnCategory.TAG for _n, _t, c in columns)))
    return out


# -- index entries: each value of the shape to_json writes, else ValueError ----------------------


def _device_shape_error(tags, ints, absent, n_tags):
    """Raise the error of the first value of a device entry that is not of its shape."""
    tags, absent = json_list(tags), json_list(absent)
    for v in ints:
        json_int(v)
    for v in tags:
        json_tag(v)
    for f in absent:
        json_str(f)
    n, a, b = ints
    if n < 0 or (n and a > b) or len(tags) != n_tags:
        raise ValueError(
            f"dataset index: a device of {len(tags)} tag values ({n_tags} TAG columns), "
            f"{n} rows from {a} to {b}"
        )
    raise ValueError("dataset index: a device entry of another shape")  # not from json.load


def _shape_error(value, what):
    return ValueError(f"dataset index: {what} expected, found {type(value).__name__}")


def json_object(value):
    if not isinstance(value, dict):
        raise _shape_error(value, "an object")
    return value


def json_list(value):
    if not isinstance(value, list):
        raise _shape_error(value, "a list")
    return value


def json_str(value):
    if not isinstance(value, str):
        raise _shape_error(value, "a string")
    return value


def json_tag(value):
    """A tag value or path segment: a str, or None for a null one."""
    return None if value is None else json_str(value)


_INT64 = range(-(2**63), 2**63)  # `in` tests an int's range in constant time
_COUNT = range(2**63)  # a row count: an int64 >= 0
_TAG_TYPES = frozenset((str, type(None)))  # a tag value: a str, or None for a null one
_STR_TYPE = frozenset((str,))


def json_int(value):
    """An int64 (a count, a time, a size, a type code): not a bool, a float or a string."""
    if isinstance(value, bool) or not isinstance(value, int) or value not in _INT64:
        raise _shape_error(value, "an int64")
    return value


def _table_devices(reader, key, n_tags, fields=()):
    """DeviceStats of every device of one table, from the statistics of its time column and
    of its ``fields``' series (the series metadata only; no field: ``absent`` is not filled)."""
    out = []
    if key not in reader._meta.table_roots:
        return out
    for dev_id, rng in reader._devices(key):
        count, start, end = reader._time_statistics(key, dev_id, rng)
        absent = (
            ()
            if not fields
            else tuple(
                f
                for f, n in zip(fields, _value_counts(reader, key, rng, fields), strict=True)
                if n <= 0
            )
        )
        out.append(DeviceStats(dev_id.tag_values(n_tags), count, start, end, absent))
    return out


def _value_counts(reader, key, rng, fields):
    """The value count of each of ``fields`` in one device (0: no series of that name): from
    the compact index when it takes the device, else from its series metadata."""
    d = reader._device_index(rng)
    if d is not None:
        return d.value_counts(fields)
    series = reader._series(key, rng)
    return [series[f].statistics.count if f in series else 0 for f in fields]


def read_file_info(path, reader=None, tables=None, field_values=False):
    """FileInfo of ``path`` from its metadata (``tables``: only these table names; with None, the
    devices of a tree-model file too; ``field_values``: each table device's ``absent`` fields,
    which the dataset view needs and a query's planning does not). Errors of a file that is no
    TsFile, or a damaged one, are CorruptDataError naming the file."""
    from tsfile._dataset.tree_info import read_tree_devices
    from tsfile.reader import TsFileReader, open_error

    if is_url(path):
        st = None  # size and time from the reader (a remote file has no local stat)
    else:
        try:
            st = os.stat(path)
        except OSError as exc:  # a dangling link, a symlink loop: the reader's errors, naming it
            raise open_error(exc, path) from None
    own = reader is None
    try:
        if own:
            reader = TsFileReader(path)
        size, mtime_ns = (st.st_size, st.st_mtime_ns) if st is not None else (reader._size, 0)
        try:
            infos = {}
            with reader._op():
                for name, schema in reader.get_all_table_schemas().items():
                    if tables is not None and name not in tables:
                        continue
                    columns = [(c.column_name, c.data_type, c.category) for c in schema.columns]
                    info = TableInfo(columns)
                    n_tags = len(info.tag_names())
                    if field_values:
                        fields = [n for n, _t, c in columns if c == ColumnCategory.FIELD]
                        info.devices = _table_devices(reader, name, n_tags, fields=fields)
                    else:
                        info.devices = _table_devices(reader, name, n_tags)
                    infos[name] = info
                tree = read_tree_devices(reader) if tables is None else []
        finally:
            if own:
                reader.close()
    except TsFileError as exc:
        raise name_file(exc, path) from exc
    return FileInfo(path, size, mtime_ns, infos, tree)


def name_file(exc, path):
    """``exc`` with ``path`` in its message (a new error of the same class when it lacks it)."""
    if path in str(exc):
        return exc
    try:
        return type(exc)(f"{path}: {exc}")
    except Exception:  # noqa: BLE001 - a class with another constructor: keep the original
        return exc


# -- schemas of several files --------------------------------------------------------------------


def _describe(entry):
    if entry is None:
        return "missing"
    dtype, cat = entry
    return f"{TSDataType(dtype).name} {ColumnCategory(cat).name}"


def check_same_schema(table, first_path, first, other_path, other, hint=""):
    """InvalidSchemaError (a ValueError, as the official view's) naming both files and the
    first column on which two files' versions of ``table`` differ (name, type or category)."""
    if first.columns == other.columns:  # the common case: one list compare, no maps built
        return
    a, b = first.column_map(), other.column_map()
    for name in [*a, *(n for n in b if n not in a)]:
        if a.get(name) != b.get(name):
            raise InvalidSchemaError(
                f"Incompatible schema for table {table!r} between {first_path} and "
                f"{other_path}: column {name!r} is {_describe(a.get(name))} in the first and "
                f"{_describe(b.get(name))} in the second{hint}"
            )


def union_columns(table, infos):
    """Columns of ``table`` over ``[(path, TableInfo)]``: first seen order; a column with two
    types or categories raises InvalidSchemaError naming both files."""
    seen = {}
    order = []
    for path, info in infos:
        for name, dtype, cat in info.columns:
            if name not in seen:
                seen[name] = (path, dtype, cat)
                order.append((name, dtype, cat))
            elif seen[name][1:] != (dtype, cat):
                first_path = seen[name][0]
                raise InvalidSchemaError(
                    f"table {table!r}: column {name!r} is {_describe(seen[name][1:])} in "
                    f"{first_path} and {_describe((dtype, cat))} in {path}; even "
                    "schema='union' needs one type per column"
                )
    return order


__all__ = [
    "is_many",
    "expand_paths",
    "DeviceStats",
    "TableInfo",
    "FileInfo",
    "read_file_info",
    "name_file",
    "check_same_schema",
    "union_columns",
]
