"""simd_info(), the run-time SIMD switch and the TSFILE_SIMD environment variable."""

import json
import os
import platform
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tsfile
from tsfile import SimdUnavailableError
from tsfile.codecs import ts2diff

ROOT = Path(__file__).resolve().parent.parent


def _cpu_flags():
    """CPU feature flags from /proc/cpuinfo (Linux), an independent view of the CPU."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith(("flags", "Features")):
                return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return None


def test_simd_info_keys_and_families():
    info = tsfile.simd_info()
    assert {"compiled", "implementations", "cpu", "available", "active", "codecs"} <= set(info)
    assert isinstance(info["cpu"], list)
    machine = platform.machine().lower()
    assert info["compiled"][-1] == "scalar" and info["implementations"][-1] == "scalar"
    if info["family"] != "none":  # the families follow the architecture
        want = ["avx512", "avx2"] if machine in ("x86_64", "amd64") else ["neon"]
        assert info["compiled"] == want + ["scalar"]
    # what runs here is a subset of what is compiled, in the same (best first) order
    assert [n for n in info["compiled"] if n in info["implementations"]] == info["implementations"]
    assert info["available"] == (info["implementations"] != ["scalar"])
    assert info["active"] in info["implementations"] or info["active"] == "none"
    assert info["codecs"]["ts2diff"] in ts2diff.implementations()
    if info["family"] == "none":
        assert not info["available"]
        assert not ts2diff.HAS_SIMD


def test_cpu_detection_agrees_with_proc_cpuinfo():
    flags = _cpu_flags()
    info = tsfile.simd_info()
    if flags is None or "avx2" not in info["compiled"]:
        pytest.skip("needs an x86-64 Linux build with AVX2 kernels")
    # our name -> the kernel's /proc/cpuinfo name
    for name, proc in (
        ("avx2", "avx2"),
        ("bmi2", "bmi2"),
        ("avx512f", "avx512f"),
        ("avx512bw", "avx512bw"),
        ("avx512vl", "avx512vl"),
        ("avx512vbmi", "avx512vbmi"),
        ("avx512vbmi2", "avx512_vbmi2"),
    ):
        assert (name in info["cpu"]) == (proc in flags), name
    assert ("avx2" in info["implementations"]) == ("avx2" in flags and "bmi2" in flags)
    # every AVX-512 row needs VBMI (vpermb) too, so the level is offered only with it
    avx512 = {"avx512f", "avx512bw", "avx512vl", "avx512vbmi"} <= flags and "avx2" in flags
    assert ("avx512" in info["implementations"]) == avx512
    assert ts2diff.implementations()[0] == info["implementations"][0]


def test_set_simd_picks_each_level_and_refuses_what_cannot_run():
    data = ts2diff.encode(np.arange(1000, dtype=np.int64) * 7)
    expected = np.arange(1000, dtype=np.int64) * 7
    available = tsfile.simd_info()["implementations"]
    previous = tsfile.set_simd("best")
    try:
        for name in available:
            tsfile.set_simd(name)
            assert tsfile.simd_info()["active"] == (name if name != "scalar" else "none")
            row = ts2diff.active_implementation()
            assert row in ts2diff.implementations()
            # the row never belongs to a higher level than the one chosen
            assert available.index(row) >= available.index(name)
            np.testing.assert_array_equal(ts2diff.decode(data, np.int64), expected)
        for name in ("avx512", "avx2", "neon"):
            if name not in available:
                with pytest.raises(SimdUnavailableError, match=name):
                    tsfile.set_simd(name)
        with pytest.raises(ValueError, match="unknown ISA"):
            tsfile.set_simd("sse9")
        with pytest.raises(TypeError):
            tsfile.set_simd(1)
        assert tsfile.set_simd("off") == available[-1] and tsfile.set_simd("best") == "scalar"
        assert tsfile.simd_info()["implementations"][0] == tsfile._simd.active_isa()
    finally:
        tsfile.set_simd(previous)


def test_switch_changes_active_and_paths():
    data = ts2diff.encode(np.arange(1000, dtype=np.int64) * 7)
    previous = tsfile.set_simd_enabled(False)
    try:
        assert tsfile.simd_info()["active"] == "none"
        assert not tsfile.is_simd_enabled()
        with pytest.raises(SimdUnavailableError):
            ts2diff.decode(data, np.int64, path="simd")
        scalar = ts2diff.decode(data, np.int64)
        tsfile.set_simd_enabled(True)
        if tsfile.simd_available():
            assert tsfile.simd_info()["active"] == tsfile.simd_info()["implementations"][0]
            np.testing.assert_array_equal(ts2diff.decode(data, np.int64, path="simd"), scalar)
        else:  # turning it on where it cannot run leaves it off
            assert tsfile.simd_info()["active"] == "none"
    finally:
        tsfile.set_simd_enabled(previous)


def test_env_var_forces_scalar_at_import():
    code = (
        "import json, numpy as np, tsfile\n"
        "from tsfile.codecs import ts2diff\n"
        "info = tsfile.simd_info()\n"
        "try:\n"
        "    ts2diff.decode(ts2diff.encode(np.arange(9, dtype=np.int64)), np.int64, path='simd')\n"
        "    simd_path = 'ran'\n"
        "except tsfile.SimdUnavailableError:\n"
        "    simd_path = 'refused'\n"
        "print(json.dumps([info, simd_path]))\n"
    )
    env = {**os.environ, "TSFILE_SIMD": "off"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    ).stdout
    info, simd_path = json.loads(out.strip().splitlines()[-1])
    assert info["active"] == "none"
    assert info["forced_off_by_env"] is True
    assert simd_path == "refused"


def _info_with_env(value):
    """simd_info() of a fresh interpreter started with TSFILE_SIMD=value, and its stderr."""
    code = "import json, tsfile, tsfile.codecs.ts2diff; print(json.dumps(tsfile.simd_info()))"
    env = {**os.environ, "TSFILE_SIMD": value}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    proc = subprocess.run(
        [sys.executable, "-W", "always", "-c", code],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return json.loads(proc.stdout.strip().splitlines()[-1]), proc.stderr


@pytest.mark.parametrize("name", ["avx512", "avx2", "neon"])
def test_env_var_forces_an_isa_or_falls_back_with_a_warning(name):
    info, stderr = _info_with_env(name)
    available = info["implementations"]
    if name in available:
        assert info["active"] == name and "RuntimeWarning" not in stderr
        if name != "avx512":  # a lower level: no codec runs a row above it
            assert info["codecs"]["ts2diff"] == name
    else:  # e.g. neon on x86-64, avx512 on a CPU without it: import works, a warning says so
        assert "RuntimeWarning" in stderr and f"TSFILE_SIMD={name!r}" in stderr, stderr
        assert info["active"] in available or info["active"] == "none"
        assert info["forced_by_env"] == name


def test_env_var_unknown_value_warns_and_keeps_the_default():
    info, stderr = _info_with_env("sse9")
    assert "RuntimeWarning" in stderr and "sse9" in stderr
    best = info["implementations"][0]
    assert info["active"] == (best if best != "scalar" else "none")


def test_simd_info_lists_ts2diff_right_after_import():
    """simd_info()['codecs'] names the row every codec with a table runs, right after
    ``import tsfile`` too (codecs register when their module is imported; it once listed none
    until something imported tsfile.codecs.ts2diff)."""
    r = subprocess.run(
        [sys.executable, "-c", 'import tsfile; print(sorted(tsfile.simd_info()["codecs"]))'],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=str(Path(__file__).resolve().parent.parent),
    )
    assert r.returncode == 0, r.stderr[-400:]
    assert "ts2diff" in r.stdout, r.stdout
