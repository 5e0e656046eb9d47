"""The quick benchmark sections run end to end at tiny sizes (``python -m tsfile bench SECTION``).

Only that they run and print their tables is checked here, not speed: a section that crashes or
whose own value checks fail (ts2diff decodes are compared with the input before being timed)
would otherwise go unnoticed until someone runs the benchmark. The official package is left out.
"""

import re
from pathlib import Path

import pytest

from tsfile.__main__ import main


def _run(capsys, *argv):
    assert main(["bench", *argv]) == 0
    return capsys.readouterr().out


def test_ts2diff_section(capsys):
    out = _run(capsys, "ts2diff", "--large", "70000", "--repeat", "1", "--min-time", "0.001")
    for dtype in ("int32", "int64"):
        # one row per regime (64 Ki and --large values) and one encode line per dtype
        assert re.search(rf"^{dtype}\s+65536\s", out, re.M), out
        assert re.search(rf"^{dtype}\s+70000\s", out, re.M), out
        assert f"encode {dtype} (70000 values): batch" in out


def test_floats_section(capsys):
    out = _run(capsys, "floats", "--n", "2048", "--repeat", "1", "--large", "70000")
    for name in ("prices_2dp", "temps_1dp_f32", "w0_double_5", "constant"):
        assert re.search(rf"^{name}\s", out, re.M), out
    assert "# large array: 70000 doubles" in out
    assert "# targets (section 4)" in out


def test_basic_section(capsys):
    out = _run(capsys, "basic", "--count", "3000", "--repeat", "1")
    for case in ("PLAIN INT64", "RLE INT32 (width 11)", "ZIGZAG INT64", "DICTIONARY TEXT"):
        assert case in out


def test_write_section(capsys):
    out = _run(capsys, "write", "--rows", "2000", "--repeat", "1", "--no-official")
    assert "ours write_arrays (numpy)" in out
    assert "ours Tablet row API" in out
    assert "official" not in out.split("\n", 1)[1].replace("vs off.", "")
    assert "one writer, threads=1 (all on the caller)" in out
    assert "threads=2 vs threads=1" in out


def test_write_section_with_the_two_process_ceiling(capsys):
    # --ceiling: the same write split between two processes started together (tsfile._bench.ceiling)
    out = _run(capsys, "write", "--rows", "2000", "--repeat", "1", "--no-official", "--ceiling")
    assert "## two cores' ceiling for this write" in out
    for label in ("two processes, half the devices each", "one process, threads=2"):
        assert re.search(rf"^  {re.escape(label)}\s+\d+\.\d+ s", out, re.M), out
    assert "(ceiling)" in out and "of the ceiling)" in out


def test_write_section_with_another_compression(capsys):
    out = _run(
        capsys, "write", "--rows", "2000", "--repeat", "1", "--no-official", "--compression", "lz4"
    )
    assert "TS_2DIFF + LZ4" in out
    assert "ours write_arrays (numpy)" in out


def test_write_section_against_another_tree(capsys):
    # --against times another build's writes in a child process (here this tree's own build)
    tree = str(Path(__file__).resolve().parent.parent)
    out = _run(
        capsys, "write", "--rows", "2000", "--repeat", "2", "--no-official", "--against", tree
    )
    name = Path(tree).name
    for label in (f"{name}: one writer, default threads", f"{name}: one writer, threads=2"):
        assert re.search(rf"^  {re.escape(label)}\s+\d+\.\d+", out, re.M), out


def test_write_against_a_tree_without_tsfile_is_refused(tmp_path):
    # a tree whose tsfile is not importable there: the child would time another tsfile (here the
    # one this tree's root holds, put on its path as an installed copy would be) under TREE's name
    tree = tmp_path / "no-tsfile-here"
    tree.mkdir()
    root = str(Path(__file__).resolve().parent.parent)
    (tree / "sitecustomize.py").write_text(f"import sys\nsys.path.append({root!r})\n")
    argv = "bench write --rows 2000 --repeat 1 --no-official --against".split() + [str(tree)]
    with pytest.raises(RuntimeError, match="not from that tree"):
        main(argv)


def test_read_section(capsys, tmp_path):
    out = _run(
        capsys,
        "read",
        "--rows",
        "5000",
        "--repeat",
        "1",
        "--row-cap",
        "500",
        "--no-official",
        "--cache-dir",
        str(tmp_path),
    )
    assert "file written by ours" in out
    assert "official" not in out
    # one line per selectivity with the row count of that time range
    for sel in (1, 10, 50, 90, 100):
        assert re.search(rf"^\s+{sel}\s+[\d,]+ \|", out, re.M), out
    assert re.search(r"^\s+100\s+5,000 \|", out, re.M), out
    assert [p.name for p in tmp_path.iterdir()] == ["e52_ours_5000.tsfile"]


def test_skip_section(capsys):
    out = _run(
        capsys,
        "skip",
        "--blocks",
        "200",
        "--kernel-values",
        "1000",
        "--rows",
        "30000",
        "--page-sizes",
        "3000,30000",
        "--repeat",
        "1",
        "--min-time",
        "0.001",
    )
    for width in (0, 4, 8, 12):
        for plan in ("off", "plan_a", "plan_c"):
            assert re.search(rf"^\s+{width}\s+{plan}\s+200\s", out, re.M), out
    assert re.search(r"^\s+batch\s", out, re.M), out
    assert re.search(r"^\s*LZ4\s+30000\s", out, re.M), out
    assert re.search(r"^\s*UNCOMP\s+30000\s", out, re.M), out


def test_filter_section(capsys):
    out = _run(
        capsys,
        "filter",
        "--devices",
        "20",
        "--device-rows",
        "50",
        "--rows",
        "2000",
        "--group-rows",
        "100",
        "--repeat",
        "1",
    )
    assert "## tag filter: 1 of 20 devices (50 of 1,000 rows)" in out
    assert "## value filter on 2,000 rows" in out
    for sel in (0.1, 1, 10, 50):
        assert re.search(rf"^random walk f0\s+{sel}\s", out, re.M), out
        assert re.search(rf"^random f7\s+{sel}\s", out, re.M), out


@pytest.mark.parametrize("threads", [None, 1])
def test_write_threads_1_starts_no_pool_thread(tmp_path, threads):
    # threads=1 (bench write's single-threaded variant): a group as large as the bench's is
    # built and written by the calling thread, no pool thread started; the default (None)
    # streams it from one pool thread (the overlap the bench measures apart). The same bytes.
    import numpy as np

    import tsfile.writer as writer_module
    from tsfile._bench.write import _schema

    schema, comp = _schema()
    n = 100_000
    ts = np.arange(n, dtype=np.int64)
    cols = {"device": "d0", **{c.column_name: ts for c in schema.columns[1:]}}
    paths = {}
    for option in (threads, 2):
        paths[option] = str(tmp_path / f"{option}.tsfile")
        with writer_module.TsFileTableWriter(
            paths[option], schema, compression=comp, threads=option
        ) as w:
            w.write_arrays(ts, cols)
        if option == threads:
            # the pool is started on first use (TsFileWriter._builders) and kept, shut down, by
            # close
            assert (w._writer._pool is not None) == (threads is None)
    with open(paths[threads], "rb") as f1, open(paths[2], "rb") as f2:
        assert f1.read() == f2.read()
