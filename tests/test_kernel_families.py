"""One definition per kernel family (issue 8): the typed twins of the kernel headers (filter, RLE,
ALP, PLAIN, TS_2DIFF, ZIGZAG and the writer's statistics) are generated from one macro each; the
modules that call the TS_2DIFF kernels declare them once (tsfile/codecs/ts2diff_kernels.pxd); the
serial codecs share one body (_serial_codec.pxi over each codec's serial_ops); and every module
with a per-ISA implementation table (the SIMD codecs and pushdown.pyx) builds it with the shared
helper, tsfile/codecs/_impl_table.pyx.

A "typed twin" is a hand-written function definition whose name differs from another one in the
same header only by its value type or lane layout (``_i32``/``_i64``/``_f32``/``_f64``/``_bool``,
``_q64``/``_d32``, ``_u32``/``_u64``): ``filter_avx2_in_i64`` beside ``filter_avx2_in_i32`` and so
on. Definitions produced by a macro expansion are not hand-written and do not count; the few pairs
whose bodies really differ by type (not just by intrinsic names) are listed in ``FORCED_BY_TYPE``
with why.
"""

import re
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
INCLUDE = ROOT / "include"
FAMILY_HEADERS = sorted(
    path
    for pattern in ("filter_*.h", "rle_*.h", "alp_*.h", "plain_*.h", "ts2diff_*.h")
    for path in INCLUDE.glob(pattern)
) + [INCLUDE / "zigzag_scalar.h", INCLUDE / "stats_encode.h"]

# Pairs that stay hand-written because the algorithm differs with the value width, not just the
# intrinsics: key (the name with its type token as {T}) -> why.
FORCED_BY_TYPE = {
    "rle_unpack_groups_{T}_avx2": "int32 output uses 32-bit lanes up to width 25 and narrows "
    "64-bit lanes above; int64 output has the split (nine-byte) widths",
    "rle_unpack_groups_{T}_neon": "as for AVX2; int64 leaves the nine-byte widths to scalar code",
    "rle_avx512_{T}_groups": "d32 packs two groups per register (and an odd last one), q64 one",
    # ALP: DOUBLE and FLOAT unpack and convert differently, not just in lane width
    "alp_decode_{T}_avx2": "DOUBLE unpacks 64-bit lanes and converts by the magic number (exact "
    "below 2^51); FLOAT unpacks 32-bit lanes, ORs in a fifth byte where a lane crosses 32 bits "
    "and converts with vcvtdq2ps",
    "alp_decode_{T}_neon": "as for AVX2 (FLOAT's fifth byte by a second table lookup)",
    "alp_decode_{T}_avx512": "DOUBLE stores 8 values a group rotated to aligned addresses; "
    "FLOAT decodes 16 a group in three block kinds (magic, narrow, fifth byte)",
    "alp_avx512_plan_{T}": "FLOAT adds the fifth-byte indices, shifts and lane mask",
    "alp_analyze_{T}_avx2": "DOUBLE rounds by the magic number, two registers a group, 64-bit "
    "min / max by compare and blend; FLOAT rounds with vcvtps2dq in one register",
    "alp_analyze_{T}_neon": "DOUBLE: four 2-lane registers a group and a lane-by-lane keep "
    "mask; FLOAT: two 4-lane registers and a weighted sum for the mask",
    # PLAIN stores each type its own way; the fixed-width big-endian kernels are generated
    "plain_next_{T}": "BOOLEAN is one byte, INT32 a zigzag varint",
    "plain_decode_{T}_scalar": "BOOLEAN is one byte, INT32 a zigzag varint",
    "plain_encode_{T}_scalar": "BOOLEAN is one byte, INT32 a zigzag varint",
    # TS_2DIFF decode: the widths an int64 delta can take change the unpack, not just the lanes
    "ts2diff_run_{T}": "an int64 delta of more than 56 bits can span nine bytes (a ninth-byte "
    "load and a wider safety margin); an int32 delta always fits one 8-byte window",
    "ts2diff_decode_{T}_avx2": "int64 unpacks deltas of <= 28 bits in 32-bit lanes and widens, "
    "wider ones in 64-bit lanes (split plans past 58 bits); int32 unpacks in 32-bit lanes, "
    "widths 27 and 29..31 in 64-bit lanes narrowed",
    "ts2diff_decode_{T}_neon": "as for AVX2",
    "ts2diff_decode_{T}_avx512": "int32 decodes 16 deltas a group in four byte layouts; int64 "
    "8 a group (16 in 32-bit lanes for narrow widths) with a ninth byte for split widths",
    "ts2diff_avx512_{T}_groups": "the group loops of the two decoders above",
    "ts2diff_enc512_residuals16_{T}": "int64 subtracts in two 8-lane vectors and pairs each; "
    "int32 subtracts and pairs in one 16-lane vector, then widens its halves",
    "ts2diff_enc2_residuals32_{T}": "int64 subtracts in eight 4-lane vectors; int32 subtracts "
    "in four 8-lane vectors (wrapping at 32 bits) and widens their halves to 64-bit lanes",
}

