"""A TsFileDataFrame over files without one numeric series refuses them, as the official view
does (ValueError, "No valid time series found in the provided TsFile files"); it gave an empty
view. Checked against the official wheel where its virtualenv exists."""

from __future__ import annotations

import subprocess

import pytest
from interop.official import skip_unless_official

import tsfile


def _write(path, columns):
    schema = tsfile.TableSchema("t", columns)
    with tsfile.TsFileTableWriter(str(path), schema) as w:
        if len(columns) > 1 and columns[1].get_data_type() == tsfile.TSDataType.STRING:
            w.write_arrays([1, 2], {"dev": ["a", "a"], "s": ["x", "y"]})


TAG = tsfile.ColumnSchema("dev", tsfile.TSDataType.STRING, tsfile.ColumnCategory.TAG)
INT = tsfile.ColumnSchema("v", tsfile.TSDataType.INT64, tsfile.ColumnCategory.FIELD)
TEXT = tsfile.ColumnSchema("s", tsfile.TSDataType.STRING, tsfile.ColumnCategory.FIELD)


@pytest.fixture(params=["empty files", "text fields only"])
def no_series_dir(request, tmp_path):
    for k in range(2):
        if request.param == "empty files":
            _write(tmp_path / f"e{k}.tsfile", [TAG, INT])
        else:
            _write(tmp_path / f"e{k}.tsfile", [TAG, TEXT])
    return tmp_path


def test_the_view_refuses_files_without_a_numeric_series(no_series_dir):
    with pytest.raises(ValueError, match="No valid time series found") as info:
        tsfile.TsFileDataFrame(str(no_series_dir), show_progress=False)
    assert isinstance(info.value, tsfile.TsFileError)
    assert "2 files" in str(info.value)


def test_the_official_view_refuses_them_too(no_series_dir):
    py = skip_unless_official()
    script = (
        "import sys\n"
        "from tsfile import TsFileDataFrame\n"
        "try:\n"
        "    TsFileDataFrame(sys.argv[1], show_progress=False)\n"
        "    print('opened')\n"
        "except ValueError as e:\n"
        "    print('ValueError', e)\n"
    )
    out = subprocess.run(
        [py, "-c", script, str(no_series_dir)], capture_output=True, text=True, cwd="/", timeout=120
    )
    assert out.stdout.startswith("ValueError No valid time series found"), out.stdout + out.stderr
