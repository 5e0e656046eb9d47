"""The C kernels on every ISA configuration, and the package on a CPU without AVX2.

(a) Every ``tests/c/*_check.c`` (a standalone C program that includes the kernel headers it needs
    and exits non-zero on failure) is cross-compiled for aarch64 and run under qemu-user, so the
    NEON kernels are checked against the scalar ones on every CI run.
(b) The same programs are compiled natively three times: as the package builds them (AVX2 kernels
    with target attributes, used when the CPU has AVX2), with -DTSFILE_NO_SIMD (the SIMD OFF
    build), and with AddressSanitizer + UBSan (out-of-bounds reads, undefined behaviour).
(c) the codec suites with SIMD kernels and the reader's fixture suite (FALLBACK_SUITES) run under
    ``qemu-x86_64 -cpu <model without AVX2>`` with the current Python: simd_info() must report
    SIMD unavailable and everything must pass on the scalar path.

Missing tools skip these tests, unless TSFILE_REQUIRE_QEMU=1 (CI), where they fail.
"""

import json
import os
import platform
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
INCLUDE = ROOT / "include"
CHECKS = sorted((ROOT / "tests" / "c").glob("*_check.c"))
REQUIRE = os.environ.get("TSFILE_REQUIRE_QEMU", "") == "1"
AARCH64_SYSROOT = "/usr/aarch64-linux-gnu"
IS_X86_64 = platform.machine().lower() in ("x86_64", "amd64")
# CPU models without AVX2, in order of preference. Nehalem and Westmere are the classic choice,
# but recent numpy wheels can execute instructions those models lack while importing (seen here:
# SIGILL in numpy's import-time sanity check), so the first model that can import numpy is used;
# SandyBridge has AVX but neither AVX2 nor BMI2.
NO_AVX2_MODELS = ["Nehalem", "Westmere", "SandyBridge", "IvyBridge"]


def _tool(name):
    path = shutil.which(name)
    if path is None:
        if REQUIRE:
            pytest.fail(f"{name} is not installed and TSFILE_REQUIRE_QEMU=1")
        pytest.skip(f"{name} is not installed")
    return path


def _native_cc():
    for name in (os.environ.get("CC", ""), "cc", "gcc", "clang"):
        if name and shutil.which(name):
            return shutil.which(name)
    if REQUIRE:
        pytest.fail("no C compiler (cc, gcc, clang or $CC) and TSFILE_REQUIRE_QEMU=1")
    pytest.skip("no C compiler (cc, gcc, clang or $CC)")


class _Builds:
    """The check programs, compiled os.cpu_count() at a time: the first program asked for with a
    compiler and flags starts the compiles of every program with them (one configuration's
    programs are independent), so CI's two cores build two at once while the tests run them one
    by one. (Compiling ts2diff_check alone takes ~13 s of CPU.)"""

    def __init__(self, out_dir):
        self.out_dir = out_dir
        self.pool = ThreadPoolExecutor(max_workers=os.cpu_count() or 1)
        self.jobs = {}  # (cc, flags, src) -> future of (exe, command, CompletedProcess)

    def _build(self, cc, src, flags, exe):
        cmd = [cc, "-O2", "-std=gnu11", "-Wall", f"-I{INCLUDE}", *flags, str(src), "-o", str(exe)]
        return exe, cmd, subprocess.run(cmd + ["-lm"], capture_output=True, text=True)

    def exe(self, cc, src, name, *flags):
        """The executable of src compiled with cc and flags (a failed compile fails the test)."""
        if (cc, flags, src) not in self.jobs:
            for check in CHECKS:
                exe = self.out_dir / f"{check.stem}_{name}"
                self.jobs[(cc, flags, check)] = self.pool.submit(self._build, cc, check, flags, exe)
        exe, cmd, proc = self.jobs[(cc, flags, src)].result()
        assert proc.returncode == 0, f"compile failed: {' '.join(cmd)}\n{proc.stderr}"
        return exe


@pytest.fixture(scope="module")
def builds(tmp_path_factory):
    b = _Builds(tmp_path_factory.mktemp("c_checks"))
    yield b
    b.pool.shutdown(wait=True)


def _run(cmd, timeout=240, env=None):
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    return proc.returncode, proc.stdout + proc.stderr


