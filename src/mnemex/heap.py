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
from pathlib import Path
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


_MADV_DONTNEED = 4


@functools.cache
def _madvise() -> Any:
    if not sys.platform.startswith("linux"):
        return None
    try:
        fn = ctypes.CDLL("libc.so.6", use_errno=True).madvise
    except (OSError, AttributeError):
        return None
    fn.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    fn.restype = ctypes.c_int
    return fn


def release_file_pages(root: Path, *, only: tuple[str, ...] = ()) -> int:
    """Let go of the resident pages of files under `root` that this process maps shared
    (`MADV_DONTNEED`): they leave the resident set, stay in the page cache and on disk, and come
    back, from the cache, the next time they are read. Only shared mappings are touched: for them
    the call never discards data (a private mapping's written pages would be lost, so those are
    left alone). With `only`, just the files whose path holds one of those strings. Returns the
    bytes released from the mappings (resident or not); 0 where the system has no such call."""
    fn = _madvise()
    if fn is None:
        return 0
    prefix = str(root.resolve()) + "/"
    released = 0
    try:
        with open("/proc/self/maps") as maps:
            lines = maps.readlines()
    except OSError:
        return 0
    for line in lines:
        fields = line.split(maxsplit=5)
        if len(fields) < 6 or "s" not in fields[1]:
            continue
        path = fields[5].rstrip("\n")
        if not path.startswith(prefix) or (only and not any(part in path for part in only)):
            continue
        start, end = (int(x, 16) for x in fields[0].split("-"))
        if fn(start, end - start, _MADV_DONTNEED) == 0:
            released += end - start
    return released


def fill_page_cache(root: Path, *, only: tuple[str, ...]) -> int:
    """Read the files under `root` whose path holds one of `only` into the page cache (not into
    this process's memory: a 1 MB buffer is reused, and the read releases the GIL), so the memory
    maps that read them later find their pages there instead of on disk. Returns the bytes read;
    stops quietly at a file that went away (a swap may remove a generation meanwhile)."""
    done = 0
    buffer = bytearray(1 << 20)
    for path in sorted(root.rglob("*")):
        if not any(part in str(path) for part in only):
            continue
        try:
            with open(path, "rb", buffering=0) as f:
                while n := f.readinto(buffer):
                    done += n
        except (IsADirectoryError, PermissionError):
            continue
        except OSError:
            break
    return done
