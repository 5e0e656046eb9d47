"""The exception hierarchy of the package: every error it raises on its own account derives from
:class:`TsFileError`, which is the official package's :class:`~tsfile.exceptions.LibraryError`.

The classes with an official name (``TypeMismatchError``, ``AlreadyExistsError``,
``TableNotExistError``, ...) are defined in :mod:`tsfile.exceptions` and are the same objects
here; the classes below are our own refinements of an official one (a ``CorruptDataError`` is a
``TsFileCorruptedError``, an ``UnsupportedError`` a ``NotSupportedError``), so a user of the
official package catches them by the official name. Argument errors of the ordinary kind are
also instances of the matching built-in class, so ``except TypeError`` / ``except ValueError`` /
``except FileNotFoundError`` keep working for callers that expect them.
"""

from tsfile.exceptions import (
    AlreadyExistsError,
    ColumnNotExistError,
    DeviceNotExistError,
    EncodeError,
    FileOpenError,
    FileWriteError,
    InvalidSchemaError,
    LibraryError,
    NotSupportedError,
    OutOfOrderError,
    TableNotExistError,
    TsFileCorruptedError,
    TsFileError,
    TypeMismatchError,
)


class CorruptDataError(TsFileCorruptedError):
    """Encoded data or a file is truncated, inconsistent or hostile (also a ``ValueError``).

    The message says what is wrong and where (a byte offset into the buffer or the file).
    """


class UnsupportedError(NotSupportedError):
    """Valid data using a feature this library does not implement (an encoding, a version);
    also a ``NotImplementedError``."""


class SimdUnavailableError(TsFileError, RuntimeError):
    """``path="simd"`` where no SIMD kernel can run (not built, CPU lacks it, forced off)."""


class ClosedError(TsFileError, ValueError):
    """A reader, writer or result set was used after it was closed (or closed while in use)."""


class NoCurrentRowError(TsFileError, RuntimeError):
    """A ResultSet value was asked for with no current row: before next() returned True, or
    after the result ran out (also a RuntimeError, which it was before it had a class)."""


class WriterClosedError(ClosedError, FileWriteError):
    """A write call (or add_tsfile_property) on a closed writer: the official package raises
    FileWriteError there."""


class TsFileNotFoundError(FileOpenError, FileNotFoundError):
    """The path to read does not exist: the official FileOpenError and Python's
    FileNotFoundError (``errno``, ``filename`` set)."""


class MissingDependencyError(NotSupportedError, ImportError):
    """A URL whose reading needs a package that is not installed: fsspec itself, or the file
    system of its protocol (s3fs for ``s3://``, gcsfs for ``gcs://``...). Also an ImportError,
    which it was before it had a class; the message names the URL."""


class ValueOutOfRangeError(TypeMismatchError, OverflowError):
    """An integer outside its column's range, given to the Tablet's row API
    (``add_value_by_index`` / ``add_value_by_name``): a ``TypeMismatchError``, as every value a
    column cannot hold, and an ``OverflowError``, Python's convention for an integer too large
    for its type and what the official Tablet raises."""


class InvalidFilterError(TsFileError, ValueError):
    """A query filter that cannot be applied as given: a tag filter or value filter on a column
    of the wrong category or type, an unknown operator, an invalid regular expression. Raised
    before any data is read; the message names the column."""


__all__ = [
    "LibraryError",
    "TsFileError",
    "CorruptDataError",
    "UnsupportedError",
    "SimdUnavailableError",
    "EncodeError",
    "TypeMismatchError",
    "ValueOutOfRangeError",
    "AlreadyExistsError",
    "ClosedError",
    "NoCurrentRowError",
    "WriterClosedError",
    "TsFileNotFoundError",
    "MissingDependencyError",
    "TableNotExistError",
    "ColumnNotExistError",
    "DeviceNotExistError",
    "InvalidSchemaError",
    "OutOfOrderError",
    "InvalidFilterError",
]
