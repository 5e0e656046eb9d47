"""Progress of a long scan over files: a tqdm bar when tqdm is installed, else one stderr line
rewritten in place (at most ten times a second), ending with "done"."""

from __future__ import annotations

import sys
import threading
import time


class Progress:
    def __init__(self, total, label, enabled=True, stream=None):
        self.total = total
        self.label = label
        self.done = 0
        self._bar = None
        self._stream = None
        self._last = 0.0
        self._lock = threading.Lock()  # update() is called from the scanning threads
        if not enabled:
            return
        try:
            from tqdm import tqdm
        except ImportError:
            self._stream = sys.stderr if stream is None else stream
            self._write()
        else:
            self._bar = tqdm(total=total, desc=label, unit="file", file=stream)

    def update(self, n=1):
        with self._lock:
            self.done += n
            if self._bar is not None:
                self._bar.update(n)
            elif self._stream is not None and time.monotonic() - self._last >= 0.1:
                self._write()

    def _write(self):
        self._last = time.monotonic()
        self._stream.write(f"\r{self.label}: {self.done}/{self.total}")
        self._stream.flush()

    def close(self, summary=""):
        if self._bar is not None:
            self._bar.close()
        elif self._stream is not None:
            self._write()
            self._stream.write(f"{summary} ... done\n")
            self._stream.flush()
        self._bar = self._stream = None


__all__ = ["Progress"]
