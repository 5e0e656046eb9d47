"""Objects holding a raw pointer into a buffer must not be copied by Cython's automatic pickling.

Cython gives a cdef class a ``__reduce__`` when every attribute converts to a Python object, and
it converts a ``const uint8_t *`` as a NUL-terminated C string: ``copy.copy`` of such an object
made a new one whose pointer pointed into a temporary bytes object (a few bytes, or b"") while its
length still said the whole buffer, so the copy read freed or foreign memory (a PLAIN decoder's
copy returned made-up values; on an object never initialised, ``__reduce__`` itself dereferenced
NULL). These objects refuse to be copied or pickled (TypeError) instead.

Everything runs in one child process: the old behaviour could crash it.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

CHILD = textwrap.dedent(
    r"""
    import copy, pickle
    import numpy as np
    from tsfile.codecs.plain import PlainDecoder
    from tsfile._read.engine import FileView
    from tsfile._format import cparse

    def outcome(fn):
        try:
            fn()
        except TypeError:
            return "TypeError"
        except Exception as e:  # noqa: BLE001 - the outcome is what is checked
            return type(e).__name__
        return "copied"

    data = np.arange(1000, dtype=">i8").tobytes()
    d = PlainDecoder(data, "int64")
    d.next()
    d.next()
    print("plain copy", outcome(lambda: copy.copy(d)))
    print("plain pickle", outcome(lambda: pickle.dumps(d)))
    print("plain decodes", [d.next() for _ in range(3)])
    blank = PlainDecoder.__new__(PlainDecoder)
    print("plain blank", outcome(lambda: copy.copy(blank)))

    fv = FileView(b"TsFile\x04" + bytes(100), "x.tsfile", 50)
    print("fileview copy", outcome(lambda: copy.copy(fv)))
    print("fileview blank", outcome(lambda: copy.copy(FileView.__new__(FileView))))

    reader = cparse._Reader()
    print("cparse copy", outcome(lambda: copy.copy(reader)))
    """
)


def test_pointer_holding_objects_refuse_copy_and_pickle():
    proc = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr[-2000:]
    # each line: two words naming the case, then its outcome
    lines = {}
    for line in proc.stdout.splitlines():
        a, b, rest = line.split(" ", 2)
        lines[f"{a} {b}"] = rest
    for what in (
        "plain copy",
        "plain pickle",
        "plain blank",
        "fileview copy",
        "fileview blank",
        "cparse copy",
    ):
        assert lines[what] == "TypeError", (what, lines)
    # the original object is untouched by the refused copies
    assert lines["plain decodes"] == "[2, 3, 4]"
