"""The on-disk index of a dataset (TsFileDataFrame(use_index=True)): the metadata facts of every
file (tsfile._dataset.files.FileInfo) in one JSON file beside the files, so that opening the same
files again reads one small file instead of the tail and index of each.

The index of a set of files lives in their common directory, named after a hash of their sorted
absolute paths (another set of files gets another index). Every entry records the file's size and
modification time (ns). ``trust_index=True`` uses the entries as they are (the files are assumed
immutable); ``trust_index=False`` compares each file's size and modification time with its entry
and reads again only the files that changed. An index that cannot be read (damaged, another
version) is rebuilt; one that cannot be written (a read-only directory) is only a warning.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import threading
import warnings

from tsfile._dataset.files import FileInfo, json_list, schemas_from_json, schemas_to_json

# 2: tree-model devices (FileInfo.tree); 3: fields a device lacks (absent); 4: each table's
# columns written once per index ("schemas"), the tables naming theirs by position
INDEX_VERSION = 4
INDEX_PREFIX = ".tsfile-turbo-dataset"


def index_path(paths):
    """Where the index of the files ``paths`` (absolute) is kept."""
    ordered = sorted(paths)
    common = os.path.commonpath(ordered)
    if not os.path.isdir(common):
        common = os.path.dirname(common)
    digest = hashlib.sha256("\0".join(ordered).encode("utf-8", "surrogatepass")).hexdigest()
    return os.path.join(common, f"{INDEX_PREFIX}.{digest[:32]}.json")


def load_index(path, paths, trust_index):
    """{file path: FileInfo} of the index entries still valid for ``paths`` (all of them when
    trusted, else those whose size and modification time match); {} without a usable index."""
    try:
        # a regular file only: the index's name in a directory others may write to can be a
        # FIFO (opening it waited for a writer: the view hung) or a link to a device such as
        # /dev/zero (read until memory ran out); opened without blocking, then checked
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        try:
            regular = stat.S_ISREG(os.fstat(fd).st_mode)
        except BaseException:
            os.close(fd)
            raise
        if not regular:
            os.close(fd)
            return {}
        with open(fd, encoding="utf-8") as f:
            doc = json.load(f)
        # any other shape than save_index's is a damaged index (ValueError: rebuilt), never an
        # AttributeError or TypeError from deep inside the view (FileInfo.from_json checks)
        if not isinstance(doc, dict) or doc.get("version") != INDEX_VERSION:
            return {}
        schemas = schemas_from_json(doc["schemas"])
        entries = {}
        for e in json_list(doc["files"]):
            info = FileInfo.from_json(e, schemas)
            entries[info.path] = info
    except (OSError, ValueError, KeyError, TypeError, RecursionError):
        # RecursionError: json.load of arrays or objects nested past the recursion limit (a
        # damaged or hostile index of a few hundred kB)
        return {}
    wanted = set(paths)
    entries = {p: e for p, e in entries.items() if p in wanted}
    if trust_index:
        return entries
    return {p: e for p, e in entries.items() if _unchanged(p, e)}


def _unchanged(path, entry):
    try:
        st = os.stat(path)
    except OSError:
        return False
    return st.st_size == entry.size and st.st_mtime_ns == entry.mtime_ns


def save_index(path, infos):
    """Write the index atomically (a temporary file renamed over the old one). The temporary
    name is the writer's own (process and thread): two views of the same files opened at once
    by two threads shared one name, one thread's rename took the other's file away (a
    spurious "index not written" warning, an error under ``-W error``) or renamed a file the
    other was still writing."""
    schemas = {}
    files = [info.to_json(schemas) for info in infos]
    doc = {"version": INDEX_VERSION, "schemas": schemas_to_json(schemas), "files": files}
    tmp = f"{path}.{os.getpid()}.{threading.get_ident()}.tmp"
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(doc, f, separators=(",", ":"))
        os.replace(tmp, path)
    except OSError as exc:
        warnings.warn(f"dataset index not written to {path}: {exc}", RuntimeWarning, stacklevel=3)
        try:
            os.unlink(tmp)
        except OSError:
            pass


__all__ = ["index_path", "load_index", "save_index", "INDEX_VERSION"]
