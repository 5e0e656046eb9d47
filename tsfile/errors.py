"""The exception hierarchy of the package: every error it raises on its own account derives from
:class:`TsFileError`. Argument errors of the ordinary kind (a wrong type, a bad keyword value) are
also instances of the matching built-in class, so ``except TypeError`` / ``except ValueError``
keep working for callers that expect them.
"""


class TsFileError(Exception):
    """Root of every error this package raises about files, data and codecs."""


class CorruptDataError(TsFileError, ValueError):
    """Encoded data or a file is truncated, inconsistent or hostile.

    The message says what is wrong and where (a byte offset into the buffer or the file).
    """


class UnsupportedError(TsFileError, NotImplementedError):
    """Valid data using a feature this library does not implement (an encoding, a version)."""


class SimdUnavailableError(TsFileError, RuntimeError):
    """``path="simd"`` where no SIMD kernel can run (not built, CPU lacks it, forced off)."""


class EncodeError(TsFileError, ValueError):
    """Values cannot be stored with the requested encoding (e.g. GORILLA's end-marker values)."""


class TypeMismatchError(TsFileError, TypeError, ValueError):
    """A value given to a writer does not fit its column exactly: a wrong type, a fractional float
    for an integer column, an integer outside the column's range, an invalid DATE, text that is not
    valid UTF-8. The official package's name. The message names the column and the first bad row.
    """


class AlreadyExistsError(TsFileError, FileExistsError):
    """A writer was opened on a path that exists, without ``overwrite=True`` (the official
    package's name; it refuses too)."""


class ClosedError(TsFileError, ValueError):
    """A reader, writer or result set was used after it was closed (or closed while in use)."""


class TableNotExistError(TsFileError, KeyError):
    """A table name that the file does not hold."""


class ColumnNotExistError(TsFileError, KeyError):
    """A column or measurement name that the table or device does not hold."""


class DeviceNotExistError(TsFileError, KeyError):
    """A device that the file does not hold."""


class InvalidSchemaError(TsFileError, ValueError):
    """A table schema a writer cannot write as given (e.g. a TAG/FIELD column named like the time
    column). The official package's name."""


class OutOfOrderError(TsFileError, ValueError):
    """A write call gives one device two rows with the same timestamp (within the call, or against
    its rows buffered since the last flush). The official 2.5 writer raises its OutOfOrderError
    for these cases (and for any decreasing timestamp, which this writer sorts instead)."""


class InvalidFilterError(TsFileError, ValueError):
    """A query filter that cannot be applied as given: a tag filter or value filter on a column
    of the wrong category or type, an unknown operator, an invalid regular expression. Raised
    before any data is read; the message names the column."""


__all__ = [
    "TsFileError",
    "CorruptDataError",
    "UnsupportedError",
    "SimdUnavailableError",
    "EncodeError",
    "TypeMismatchError",
    "AlreadyExistsError",
    "ClosedError",
    "TableNotExistError",
    "ColumnNotExistError",
    "DeviceNotExistError",
    "InvalidSchemaError",
    "OutOfOrderError",
    "InvalidFilterError",
]
