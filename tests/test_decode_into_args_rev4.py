"""decode_into's argument handling after b63e294 (_kinds.check_out_array by numpy's C API flag
bits, _common.byte_span: the page bytes without a memoryview when they are exactly ``bytes``).

- An ``out`` of a structured dtype with a field in non-native byte order was the fault table's
  ValueError ("native byte order": dtype.isnative looks at the fields) and became a TypeError:
  the descriptor's own byte order is '|' whatever its fields' are.
- TS_2DIFF decode_into refused an int64 array whose type number is NPY_LONGLONG (np.longlong,
  dtype 'q') with "out must be int32 or int64, not int64" (it compared the type number with
  NPY_INT64 = NPY_LONG only); every other codec takes it.
- The bytes a decode reads stay held while it runs with the GIL released: an mmap cannot be
  closed nor a bytearray resized under it, and threads decoding the same bytes into their own
  arrays agree. Every kind of page bytes decodes as ``bytes`` does.
"""

import importlib
import mmap
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

from tsfile.codecs import _registry, alp, gorilla, ts2diff

NUMERIC = [r for r in _registry.rows() if r.kind != "binary"]
ROOT = Path(__file__).resolve().parent.parent


def _module(row):
    return importlib.import_module(f"tsfile.codecs.{row.module}")


def _page(row, n=40):
    rng = np.random.default_rng(row.encoding)
    if row.kind == "bool":
        values = rng.integers(0, 2, n).astype(bool)
    elif row.kind in ("int32", "int64"):
        values = np.cumsum(rng.integers(-40, 40, n)).astype(row.dtype)
    else:
        values = (np.round(np.cumsum(rng.normal(size=n)) * 100) / 100).astype(row.dtype)
    return _registry.encode(row.encoding, values, row.dtype), values


# TS_2DIFF INT32/INT64 test the dtype before the layout (before b63e294 too): a structured out
# is its TypeError there
@pytest.mark.parametrize(
    "row", [r for r in NUMERIC if r.module != "ts2diff" or r.kind.startswith("float")], ids=repr
)
def test_structured_out_with_a_swapped_field_is_the_byte_order_value_error(row):
    page, values = _page(row)
    dtypes = [np.dtype([("a", "<i4"), ("b", ">i4")])]
    if row.kind != "bool":
        dtypes.append(np.dtype([("a", np.dtype(row.dtype).newbyteorder())]))
    for dt in dtypes:
        with pytest.raises(ValueError, match="native byte order"):
            _module(row).decode_into(page, np.zeros(len(values), dt))
    # all fields native: still the TypeError of a dtype no value type decodes to
    with pytest.raises(TypeError):
        _module(row).decode_into(page, np.zeros(len(values), [("a", row.dtype)]))


@pytest.mark.parametrize("dtype", [np.longlong, "q", np.int64, "l", np.intc, "i"])
def test_ts2diff_decode_into_takes_every_type_number_of_int32_and_int64(dtype):
    out = np.zeros(300, dtype)
    values = np.cumsum(np.random.default_rng(3).integers(-99, 99, 300)).astype(out.dtype)
    page = ts2diff.encode(values)
    assert ts2diff.decode_into(page, out) == len(page)
    assert out.tolist() == values.tolist()
    assert ts2diff.decode(page, dtype).tolist() == values.tolist()


# (threads decoding one page, and a bytearray resized under a decode: test_decode_into_args_rev5)


_CLOSE_UNDER_A_DECODE = """
import mmap, sys, tempfile, threading
import numpy as np
from tsfile.codecs import alp, gorilla, ts2diff

rng = np.random.default_rng(7)
floats = np.round(np.cumsum(rng.normal(size=400_000)) * 100) / 100
ints = np.cumsum(rng.integers(-1000, 1000, 400_000)).astype(np.int64)
mod, want = {"alp": (alp, floats), "gorilla": (gorilla, floats), "ts2diff": (ts2diff, ints)}[
    sys.argv[1]
]
page = bytes(mod.encode(want))
f = tempfile.TemporaryFile()
f.write(page)
f.flush()
refused = 0
for _ in range(6):
    m = mmap.mmap(f.fileno(), len(page), access=mmap.ACCESS_READ)
    go, stop = threading.Event(), threading.Event()

    def close():
        global refused
        go.wait()
        while not stop.is_set():
            try:
                m.close()
                return
            except BufferError:
                refused += 1

    t = threading.Thread(target=close)
    t.start()
    out = np.empty(len(want), want.dtype)
    try:
        for _ in range(3):
            go.set()
            mod.decode_into(m, out)
            assert out.tobytes() == want.tobytes()
    except ValueError:  # closed between two decodes: "mmap closed or invalid"
        pass
    finally:
        stop.set()
        t.join()
print("REFUSED", refused)
"""


@pytest.mark.parametrize("name", ["alp", "gorilla", "ts2diff"])
def test_an_mmap_is_not_closed_under_a_decode(name):
    # the decode runs without the GIL while another thread tries to close the mmap it reads: the
    # buffer it holds refuses the close (BufferError) until it returns. Had byte_span let go of
    # the view before the decode (returning `data`, not the view), the close unmaps the pages
    # under it: the child dies of SIGSEGV (seen with that change, every codec)
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    r = subprocess.run(
        [sys.executable, "-c", _CLOSE_UNDER_A_DECODE, name],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=str(ROOT),
        env=env,
    )
    assert r.returncode == 0, f"child died (rc {r.returncode}): {r.stderr[-400:]}"
    # the close must have raced a decode at least once, or the test saw nothing
    assert int(r.stdout.split()[-1]) > 0, r.stdout


def _data_kinds(page):
    class Sub(bytes):
        pass

    f = tempfile.TemporaryFile()
    f.write(page)
    f.flush()
    u8 = np.frombuffer(page, np.uint8)
    return {
        "bytes": page,
        "bytes subclass": Sub(page),
        "bytearray": bytearray(page),
        "memoryview": memoryview(page),
        "memoryview of every other byte": memoryview(np.repeat(u8, 2))[::2],
        "memoryview, format i": memoryview(page + bytes(-len(page) % 4)).cast("i"),
        "uint8 array": u8,
        "int8 array": u8.view(np.int8),
        "uint8 strided": np.repeat(u8, 2)[::2],
        "mmap": mmap.mmap(f.fileno(), len(page), access=mmap.ACCESS_READ),
    }


@pytest.mark.parametrize("mod", [alp, gorilla, ts2diff], ids=lambda m: m.__name__)
def test_every_kind_of_page_bytes(mod):
    values = np.round(np.cumsum(np.random.default_rng(5).normal(size=100)) * 100) / 100
    if mod is ts2diff:
        values = (values * 100).astype(np.int64)
    page = bytes(mod.encode(values))
    for name, data in _data_kinds(page).items():
        out = np.zeros(len(values), values.dtype)
        assert mod.decode_into(data, out) > 0, name
        assert out.tobytes() == values.tobytes(), name
    for bad, cls in [("text", TypeError), (None, TypeError), (np.zeros(3, np.int16), TypeError)]:
        with pytest.raises(cls):
            mod.decode_into(bad, np.zeros(3, values.dtype))
    for empty in (b"", bytearray(), memoryview(b"")):
        assert mod.decode_into(empty, np.zeros(0, values.dtype)) == 0
