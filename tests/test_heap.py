"""`mnemex.heap.trim`: freed heap goes back to the system (glibc), a no-op elsewhere."""

from __future__ import annotations

import ctypes
import sys

import pytest

from mnemex import heap
from tests.helpers import rss_kb


def test_trim_is_safe_to_call_again_and_again():
    assert isinstance(heap.trim(), bool)
    assert isinstance(heap.trim(), bool)


@pytest.mark.skipif(not sys.platform.startswith("linux") or heap._function() is None, reason="glibc only")
def test_trim_returns_memory_freed_inside_the_heap():
    libc = ctypes.CDLL("libc.so.6")
    libc.malloc.restype = ctypes.c_void_p
    libc.malloc.argtypes = [ctypes.c_size_t]
    libc.free.argtypes = [ctypes.c_void_p]
    size = 64 * 1024  # below glibc's mmap threshold: the blocks live on the heap
    blocks = [libc.malloc(size) for _ in range(480)]
    assert all(blocks)
    for block in blocks:
        ctypes.memset(block, 1, size)  # resident
    for block in blocks[:-1]:  # the last block stays in use, so glibc cannot shrink the heap's top
        libc.free(block)
    try:
        kept = rss_kb()
        assert heap.trim() is True
        assert kept - rss_kb() > 20_000  # most of the ~30 MB freed below it went back to the system
    finally:
        libc.free(blocks[-1])


def test_settle_freezes_what_is_alive_and_still_collects_what_comes_later():
    import gc
    import weakref

    class Node:
        pass

    try:
        assert heap.settle() > 0
        frozen = gc.get_freeze_count()
        later = Node()
        later.self = later  # a cycle made after the freeze: still the collector's to free
        gone = weakref.ref(later)
        del later
        gc.collect()
        assert gone() is None
        assert gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()
