"""tsfile.exceptions: the official classes, codes and get_exception, and the errors this package
raises being instances of the official classes (and of Python's where that is the convention)."""

import errno

import pytest

import tsfile
from tsfile import errors, exceptions

from .both import run_ours, same_on_both

CODES_AND_MAPPING = """
from tsfile.exceptions import ERROR_MAPPING, ErrorCode, LibraryError, get_exception
out["codes"] = {c.name: int(c) for c in ErrorCode}
out["mapping"] = {str(k): v.__name__ for k, v in sorted(ERROR_MAPPING.items())}
out["defaults"] = {v.__name__: [v._default_code, v._default_message]
                   for v in ERROR_MAPPING.values()}
e = get_exception(ErrorCode.TSFILE_CORRUPTED)
out["corrupted"] = [type(e).__name__, e.code, e.message]
u = get_exception(999, "opening reader")
out["unknown"] = [type(u) is LibraryError, u.code, u.message]
out["ok"] = get_exception(0) is None
out["no_default_message"] = get_exception(ErrorCode.NOT_MATCH, "x").message
out["library_error"] = [LibraryError().code, LibraryError().message, str(LibraryError(7, "m"))]
"""


def test_codes_mapping_and_get_exception_match_the_official_package():
    out = same_on_both(CODES_AND_MAPPING)
    assert out["corrupted"] == ["TsFileCorruptedError", 35, "TsFile is corrupted"]
    assert out["unknown"] == [True, 999, "opening reader: Unknown library error"]


OPEN_ERRORS = """
import tsfile
from tsfile.exceptions import AlreadyExistsError, FileOpenError, TsFileCorruptedError, LibraryError
def code_of(fn, *args):
    try:
        fn(*args)
    except LibraryError as exc:
        return [exc.code, isinstance(exc, FileOpenError), isinstance(exc, TsFileCorruptedError),
                isinstance(exc, AlreadyExistsError)]
    return None
out["missing"] = code_of(tsfile.TsFileReader, os.path.join(tmp, "missing.tsfile"))
open("empty.tsfile", "wb").close()
out["empty"] = code_of(tsfile.TsFileReader, "empty.tsfile")
out["exists"] = code_of(tsfile.TsFileWriter, "empty.tsfile")
"""


def test_open_errors_are_the_official_classes_with_their_codes():
    out = same_on_both(OPEN_ERRORS)
    assert out["missing"] == [28, True, False, False]
    assert out["empty"] == [35, False, True, False]
    assert out["exists"] == [3, False, False, True]


def test_missing_file_is_file_not_found_and_file_open_error(tmp_path):
    # before: a plain FileNotFoundError from os.open, not the official FileOpenError
    path = tmp_path / "missing.tsfile"
    with pytest.raises(FileNotFoundError) as info:
        tsfile.TsFileReader(path)
    exc = info.value
    assert isinstance(exc, exceptions.FileOpenError) and isinstance(exc, tsfile.TsFileError)
    assert exc.errno == errno.ENOENT and exc.filename == str(path)
    assert exc.code == exceptions.ErrorCode.FILE_OPEN_ERROR
    assert str(path) in str(exc)


def test_corrupt_file_is_corrupt_data_error_and_tsfile_corrupted_error(tmp_path):
    path = tmp_path / "empty.tsfile"
    path.write_bytes(b"")
    with pytest.raises(errors.CorruptDataError) as info:
        tsfile.TsFileReader(path)
    assert isinstance(info.value, exceptions.TsFileCorruptedError)
    assert isinstance(info.value, ValueError)
    assert info.value.code == 35 and str(path) in info.value.message


def test_our_classes_are_the_official_ones_where_names_match():
    for name in exceptions.__all__:
        if hasattr(errors, name):
            assert getattr(errors, name) is getattr(exceptions, name), name
        assert getattr(tsfile, name) is getattr(exceptions, name), name
    assert errors.TsFileError is exceptions.TsFileError
    assert issubclass(errors.TsFileError, exceptions.LibraryError)
    assert issubclass(errors.UnsupportedError, exceptions.NotSupportedError)
    assert issubclass(errors.UnsupportedError, NotImplementedError)
    assert issubclass(errors.TypeMismatchError, TypeError)
    assert issubclass(errors.TypeMismatchError, ValueError)
    assert issubclass(errors.AlreadyExistsError, FileExistsError)
    assert issubclass(errors.TableNotExistError, KeyError)
    assert issubclass(errors.WriterClosedError, exceptions.FileWriteError)
    assert issubclass(errors.WriterClosedError, errors.ClosedError)


def test_messages_stay_ours_and_codes_are_the_official_ones():
    exc = errors.TypeMismatchError("column 'v', row 3: 1.5 is not an INT32")
    assert str(exc) == exc.message == "column 'v', row 3: 1.5 is not an INT32"
    assert exc.code == exceptions.ErrorCode.TYPE_MISMATCH
    # KeyError subclasses print the message, not its repr
    assert str(errors.TableNotExistError("no table 't'")) == "no table 't'"
    built = exceptions.get_exception(exceptions.ErrorCode.TYPE_MISMATCH, "writing")
    assert type(built) is errors.TypeMismatchError
    assert built.message == "writing: Data type mismatch" == str(built)


CLOSED_WRITER = """
import tsfile
from tsfile.exceptions import FileWriteError
w = tsfile.TsFileWriter("w.tsfile")
w.close()
try:
    w.add_tsfile_property("k", b"v")
    out["closed"] = None
except FileWriteError as exc:
    out["closed"] = exc.code
"""


def test_closed_writer_raises_file_write_error():
    # before: ClosedError, which official code catching FileWriteError missed
    assert same_on_both(CLOSED_WRITER)["closed"] == 30


def test_closed_writer_error_is_also_closed_error():
    out = run_ours(
        CLOSED_WRITER.replace(
            "tsfile.exceptions import FileWriteError",
            "tsfile.errors import ClosedError as FileWriteError",
        )
    )
    assert out["closed"] == 30
