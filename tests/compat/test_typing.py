"""The package ships its types: a py.typed marker, stubs of the compiled modules, docstrings on
the official API added for issue 11, and mypy sees tsfile.TsFileReader as the class, not Any."""

import ast
import importlib
import inspect
import os
import subprocess
import sys
from pathlib import Path

import pytest

import tsfile

from .both import REPO

NEW_MODULES = ["tsfile.exceptions", "tsfile.constants", "tsfile.config", "tsfile.utils"]


def test_py_typed_marker_is_in_the_package_and_its_package_data():
    assert (Path(tsfile.__file__).parent / "py.typed").is_file()
    pyproject = (REPO / "pyproject.toml").read_text()
    package_data = pyproject.split("[tool.setuptools.package-data]")[1].split("\n[")[0]
    assert '"py.typed"' in package_data


@pytest.mark.parametrize("module", NEW_MODULES)
def test_every_public_name_of_the_new_modules_has_a_docstring(module):
    mod = importlib.import_module(module)
    assert inspect.getdoc(mod)
    for name in mod.__all__:
        obj = getattr(mod, name)
        if inspect.isclass(obj) or inspect.isfunction(obj):
            assert inspect.getdoc(obj), f"{module}.{name} has no docstring"


def test_result_set_methods_have_docstrings_and_stubs():
    from tsfile._read import resultset

    stub = (Path(resultset.__file__).parent / "resultset.pyi").read_text()
    for name in ("read_data_frame", "read_arrow_batch", "read_arrow_record_batch"):
        assert inspect.getdoc(getattr(resultset.ResultSet, name)), name
        assert f"def {name}(" in stub, name
    for name in ("get_column_name", "get_data_type"):
        assert inspect.getdoc(getattr(resultset.ResultSetMetaData, name)), name


def test_every_lazy_name_is_typed_from_its_module():
    """tsfile.__getattr__ serves the names of tsfile._LAZY; type checkers see them only in the
    ``if TYPE_CHECKING:`` imports, which must name each one from the same module."""
    tree = ast.parse(Path(tsfile.__file__).read_text())
    typed = {}
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for imp in ast.walk(node):
                if isinstance(imp, ast.ImportFrom):
                    typed.update({a.asname or a.name: imp.module for a in imp.names})
    assert typed == tsfile._LAZY


def test_mypy_sees_the_reader_class(tmp_path):
    pytest.importorskip("mypy", reason="mypy is not installed")
    snippet = tmp_path / "use.py"
    snippet.write_text(
        "import tsfile\n"
        "reader = tsfile.TsFileReader('x.tsfile')\n"
        "reveal_type(reader)\n"
        "reveal_type(tsfile.get_tsfile_config())\n"
    )
    env = {**os.environ, "MYPYPATH": str(REPO)}
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "--follow-imports=silent", str(snippet)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=600,
    )
    assert 'Revealed type is "tsfile.reader.TsFileReader"' in proc.stdout, proc.stdout
    assert "dict[str, Any]" in proc.stdout, proc.stdout  # mypy versions differ in the prefix
