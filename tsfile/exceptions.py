"""The official package's exceptions (``tsfile.exceptions`` of Apache tsfile 2.5): the error codes
of the C++ library (:class:`ErrorCode`), one class per code under :class:`LibraryError`,
:data:`ERROR_MAPPING` and :func:`get_exception`, with the same names, codes and default messages.

Every error this package raises derives from :class:`TsFileError` (a :class:`LibraryError`), so
``except LibraryError`` and the official class a user catches (``except FileOpenError``,
``except TsFileCorruptedError``, ...) catch ours too. Where Python has a convention the classes
are also the matching built-in exception (a ``TypeMismatchError`` is a ``TypeError``, a
``FileOpenError`` an ``OSError``, a ``TableNotExistError`` a ``KeyError``, ...), and the few
classes of our own (:mod:`tsfile.errors`) subclass the official one they refine (a
``CorruptDataError`` is a ``TsFileCorruptedError``).

An error raised by this package has the class's official ``code``; its ``message`` (and
``str()``) is our own message, which says what is wrong and where (the file, a byte offset, the
column and row)."""

from __future__ import annotations

from enum import IntEnum


class ErrorCode(IntEnum):
    """The C++ library's error codes, as the official package numbers them."""

    OK = 0
    OOM = 1
    NOT_EXIST = 2
    ALREADY_EXIST = 3
    INVALID_ARGUMENT = 4
    OUT_OF_RANGE = 5
    PARTIAL_READ = 6
    INVALID_SCHEMA = 8
    OVERFLOW = 20
    NO_MORE_DATA = 21
    OUT_OF_ORDER = 22
    DATA_INCONSISTENCY = 24
    TYPE_NOT_SUPPORTED = 26
    TYPE_MISMATCH = 27
    FILE_OPEN_ERROR = 28
    FILE_CLOSE_ERROR = 29
    FILE_WRITE_ERROR = 30
    FILE_READ_ERROR = 31
    FILE_SYNC_ERROR = 32
    WRITER_METADATA_ERROR = 33
    FILE_STAT_ERROR = 34
    TSFILE_CORRUPTED = 35
    BUFFER_NOT_ENOUGH = 36
    INVALID_PATH = 37
    NOT_MATCH = 38
    NOT_SUPPORTED = 40
    INVALID_DATA_POINT = 43
    DEVICE_NOT_EXIST = 44
    MEASUREMENT_NOT_EXIST = 45
    COMPRESSION_ERROR = 48
    TABLE_NOT_EXIST = 49
    COLUMN_NOT_EXIST = 50
    UNSUPPORTED_ORDER = 51
    INVALID_NODE_TYPE = 52
    ENCODE_ERROR = 53
    DECODE_ERROR = 54
    FILE_MAP_ERROR = 55


class LibraryError(Exception):
    """Root of the official classes: ``code`` (an :class:`ErrorCode` value, -1 when unknown) and
    ``message``. ``LibraryError(code=None, context=None)`` as in the official package."""

    _default_message = "Unknown error occurred"
    _default_code = -1

    def __init__(self, code=None, context=None):
        self.code = code if code is not None else self._default_code
        self.message = context if context is not None else self._default_message
        super().__init__(f"[{self.code}] {self.message}")

    def __str__(self):
        return f"{self.code}: {self.message}"


class TsFileError(LibraryError):
    """Root of every error this package raises about files, data and codecs.

    Built like any exception, ``TsFileError("what is wrong and where")`` (OSError subclasses
    take OSError's ``(errno, strerror, filename)``), or like the official classes with the
    keywords ``code`` / ``context`` (what :func:`get_exception` does). ``code`` is the class's
    official code unless given; ``message`` and ``str()`` are the message."""

    def __init__(self, *args, code=None, context=None):
        if not args:
            args = (context if context is not None else self._default_message,)
        # Skip LibraryError.__init__ (its positional arguments are code and context): the next
        # class in the MRO is a built-in exception (OSError parses errno/filename here).
        super(LibraryError, self).__init__(*args)
        self.code = code if code is not None else self._default_code
        self.message = context if context is not None else self._text(args)

    def _text(self, args):
        if len(args) == 1:
            return str(args[0])
        if isinstance(self, OSError):
            return OSError.__str__(self)  # "[Errno 2] No such file or directory: 'path'"
        return str(args)

    def __str__(self):
        return self.message


class OOMError(TsFileError, MemoryError):
    """Out of memory."""

    _default_message = "Out of memory"
    _default_code = 1


class NotExistsError(TsFileError, LookupError):
    """A requested resource does not exist."""

    _default_message = "Requested resource does not exist"
    _default_code = 2


