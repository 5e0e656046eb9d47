"""Decompression is bounded by the page header, and the page header by the stored bytes.

A page header's uncompressed size is a claim read from the file. The reader must check it against
what the page's stored bytes can really decode to (per codec: tsfile.compression.MAX_EXPANSION and
the sizes the streams state) before it allocates anything, bound every decompressor's output by it,
and report a stream that decodes to another size as a CorruptDataError naming the page's offset.
A legitimate large page must cost about one copy of its output in memory, not two.

Hostile pages are put inside a real file (the official fixture tree_nonaligned: its first chunk's
first page is replaced, the rest of the chunk's bytes become empty pages) and read by
tests/differential/hostile.py's child process, under its 1 GiB address-space cap: an allocation
sized from a hostile header shows up as a MemoryError there, not as an OOM of the test run.
Memory of legitimate large pages is measured (the child's peak RSS, VmHWM) in a child process too.
"""

from __future__ import annotations

import json
import lzma
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest
from differential import hostile
from interop.chunk_scan import _Buf, _skip_statistics, scan_chunks

from tsfile import CorruptDataError
from tsfile import compression as C
from tsfile.types import Compressor

HERE = Path(__file__).resolve().parent
BASE = HERE / "fixtures" / "official" / "tree_nonaligned.tsfile"
HUGE = 0xFFFFFFFF  # the largest uncompressed size a page header can state (uvarint32)
PAYLOAD = bytes(range(256)) * 8  # 2 KiB that every codec compresses a little


def _uvarint(v: int) -> bytes:
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


# ------------------------------------------------------------------------------------------------
# hand-made ZSTD frames (RFC 8878 section 3.1.1) and .xz streams


def _zstd_rle_frame(size: int, content_size: int | None = None, byte: int = 0) -> bytes:
    """A frame of RLE blocks (4 bytes each for up to 128 KiB) producing `size` bytes; its
    header states `content_size` (default: `size`) in 8 bytes, single segment."""
    out = bytearray(b"\x28\xb5\x2f\xfd\xe0")  # magic, FHD: 8-byte content size, single segment
    out += struct.pack("<Q", size if content_size is None else content_size)
    left = size
    while True:
        n = min(left, 128 << 10)
        left -= n
        out += struct.pack("<I", (n << 3) | (1 << 1) | (left == 0))[:3] + bytes([byte])
        if left == 0:
            return bytes(out)


def _xz_with_dict(data: bytes, dict_code: int) -> bytes:
    """An .xz stream of `data` whose block header names dictionary size code `dict_code` (40 =
    4 GiB - 1): a valid stream (CRC32 of the header fixed) that asks the decoder for that much."""
    x = bytearray(lzma.compress(data, format=lzma.FORMAT_XZ, preset=0))
    size = (x[12] + 1) * 4
    header = x[12 : 12 + size]
    at = header.index(b"\x21\x01", 2) + 2  # filter LZMA2, 1 property byte: the dictionary size
    header[at] = dict_code
    header[-4:] = struct.pack("<I", zlib.crc32(bytes(header[:-4])))
    x[12 : 12 + size] = header
    return bytes(x)


# ------------------------------------------------------------------------------------------------
# a hostile page inside a real file


def _first_page(data: bytes) -> dict:
    """Layout of the first page of the file's first chunk (multi-page, INT64, uncompressed)."""
    chunk = scan_chunks(data)[0]
    assert chunk["kind"] == "nonaligned" and chunk["pages"] > 1, chunk
    b = _Buf(data, chunk["offset"] + 1)  # marker, measurement, data size, type, compression, enc
    b.varstr()
    b.uvarint()
    comp_at = b.p + 1
    page_at = b.p + 3
    b.skip(3)
    b.uvarint()
    csize = b.uvarint()
    stats_at = b.p
    _skip_statistics(b, chunk["type"])
    return {
        "comp_at": comp_at,
        "page_at": page_at,
        "stats": data[stats_at : b.p],
        "raw": data[b.p : b.p + csize],  # the chunk is UNCOMPRESSED: the page's own bytes
        "end": page_at + chunk["data_size"],
    }


def hostile_file(path: Path, compression, usize: int, body: bytes) -> tuple[Path, int, int]:
    """Write BASE with its first page replaced by one of `compression` whose header states
    `usize` and whose stored body is `body`; the chunk's remaining bytes become empty pages (a
    single 0x00 each). Returns (path, page offset, body offset)."""
    data = bytearray(BASE.read_bytes())
    pg = _first_page(bytes(data))
    page = _uvarint(usize) + _uvarint(len(body)) + pg["stats"]
    body_at = pg["page_at"] + len(page)
    page += body
    room = pg["end"] - pg["page_at"]
    assert len(page) <= room, (len(page), room)
    data[pg["comp_at"]] = int(compression)
    data[pg["page_at"] : pg["end"]] = page + bytes(room - len(page))
    path.write_bytes(bytes(data))
    return path, pg["page_at"], body_at


