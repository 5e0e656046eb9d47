"""Suite-wide test policy for optional dependencies.

LZO pages need the optional ``python-lzo`` package (it builds only where the liblzo2 headers are
installed). Where it is missing, a test that fails only because an LZO page could not be
(de)compressed is reported as skipped, naming the reason, instead of failing; CI installs
python-lzo and sets TSFILE_REQUIRE_LZO=1, which turns this off so that such tests must pass.
"""

import importlib.util
import os

import pytest

from tsfile.errors import UnsupportedError

# Shared assertion helpers: let pytest rewrite their asserts for detailed failure reports.
pytest.register_assert_rewrite("codec_checks")

_LZO_MISSING = importlib.util.find_spec("lzo") is None
_LZO_REQUIRED = os.environ.get("TSFILE_REQUIRE_LZO", "") == "1"


def _needs_missing_lzo(exc):
    # Walk the cause/context chain: the error may be wrapped by the code under test.
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, UnsupportedError) and "python-lzo" in str(exc):
            return True
        if isinstance(exc, ModuleNotFoundError) and exc.name == "lzo":
            return True
        exc = exc.__cause__ or exc.__context__
    return False


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if (
        _LZO_MISSING
        and not _LZO_REQUIRED
        and report.failed
        and call.excinfo is not None
        and _needs_missing_lzo(call.excinfo.value)
    ):
        report.outcome = "skipped"
        report.longrepr = (
            str(item.path),
            item.location[1] or 0,
            "Skipped: LZO needs the optional python-lzo package (not installed)",
        )


def pytest_sessionstart(session):
    if _LZO_REQUIRED and _LZO_MISSING:
        raise pytest.UsageError("TSFILE_REQUIRE_LZO=1 but python-lzo is not installed")
