"""Several files by fsspec URL, attacked: the same results as the local files for every way of
naming them (a directory with and without its slash, a recursive glob, a list, a tuple,
``file://``, lists mixing local paths and URLs), one file read once whatever its spellings,
files whose names hold glob characters, the errors of URLs that cannot be read (each the
package's, naming the URL), damaged files among URL files, dask over URLs, an S3 prefix on
moto's server (rows, bytes on the wire, files written after a first read) and the counting
file system of the benchmark (its modes and its counters under threads)."""

from __future__ import annotations

import sys
import threading
import warnings

import numpy as np
import pytest
from s3_moto import filesystem, serve, use_server

import tsfile
from tsfile import ColumnCategory, ColumnSchema, TableSchema, TSDataType, TsFileTableWriter

fsspec = pytest.importorskip("fsspec")

# (relative name, first time, with the column x): nested directories, a file lacking x
FILES = [
    ("a.tsfile", 0, True),
    ("sub/b.tsfile", 1000, False),
    ("sub/deeper/c.tsfile", 2000, True),
    ("z.tsfile", 3000, True),
]
ROWS = 400


def _schema(with_x):
    cols = [
        ColumnSchema("dev", TSDataType.STRING, ColumnCategory.TAG),
        ColumnSchema("site", TSDataType.STRING, ColumnCategory.TAG),
        ColumnSchema("v", TSDataType.INT64, ColumnCategory.FIELD),
    ]
    if with_x:
        cols.append(ColumnSchema("x", TSDataType.DOUBLE, ColumnCategory.FIELD))
    return TableSchema("t", cols)


@pytest.fixture(scope="module")
def local_dir(tmp_path_factory):
    """FILES on disk (three devices each, split by time) and a text file beside them."""
    d = tmp_path_factory.mktemp("urls_rev3")
    rng = np.random.default_rng(3)
    for name, t0, with_x in FILES:
        (d / name).parent.mkdir(parents=True, exist_ok=True)
        with TsFileTableWriter(str(d / name), _schema(with_x)) as w:
            for dev in range(3):
                cols = {
                    "dev": np.array([f"d{dev}"] * ROWS, dtype=object),
                    "site": np.array([f"s{dev % 2}"] * ROWS, dtype=object),
                    "v": rng.integers(0, 100, ROWS),
                }
                if with_x:
                    cols["x"] = rng.normal(size=ROWS)
                w.write_arrays(np.arange(t0, t0 + ROWS, dtype=np.int64), cols)
    (d / "notes.txt").write_text("not a tsfile")
    return d


@pytest.fixture(scope="module")
def mem(local_dir):
    """The same files under memory://rev3/ (and the text file)."""
    fs = fsspec.filesystem("memory")
    for p in local_dir.rglob("*"):
        if p.is_file():
            fs.pipe(f"/rev3/{p.relative_to(local_dir).as_posix()}", p.read_bytes())
    yield "memory://rev3"
    fs.rm("/rev3", recursive=True)


def _forms(local_dir, mem):
    names = [n for n, _t, _x in FILES]
    return {
        "directory": mem + "/",
        "directory without slash": mem,
        "recursive glob": mem + "/**/*.tsfile",
        "list": [f"{mem}/{n}" for n in names],
        "tuple": tuple(f"{mem}/{n}" for n in names),
        "file:// directory": f"file://{local_dir}",
        "mixed list": [
            str(local_dir / names[0]),
            f"{mem}/{names[1]}",
            f"file://{local_dir / names[2]}",
            f"{mem}/{names[3]}",
        ],
    }


QUERIES = [
    {},
    {"column_names": ["x", "dev"]},
    {"start_time": 900, "end_time": 2100},  # prunes a.tsfile and z.tsfile
    {"tag_filter": tsfile.tag_eq("site", "s0"), "column_names": ["v", "site"]},
    {"value_filter": tsfile.col("x") > 0},  # b.tsfile lacks x: its rows are null there
    {"start_time": 10**9},  # no file meets it
]


def _same(a, b):
    if isinstance(a, dict):
        assert list(a) == list(b)
        for k in a:
            assert type(a[k]) is type(b[k]), k
            assert np.array_equal(np.ma.getdata(a[k]), np.ma.getdata(b[k])), k
            assert np.array_equal(np.ma.getmaskarray(a[k]), np.ma.getmaskarray(b[k])), k
    else:
        assert a.equals(b)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("fn", ["read_table", "to_dataframe", "read_arrow"])
def test_every_form_of_url_reads_what_the_local_files_read(local_dir, mem, fn, threads):
    read = getattr(tsfile, fn)
    for q in QUERIES:
        want = read(str(local_dir), "t", schema="union", threads=threads, **q)
        for form, paths in _forms(local_dir, mem).items():
            got = read(paths, "t", schema="union", threads=threads, **q)
            try:
                _same(want, got)
            except AssertionError as exc:
                raise AssertionError(f"{fn} {q} {form}: {exc}") from None