@pytest.mark.parametrize("src", CHECKS, ids=[p.stem for p in CHECKS])
def test_c_checks_aarch64_neon_under_qemu(src, builds):
    cc = _tool("aarch64-linux-gnu-gcc")
    qemu = _tool("qemu-aarch64")
    exe = builds.exe(cc, src, "aarch64")
    rc, out = _run([qemu, "-L", AARCH64_SYSROOT, str(exe)])
    assert rc == 0, out
    if src.stem == "ts2diff_check":
        assert "[neon]" in out, out  # the NEON kernels were compiled in and checked


def _sanitizers_work(cc, tmp_path):
    probe = tmp_path / "probe.c"
    probe.write_text("int main(void) { return 0; }\n")
    flags = ["-fsanitize=address,undefined", str(probe), "-o", str(tmp_path / "probe")]
    return subprocess.run([cc, *flags], capture_output=True).returncode == 0


@pytest.mark.parametrize(
    "config",
    ["simd", "simd-off", "simd-asan"],
    ids=["native-simd", "native-simd-off", "native-asan"],
)
@pytest.mark.parametrize("src", CHECKS, ids=[p.stem for p in CHECKS])
def test_c_checks_native(src, config, tmp_path, builds):
    cc = _native_cc()
    simd = config != "simd-off"
    flags = [] if simd else ["-DTSFILE_NO_SIMD"]
    if config == "simd-asan":
        # every load the kernels make must stay inside the caller's buffer (the checks put the
        # data at the very end of exactly sized heap buffers); -O0 keeps the build quick
        if not _sanitizers_work(cc, tmp_path):
            pytest.skip("the C compiler cannot build with -fsanitize=address,undefined")
        flags = ["-O0", "-g", "-fsanitize=address,undefined", "-fno-sanitize-recover=undefined"]
    exe = builds.exe(cc, src, config, *flags)
    rc, out = _run([str(exe)])
    assert rc == 0, out
    if src.stem == "ts2diff_check":
        if not simd:
            assert "[none" in out, out
        elif IS_X86_64:
            from tsfile.codecs import ts2diff

            # every SIMD row of the table this CPU runs was checked ("[avx512+avx2]"), and the
            # scalar-only run happened only where none can run
            rows = [r for r in ts2diff.implementations() if r != "scalar"]
            if rows:
                assert f"[{'+'.join(rows)}]" in out, out
            else:
                assert "no SIMD kernel" in out, out


def _python_under(qemu, model, code, env):
    return _run([qemu, "-cpu", model, sys.executable, "-c", code], timeout=120, env=env)


# The suites run under the no-AVX2 CPU: every codec with SIMD kernels, the writer's statistics
# kernels, and the file reader over every official fixture (all codecs through the page engine).
# They run as two pytest processes at once (about the same emulated time each), so that both of
# CI's cores emulate: one process was the longest test of the suite (~250 s on a loaded host).
FALLBACK_SUITES = (
    ("test_alp.py", "test_rle.py", "test_plain.py"),
    ("test_ts2diff.py", "test_write_stats_kernels.py", "test_reader_fixtures.py"),
)


def test_scalar_fallback_on_cpu_without_avx2(tmp_path):
    if not IS_X86_64:
        pytest.skip("the AVX2 fallback concerns x86-64 builds")
    qemu = _tool("qemu-x86_64")
    env = {**os.environ, "TSFILE_TEST_QUICK": "1", "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("TSFILE_SIMD", None)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])
    )
    model = None
    for candidate in NO_AVX2_MODELS:
        rc, _ = _python_under(qemu, candidate, "import numpy", env)
        if rc == 0:
            model = candidate
            break
    if model is None:
        msg = f"numpy does not import under any of {NO_AVX2_MODELS}"
        if REQUIRE:
            pytest.fail(msg)
        pytest.skip(msg)

    rc, out = _python_under(
        qemu, model, "import json, tsfile; print(json.dumps(tsfile.simd_info()))", env
    )
    assert rc == 0, out
    # (qemu prints warnings about CPUID bits it cannot emulate; the JSON line is ours)
    info = json.loads(next(line for line in out.splitlines() if line.startswith("{")))
    assert info["available"] is False and info["active"] == "none", info
    assert "avx2" not in info["cpu"], info

    # output to files, not pipes: a process is never held up by a full pipe of the other one
    logs = [tmp_path / f"suites{i}.log" for i in range(len(FALLBACK_SUITES))]
    procs = []
    try:
        for suites, log in zip(FALLBACK_SUITES, logs, strict=True):
            with open(log, "w") as f:
                cmd = [qemu, "-cpu", model, sys.executable, "-m", "pytest", "-q"]
                cmd += ["-p", "no:cacheprovider", *(str(ROOT / "tests" / n) for n in suites)]
                procs.append(subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT, env=env))
        for proc in procs:
            proc.wait(timeout=900)
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    for suites, proc, log in zip(FALLBACK_SUITES, procs, logs, strict=True):
        out = log.read_text()
        assert proc.returncode == 0, f"{suites} under -cpu {model}:\n{out[-4000:]}"
        assert " passed" in out and " failed" not in out, out[-2000:]


