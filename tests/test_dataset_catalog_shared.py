"""The dataset catalog (tsfile.dataset._table_catalog) against a plain rebuild of its rules.

The catalog keeps no shard list of its own for a series present in every file of its device
(it shares the device's list) and gives one to a series only once a file lacks it. These tests
build random file metadata (devices in some files and not others, fields a device lacks in some
files, schemas that gain or lose fields, shards out of time order) and compare every series'
name, order and shards with a direct reading of the rules: a series per (table, tags, numeric
field) in first-seen order, with one shard per file where the device holds a value of the field,
sorted by (start time, path).
"""

from __future__ import annotations

import random

import pytest

from tsfile import dataset as D
from tsfile._dataset.files import DeviceStats, FileInfo, TableInfo
from tsfile.types import ColumnCategory, TSDataType

FIELDS = ["a", "b", "c", "d", "txt"]


def _random_infos(rng):
    infos = []
    for k in range(rng.randint(1, 12)):
        tables = {}
        for table in ("t1", "t2")[: rng.randint(1, 2)]:
            fields = [f for f in FIELDS if rng.random() < 0.8]
            rng.shuffle(fields)
            columns = [("dev", TSDataType.STRING, ColumnCategory.TAG)] + [
                (f, TSDataType.TEXT if f == "txt" else TSDataType.DOUBLE, ColumnCategory.FIELD)
                for f in fields
            ]
            devices = []
            for dev in rng.sample(["x", "y", "z", None], rng.randint(0, 4)):
                absent = tuple(f for f in fields if rng.random() < 0.2)
                start = rng.randint(0, 50)
                devices.append(
                    DeviceStats((dev,), rng.randint(0, 5), start, start + rng.randint(0, 9), absent)
                )
            tables[table] = TableInfo(columns, devices)
        infos.append(FileInfo(f"/data/f{k:02d}.tsfile", 1, 1, tables))
    return infos


def _reference(infos):
    """{name: [(path, count, start, end)]} in the catalog's order, by the rules alone."""
    out = {}
    for info in infos:
        for table, t in info.tables.items():
            numeric = [
                n for n, dt, c in t.columns if c == ColumnCategory.FIELD and dt in D.NUMERIC_TYPES
            ]
            for dev in t.devices:
                for f in numeric:
                    if f in dev.absent:
                        continue
                    name = D.series_name(table, dev.tags, f)
                    out.setdefault(name, []).append((info.path, dev.count, dev.start, dev.end))
    return {n: sorted(s, key=lambda sh: (sh[2], sh[0])) for n, s in out.items()}


@pytest.mark.parametrize("seed", range(300))
def test_catalog_matches_the_rules(seed):
    infos = _random_infos(random.Random(seed))
    got = D._table_catalog(infos)
    want = _reference(infos)
    assert list(got) == list(want)
    for name, s in got.items():
        assert [(sh.path, sh.count, sh.start, sh.end) for sh in s.shards] == want[name], name
        assert s.name == name


def test_series_of_one_device_share_their_list_only_when_equal():
    rows = lambda absent: DeviceStats(("x",), 3, 0, 2, absent)  # noqa: E731
    cols = [("dev", TSDataType.STRING, ColumnCategory.TAG)] + [
        (f, TSDataType.INT64, ColumnCategory.FIELD) for f in "abc"
    ]
    infos = [
        FileInfo(f"/d/{k}.tsfile", 1, 1, {"t": TableInfo(list(cols), [rows(absent)])})
        for k, absent in enumerate([(), (), ("b",), ()])
    ]
    cat = D._table_catalog(infos)
    a, b, c = cat["t.x.a"], cat["t.x.b"], cat["t.x.c"]
    assert a.shards is c.shards and len(a.shards) == 4
    assert b.shards is not a.shards and [sh.path for sh in b.shards] == [
        "/d/0.tsfile",
        "/d/1.tsfile",
        "/d/3.tsfile",
    ]
