"""One ISA switch for the per-ISA benchmarks (TS_2DIFF and ALP decode per implementation row)."""

import platform


def require_isa(mod, isa, codec):
    """Make `isa` the process-wide level and return the path (`batch` or `simd`) that runs the
    row of that name in `mod`; NotImplementedError (asv: skipped) where it cannot run.

    Commits before the per-ISA table (no ``tsfile.set_simd``) had one SIMD family per build: on
    x86-64 the `simd` path ran the AVX2 kernels, and `batch` was the scalar row, so those two
    rows have a history from before the table; the avx512 row starts with it. A CPU with AVX-512
    but without VBMI runs the AVX2 row at level avx512: skipped, it would time that row twice.
    restore_isa() (teardown) undoes the switch whether or not the row was there.
    """
    try:
        import tsfile
        from tsfile.errors import SimdUnavailableError

        set_simd = tsfile.set_simd
        active = mod.active_implementation
    except (ImportError, AttributeError):
        return _path_before_isa_table(mod, isa, codec)
    try:
        set_simd(isa)
    except SimdUnavailableError:
        raise NotImplementedError(f"{isa} cannot run on this build/CPU") from None
    if active() != isa:
        restore_isa()
        raise NotImplementedError(f"{codec} has no {isa} row on this CPU")
    return "batch" if isa == "scalar" else "simd"


def _path_before_isa_table(mod, isa, codec):
    if isa == "scalar":
        return "batch"
    if isa == "avx2" and platform.machine().lower() in ("x86_64", "amd64"):
        import tsfile

        if getattr(mod, "HAS_SIMD", False) and tsfile.simd_available():
            tsfile.set_simd_enabled(True)
            return "simd"
    raise NotImplementedError(f"no {isa} row of {codec} in this commit (before the ISA table)")


def restore_isa():
    """The best level again, as at import (benchmarks of other classes run in this process)."""
    import tsfile

    if hasattr(tsfile, "set_simd"):
        tsfile.set_simd("best")