def test_avx2_kernels_need_every_feature_they_are_compiled_with():
    # TSFILE_TARGET_AVX2 also enables LZCNT, which a CPU without it runs as BSR (another result,
    # no fault): a CPU model with AVX2 and BMI2 but no LZCNT ("abm") once got wrong TS_2DIFF bit
    # widths from the SIMD encoder. Such a CPU must get the scalar kernels; the full model keeps
    # AVX2 (so the check is not simply "never SIMD under qemu").
    if not IS_X86_64:
        pytest.skip("the AVX2 run-time checks concern x86-64 builds")
    qemu = _tool("qemu-x86_64")
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("TSFILE_SIMD", None)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])
    )
    code = "import json, tsfile; print(json.dumps(tsfile.simd_info()))"
    active = {}
    for model in ("Haswell", "Haswell,-abm"):
        rc, out = _python_under(qemu, model, code, env)
        if rc != 0 and model == "Haswell":
            msg = f"numpy/tsfile does not import under -cpu Haswell:\n{out[-2000:]}"
            if REQUIRE:
                pytest.fail(msg)
            pytest.skip(msg)
        assert rc == 0, out
        info = json.loads(next(line for line in out.splitlines() if line.startswith("{")))
        active[model] = info["active"]
    assert active == {"Haswell": "avx2", "Haswell,-abm": "none"}, active


def _qemu_env():
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("TSFILE_SIMD", None)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])
    )
    return env


# CPU model -> (the ISA level simd_info() must report, the TS_2DIFF row that must run). qemu-user's
# TCG (7.2 here) executes no AVX-512: for the AVX-512 models it warns "TCG doesn't support requested
# feature: CPUID.07H:EBX.avx512f" and leaves the bits and XCR0's ZMM state (0x207) clear, so those
# models must fall back to AVX2 rather than fault. Which row an AVX-512 CPU without VBMI runs
# (Skylake-Server: the AVX2 row of TS_2DIFF under level avx512) is checked with synthetic feature
# masks in tests/c/ts2diff_check.c.
ISA_MODELS = {
    "Haswell": ("avx2", "avx2"),
    "Skylake-Client": ("avx2", "avx2"),
    "Skylake-Server": ("avx2", "avx2"),
    "Icelake-Server": ("avx2", "avx2"),
}


@pytest.mark.parametrize("model", list(ISA_MODELS))
def test_isa_choice_under_cpu_models(model):
    if not IS_X86_64:
        pytest.skip("the x86-64 ISA rows concern x86-64 builds")
    qemu = _tool("qemu-x86_64")
    code = (
        "import json, numpy as np, tsfile\n"
        "from tsfile.codecs import ts2diff\n"
        "rng = np.random.default_rng(3)\n"
        "ok = True\n"
        "for dt, top in ((np.int32, 32), (np.int64, 64)):\n"
        "    for w in range(top + 1):\n"
        "        d = rng.integers(0, 2**min(w, 62), size=700, dtype=np.int64) if w else 0\n"
        "        v = (np.cumsum(np.zeros(700, np.int64) + d) * (1 if w < 63 else 3)).astype(dt)\n"
        "        data = ts2diff.encode(v, path='batch')\n"
        "        ok &= ts2diff.encode(v) == data\n"
        "        ok &= bool((ts2diff.decode(data, dt) == v).all())\n"
        "print(json.dumps([tsfile.simd_info(), ok]))\n"
    )
    rc, out = _python_under(qemu, model, code, _qemu_env())
    if rc != 0 and "Illegal instruction" in out and model != "Haswell":
        pytest.skip(f"numpy does not run under -cpu {model}")
    assert rc == 0, out[-3000:]
    info, ok = json.loads(next(line for line in out.splitlines() if line.startswith("[")))
    level, row = ISA_MODELS[model]
    assert info["active"] == level, info
    assert info["codecs"]["ts2diff"] == row, info
    if level != "avx512":
        assert "avx512f" not in info["cpu"], info
    assert ok, f"TS_2DIFF round trip differs under -cpu {model}"
