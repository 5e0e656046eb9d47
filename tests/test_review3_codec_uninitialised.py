"""Codec objects whose __init__ never ran (made by ``Cls.__new__(Cls)``, or a subclass whose
__init__ does not call the base one) raise TypeError from their methods instead of writing
through a NULL pointer (SIGSEGV: GorillaEncoder.flush/encode, Ts2DiffEncoder.encode, and the
implementation tables behind every SIMD codec's ``implementations()``).

All cases run in one child process: the old behaviour crashed it.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

CHILD = textwrap.dedent(
    r"""
    from tsfile.codecs.gorilla import GorillaEncoder
    from tsfile.codecs.ts2diff import Ts2DiffEncoder
    from tsfile.codecs._impl_table import ImplTable

    class LazyGorilla(GorillaEncoder):
        def __init__(self):  # forgets GorillaEncoder.__init__
            pass

    class LazyTs2Diff(Ts2DiffEncoder):
        def __init__(self):
            pass

    cases = [
        ("gorilla-new encode", lambda: GorillaEncoder.__new__(GorillaEncoder).encode(1.0)),
        ("gorilla-new flush", lambda: GorillaEncoder.__new__(GorillaEncoder).flush()),
        ("gorilla-sub encode", lambda: LazyGorilla().encode(1.0)),
        ("gorilla-sub flush", lambda: LazyGorilla().flush()),
        ("ts2diff-new encode", lambda: Ts2DiffEncoder.__new__(Ts2DiffEncoder).encode(1)),
        ("ts2diff-new flush", lambda: Ts2DiffEncoder.__new__(Ts2DiffEncoder).flush()),
        ("ts2diff-sub encode", lambda: LazyTs2Diff().encode(1)),
        ("impl-new implementations", lambda: ImplTable.__new__(ImplTable).implementations()),
        ("impl-new active", lambda: ImplTable.__new__(ImplTable).active_implementation()),
        ("impl-new publish", lambda: ImplTable.__new__(ImplTable).publish({})),
    ]
    for name, fn in cases:
        try:
            fn()
        except TypeError:
            print(name, "TypeError", flush=True)
        except Exception as e:  # noqa: BLE001 - the outcome is what is checked
            print(name, type(e).__name__, flush=True)
        else:
            print(name, "returned", flush=True)

    # initialised objects still work
    g = GorillaEncoder("float64")
    g.encode(1.5)
    t = Ts2DiffEncoder("int32")
    t.encode(7)
    print("working", len(g.flush()) > 0 and len(t.flush()) > 0, flush=True)
    """
)


def test_uninitialised_codec_objects_raise_type_error():
    proc = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, (proc.returncode, proc.stdout, proc.stderr[-2000:])
    lines = proc.stdout.splitlines()
    outcomes = dict(line.rsplit(" ", 1) for line in lines)
    assert outcomes.pop("working") == "True"
    assert len(outcomes) == 10, lines
    assert set(outcomes.values()) == {"TypeError"}, outcomes
