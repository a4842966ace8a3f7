"""Handing freed heap memory back to the operating system, and keeping long-lived objects out of
the garbage collector's way.

glibc keeps what native libraries free in its arenas instead of returning it, so it stays in the
process's resident set for good. Loading the default model is the large case: onnxruntime folds the
int8 weights into float32 and frees ~60 MB of temporaries on the way, which stayed resident in every
process that embeds (benchmarks/RESULTS.md, issue 15). `trim()` asks glibc to return free memory; on
other C libraries and systems it does nothing. `settle()` is for a long-running process once it is
warm: what is alive then (modules, the model, the store's caches) lives as long as the process.
"""

from __future__ import annotations

import ctypes
import functools
import gc
import sys
from typing import Any


@functools.cache
def _function() -> Any:
    """glibc's `malloc_trim`, or None where there is none (other systems, musl)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        fn = ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None
    fn.argtypes = [ctypes.c_size_t]
    fn.restype = ctypes.c_int
    return fn


def trim() -> bool:
    """Return the heap's free memory to the system; True if some was returned."""
    fn = _function()
    return bool(fn(0)) if fn is not None else False


def settle() -> int:
    """Collect garbage, then move every object alive now out of the collector's reach
    (`gc.freeze`): full collections walked them all each time, the longest pauses of a search loop
    at 100k memories (up to 28 ms; 0.2 ms frozen, benchmarks/search_probe.py loop --freeze).
    Objects made later are collected as usual. Returns how many objects are frozen."""
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()
