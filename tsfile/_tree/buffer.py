"""The tree-model side of TsFileWriter: registered devices and series, and the points buffered
for each series until the next flush.

Rules (the writer's, tsfile/writer.py): every value is checked against its series' type before
anything is buffered (tsfile._write.values; TypeMismatchError names the series and the row), a
call is all or nothing, points are sorted by time at flush, and a timestamp a series already has
among its points buffered since the last flush (or twice in one call) is refused with
OutOfOrderError. A null (None, a masked tablet cell) is a point the series does not have.

Aligned devices (register_device(..., aligned=True)) share one time column: every row of a call
is a row of the device (also one whose values are all null), a timestamp the device already has
is refused, and at flush the device gets a time chunk and one value chunk per series (nulls in
the value pages' bitmaps), like a table-model device.
"""

from __future__ import annotations

import copy

import numpy as np

from tsfile._format.device import split_tree_path, tree_device_id
from tsfile._write.values import check_value, mismatch, to_storage, to_timestamps
from tsfile.errors import (
    AlreadyExistsError,
    ColumnNotExistError,
    DeviceNotExistError,
    OutOfOrderError,
    TypeMismatchError,
)
from tsfile.schema import TimeseriesSchema
from tsfile.types import TSDataType

T = TSDataType


def device_segments(path) -> tuple:
    """The DeviceID segments the file stores for a tree device path (format notes 4.2). The
    path is ".".join(segments) (backquotes kept), so two paths never share their segments."""
    if not isinstance(path, str) or not path:
        raise TypeError("a device path is a non-empty str")
    nodes = split_tree_path(path)
    if any(not node for node in nodes) or path.count("`") % 2:
        raise ValueError(f"{path!r} is not a device path (an empty node or an open backquote)")
    return tuple(tree_device_id(path).segments)


class SeriesBuffer:
    """The points of one series buffered since the last flush: pieces of (times, values)."""

    __slots__ = ("times", "values", "lo", "hi", "count")

    def __init__(self):
        self.times: list = []
        self.values: list = []
        self.lo = self.hi = None
        self.count = 0

    def has_any(self, times: np.ndarray):
        """The first of `times` this buffer already holds, or None (quick when times only
        follow the buffered ones, as rows written in time order do)."""
        if self.count == 0 or int(times.min()) > self.hi or int(times.max()) < self.lo:
            return None
        held = np.concatenate(self.times)
        hit = np.isin(times, held)
        return int(times[np.argmax(hit)]) if hit.any() else None

    def add(self, times: np.ndarray, values) -> None:
        self.times.append(times)
        self.values.append(values)
        lo, hi = int(times.min()), int(times.max())
        self.lo = lo if self.lo is None else min(self.lo, lo)
        self.hi = hi if self.hi is None else max(self.hi, hi)
        self.count += times.shape[0]

    def sorted_points(self, data_type):
        """(times, values) of all buffered points in time order (values: a numpy array, or a
        list of bytes for TEXT/STRING/BLOB)."""
        times = np.concatenate(self.times)
        if data_type.is_binary:
            values = [v for piece in self.values for v in piece]
            values = [v.encode("utf-8") if isinstance(v, str) else bytes(v) for v in values]
        else:
            values = np.concatenate(
                [np.asarray(v, dtype=data_type.numpy_dtype) for v in self.values]
            )
        if times.shape[0] > 1 and not bool((times[1:] > times[:-1]).all()):
            order = np.argsort(times, kind="stable")
            times = times[order]
            values = [values[i] for i in order] if isinstance(values, list) else values[order]
        return times, values


class TreeDevice:
    """A registered tree-model device: its path, DeviceID segments, series schemas and whether
    it is aligned (one time column for all its series)."""

    __slots__ = ("path", "segments", "series", "aligned")

    def __init__(self, path, aligned=False):
        self.path = path
        self.segments = device_segments(path)
        self.series: dict[str, TimeseriesSchema] = {}
        self.aligned = aligned

    def register(self, schema) -> None:
        if not isinstance(schema, TimeseriesSchema):
            raise TypeError(f"expected a TimeseriesSchema, got {type(schema).__name__}")
        name = schema.get_timeseries_name()
        if name in self.series:
            raise AlreadyExistsError(f"device {self.path!r} already has a series {name!r}")
        # a copy: the caller's TimeseriesSchema stays mutable, and a type changed after the
        # points were checked would be the type their chunk is written with
        self.series[name] = copy.copy(schema)

    def schema_of(self, name) -> TimeseriesSchema:
        schema = self.series.get(name)
        if schema is None:
            raise ColumnNotExistError(f"device {self.path!r} has no series {name!r}")
        return schema


