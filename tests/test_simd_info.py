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


def test_simd_info_keys_and_family():
    info = tsfile.simd_info()
    assert {"compiled", "cpu", "available", "active"} <= set(info)
    assert info["compiled"] in ("avx2", "neon", "none")
    assert isinstance(info["cpu"], list)
    machine = platform.machine().lower()
    if info["compiled"] != "none":  # the family follows the architecture
        assert info["compiled"] == ("avx2" if machine in ("x86_64", "amd64") else "neon")
    assert info["active"] in (info["compiled"], "none")
    if info["compiled"] == "none":
        assert not info["available"]
        assert not ts2diff.HAS_SIMD


def test_cpu_detection_agrees_with_proc_cpuinfo():
    flags = _cpu_flags()
    info = tsfile.simd_info()
    if flags is None or info["compiled"] != "avx2":
        pytest.skip("needs an x86-64 Linux build with AVX2 kernels")
    assert ("avx2" in info["cpu"]) == ("avx2" in flags)
    assert info["available"] == ("avx2" in flags and "bmi2" in flags)


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
            assert tsfile.simd_info()["active"] == tsfile.simd_info()["compiled"]
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
