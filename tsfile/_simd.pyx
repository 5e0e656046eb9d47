# cython: language_level=3
"""Build-time SIMD families, run-time CPU detection and the process-wide ISA level.

The level is the best instruction set the codecs may use: ``"avx512"``, ``"avx2"`` (x86-64),
``"neon"`` (arm64) or ``"scalar"``. Each codec keeps a table of implementation rows (see
include/tsfile_isa.h) and runs the best row whose level is at most this one and whose CPU features
are present, so a codec without an AVX-512 row runs its AVX2 row at level ``"avx512"``.

* At import the level is the best this CPU runs, unless ``TSFILE_SIMD`` names one:
  ``avx512`` / ``avx2`` / ``neon`` force that ISA, ``off`` (or ``0``, ``no``, ``none``, ``scalar``)
  the scalar kernels. A forced ISA this CPU or build cannot run does not stop the import: a
  :class:`RuntimeWarning` says so and the best ISA available at or below the requested level is
  used (an environment variable is often shared across machines). An unknown value warns too and
  keeps the default.
* At run time :func:`set_simd` picks a level by name and raises :class:`SimdUnavailableError` for an
  ISA that cannot run here (an explicit call gets no silent fallback); :func:`set_simd_enabled` is
  the older on/off switch (on = the best available).

Codecs with SIMD kernels (TS_2DIFF, ALP, RLE, PLAIN) keep an implementation table and cimport
:func:`simd_level` and :func:`simd_cpu_features`; :func:`simd_active` ("level above scalar") is what
``path="auto"`` asks (tsfile.codecs._common.resolve_path).
"""
import os
import warnings

from tsfile.errors import SimdUnavailableError

cdef extern from "tsfile_isa.h":
    const char *TSFILE_ISA_NAME
    int TSFILE_ISA_AVX2, TSFILE_ISA_AVX512, TSFILE_ISA_NEON
    unsigned tsfile_cpu_features() nogil
    unsigned TSFILE_CPU_SSE42, TSFILE_CPU_AVX, TSFILE_CPU_AVX2, TSFILE_CPU_BMI2
    unsigned TSFILE_CPU_AVX512F, TSFILE_CPU_NEON, TSFILE_CPU_BMI1, TSFILE_CPU_LZCNT
    unsigned TSFILE_CPU_POPCNT, TSFILE_CPU_AVX512BW, TSFILE_CPU_AVX512VL
    unsigned TSFILE_CPU_AVX512VBMI, TSFILE_CPU_AVX512VBMI2
    unsigned TSFILE_NEED_AVX2, TSFILE_NEED_AVX512_VBMI
    int TSFILE_LEVEL_SCALAR, TSFILE_LEVEL_AVX2, TSFILE_LEVEL_NEON, TSFILE_LEVEL_AVX512

cdef unsigned _features = tsfile_cpu_features()


def _compiled_levels():
    """(name, level, needed CPU features) of each ISA compiled into this build, best first."""
    rows = []
    if TSFILE_ISA_AVX512:
        # every AVX-512 row of the codec tables needs VBMI too: a CPU without it (Skylake-X)
        # is not offered the level, rather than reporting "avx512" while AVX2 rows run
        rows.append(("avx512", TSFILE_LEVEL_AVX512, TSFILE_NEED_AVX512_VBMI))
    if TSFILE_ISA_AVX2:
        rows.append(("avx2", TSFILE_LEVEL_AVX2, TSFILE_NEED_AVX2))
    if TSFILE_ISA_NEON:
        rows.append(("neon", TSFILE_LEVEL_NEON, 0))
    rows.append(("scalar", TSFILE_LEVEL_SCALAR, 0))
    return rows


_COMPILED = _compiled_levels()
# name -> level of every ISA this CPU runs (always includes "scalar")
_AVAILABLE = {name: level for name, level, need in _COMPILED if (_features & need) == need}
_BEST = next(name for name, level, need in _COMPILED if name in _AVAILABLE)
# the level each ISA name stands for, in any build (TSFILE_SIMD=neon on x86-64 means "level 1")
_NAME_LEVEL = {"avx512": TSFILE_LEVEL_AVX512, "avx2": TSFILE_LEVEL_AVX2,
               "neon": TSFILE_LEVEL_NEON, "scalar": TSFILE_LEVEL_SCALAR}
_OFF_NAMES = ("off", "0", "no", "none", "scalar")

cdef int _level = TSFILE_LEVEL_SCALAR
_active_name = "scalar"
_env_value = os.environ.get("TSFILE_SIMD", "").strip().lower()
_codecs = {}  # codec name -> function returning the implementation row it runs now


def _best_at_or_below(int level):
    return next(name for name, lv, need in _COMPILED if name in _AVAILABLE and lv <= level)


def _set_level_name(name):
    global _level, _active_name
    _active_name = name
    _level = _AVAILABLE[name]


def _level_from_env(value):
    """The ISA name TSFILE_SIMD=value selects here (warning when it cannot be honoured)."""
    if value == "":
        return _BEST
    if value in _OFF_NAMES:
        return "scalar"
    if value not in _NAME_LEVEL:
        warnings.warn(f"TSFILE_SIMD={value!r} is not one of avx512, avx2, neon, off; "
                      f"using {_BEST!r}", RuntimeWarning, stacklevel=2)
        return _BEST
    if value in _AVAILABLE:
        return value
    chosen = _best_at_or_below(_NAME_LEVEL[value])
    warnings.warn(f"TSFILE_SIMD={value!r}: this build or CPU cannot run it (available: "
                  f"{', '.join(_AVAILABLE)}); using {chosen!r}", RuntimeWarning, stacklevel=2)
    return chosen