class AlreadyExistsError(TsFileError, FileExistsError):
    """A writer was opened on a path that exists, without ``overwrite=True`` (the official writer
    refuses too), or a series or device was registered twice. Also a ``FileExistsError``.

    ``message`` is the official text, ``"Resource already exists"`` (code that compares it, as
    the official tests do, keeps working); ``str()`` is our message, which names the path, the
    series or the device."""

    _default_message = "Resource already exists"
    _default_code = 3

    def __init__(self, *args, code=None, context=None):
        super().__init__(*args, code=code, context=context)
        self.detail = self.message
        if context is None:
            self.message = self._default_message

    def __str__(self):
        return self.detail


class InvalidArgumentError(TsFileError, ValueError):
    """An argument the call cannot use (e.g. a tablet naming a column twice)."""

    _default_message = "Invalid argument provided"
    _default_code = 4


class OutOfRangeError(TsFileError, IndexError):
    """A value or index outside its valid range."""

    _default_message = "Value out of valid range"
    _default_code = 5


class PartialReadError(TsFileError, OSError):
    """A read returned fewer bytes than asked for."""

    _default_message = "Incomplete data read operation"
    _default_code = 6


class InvalidSchemaError(TsFileError, ValueError):
    """A table schema a writer cannot write as given (e.g. a TAG/FIELD column named like the
    time column)."""

    _default_message = "Invalid schema"
    _default_code = 8


class TsFileOverflowError(TsFileError, OverflowError):
    """A buffer or value overflow."""

    _default_message = "Buffer or value overflow"
    _default_code = 20


class NoMoreDataError(TsFileError):
    """No more data."""

    _default_message = "No more data"
    _default_code = 21


class OutOfOrderError(TsFileError, ValueError):
    """A write call gives one device two rows with the same timestamp (within the call, or
    against its rows buffered since the last flush). The official table writer raises it for
    these cases (and for any decreasing timestamp, which this writer sorts instead); its
    tree-model write_row_record accepts both (README, deliberate differences)."""

    _default_message = "Data is out of order"
    _default_code = 22


class DataInconsistencyError(TsFileError, ValueError):
    """Data is inconsistent."""

    _default_message = "Data is inconsistent"
    _default_code = 24


class TypeNotSupportedError(TsFileError, TypeError):
    """A data type the call does not support."""

    _default_message = "Unsupported data type"
    _default_code = 26


class TypeMismatchError(TsFileError, TypeError, ValueError):
    """A value given to a writer does not fit its column exactly: a wrong type, a fractional
    float for an integer column, an integer outside the column's range, an invalid DATE, text
    that is not valid UTF-8. The message names the column and the first bad row."""

    _default_message = "Data type mismatch"
    _default_code = 27


class FileOpenError(TsFileError, OSError):
    """A file cannot be opened (a missing file is also a ``FileNotFoundError``)."""

    _default_message = "Failed to open file"
    _default_code = 28


class FileCloseError(TsFileError, OSError):
    """A file cannot be closed."""

    _default_message = "Failed to close file"
    _default_code = 29


class FileWriteError(TsFileError, OSError):
    """A file cannot be written (also: a write call on a closed writer)."""

    _default_message = "Failed to write to file"
    _default_code = 30


class FileReadError(TsFileError, OSError):
    """A file cannot be read."""

    _default_message = "Failed to read from file"
    _default_code = 31


class FileSyncError(TsFileError, OSError):
    """A file's contents cannot be synced."""

    _default_message = "Failed to sync file contents"
    _default_code = 32


class MetadataError(TsFileError):
    """The writer's metadata are inconsistent."""

    _default_message = "Metadata inconsistency detected"
    _default_code = 33


class FileStatError(TsFileError, OSError):
    """A file's metadata cannot be inspected."""

    _default_message = "Failed to inspect file metadata"
    _default_code = 34


class TsFileCorruptedError(TsFileError, ValueError):
    """A file is not a readable TsFile (truncated, inconsistent, hostile)."""

    _default_message = "TsFile is corrupted"
    _default_code = 35


class BufferNotEnoughError(TsFileError):
    """A buffer is too small."""

    _default_message = "Insufficient buffer space"
    _default_code = 36


class InvalidPathError(TsFileError, ValueError):
    """A path (a device or series path) that is not valid."""

    _default_message = "Invalid path"
    _default_code = 37


class NotSupportedError(TsFileError, NotImplementedError):
    """A valid request for something that is not supported."""

    _default_message = "Not support yet"
    _default_code = 40


class DeviceNotExistError(TsFileError, KeyError):
    """A device that the file does not hold."""

    _default_message = "Requested device does not exist"
    _default_code = 44


class MeasurementNotExistError(TsFileError, KeyError):
    """A measurement that the device does not hold."""

    _default_message = "Specified measurement does not exist"
    _default_code = 45


class CompressionError(TsFileError, ValueError):
    """Compression or decompression failed."""

    _default_message = "Data compression/decompression failed"
    _default_code = 48


