"""The hook that lets tsfile.read_table / to_dataframe / read_arrow take several files (a list,
a directory, a glob): ``@many_files("read_table")`` on the one-file function. One file's path
goes to the one-file function unchanged; anything else to tsfile._dataset.scan.read_many, which
also takes ``threads=``, ``on_error=`` and ``schema=``."""

from __future__ import annotations

import functools
import inspect

# Keywords of the multi-file path; given with one file's path they change nothing (one file
# has no other file to disagree with or to read in parallel), unless the one-file function
# takes them itself.
MANY_ONLY = ("threads", "on_error", "schema")

MANY_DOC = """

    Several files: the first argument may be a list of paths, a directory (its ``*.tsfile``
    files, recursively) or a glob, local or as fsspec URLs (``s3://bucket/dir/``,
    ``memory://d/*.tsfile``: each file read by byte ranges); the result is the files' results
    one after another in path order, with the query pushed to every file and files whose time
    statistics miss the range never read past their metadata. ``threads`` (files read at once;
    default one per core), ``on_error="skip"`` (leave a damaged file out with a warning instead
    of raising its CorruptDataError) and ``schema="union"`` (files may lack columns, read as
    nulls; else differing schemas raise InvalidSchemaError naming both files) apply then
    (tsfile._dataset.scan)."""


def many_files(kind):
    def wrap(single):
        params = inspect.signature(single).parameters
        own = set(params)
        first_name = next(iter(params))  # the files' parameter (path / file_path)

        @functools.wraps(single)
        def dispatch(*args, **kwargs):
            from tsfile._dataset.files import is_many

            first = args[0] if args else kwargs.get(first_name)
            if is_many(first):
                from tsfile._dataset.scan import read_many

                return read_many(kind, single, args, kwargs)
            for key in MANY_ONLY:
                if key in kwargs and key not in own:
                    _check_many_option(key, kwargs.pop(key))
            return single(*args, **kwargs)

        dispatch.__doc__ = (single.__doc__ or "") + MANY_DOC
        return dispatch

    return wrap


def _check_many_option(key, value):
    """The multi-file options are checked for one file too (a typo fails the same way)."""
    from tsfile._args import int_arg
    from tsfile._dataset.scan import ON_ERROR, SCHEMA_MODES

    allowed = {"on_error": ON_ERROR, "schema": SCHEMA_MODES}.get(key)
    if allowed is not None and value not in allowed:
        raise ValueError(f"{key} must be one of {allowed}, not {value!r}")
    if key == "threads" and value is not None:
        int_arg("threads", value, 1)
