# cython: language_level=3
"""Build-time SIMD family, run-time CPU detection and the process-wide SIMD switch.

``TSFILE_SIMD=off`` in the environment at import time forces the scalar kernels; tests and
benchmarks can also flip the switch with :func:`set_simd_enabled`.
"""
import os

cdef extern from "tsfile_isa.h":
    const char *TSFILE_ISA_NAME
    unsigned tsfile_cpu_features() nogil
    int tsfile_cpu_can_run_simd() nogil
    unsigned TSFILE_CPU_SSE42, TSFILE_CPU_AVX, TSFILE_CPU_AVX2, TSFILE_CPU_BMI2
    unsigned TSFILE_CPU_AVX512F, TSFILE_CPU_NEON, TSFILE_CPU_BMI1, TSFILE_CPU_LZCNT
    unsigned TSFILE_CPU_POPCNT

cdef bint _cpu_ok = tsfile_cpu_can_run_simd() != 0
cdef bint _env_off = os.environ.get("TSFILE_SIMD", "").strip().lower() in ("off", "0", "no", "none", "scalar")
cdef bint _active = _cpu_ok and not _env_off


cdef bint simd_active() noexcept nogil:
    return _active


def compiled_isa():
    """The SIMD family compiled into this build: ``"avx2"``, ``"neon"`` or ``"none"``."""
    return TSFILE_ISA_NAME.decode("ascii")


def cpu_features():
    """The CPU features detected at run time that matter to the kernels (a sorted list)."""
    cdef unsigned f = tsfile_cpu_features()
    names = []
    for bit, name in ((TSFILE_CPU_SSE42, "sse4.2"), (TSFILE_CPU_POPCNT, "popcnt"),
                      (TSFILE_CPU_AVX, "avx"), (TSFILE_CPU_AVX2, "avx2"),
                      (TSFILE_CPU_BMI1, "bmi1"), (TSFILE_CPU_BMI2, "bmi2"),
                      (TSFILE_CPU_LZCNT, "lzcnt"), (TSFILE_CPU_AVX512F, "avx512f"),
                      (TSFILE_CPU_NEON, "neon")):
        if f & bit:
            names.append(name)
    return names


def simd_available():
    """True when SIMD kernels are compiled in and this CPU can run them (ignores the switch)."""
    return bool(_cpu_ok)


def is_simd_enabled():
    """True when ``path="auto"`` currently picks the SIMD kernels."""
    return bool(_active)


def set_simd_enabled(enabled):
    """Turn the SIMD kernels on or off for the whole process; returns the previous state.

    Turning them on where :func:`simd_available` is False is a no-op (the state stays off).
    """
    global _active
    previous = bool(_active)
    _active = bool(enabled) and _cpu_ok
    return previous


def simd_info():
    """What SIMD this build and this CPU offer, and what is in use now.

    Keys: ``compiled`` (``"avx2"``, ``"neon"`` or ``"none"``), ``cpu`` (list of detected features),
    ``available`` (compiled family runs on this CPU), ``active`` (the family in use now, or
    ``"none"``), ``forced_off_by_env`` (``TSFILE_SIMD=off`` was set at import).
    """
    return {
        "compiled": compiled_isa(),
        "cpu": cpu_features(),
        "available": bool(_cpu_ok),
        "active": compiled_isa() if _active else "none",
        "forced_off_by_env": bool(_env_off),
    }
