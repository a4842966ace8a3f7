"""Handing freed heap memory back to the operating system.

glibc keeps what native libraries free in its arenas instead of returning it, so it stays in the
process's resident set for good. Loading the default model is the large case: onnxruntime folds the
int8 weights into float32 and frees ~60 MB of temporaries on the way, which stayed resident in every
process that embeds (benchmarks/RESULTS.md, issue 15). `trim()` asks glibc to return free memory; on
other C libraries and systems it does nothing.
"""

from __future__ import annotations

import ctypes
import sys
import threading
from typing import Any

_lock = threading.Lock()
_malloc_trim: Any = None
_looked = False


def _function() -> Any:
    global _malloc_trim, _looked
    with _lock:
        if not _looked:
            _looked = True
            if sys.platform.startswith("linux"):
                try:
                    fn = ctypes.CDLL("libc.so.6").malloc_trim
                except (OSError, AttributeError):  # musl and other C libraries have none
                    fn = None
                if fn is not None:
                    fn.argtypes = [ctypes.c_size_t]
                    fn.restype = ctypes.c_int
                    _malloc_trim = fn
        return _malloc_trim


def trim() -> bool:
    """Return the heap's free memory to the system; True if some was returned."""
    fn = _function()
    return bool(fn(0)) if fn is not None else False