class TableNotExistError(TsFileError, KeyError):
    """A table name that the file (or the writer) does not hold."""

    _default_message = "Requested table does not exist"
    _default_code = 49


class ColumnNotExistError(TsFileError, KeyError):
    """A column or measurement name that the table or device does not hold."""

    _default_message = "Column does not exist"
    _default_code = 50


class UnsupportedOrderError(TsFileError, ValueError):
    """An unsupported ordering."""

    _default_message = "Unsupported ordering"
    _default_code = 51


class InvalidNodeTypeError(TsFileError, ValueError):
    """An index node of an invalid type."""

    _default_message = "Invalid node type"
    _default_code = 52


class EncodeError(TsFileError, ValueError):
    """Values cannot be stored with the requested encoding (e.g. GORILLA's end-marker values)."""

    _default_message = "Failed to encode data"
    _default_code = 53


class DecodeError(TsFileError, ValueError):
    """Encoded data cannot be decoded."""

    _default_message = "Failed to decode data"
    _default_code = 54


class FileMapError(TsFileError, OSError):
    """A file cannot be memory-mapped."""

    _default_message = "Failed to memory-map file"
    _default_code = 55


class NoneDataTypeException(TsFileError, TypeError):
    """A typed accessor of a ``Field`` whose data type is not set (the official package raises
    this class, defined in its ``tsfile.field``); also a ``TypeError``. It has no error code."""

    _default_message = "None Data Type Exception!"


class DateTimeParseException(TsFileError, ValueError):
    """A DATE value that is not a date (an int yyyyMMdd naming no day); the official package
    raises this class, defined in its ``tsfile.date_utils``. Also a ``ValueError``; no code."""

    _default_message = "Invalid date format."


ERROR_MAPPING: dict[int, type[LibraryError]] = {
    cls._default_code: cls
    for cls in (
        OOMError,
        NotExistsError,
        AlreadyExistsError,
        InvalidArgumentError,
        OutOfRangeError,
        PartialReadError,
        InvalidSchemaError,
        TsFileOverflowError,
        NoMoreDataError,
        OutOfOrderError,
        DataInconsistencyError,
        TypeNotSupportedError,
        TypeMismatchError,
        FileOpenError,
        FileCloseError,
        FileWriteError,
        FileReadError,
        FileSyncError,
        MetadataError,
        FileStatError,
        TsFileCorruptedError,
        BufferNotEnoughError,
        InvalidPathError,
        NotSupportedError,
        DeviceNotExistError,
        MeasurementNotExistError,
        CompressionError,
        TableNotExistError,
        ColumnNotExistError,
        UnsupportedOrderError,
        InvalidNodeTypeError,
        EncodeError,
        DecodeError,
        FileMapError,
    )
}
"""Error code -> the class raised for it."""

# The message of each code: the class's default, else the code's name in words.
ERROR_MESSAGES: dict[int, str] = {
    code.value: code.name.replace("_", " ").lower() for code in ErrorCode
}
ERROR_MESSAGES.update({code: cls._default_message for code, cls in ERROR_MAPPING.items()})


def get_exception(code: int, context: str | None = None) -> LibraryError | None:
    """The exception for an error code, as the official package builds it: None for OK; the
    class of :data:`ERROR_MAPPING` (a plain :class:`LibraryError` for an unknown code) with the
    code and its message, prefixed by ``"<context>: "`` when a context is given."""
    code = int(code)
    if code == ErrorCode.OK:
        return None
    exc_type = ERROR_MAPPING.get(code, LibraryError)
    message = ERROR_MESSAGES.get(code, "Unknown library error")
    if context:
        message = f"{context}: {message}"
    return exc_type(code=code, context=message)


__all__ = [
    "ErrorCode",
    "LibraryError",
    "TsFileError",
    "OOMError",
    "NotExistsError",
    "AlreadyExistsError",
    "InvalidArgumentError",
    "OutOfRangeError",
    "PartialReadError",
    "InvalidSchemaError",
    "TsFileOverflowError",
    "NoMoreDataError",
    "OutOfOrderError",
    "DataInconsistencyError",
    "TypeNotSupportedError",
    "TypeMismatchError",
    "FileOpenError",
    "FileCloseError",
    "FileWriteError",
    "FileReadError",
    "FileSyncError",
    "MetadataError",
    "FileStatError",
    "TsFileCorruptedError",
    "BufferNotEnoughError",
    "InvalidPathError",
    "NotSupportedError",
    "DeviceNotExistError",
    "MeasurementNotExistError",
    "CompressionError",
    "TableNotExistError",
    "ColumnNotExistError",
    "UnsupportedOrderError",
    "InvalidNodeTypeError",
    "EncodeError",
    "DecodeError",
    "FileMapError",
    "NoneDataTypeException",
    "DateTimeParseException",
    "ERROR_MAPPING",
    "ERROR_MESSAGES",
    "get_exception",
]
