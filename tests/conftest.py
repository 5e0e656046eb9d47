"""Suite-wide test policy for optional tools.

Tests that need a tool the package does not install skip, naming it, where it is missing: the
official Apache tsfile venv (tests/interop/official_env.py), qemu-user and the aarch64 cross
compiler (test_isa_emulation.py). CI installs them all and sets TSFILE_REQUIRE_*=1 so that a
missing one is an error there, not a silent skip: TSFILE_REQUIRE_OFFICIAL here, at the start of the
session; TSFILE_REQUIRE_QEMU in test_isa_emulation.py. Every compression (LZO included) comes with
the package's own dependencies, so no compression test skips.
"""

import gc
import os

import pytest

# Shared assertion helpers: let pytest rewrite their asserts for detailed failure reports.
pytest.register_assert_rewrite("codec_checks")


def _required(name):
    return os.environ.get(f"TSFILE_REQUIRE_{name}", "") == "1"


def pytest_sessionstart(session):
    if _required("OFFICIAL"):
        from interop.official import official_python  # tests/ is on sys.path (rootdir conftest)

        if official_python() is None:
            raise pytest.UsageError(
                "TSFILE_REQUIRE_OFFICIAL=1 but the official tsfile venv is not available "
                "(python3 tests/interop/official_env.py; export TSFILE_OFFICIAL_PYTHON)"
            )


@pytest.fixture
def collector_enabled():
    """The garbage collector enabled for the test (as a user's is), its state given back after
    (the dataset view pauses it while it opens, and must give it back)."""
    was = gc.isenabled()
    gc.enable()
    yield
    (gc.enable if was else gc.disable)()
