"""``python -m tsfile bench dataset --small`` runs end to end (its own equality checks pass and
it prints its tables); speed is not checked here."""

import importlib.util

from tsfile.__main__ import main


def test_dataset_section_small(capsys):
    assert main(["bench", "dataset", "--small"]) == 0
    out = capsys.readouterr().out
    assert "## read_table over 4 files x 2,000 rows" in out
    assert "2 threads vs 1" in out and "1 thread vs one file" in out
    # the CPU of the 1- and 2-thread reads split into user and system (kernel) time
    assert "(1 thread  user" in out and "(2 threads user" in out and "system" in out
    assert "warm / cold" in out
    # "## dask: not installed" also names dask: with dask present, its timing must be there
    if importlib.util.find_spec("dask") is not None:
        assert "dask read_tsfile" in out and "dask overhead" in out
    else:
        assert "## dask: not installed" in out


def test_dataset_plan_part_small(capsys, tmp_path):
    """``--parts plan``: planning alone against the whole read; the files of an earlier run in
    --dir are reused, not written again."""
    args = ["bench", "dataset", "--small", "--parts", "plan", "--dir", str(tmp_path)]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "## planning read_table over 4 files (40 chunk groups), 1 thread" in out
    assert "plan only" in out and "planning share" in out
    before = {p: p.stat().st_mtime_ns for p in (tmp_path / "split").glob("*.tsfile")}
    assert len(before) == 4
    assert main(args) == 0
    after = {p: p.stat().st_mtime_ns for p in (tmp_path / "split").glob("*.tsfile")}
    assert after == before


def test_plan_files_counts_the_groups_read_table_decodes(tmp_path):
    """plan_files plans what read_table reads: as many chunk groups as files x devices here
    (one chunk group per device and file)."""
    from tsfile._bench.dataset import DEVICES, plan_files, write_split

    write_split(tmp_path, 3, DEVICES * 30)
    assert plan_files(tmp_path) == 3 * DEVICES


def test_dataset_files_are_reused_only_when_they_hold_the_rows_asked(tmp_path):
    """The threads and plan parts reuse the files of an earlier run in --dir (never rewritten
    under another run's reader), but not files of another size."""
    import tsfile
    from tsfile._bench.dataset import DEVICES, _dataset_files

    split, one = _dataset_files(tmp_path, 3, DEVICES * 20)
    stamps = {p: p.stat().st_mtime_ns for p in [one, *split.glob("*.tsfile")]}
    assert len(stamps) == 4
    again = _dataset_files(tmp_path, 3, DEVICES * 20)
    assert again == (split, one)
    assert {p: p.stat().st_mtime_ns for p in stamps} == stamps
    _dataset_files(tmp_path, 3, DEVICES * 10)  # other rows: written again
    assert len(tsfile.read_table(str(split), "bench")["time"]) == 3 * DEVICES * 10
    assert len(tsfile.read_table(str(one), "bench")["time"]) == 3 * DEVICES * 10


def test_dataset_ceiling_part_small(capsys, tmp_path):
    """``--parts ceiling``: the read split between two processes started together, against one
    process on one and on two threads, and the memory write bandwidth of two processes against
    one (tsfile._bench.ceiling)."""
    args = ["bench", "dataset", "--small", "--parts", "ceiling", "--dir", str(tmp_path)]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "## two cores' ceiling for this read (4 files" in out
    for line in ("one process, 1 thread", "two processes, half the files each", "(ceiling)"):
        assert line in out
    assert "of the ceiling)" in out and "memory writes" in out


def test_lockstep_returns_one_wall_time_per_round():
    from tsfile._bench import ceiling

    walls = ceiling.lockstep("tsfile._bench.ceiling:fill_job", [(1 << 20,), (1 << 20,)], 3)
    assert len(walls) == 3 and all(0 < w < 60 for w in walls)
