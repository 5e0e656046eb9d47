"""One definition per kernel family (issue 8): the typed twins of the filter and RLE kernel headers
are generated from one macro each, and every module with a per-ISA implementation table (the SIMD
codecs and pushdown.pyx) builds it with the shared helper, tsfile/codecs/_impl_table.pyx.

A "typed twin" is a hand-written function definition whose name differs from another one in the
same header only by its value type or lane layout (``_i32``/``_i64``/``_f32``/``_f64``/``_bool``,
``_q64``/``_d32``): ``filter_avx2_in_i64`` beside ``filter_avx2_in_i32`` and so on. Definitions
produced by a macro expansion are not hand-written and do not count; the few pairs whose bodies
really differ by type (not just by intrinsic names) are listed in ``FORCED_BY_TYPE`` with why.
"""

import re
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
INCLUDE = ROOT / "include"
FAMILY_HEADERS = sorted(INCLUDE.glob("filter_*.h")) + sorted(INCLUDE.glob("rle_*.h"))

# Pairs that stay hand-written because the algorithm differs with the value width, not just the
# intrinsics: key (the name with its type token as {T}) -> why.
FORCED_BY_TYPE = {
    "rle_unpack_groups_{T}_avx2": "int32 output uses 32-bit lanes up to width 25 and narrows "
    "64-bit lanes above; int64 output has the split (nine-byte) widths",
    "rle_unpack_groups_{T}_neon": "as for AVX2; int64 leaves the nine-byte widths to scalar code",
    "rle_avx512_{T}_groups": "d32 packs two groups per register (and an odd last one), q64 one",
}

_TYPE_TOKEN = re.compile(r"(?<=_)(i32|i64|f32|f64|bool|q64|d32)(?=_|$)")
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
    unexplained = {key: names for key, names in twins.items() if key not in FORCED_BY_TYPE}
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
