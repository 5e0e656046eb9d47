"""Build the Cython extension modules of `tsfile`.

Every ``tsfile/**/*.pyx`` file becomes an extension module; the C kernels are header-only and
live in ``include/``.

Environment switches (read at build time):

* ``TSFILE_SIMD_BUILD=off``  leave all SIMD code out (the "SIMD OFF" build): only scalar kernels.
* ``TSFILE_BUILD_ONLY=a,b``  build only the named modules (exact dotted names, or ``pkg.*`` for
  every module below a package), for quick rebuilds while working on one codec.
* ``TSFILE_ANNOTATE=1``      write Cython's HTML annotation next to each ``.pyx``.
* ``TSFILE_DEBUG=1``         compile with ``-O0 -g`` and assertions.

The SIMD family follows the target architecture: x86-64 builds the AVX2 kernels with per-function
target attributes (so one binary runs everywhere and picks AVX2 at run time), arm64 builds NEON.
"""

import os
import platform
from pathlib import Path

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).parent.resolve()


def _module_names():
    for pyx in sorted((ROOT / "tsfile").rglob("*.pyx")):
        rel = pyx.relative_to(ROOT).with_suffix("")
        yield ".".join(rel.parts), str(pyx.relative_to(ROOT))


def _extensions():
    simd_off = os.environ.get("TSFILE_SIMD_BUILD", "").strip().lower() in {"off", "0", "no", "none"}
    debug = os.environ.get("TSFILE_DEBUG", "") == "1"
    only = [p for p in os.environ.get("TSFILE_BUILD_ONLY", "").split(",") if p]

    macros = [("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")]
    if simd_off:
        macros.append(("TSFILE_NO_SIMD", "1"))
    if not debug:
        macros.append(("NDEBUG", "1"))

    if platform.system() == "Windows":
        cflags = ["/O2"]
    else:
        # -g0: Python's own CFLAGS bring -g, and the debug info of the SIMD-heavy modules was
        # ~25-45 % of their compile time (engine.c: 33 s -> 19 s of CPU); gcc makes the same
        # machine code with or without it (the disassemblies of engine, alp, cparse compared).
        cflags = ["-O0", "-g"] if debug else ["-O3", "-g0"]
        cflags += ["-std=gnu11", "-fno-strict-aliasing", "-Wno-unused-function"]

    headers = sorted(str(h.relative_to(ROOT)) for h in (ROOT / "include").glob("*.h"))
    exts = []
    for name, source in _module_names():
        if only and not any(
            name == p or (p.endswith(".*") and name.startswith(p[:-1])) for p in only
        ):
            continue
        exts.append(
            Extension(
                name,
                [source],
                include_dirs=[str(ROOT / "include"), numpy.get_include()],
                define_macros=macros,
                extra_compile_args=cflags,
                # the kernels are header-only: any header change rebuilds every module
                depends=headers,
            )
        )
    return exts


class _BuildExtParallel(build_ext):
    """build_ext compiling the modules on every core unless ``-j`` says otherwise: pip's build
    (``pip install .`` / ``-e .``) passes no ``-j``, and one gcc at a time over ~30 modules of
    SIMD headers took ~6 of the ~16 minutes of a clean CI run."""

    def finalize_options(self):
        super().finalize_options()
        if self.parallel is None:
            self.parallel = os.cpu_count() or 1


setup(
    cmdclass={"build_ext": _BuildExtParallel},
    ext_modules=cythonize(
        _extensions(),
        compiler_directives={"language_level": "3", "embedsignature": True},
        annotate=os.environ.get("TSFILE_ANNOTATE", "") == "1",
        # the .pyx -> .c step in parallel too
        nthreads=os.cpu_count() or 1,
    ),
)