class TreeBuffers:
    """Devices registered in the tree model and the points buffered for their series."""

    def __init__(self):
        self.devices: dict[str, TreeDevice] = {}
        self.by_segments: dict[tuple, TreeDevice] = {}
        # {segments: {measurement: SeriesBuffer}} of the devices with buffered points
        self.pending: dict[tuple, dict[str, SeriesBuffer]] = {}
        # {segments: SeriesBuffer of row times} of the aligned devices with buffered rows
        self.rows: dict[tuple, SeriesBuffer] = {}
        self.pending_bytes = 0

    def register(self, device_path, schema) -> TreeDevice:
        """Register one series of a non-aligned device (all checks before anything changes)."""
        dev = self.devices.get(device_path)
        if dev is None:
            dev = TreeDevice(device_path)
        if dev.aligned:
            # its earlier chunk groups would lack the series' value chunk
            raise ValueError(
                f"device {device_path!r} is aligned: its series are all given when it is "
                "registered (register_device(..., aligned=True))"
            )
        dev.register(schema)
        self.devices[device_path] = dev
        self.by_segments[dev.segments] = dev
        return dev

    def register_aligned(self, device_path, schemas) -> TreeDevice:
        """Register an aligned device with all its series (a device already registered, aligned
        or not, is refused)."""
        dev = TreeDevice(device_path, aligned=True)
        if device_path in self.devices:
            raise AlreadyExistsError(f"device {device_path!r} is already registered")
        for schema in schemas:
            dev.register(schema)
        self.devices[device_path] = dev
        self.by_segments[dev.segments] = dev
        return dev

    def device(self, path) -> TreeDevice:
        dev = self.devices.get(path)
        if dev is None:
            raise DeviceNotExistError(f"device {path!r} is not registered")
        return dev

    # -- write calls: check everything, then stage -------------------------------------------

    def row_points(self, record) -> tuple[TreeDevice, np.ndarray, list]:
        """The checked points of a RowRecord: (device, [timestamp], [(series, [value])])."""
        dev = self.device(record.get_device_id())
        try:
            ts = check_value(T.INT64, record.get_timestamp())
        except TypeMismatchError as exc:
            raise mismatch(exc.reason, "time", 0) from None
        seen = set()
        points = []
        for field in record.get_fields():
            name = field.get_field_name()
            if name in seen:
                raise ValueError(f"the row record names series {name!r} twice")
            seen.add(name)
            schema = dev.schema_of(name)
            given = field.get_data_type()
            if given is not None and TSDataType(given) != schema.data_type:
                raise mismatch(
                    f"the field is {TSDataType(given).name}, the series is {schema.data_type.name}",
                    name,
                    0,
                )
            value = field.get_value()
            if value is None:
                continue
            try:
                value = check_value(schema.data_type, value)
            except TypeMismatchError as exc:
                raise mismatch(exc.reason, name, 0) from None
            points.append((name, [value]))
        return dev, np.array([ts], dtype=np.int64), points

    def tablet_points(self, tablet) -> tuple[TreeDevice, np.ndarray, list]:
        """The checked points of a tree-model Tablet (target name = device path): (device,
        times, [(series, values, present or None)])."""
        dev = self.device(tablet.get_target_name())
        for name, dt in zip(
            tablet.get_column_name_list(), tablet.get_data_type_list(), strict=True
        ):
            schema = dev.schema_of(name)
            if TSDataType(dt) != schema.data_type:
                raise mismatch(
                    f"the tablet column is {TSDataType(dt).name}, the series is "
                    f"{schema.data_type.name}",
                    name,
                )
        times, columns, rows = tablet._export()
        times = to_timestamps(times)
        points = []
        try:
            for name, item in columns.items():
                dt = dev.series[name].data_type
                if not isinstance(item, tuple):  # a constant column
                    if item is None:
                        continue
                    item = (np.full(times.shape[0], item, dtype=object), None)
                arr, present = item
                if arr.dtype == object:
                    isnone = np.equal(arr, None)
                    if isnone.any():
                        present = ~isnone if present is None else present & ~isnone
                values, present = to_storage(name, dt, arr, present)
                points.append((name, values, present))
        except TypeMismatchError as exc:
            if rows is not None and exc.row is not None:
                raise mismatch(exc.reason, exc.column, rows[exc.row]) from None
            raise
        return dev, times, points

    def check_times(self, dev: TreeDevice, times: np.ndarray, points) -> list:
        """[(series, times, values)] of a call's points, refusing a timestamp a series gets twice
        (in the call, or already buffered)."""
        staged = []
        buffered = self.pending.get(dev.segments, {})
        if dev.aligned:  # one time column: a row's timestamp must be new to the device
            _refuse_repeats(dev, "", times, self.rows.get(dev.segments))
        for name, values, *rest in points:
            present = rest[0] if rest else None
            ts = times if present is None else times[present]
            if present is not None and not dev.series[name].data_type.is_binary:
                values = np.asarray(values)[present]
            elif present is not None:
                values = [v for v, p in zip(values, present.tolist(), strict=True) if p]
            if ts.shape[0] == 0:
                continue
            if not dev.aligned:
                _refuse_repeats(dev, name, ts, buffered.get(name))
            staged.append((name, ts, values))
        return staged

    def stage(self, dev: TreeDevice, times: np.ndarray, staged) -> None:
        """Buffer checked points (cannot fail); an aligned device also keeps the call's row
        times (rows whose values are all null included)."""
        has_rows = dev.aligned and times.shape[0] > 0
        if not staged and not has_rows:
            return  # e.g. a row whose values are all null: no point, no chunk group
        series = self.pending.setdefault(dev.segments, {})
        if has_rows:
            self.rows.setdefault(dev.segments, SeriesBuffer()).add(times.copy(), ())
            self.pending_bytes += times.nbytes
        for name, ts, values in staged:
            if isinstance(values, np.ndarray):
                values = values.copy()  # never alias the caller's arrays
                self.pending_bytes += values.nbytes
            else:
                values = list(values)
                self.pending_bytes += sum(len(v) for v in values if isinstance(v, (str, bytes)))
            series.setdefault(name, SeriesBuffer()).add(ts.copy(), values)
            self.pending_bytes += ts.nbytes

    def take(self, segments) -> tuple:
        """({measurement: SeriesBuffer}, row times or None) of one device, removed from the
        buffers (row times: the sorted timestamps of an aligned device's rows)."""
        rows = self.rows.pop(segments, None)
        times = None if rows is None else np.sort(np.concatenate(rows.times))
        return self.pending.pop(segments), times

    def buffered_rows(self, segments):
        """The sorted row times of an aligned device buffered since the last flush (or empty)."""
        rows = self.rows.get(segments)
        return np.empty(0, np.int64) if rows is None else np.sort(np.concatenate(rows.times))

    def clear(self) -> None:
        self.pending.clear()
        self.rows.clear()
        self.pending_bytes = 0


def _refuse_repeats(dev, name, ts, held) -> None:
    """OutOfOrderError for a timestamp `ts` has twice, or that `held` (buffered) already has."""
    if ts.shape[0] > 1:
        uniq, counts = np.unique(ts, return_counts=True)
        if uniq.shape[0] != ts.shape[0]:
            raise _duplicate(dev, name, int(uniq[np.argmax(counts > 1)]))
    if held is not None and ts.shape[0]:
        again = held.has_any(ts)
        if again is not None:
            raise _duplicate(dev, name, again)


def _duplicate(dev, name, timestamp) -> OutOfOrderError:
    what = f"device {dev.path!r}" + (f", series {name!r}" if name else "")
    return OutOfOrderError(
        f"{what}: timestamp {timestamp} is written twice (in this call, or already buffered "
        "since the last flush)"
    )
