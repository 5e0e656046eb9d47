"""TsFileDataFrame(trust_index=False) and files rewritten after the view read their metadata:
the official view checks each file's size and modification time whenever it opens or reuses a
reader and refuses a changed file (RuntimeError); this one checked only when the index was
loaded, and then read the new rows with the old counts (a series cut short or shifted by
position, without an error)."""

from __future__ import annotations

import os

import numpy as np
import pytest
from dataset_shards import write_shard

from tsfile import TsFileDataFrame
from tsfile.dataset import DatasetFileChangedError
from tsfile.exceptions import TsFileError


def _three(tmp_path):
    return [write_shard(tmp_path / f"p{i}.tsfile", i * 100, 20) for i in range(3)]


def _open(tmp_path, **kw):
    return TsFileDataFrame(str(tmp_path), show_progress=False, **kw)


@pytest.mark.parametrize("use_index", [True, False])
def test_a_file_rewritten_after_opening_is_refused_when_not_trusted(tmp_path, use_index):
    paths = _three(tmp_path)
    with _open(tmp_path, use_index=use_index, trust_index=False) as df:
        before = df["m.a.x"][:]
        assert len(before) == 60
        write_shard(paths[1], 100, 30)  # ten more rows in the middle shard
        os.utime(paths[1], ns=(1, 1))  # whatever the clock's resolution, another mtime
        for read in (
            lambda: df["m.a.x"][:],
            lambda: df["m.a.x"][25],  # a position in the changed shard
            lambda: df.loc[0:1000, ["m.a.x", "m.b.x"]],
        ):
            with pytest.raises(DatasetFileChangedError) as info:
                read()
            assert paths[1] in str(info.value)
            assert isinstance(info.value, TsFileError) and isinstance(info.value, RuntimeError)
        # the unchanged shards still read
        assert np.array_equal(df["m.a.x"][:20], before[:20])


def test_a_file_deleted_after_opening_is_the_packages_not_found_error(tmp_path):
    paths = _three(tmp_path)
    with _open(tmp_path, use_index=True, trust_index=False) as df:
        os.unlink(paths[2])
        with pytest.raises(FileNotFoundError) as info:
            df["m.a.x"][:]
        assert isinstance(info.value, TsFileError) and paths[2] in str(info.value)


def test_trusted_views_do_not_look_at_the_files_again(tmp_path):
    # trust_index=True (the default) promises immutable files: no stat per read
    paths = _three(tmp_path)
    with _open(tmp_path, use_index=True) as df:
        assert df._pool._expected is None
        os.utime(paths[1], ns=(1, 1))
        assert len(df["m.a.x"][:]) == 60


def test_a_view_reopened_after_the_change_reads_the_new_rows(tmp_path):
    paths = _three(tmp_path)
    _open(tmp_path, use_index=True).close()
    write_shard(paths[1], 100, 30)
    os.utime(paths[1], ns=(1, 1))
    with _open(tmp_path, use_index=True, trust_index=False) as df:
        assert len(df["m.a.x"]) == 70
        assert df["m.a.x"][:].tolist() == [
            t + 0.5 for t in [*range(20), *range(100, 130), *range(200, 220)]
        ]


def test_two_threads_writing_the_same_index_at_once_both_succeed(tmp_path, monkeypatch):
    # both views of the same files wrote "<index>.<pid>.tmp": the first rename took the
    # second writer's file away ("dataset index not written" RuntimeWarning, an error under
    # -W error) or renamed it while the other thread was still writing into it
    import json
    import threading
    import warnings
    from concurrent.futures import ThreadPoolExecutor

    from tsfile._dataset import index as index_mod

    _three(tmp_path)
    both_writing = threading.Barrier(2, timeout=10)
    real_dump = json.dump

    def dump_together(doc, f, **kw):
        both_writing.wait()  # the two writers are inside their temporary files at once
        real_dump(doc, f, **kw)

    monkeypatch.setattr(index_mod.json, "dump", dump_together)

    def open_once(_):
        with _open(tmp_path, use_index=True) as df:
            return len(df["m.a.x"])

    # the warnings filter is the process's: set once here, around both threads
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with ThreadPoolExecutor(2) as pool:
            assert list(pool.map(open_once, range(2))) == [60, 60]
    assert [str(w.message) for w in caught] == []
    monkeypatch.setattr(index_mod.json, "dump", real_dump)
    written = list(tmp_path.glob(".tsfile-turbo-dataset.*"))
    assert len(written) == 1 and written[0].suffix == ".json"  # no temporary file left
    with open(written[0], encoding="utf-8") as f:
        assert len(json.load(f)["files"]) == 3