def test_the_scanner_over_urls(local_dir, mem):
    import pyarrow as pa

    q = {"start_time": 900, "end_time": 2100, "schema": "union"}
    want = tsfile.Scanner(str(local_dir), "t", **q)
    got = tsfile.Scanner(mem + "/", "t", **q)
    assert len(got.files) == len(want.files) == 2 and len(got.pruned) == 2
    assert got.to_arrow().equals(want.to_arrow())
    batches = pa.Table.from_batches(list(tsfile.Scanner(mem, "t", **q).to_batches()))
    assert batches.equals(want.to_arrow())


def test_the_spellings_of_one_file_read_it_once(local_dir, mem):
    # a listing spells memory files memory:///rev3/..., a user memory://rev3/...; a file:// URL
    # and the local path are one file: each file's rows were repeated once per spelling
    one = f"{mem}/a.tsfile"
    got = tsfile.read_table([one, one.replace("://", ":///"), mem + "/"], "t", schema="union")
    _same(got, tsfile.read_table(str(local_dir), "t", schema="union"))
    local = str(local_dir / "a.tsfile")
    got = tsfile.to_dataframe([f"file://{local}", local], "t")
    assert got.equals(tsfile.to_dataframe(local, "t"))


def test_a_url_file_whose_name_holds_glob_characters(local_dir, tmp_path):
    # a local path of such a file reads it; its URL was taken for a glob matching nothing
    data = (local_dir / "a.tsfile").read_bytes()
    fs = fsspec.filesystem("memory")
    fs.pipe("/rev3glob/a[1].tsfile", data)
    (tmp_path / "a[1].tsfile").write_bytes(data)
    want = tsfile.read_table(str(local_dir / "a.tsfile"), "t")
    try:
        for paths in (
            "memory://rev3glob/a[1].tsfile",
            ["memory://rev3glob/a[1].tsfile"],
            f"file://{tmp_path}/a[1].tsfile",
        ):
            _same(tsfile.read_table(paths, "t"), want)
    finally:
        fs.rm("/rev3glob", recursive=True)


@pytest.mark.parametrize(
    "paths",
    ["rev3nope://x/y.tsfile", ["rev3nope://x/y.tsfile"], "rev3nope://x/*.tsfile", "rev3nope://x/"],
)
def test_an_unknown_protocol_is_an_invalid_path_naming_the_url(paths):
    with pytest.raises(tsfile.InvalidPathError, match="rev3nope://x/.*Protocol not known") as e:
        tsfile.read_table(paths, "t")
    assert isinstance(e.value, ValueError)  # what fsspec raised, and it still is one
    with pytest.raises(tsfile.InvalidPathError, match="rev3nope://"):
        tsfile.TsFileReader("rev3nope://x/y.tsfile")


def test_a_protocol_whose_package_is_missing_names_the_url():
    from fsspec.registry import known_implementations

    protocol = next(
        (
            p
            for p in ("gcs", "abfs", "oci", "webhdfs", "hf")
            if p in known_implementations and not _importable(p)
        ),
        None,
    )
    if protocol is None:
        pytest.skip("every candidate protocol's package is installed")
    for paths in (f"{protocol}://bucket/dir/", [f"{protocol}://bucket/x.tsfile"]):
        with pytest.raises(tsfile.MissingDependencyError, match=f"{protocol}://bucket/") as e:
            tsfile.read_table(paths, "t")
        assert isinstance(e.value, ImportError) and isinstance(e.value, tsfile.TsFileError)


def _importable(protocol):
    from fsspec.registry import get_filesystem_class

    try:
        get_filesystem_class(protocol)
    except ImportError:
        return False
    return True


def test_without_fsspec_a_url_is_a_missing_dependency_naming_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "fsspec", None)  # import fsspec raises ImportError
    for paths in ("memory://rev3/", ["memory://rev3/a.tsfile"], "memory://rev3/*.tsfile"):
        with pytest.raises(tsfile.MissingDependencyError, match="memory://rev3.*needs fsspec"):
            tsfile.read_table(paths, "t")
    with pytest.raises(ImportError, match="needs fsspec"):
        tsfile.TsFileReader("memory://rev3/a.tsfile")


class _FailingFS(fsspec.AbstractFileSystem):
    """A file system whose every listing fails as a network does."""

    protocol = "rev3down"

    def _fail(self, *args, **kwargs):
        raise ConnectionRefusedError(111, "Connection refused")

    isdir = isfile = glob = find = info = ls = _fail