def _hostile_cases():
    """(id, compression, stated uncompressed size, stored body)."""
    cases = []
    for code in C.SUPPORTED:
        stored = C.compress(code, PAYLOAD)
        n = len(PAYLOAD)
        # a header claiming 4 GiB for a small valid stream
        cases.append((f"{code.name}-claims-4GiB", code, HUGE, stored))
        if code != Compressor.UNCOMPRESSED:
            # the stream yields one byte more / fewer than the header says
            cases.append((f"{code.name}-stream-longer", code, n - 1, stored))
            cases.append((f"{code.name}-stream-shorter", code, n + 1, stored))
    # 3 GiB from 7000 incompressible bytes: within LZMA2's MAX_EXPANSION (so only its growing
    # output protects it), beyond ZSTD's frame; a reader that sizes its buffer from the header
    # alone hits the child's 1 GiB address-space cap
    noise = np.random.default_rng(7).integers(0, 256, 7000, dtype=np.uint8).tobytes()
    for code in (Compressor.ZSTD, Compressor.LZMA2):
        cases.append((f"{code.name}-claims-3GiB", code, 3 << 30, C.compress(code, noise)))
    # ZSTD: the frame's stated content size differs from the header; bytes after the frame
    cases.append(("ZSTD-content-size", Compressor.ZSTD, 4 << 20, _zstd_rle_frame(4 << 20, 5)))
    two = C.compress(Compressor.ZSTD, PAYLOAD)
    cases.append(("ZSTD-two-frames", Compressor.ZSTD, len(PAYLOAD), two + two))
    # LZMA2: a stream whose header asks for a 4 GiB dictionary (liblzma allocates it up front)
    big_dict = _xz_with_dict(PAYLOAD, 40)
    cases.append(("LZMA2-4GiB-dictionary", Compressor.LZMA2, len(PAYLOAD), big_dict))
    # GZIP: gzip's trailer states the size (ISIZE); data after the member
    gz = C.compress(Compressor.GZIP, PAYLOAD)
    cases.append(("GZIP-isize", Compressor.GZIP, len(PAYLOAD), gz[:-4] + b"\0\0\0\0"))
    cases.append(("GZIP-two-members", Compressor.GZIP, 2 * len(PAYLOAD), gz + gz))
    return cases


HOSTILE = _hostile_cases()


@pytest.fixture(scope="module")
def hostile_reads(tmp_path_factory):
    """{case id: (hostile.py child result, page offset, body offset, expansion bound)}."""
    d = tmp_path_factory.mktemp("hostile-pages")
    files = {}
    for case_id, code, usize, body in HOSTILE:
        files[case_id] = hostile_file(d / f"{case_id}.tsfile", code, usize, body)
    results = hostile.run_children([str(p) for p, _, _ in files.values()])
    return {
        case_id: (results[str(p)], page_at, body_at, len(HOSTILE[i][3]))
        for i, (case_id, (p, page_at, body_at)) in enumerate(files.items())
    }


@pytest.mark.parametrize("case", HOSTILE, ids=[c[0] for c in HOSTILE])
def test_hostile_page_is_corrupt_data_naming_its_offset(hostile_reads, case):
    case_id, code, usize, body = case
    res, page_at, body_at, _ = hostile_reads[case_id]
    assert res["result"] == "error" and res["type"] == "CorruptDataError", res
    assert "MemoryError" not in res["msg"], res  # an allocation that failed is not the finding
    # the page header's own check (size impossible for the stored bytes) names the page; a
    # stream that does not decode to the stated size names the page's body
    impossible = usize > len(body) * C.MAX_EXPANSION[int(code)] + 64
    at = page_at if impossible else body_at
    assert f"file offset {at}" in res["msg"], (at, res)
    if not impossible:
        assert code.name in res["msg"], res


def test_honest_page_put_in_the_same_way_reads(tmp_path):
    """The first page's own bytes, compressed with each codec and put into the file as above,
    read back: the hostile cases fail because of their page, not because of how it was put in."""
    raw = _first_page(BASE.read_bytes())["raw"]
    paths = []
    for code in C.SUPPORTED:
        path, _, _ = hostile_file(
            tmp_path / f"{code.name}.tsfile", code, len(raw), C.compress(code, raw)
        )
        paths.append(str(path))
    results = hostile.run_children(paths)
    assert all(r["result"] == "read" for r in results.values()), results


# ------------------------------------------------------------------------------------------------
# the expansion bounds are true (a maximally compressible page still reads)