_TYPE_TOKEN = re.compile(r"(?<=_)(i32|i64|f32|f64|bool|q64|d32|u32|u64)(?=_|$)")
# A function definition: a name, a parameter list without parentheses or braces, then a body.
_DEFINITION = re.compile(r"\b([A-Za-z_]\w*)\s*\([^;{}()]*\)\s*\{")
_NOT_FUNCTIONS = {"if", "for", "while", "switch", "return", "sizeof"}


def _hand_written(text: str) -> str:
    """The header without comments and preprocessor lines (macro bodies included)."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    kept, in_directive = [], False
    for line in text.splitlines():
        if in_directive or line.lstrip().startswith("#"):
            in_directive = line.rstrip().endswith("\\")
            continue
        kept.append(line)
    return "\n".join(kept)


def typed_twins(text: str) -> dict[str, list[str]]:
    """Hand-written definitions grouped by name with the type token replaced; groups of 2+."""
    groups = defaultdict(list)
    for match in _DEFINITION.finditer(_hand_written(text)):
        name = match.group(1)
        key = _TYPE_TOKEN.sub("{T}", name)
        if name not in _NOT_FUNCTIONS and key != name:
            groups[key].append(name)
    return {key: names for key, names in groups.items() if len(names) > 1}


def test_the_detector_sees_a_hand_written_twin():
    text = """
    static inline unsigned filter_x_in_i32(const int32_t *p) { return p[0] > 0; }
    static inline unsigned filter_x_in_i64(const int64_t *p) { return p[0] > 0; }
    #define GEN(SUF, T) static int gen_##SUF(T x) { return x > 0; }
    GEN(i32, int32_t)
    GEN(i64, int64_t)
    """
    assert typed_twins(text) == {"filter_x_in_{T}": ["filter_x_in_i32", "filter_x_in_i64"]}


@pytest.mark.parametrize("header", FAMILY_HEADERS, ids=lambda p: p.name)
def test_no_hand_written_typed_twins(header):
    twins = typed_twins(header.read_text())
    # a forced family is one pair whose algorithms differ; a third member written by hand (as
    # PLAIN's fixed-width INT64 / FLOAT kernels were beside BOOLEAN and INT32) is a twin
    unexplained = {
        key: names for key, names in twins.items() if key not in FORCED_BY_TYPE or len(names) != 2
    }
    assert not unexplained, (
        f"{header.name}: typed twins written by hand; generate them from one macro "
        f"(or, if the algorithm differs by type, list them in FORCED_BY_TYPE): {unexplained}"
    )


def test_forced_by_type_list_is_not_stale():
    found = set()
    for header in FAMILY_HEADERS:
        found |= set(typed_twins(header.read_text()))
    assert set(FORCED_BY_TYPE) <= found, set(FORCED_BY_TYPE) - found


TABLE_MODULES = [
    "codecs/alp.pyx",
    "codecs/plain.pyx",
    "codecs/rle.pyx",
    "codecs/ts2diff.pyx",
    "_read/pushdown.pyx",
    "_write/_stats.pyx",
]


@pytest.mark.parametrize("module", TABLE_MODULES)
def test_implementation_tables_are_built_by_the_shared_helper(module):
    source = (ROOT / "tsfile" / module).read_text()
    # the cimport's names, on one line or in parentheses over several
    cimport = re.search(r"from tsfile\.codecs\._impl_table cimport (\([^)]*\)|[^\n]*)", source)
    assert cimport is not None
    assert {"ImplTable", "impl_table"} <= set(re.findall(r"\w+", cimport.group(1)))
    assert re.search(r"cdef ImplTable \w+ = impl_table\(", source)
    # a copy of the helper would declare the row head, fill rows level by level or write the
    # implementations() / active_implementation() functions again
    assert "ctypedef struct tsfile_impl_head" not in source
    assert not re.search(r"_at_level\[level\]\s*=", source)
    assert not re.search(r"^def (implementations|active_implementation)\(", source, re.M)


def test_only_the_helper_declares_the_row_head():
    declaring = sorted(
        str(path.relative_to(ROOT))
        for path in (ROOT / "tsfile").rglob("*.p[yx][xd]")
        if "ctypedef struct tsfile_impl_head" in path.read_text()
    )
    assert declaring == ["tsfile/codecs/_impl_table.pxd"]


def test_an_unfilled_table_cannot_be_made():
    from tsfile.codecs._impl_table import ImplTable

    with pytest.raises(TypeError, match="impl_table"):
        ImplTable()


def test_pushdown_rows_follow_the_isa_level():
    import tsfile
    from tsfile._read import pushdown

    rows = pushdown.implementations()
    assert rows[-1] == "scalar"
    assert set(rows) <= set(tsfile.simd_info()["implementations"])
    for row in rows:
        previous = tsfile.set_simd("off" if row == "scalar" else row)
        try:
            assert pushdown.active_implementation() == row
        finally:
            tsfile.set_simd(previous)


def test_one_bit_length_helper():
    # TS_2DIFF, RLE and ALP each had their own copy of "64 - clz(x)"; bit_length.h has the one
    defining = sorted(
        header.name for header in FAMILY_HEADERS if "__builtin_clzll" in header.read_text()
    )
    assert defining == [], defining
    assert "__builtin_clzll" in (INCLUDE / "bit_length.h").read_text()
    # nor may any other header define the helper again (SPRINTZ's encoder had a fourth copy)
    copies = sorted(
        header.name
        for header in INCLUDE.glob("*.h")
        if header.name != "bit_length.h"
        and re.search(r"\?\s*64\s*-\s*__builtin_clzll\(\w+\)\s*:\s*0\b", header.read_text())
    )
    assert copies == [], copies


_TS2DIFF_DECLARATION = re.compile(
    r"^\s+(ctypedef \w+ \(\*ts2diff_block_fn_i64\)|void ts2diff_decode_i64_scalar\(|"
    r"const ts2diff_impl\* ts2diff_impls|int ts2diff_decode_rows_i64\()",
    re.M,
)


def test_the_ts2diff_kernels_are_declared_once():
    declaring = sorted(
        str(path.relative_to(ROOT))
        for path in (ROOT / "tsfile").rglob("*.p[yx][xd]")
        if _TS2DIFF_DECLARATION.search(path.read_text())
    )
    assert declaring == ["tsfile/codecs/ts2diff_kernels.pxd"]


SERIAL_CODECS = ["camel", "chimp", "rlbe", "sprintz"]


@pytest.mark.parametrize("codec", SERIAL_CODECS)
def test_serial_codecs_share_one_body(codec):
    """A serial codec module describes its kernels (a serial_ops) and includes the shared body:
    its decode wrappers, per-value loop, count/skip/row-range operations and encode() are those
    of _serial.pyx, not a copy."""
    source = (ROOT / "tsfile" / "codecs" / f"{codec}.pyx").read_text()
    assert 'include "_serial_codec.pxi"' in source
    assert "make_serial_ops(" in source
    # copies of the shared body: the contract's row functions, a decode loop, the row walk
    for copy in ("cdef Py_ssize_t _row_", "while n < cap", "codec_row _ROWS", "serial_codec("):
        assert copy not in source, copy
    # a kernel reaches the shared code with its own signature: a call through a function pointer
    # cast to another type is undefined behaviour in C
    assert not re.search(r"<serial_\w+_fn>", source)


# Rows whose table admits AVX-512 CPUs without VBMI (TSFILE_NEED_AVX512, as Skylake-Server): the
# header with their kernels, and the table.
ROWS_WITHOUT_VBMI = [
    ("plain_avx512.h", "plain_impls.h"),
    ("stats_encode.h", "stats_encode.h"),
    ("filter_avx512.h", "filter_impls.h"),
]


@pytest.mark.parametrize("header, table", ROWS_WITHOUT_VBMI, ids=lambda p: p)
def test_rows_admitted_without_vbmi_are_compiled_without_it(header, table):
    assert re.search(
        r'"avx512", TSFILE_LEVEL_AVX512, TSFILE_NEED_AVX512[},]', (INCLUDE / table).read_text()
    )
    # the target attribute is what the compiler may emit (its own vectorisation included), not
    # only what the intrinsics use: TSFILE_TARGET_AVX512 allows VBMI
    # (comments dropped; macro bodies kept: the filter kernels are all generated by macros)
    text = (INCLUDE / header).read_text()
    code = re.sub(r"//[^\n]*", " ", re.sub(r"/\*.*?\*/", " ", text, flags=re.S))
    assert "TSFILE_TARGET_AVX512_NOVBMI" in code
    assert not re.search(r"\bTSFILE_TARGET_AVX512\b", code)


# A kernel generated from a macro by token pasting (``ts2diff_decode_##SUF##_scalar``) is not
# found by grepping its name unless the name is written out: each such invocation carries a
# comment listing what it generates, right above it (a comment may serve a run of invocations).
_MACRO = re.compile(r"^#\s*define\s+(\w+)\(([^)]*)\)((?:[^\n]*\\\n)*[^\n]*)", re.M)
_PASTED_DEFINITION = re.compile(r"(?:\w|\*)\s+\**\s*(\w+(?:##\w+)+)\s*\(")
_NOT_A_TYPE = {"return", "case", "else", "do"}


def pasted_definitions(text: str) -> list[tuple[int, str]]:
    """(line, name) of every function a macro invocation in `text` generates by token pasting."""
    macros = {}
    for match in _MACRO.finditer(text):
        params = [p.strip() for p in match.group(2).split(",")]
        names = []
        for line in match.group(3).splitlines():
            for d in _PASTED_DEFINITION.finditer(line):
                before = line[: d.start(1)].split()
                if before and before[-1] not in _NOT_A_TYPE and before[-1][-1] not in "=+-(,":
                    names.append(d.group(1))
        if names:
            macros[match.group(1)] = (params, names)
    lines = text.splitlines()
    found = []
    for i, line in enumerate(lines):
        call = re.match(r"(\w+)\(", line)
        if not call or call.group(1) not in macros:
            continue
        j, args = i, line
        while args.count("(") > args.count(")"):
            j += 1
            args += lines[j]
        values = [a.strip() for a in args[args.index("(") + 1 : args.rindex(")")].split(",")]
        params, names = macros[call.group(1)]
        given = dict(zip(params, values, strict=False))
        for name in names:
            found.append((i, "".join(given.get(part, part) for part in name.split("##"))))
    return found


def _comment_above(lines: list[str], i: int) -> str:
    """The comment block right above line i (over a run of invocations of the same macro)."""
    macro = lines[i].split("(")[0]
    k = i - 1
    while k >= 0 and (lines[k].startswith(macro + "(") or lines[k].startswith(" ")):
        k -= 1
    block = []
    while k >= 0 and re.match(r"\s*(/\*|\*|//)", lines[k]):
        block.append(lines[k])
        k -= 1
    return "\n".join(block)


def test_the_detector_finds_a_pasted_name():
    text = """
#define GEN(SUF, T) static int gen_##SUF(T x) { return helper_##SUF(x); }
GEN(i32, int)
"""
    assert pasted_definitions(text) == [(2, "gen_i32")]


# the typed-twin macros of ALP, PLAIN, TS_2DIFF, ZIGZAG and the statistics (the filter and RLE
# headers' generated names are not written out yet)
NAMED_HEADERS = [h for h in FAMILY_HEADERS if not h.name.startswith(("filter_", "rle_"))]


@pytest.mark.parametrize("header", NAMED_HEADERS, ids=lambda p: p.name)
def test_generated_kernels_are_named_where_generated(header):
    lines = header.read_text().splitlines()
    unnamed = [
        name
        for i, name in pasted_definitions(header.read_text())
        if not re.search(rf"\b{name}\b", _comment_above(lines, i) + lines[i])
    ]
    assert not unnamed, (
        f"{header.name}: write the generated names in a comment above the macro invocation, so "
        f"that grep finds them: {unnamed}"
    )
