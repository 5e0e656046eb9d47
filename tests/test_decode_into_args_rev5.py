"""decode_into's argument checks after they moved to numpy's C API (_kinds.check_out_array: flag
bits and the dtype's byte-order character instead of the ``flags``/``dtype`` attributes) and page
bytes passed without a memoryview when they are ``bytes`` (_common.byte_span): the faults of the
table in tsfile/codecs/_common.pyx raise what they raised through the attributes, in every codec
with a decode_into, and threads sharing one page decode it correctly."""

import importlib
import threading

import numpy as np
import pytest

from tsfile.codecs import _registry

# every codec module with a decode_into, and a page of the first type each one stores
MODULES = [
    m
    for m in (importlib.import_module(f"tsfile.codecs.{n}") for n in _registry.CODEC_MODULES)
    if hasattr(m, "decode_into")
]


@pytest.mark.parametrize("mod", MODULES, ids=lambda m: m.__name__.rsplit(".", 1)[1])
@pytest.mark.parametrize(
    "dtype",
    [[("a", ">f8")], [("a", ">i4")], [("a", "<f8"), ("b", ">i8")], [("a", [("b", ">i4")])]],
    ids=["f8", "i4", "mixed", "nested"],
)
def test_structured_out_with_big_endian_fields_is_a_byte_order_error(mod, dtype):
    # A structured dtype's own byte-order character is '|' whatever its fields' order, so the C
    # API's PyArray_ISBYTESWAPPED passes it where dtype.isnative (the check before) did not: the
    # codecs then raised TypeError (no TsFile type decodes to it) instead of the ValueError of the
    # fault table's byte-order row, which the check raised first before
    out = np.zeros(4, dtype=dtype)
    if mod.__name__.endswith(".ts2diff"):
        # TS_2DIFF tests the type number (int32 / int64) before the shared check, as it did
        # before the C API check too
        with pytest.raises(TypeError, match="int32 or int64"):
            mod.decode_into(b"", out)
        return
    with pytest.raises(ValueError, match="native byte order"):
        mod.decode_into(b"", out)


@pytest.mark.parametrize("mod", MODULES, ids=lambda m: m.__name__.rsplit(".", 1)[1])
def test_structured_out_with_native_fields_still_a_type_error(mod):
    with pytest.raises(TypeError):
        mod.decode_into(b"", np.zeros(4, dtype=[("a", "<f8")]))


class _PosingAsArray:
    """Claims to be an ndarray through ``__class__`` (isinstance believes it) and has the
    attributes the check read: before the C API check it reached PyArray_DATA."""

    __class__ = np.ndarray
    ndim = 1
    shape = (4,)
    dtype = np.dtype(np.float64)

    class flags:  # noqa: N801 - the attribute numpy arrays have
        c_contiguous = True
        writeable = True
        aligned = True


@pytest.mark.parametrize("mod", MODULES, ids=lambda m: m.__name__.rsplit(".", 1)[1])
def test_object_posing_as_an_array_is_refused(mod):
    with pytest.raises(TypeError):
        mod.decode_into(b"", _PosingAsArray())


@pytest.mark.parametrize("codec", ["alp", "gorilla", "ts2diff"])
def test_threads_decode_one_bytes_page_into_their_own_arrays(codec):
    # byte_span hands out the bytes object's own buffer: every thread reads the same memory
    mod = importlib.import_module(f"tsfile.codecs.{codec}")
    rng = np.random.default_rng(7)
    n = 200_000
    if codec == "alp":
        values = np.round(np.cumsum(rng.normal(size=n)) * 100) / 100
    else:
        values = np.cumsum(rng.integers(-1000, 1000, n)).astype(np.int64)
    page = mod.encode(values)
    want = values.tobytes()
    ok = {}

    def work(k):
        results = []
        for rep in range(3):
            m = n - 17 * k - rep  # each thread and turn its own length
            out = np.empty(m, values.dtype)
            mod.decode_into(page, out)
            results.append(out.tobytes() == want[: m * values.itemsize])
        ok[k] = all(results)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert ok == {k: True for k in range(8)}


@pytest.mark.parametrize("codec", ["alp", "gorilla", "ts2diff"])
def test_bytearray_cannot_be_resized_while_it_is_decoded(codec):
    # the view byte_span returns for a non-bytes page holds the export: a resize from another
    # thread during the decode (the GIL released) fails instead of freeing the bytes under it
    mod = importlib.import_module(f"tsfile.codecs.{codec}")
    rng = np.random.default_rng(8)
    n = 1_000_000
    values = np.cumsum(rng.integers(-1000, 1000, n)).astype(np.int64)
    if codec == "alp":
        values = values / 100
    page = bytearray(mod.encode(values))
    out = np.empty(n, values.dtype)
    started = threading.Event()
    seen = []

    def decode():
        started.set()
        for _ in range(20):
            mod.decode_into(page, out, path="per_value")

    def resize():
        started.wait()
        while worker.is_alive() and not seen:
            try:
                page.extend(bytes(64))
                del page[-64:]
            except BufferError as e:
                seen.append(e)

    worker = threading.Thread(target=decode)
    other = threading.Thread(target=resize)
    worker.start()
    other.start()
    worker.join()
    other.join()
    assert seen, "no resize was attempted during a decode"
    assert out.tobytes() == values.tobytes()