@pytest.mark.parametrize("code", C.SUPPORTED[1:], ids=lambda c: c.name)
def test_zeros_stay_within_max_expansion(code):
    """16 MiB of zeros, about the best case of every codec, is within MAX_EXPANSION (+64, the
    page reader's allowance for headers) and decompresses."""
    raw = bytes(16 << 20)
    stored = C.compress(code, raw)
    assert len(raw) <= len(stored) * C.MAX_EXPANSION[int(code)] + 64, len(stored)
    C.check_size(code, stored, len(raw))
    assert C.decompress(code, stored, len(raw)) == raw


def test_zstd_rle_blocks_reach_the_bound_exactly():
    frame = _zstd_rle_frame(1 << 20)  # 8 RLE blocks of 4 bytes, 128 KiB each
    assert C.decompress(Compressor.ZSTD, frame, 1 << 20) == bytes(1 << 20)


@pytest.mark.parametrize(
    "frame, why",
    [
        (_zstd_rle_frame(1 << 20)[:-4], "truncated"),
        (_zstd_rle_frame(1 << 20) + b"\0", "after the frame"),
        (_zstd_rle_frame(1 << 20, content_size=(1 << 20) + 1), "the frame says"),
        (b"\x28\xb5\x2f\xfd\x08" + bytes(8), "reserved bit"),
        (b"\x00" * 12, "magic"),
    ],
    ids=["truncated", "trailing", "content-size", "reserved", "magic"],
)
def test_zstd_frame_walk_rejects_before_decoding(frame, why):
    with pytest.raises(CorruptDataError, match=why):
        C.check_size(Compressor.ZSTD, frame, min(1 << 20, 32768 * len(frame)))


def test_zstd_without_content_size_is_bounded_by_its_blocks():
    # no content size in the header (FHD 0, window descriptor 128 KiB): 2 RLE blocks = 256 KiB
    frame = b"\x28\xb5\x2f\xfd\x00\x38" + _zstd_rle_frame(256 << 10)[13:]
    assert C.decompress(Compressor.ZSTD, frame, 256 << 10) == bytes(256 << 10)
    with pytest.raises(CorruptDataError, match="impossible from the frame's blocks"):
        C.check_size(Compressor.ZSTD, frame, (256 << 10) + 1)


def test_lzo_stream_shorter_than_the_header_is_corrupt():
    # lzokay zero-fills what a short stream leaves of its buffer: this must not pass as data
    stored = C.compress(Compressor.LZO, PAYLOAD)
    with pytest.raises(CorruptDataError, match="fewer than the page header's"):
        C.decompress(Compressor.LZO, stored, len(PAYLOAD) + 100)


# ------------------------------------------------------------------------------------------------
# memory: about one copy of a legitimate large page

MEM_SIZE = 128 << 20

_MEM_CHILD = r"""
import json, sys
from tsfile import compression as C


def status(field):  # this process's own memory figures, in bytes (Linux)
    with open("/proc/self/status") as f:
        line = next(x for x in f if x.startswith(field + ":"))
    return int(line.split()[1]) * 1024


code, size, src_path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
src = open(src_path, "rb").read()
# The peak is VmHWM, not ru_maxrss (which keeps the parent's RSS across fork and exec); it is
# reset to the current RSS first, so that earlier peaks (imports) do not count.
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")
before = status("VmRSS")
out = C.decompress(code, src, size)
peak = status("VmHWM")
assert len(out) == size and out[:1] == b"\0" and out[-1:] == b"\0"
print(json.dumps({"peak_delta": peak - before}))
"""


def _zeros_stream(code) -> bytes:
    """MEM_SIZE zero bytes compressed without ever holding them (the parent's memory stays low)."""
    chunk = bytes(1 << 20)
    if code == Compressor.ZSTD:
        return _zstd_rle_frame(MEM_SIZE)
    if code == Compressor.GZIP:
        z = zlib.compressobj(1, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    else:
        z = lzma.LZMACompressor(format=lzma.FORMAT_XZ, preset=0)
    parts = [z.compress(chunk) for _ in range(MEM_SIZE >> 20)]
    return b"".join(parts) + z.flush()


@pytest.mark.skipif(not Path("/proc/self/clear_refs").exists(), reason="measures memory on Linux")
@pytest.mark.parametrize(
    "code", [Compressor.ZSTD, Compressor.GZIP, Compressor.LZMA2], ids=lambda c: c.name
)
def test_large_page_costs_one_copy_of_its_output(tmp_path, code):
    src = tmp_path / "page.bin"
    src.write_bytes(_zeros_stream(code))
    proc = subprocess.run(
        [sys.executable, "-c", _MEM_CHILD, str(int(code)), str(MEM_SIZE), str(src)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=str(HERE.parent),  # this checkout's tsfile
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    peak = json.loads(proc.stdout.splitlines()[-1])["peak_delta"]
    # one copy of the output plus the decoder's working memory; two copies would be 2 x MEM_SIZE
    assert peak < 1.25 * MEM_SIZE, f"peak {peak / 2**20:.0f} MiB for a {MEM_SIZE >> 20} MiB page"