_set_level_name(_level_from_env(_env_value))


cdef bint simd_active() noexcept nogil:
    return _level > TSFILE_LEVEL_SCALAR


cdef int simd_level() noexcept nogil:
    return _level


cdef unsigned simd_cpu_features() noexcept nogil:
    return _features


def compiled_isa():
    """The ISA families compiled into this build, best first (``"scalar"`` last)."""
    return [name for name, level, need in _COMPILED]


def available_isas():
    """The ISAs this CPU runs, best first (``"scalar"`` last)."""
    return list(_AVAILABLE)


def active_isa():
    """The ISA level in use now: ``"avx512"``, ``"avx2"``, ``"neon"`` or ``"scalar"``."""
    return _active_name


def cpu_features():
    """The CPU features detected at run time that matter to the kernels (a sorted list)."""
    names = []
    for bit, name in ((TSFILE_CPU_SSE42, "sse4.2"), (TSFILE_CPU_POPCNT, "popcnt"),
                      (TSFILE_CPU_AVX, "avx"), (TSFILE_CPU_AVX2, "avx2"),
                      (TSFILE_CPU_BMI1, "bmi1"), (TSFILE_CPU_BMI2, "bmi2"),
                      (TSFILE_CPU_LZCNT, "lzcnt"), (TSFILE_CPU_AVX512F, "avx512f"),
                      (TSFILE_CPU_AVX512BW, "avx512bw"), (TSFILE_CPU_AVX512VL, "avx512vl"),
                      (TSFILE_CPU_AVX512VBMI, "avx512vbmi"),
                      (TSFILE_CPU_AVX512VBMI2, "avx512vbmi2"), (TSFILE_CPU_NEON, "neon")):
        if _features & bit:
            names.append(name)
    return names


def simd_available():
    """True when some SIMD ISA is compiled in and this CPU can run it (ignores the switch)."""
    return _BEST != "scalar"


def is_simd_enabled():
    """True when ``path="auto"`` currently picks SIMD kernels (the level is above scalar)."""
    return _level > TSFILE_LEVEL_SCALAR


def set_simd(name):
    """Use ISA ``name`` (``"avx512"``, ``"avx2"``, ``"neon"``, ``"scalar"``/``"off"``, or
    ``"best"``) for the whole process; returns the previous name.

    Raises SimdUnavailableError for an ISA this build or CPU cannot run, ValueError for other names.
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a str, not {type(name).__name__}")
    key = name.strip().lower()
    if key in _OFF_NAMES:
        key = "scalar"
    elif key == "best":
        key = _BEST
    elif key not in _NAME_LEVEL:
        raise ValueError(f"unknown ISA {name!r}; expected avx512, avx2, neon, scalar, off or best")
    if key not in _AVAILABLE:
        raise SimdUnavailableError(
            f"ISA {name!r} cannot run here (available: {', '.join(_AVAILABLE)})")
    previous = _active_name
    _set_level_name(key)
    return previous


def set_simd_enabled(enabled):
    """Turn SIMD on (the best ISA available) or off (scalar) for the whole process; returns the
    previous on/off state. Turning it on where :func:`simd_available` is False leaves it off.
    """
    previous = _level > TSFILE_LEVEL_SCALAR
    _set_level_name(_BEST if enabled else "scalar")
    return previous


def register_codec(name, active_row):
    """Codecs with an implementation table call this at import: ``active_row()`` returns the name
    of the row they run now (shown by :func:`simd_info`)."""
    _codecs[name] = active_row


def simd_info():
    """What SIMD this build and this CPU offer, and what is in use now.

    Keys: ``compiled`` (ISA names compiled in, best first), ``implementations`` (those this CPU
    runs, best first, ``"scalar"`` last), ``cpu`` (detected features), ``available`` (some SIMD
    ISA runs here), ``active`` (the ISA level in use, or ``"none"`` for scalar), ``codecs`` (the
    implementation row each codec with a table runs now; codecs without an ISA's row run the next
    one down), ``family`` (the SIMD family this build's architecture carries: ``"avx2"`` on
    x86-64, ``"neon"`` on arm64, ``"none"`` without SIMD), ``forced_by_env`` (the TSFILE_SIMD
    value, or None), ``forced_off_by_env``.
    """
    # Codecs register when their module is imported; the registry imports them all, so the
    # answer does not depend on what the caller happened to import before.
    import tsfile.codecs._registry  # noqa: F401

    return {
        "compiled": compiled_isa(),
        "implementations": available_isas(),
        "cpu": cpu_features(),
        "available": simd_available(),
        "active": _active_name if _level > TSFILE_LEVEL_SCALAR else "none",
        "codecs": {name: row() for name, row in sorted(_codecs.items())},
        "family": TSFILE_ISA_NAME.decode("ascii"),
        "forced_by_env": _env_value or None,
        "forced_off_by_env": _env_value in _OFF_NAMES,
    }
