"""What a tree-model file's metadata says about its devices, for the dataset view
(tsfile.dataset): every tree device's path nodes and, per measurement, its data type, point count
and time range, from the series statistics only (never from chunk data).

A file is read as a tree-model file when it has no table schema, as the official view decides
(a file with tables is a table-model file, whatever tree devices it also holds).
"""

from __future__ import annotations

from dataclasses import dataclass

from tsfile.types import TSDataType

_TYPES = {int(t): t for t in TSDataType}


@dataclass
class TreeDevice:
    """One tree device of one file: ``nodes`` (its path, root first), ``segments`` (its
    DeviceID's segments, how the reader finds it) and ``series`` {measurement: (TSDataType,
    count, first time, last time)} in the index's order (aligned devices: without the time
    column)."""

    nodes: tuple
    segments: tuple
    series: dict

    def to_json(self):
        return [
            list(self.nodes),
            list(self.segments),
            [[m, int(t), n, a, b] for m, (t, n, a, b) in self.series.items()],
        ]

    @classmethod
    def from_json(cls, obj):
        """The TreeDevice of an index entry; ValueError for another shape than to_json's (see
        tsfile._dataset.files.FileInfo.from_json)."""
        from tsfile._dataset.files import json_int, json_list, json_str, json_tag

        nodes, segments, series = json_list(obj)
        device = cls(
            tuple(json_str(n) for n in json_list(nodes)),
            tuple(json_tag(s) for s in json_list(segments)),
            {
                json_str(m): (_TYPES[json_int(t)], json_int(n), json_int(a), json_int(b))
                for m, t, n, a, b in json_list(series)
            },
        )
        # a device has a root (its first node names its series, its first segment finds it in
        # the file: an empty list was an IndexError of the view) and series of counts >= 0
        # whose points, if any, run from start to end
        if not device.nodes or not device.segments:
            raise ValueError("dataset index: a tree device without path nodes or segments")
        for _t, n, a, b in device.series.values():
            if n < 0 or (n and a > b):
                raise ValueError(f"dataset index: a tree series of {n} points from {a} to {b}")
        return device


def read_tree_devices(reader):
    """[TreeDevice] of an open reader's tree-model devices (roots in name order, devices in index
    order); [] for a file with a table schema."""
    from tsfile.tree import path_nodes

    if reader.get_all_table_schemas():
        return []
    out = []
    for dev_id, rng in reader._tree_devices():
        series = {}
        for name, tsm in reader._series(dev_id.segments[0], rng).items():
            if name == "":  # an aligned device's time column
                continue
            st = tsm.statistics
            series[name] = (TSDataType(tsm.data_type), st.count, st.start_time, st.end_time)
        out.append(TreeDevice(tuple(path_nodes(dev_id.path)), dev_id.segments, series))
    return out


__all__ = ["TreeDevice", "read_tree_devices"]