def test_a_file_system_failing_to_list_is_a_file_open_error_naming_the_url():
    fsspec.register_implementation("rev3down", _FailingFS, clobber=True)
    for paths in (["rev3down://host/x.tsfile"], "rev3down://host/*.tsfile"):
        with pytest.raises(tsfile.FileOpenError, match="rev3down://host/.*Connection refused"):
            tsfile.read_table(paths, "t")


def test_urls_that_name_nothing(mem):
    fs = fsspec.filesystem("memory")
    fs.mkdir("/rev3empty")
    cases = {
        "memory://rev3empty/": "no .tsfile files in directory",
        "memory://rev3empty": "no .tsfile files in directory",
        f"{mem}/su*": "no file matches",  # matches the directory sub only
        f"{mem}/nothing*.tsfile": "no file matches",
    }
    for url, what in cases.items():
        with pytest.raises(tsfile.TsFileNotFoundError, match=what) as e:
            tsfile.read_table(url, "t")
        assert e.value.filename == url and str(e.value).count("Errno") == 1
    with pytest.raises(tsfile.TsFileNotFoundError, match="rev3/gone.tsfile"):
        tsfile.read_table([f"{mem}/a.tsfile", f"{mem}/gone.tsfile"], "t")


def test_damaged_files_among_url_files(local_dir, mem):
    fs = fsspec.filesystem("memory")
    good = (local_dir / "a.tsfile").read_bytes()
    for name, data in {
        "a.tsfile": good,
        "half.tsfile": good[: len(good) // 2],
        "empty.tsfile": b"",
        "text.tsfile": b"not a tsfile at all " * 20,
        "tail.tsfile": good[:-3],
    }.items():
        fs.pipe(f"/rev3bad/{name}", data)
    try:
        want = tsfile.to_dataframe(str(local_dir / "a.tsfile"), "t")
        for fn in (tsfile.to_dataframe, tsfile.read_arrow):
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                got = fn("memory://rev3bad/", "t", on_error="skip", threads=2)
            left_out = sorted(str(x.message).split(": ")[1] for x in w)
            assert left_out == [
                f"memory:///rev3bad/{n}.tsfile" for n in ("empty", "half", "tail", "text")
            ]
            assert (got if fn is tsfile.to_dataframe else got.to_pandas()).shape == want.shape
            with pytest.raises(tsfile.CorruptDataError, match="memory:///rev3bad/empty.tsfile"):
                fn("memory://rev3bad/", "t")
    finally:
        fs.rm("/rev3bad", recursive=True)


def test_the_dataset_view_refuses_a_url_in_a_mixed_list(local_dir, mem):
    with pytest.raises(tsfile.NotSupportedError, match="reads local files"):
        tsfile.TsFileDataFrame([str(local_dir / "a.tsfile"), f"{mem}/z.tsfile"])


def test_dask_reads_urls(local_dir, mem):
    dask = pytest.importorskip("dask")
    pytest.importorskip("dask.dataframe")
    from tsfile.dask import read_tsfile

    with dask.config.set(scheduler="threads"):
        for kw in ({}, {"start_time": 900, "end_time": 2100}, {"partition_rows": 500}):
            want = read_tsfile(str(local_dir), "t", schema="union", **kw).compute()
            for paths in (mem + "/", mem + "/**/*.tsfile", f"file://{local_dir}"):
                assert read_tsfile(paths, "t", schema="union", **kw).compute().equals(want)


# -- S3 on moto's server ------------------------------------------------------------------------


S3_FILES, S3_GROUPS, S3_ROWS = 6, 20, 2_000


@pytest.fixture(scope="module")
def s3(tmp_path_factory):
    """(endpoint, counting app, local directory, file system) of a moto S3 server on 127.0.0.1
    (tests/s3_moto.py) whose bucket holds, under split/, S3_FILES files of one table split by
    time."""
    with serve() as (endpoint, app):
        d = tmp_path_factory.mktemp("s3_split")
        schema = TableSchema(
            "t",
            [
                ColumnSchema("dev", TSDataType.STRING, ColumnCategory.TAG),
                ColumnSchema("v", TSDataType.INT64, ColumnCategory.FIELD),
            ],
        )
        rng = np.random.default_rng(8)
        for k in range(S3_FILES):
            with TsFileTableWriter(str(d / f"part{k}.tsfile"), schema) as w:
                for g in range(S3_GROUPS):
                    t0 = (k * S3_GROUPS + g) * S3_ROWS
                    t = np.arange(t0, t0 + S3_ROWS, dtype=np.int64)
                    w.write_arrays(t, {"dev": "d1", "v": rng.integers(-(10**12), 10**12, t.size)})
                    w.flush()
        fs = filesystem(endpoint)
        fs.call_s3("create_bucket", Bucket="rev3")
        for p in sorted(d.glob("*.tsfile")):
            fs.pipe(f"rev3/split/{p.name}", p.read_bytes())
        yield endpoint, app, d, fs


@pytest.fixture
def s3_conf(s3, monkeypatch):
    # instances cached as by default: the listing cache of one instance is what a long-lived
    # process reading a growing prefix has
    use_server(monkeypatch, s3[0], instance_cache=True)
    return s3


def test_an_s3_prefix_reads_what_the_local_files_read(s3_conf):
    _endpoint, app, d, _fs = s3_conf
    want = tsfile.to_dataframe(str(d), "t")
    for paths in ("s3://rev3/split/", "s3://rev3/split", "s3://rev3/split/part*.tsfile"):
        assert tsfile.to_dataframe(paths, "t").equals(want)
    total = sum(p.stat().st_size for p in d.glob("*.tsfile"))
    span = S3_FILES * S3_GROUPS * S3_ROWS
    lo = span // 2 + 100
    hi = lo + span // 100 - 1
    app.reset()
    got = tsfile.to_dataframe("s3://rev3/split/", "t", start_time=lo, end_time=hi)
    assert got.equals(want[(want["time"] >= lo) & (want["time"] <= hi)].reset_index(drop=True))
    # every file's tail and index, and the chunks of the range: far from the whole files
    assert app.bytes_sent < total * 0.15, (app.bytes_sent, total)
    print(f"s3 prefix, 1 % range: {app.bytes_sent:,} of {total:,} bytes on the wire")


def test_an_s3_prefix_read_again_sees_the_files_written_since(s3_conf):
    _endpoint, _app, d, fs = s3_conf
    data = (d / "part0.tsfile").read_bytes()
    fs.pipe("rev3/grow/p0.tsfile", data)
    try:
        one = len(tsfile.read_table("s3://rev3/grow/", "t")["time"])
        fs.pipe("rev3/grow/p1.tsfile", (d / "part1.tsfile").read_bytes())  # another client
        # the listing cached by the first read lacked p1: it was left out, or found and then
        # "not found" when opened
        assert len(tsfile.read_table("s3://rev3/grow/", "t")["time"]) == 2 * one
        assert len(tsfile.read_table("s3://rev3/grow/*.tsfile", "t")["time"]) == 2 * one
        # one file written after the directory was listed, read by its own URL: the opening
        # answered from the cached listing ("not found")
        fs.pipe("rev3/grow/p2.tsfile", (d / "part2.tsfile").read_bytes())
        assert len(tsfile.read_table("s3://rev3/grow/p2.tsfile", "t")["time"]) == one
    finally:
        fs.rm("rev3/grow", recursive=True)


# -- the counting file system --------------------------------------------------------------------


def test_the_counting_file_system_modes_and_counters(tmp_path):
    from tsfile._bench.counting_fs import CountingFileSystem, register

    register()
    fs = fsspec.filesystem("counting")
    path = tmp_path / "f.bin"
    path.write_bytes(b"0123456789" * 100)
    # writing through it wrote nothing and lost the file: "wb" truncated it, then the file it
    # returned had no write
    with fs.open(f"counting://{path}", "ab") as f:
        f.write(b"!")
    assert path.read_bytes()[-1:] == b"!"
    fs.pipe_file(f"counting://{tmp_path / 'g.bin'}", b"abc")
    assert (tmp_path / "g.bin").read_bytes() == b"abc"
    with fs.open(f"counting://{path}", "r") as f:  # text mode: a TextIOWrapper over "rb"
        assert f.read(4) == "0123"
    CountingFileSystem.reset()
    assert CountingFileSystem.bytes_read == CountingFileSystem.reads == 0

    def work():
        for _ in range(300):
            with fs.open(f"counting://{path}", "rb") as f:
                f.seek(5)
                f.read(3)
                f.readinto(bytearray(2))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert CountingFileSystem.bytes_read == 4 * 300 * 5
    assert CountingFileSystem.reads == 4 * 300 * 2
    CountingFileSystem.reset()
    assert CountingFileSystem.bytes_read == 0


def test_the_remote_benchmark_part_runs_small(tmp_path, capsys):
    # --small: the middle 1 % of the span falls between two files' times; the check compared
    # the empty result (a frame without columns, as one file's is) with the whole read filtered
    from tsfile._bench.dataset import main

    main(["--small", "--parts", "remote", "--dir", str(tmp_path)])
    assert "read as remote files (counting://" in capsys.readouterr().out


def test_the_dataset_view_refuses_a_url_before_listing_it():
    # it listed the URL first: a remote prefix's whole listing only to refuse it, and an
    # unreachable host's listing error instead of this one
    fsspec.register_implementation("rev3down", _FailingFS, clobber=True)
    for paths in ("rev3down://host/", ["rev3down://host/x.tsfile"]):
        with pytest.raises(tsfile.NotSupportedError, match="reads local files, not rev3down"):
            tsfile.TsFileDataFrame(paths, show_progress=False)
