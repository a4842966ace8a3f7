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


def _resident_kb(path) -> int:
    """Resident kB of this process's mappings of `path` (/proc/self/smaps)."""
    total, current = 0, None
    with open("/proc/self/smaps") as smaps:
        for line in smaps:
            fields = line.split()
            if len(fields) >= 5 and "-" in fields[0] and not fields[0].endswith(":"):
                current = fields[5] if len(fields) > 5 else None
            elif fields[0] == "Rss:" and current == str(path):
                total += int(fields[1])
    return total


@pytest.mark.skipif(heap._madvise() is None, reason="Linux only")
def test_released_file_pages_leave_the_resident_set_and_keep_what_was_written(tmp_path):
    import mmap

    size = 8 << 20
    shared_path, private_path = tmp_path / "cold" / "shared.dat", tmp_path / "cold" / "private.dat"
    shared_path.parent.mkdir()
    for path in (shared_path, private_path):
        path.write_bytes(b"\0" * size)
    with open(shared_path, "r+b") as f, open(private_path, "r+b") as g:
        shared = mmap.mmap(f.fileno(), size, flags=mmap.MAP_SHARED)
        private = mmap.mmap(g.fileno(), size, flags=mmap.MAP_PRIVATE)
        for at in range(0, size, 4096):
            shared[at] = private[at] = 7  # written, not yet on disk
        assert _resident_kb(shared_path) >= 8000 and _resident_kb(private_path) >= 8000
        assert heap.release_file_pages(tmp_path / "elsewhere") == 0
        assert heap.release_file_pages(tmp_path, only=("/nothing/",)) == 0
        released = heap.release_file_pages(tmp_path)
        assert released == size  # the shared mapping only
        assert _resident_kb(shared_path) < 1000
        assert _resident_kb(private_path) >= 8000  # a private mapping's written pages would be lost
        assert all(shared[at] == 7 for at in range(0, size, 4096))  # read back, from the page cache
        assert all(private[at] == 7 for at in range(0, size, 4096))
        shared.close()
        private.close()
    data = shared_path.read_bytes()
    assert all(data[at] == 7 for at in range(0, size, 4096))  # what was written reached the file


def cached_share(path) -> float:
    """The share of `path`'s pages in the page cache (mincore on a read-only map of it)."""
    import mmap

    size = path.stat().st_size
    with open(path, "rb") as f, mmap.mmap(f.fileno(), size, access=mmap.ACCESS_COPY) as m:
        pages = (size + mmap.PAGESIZE - 1) // mmap.PAGESIZE
        vec = (ctypes.c_ubyte * pages)()
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        buf = (ctypes.c_char * size).from_buffer(m)
        addr = ctypes.addressof(buf)
        assert libc.mincore(ctypes.c_void_p(addr), ctypes.c_size_t(size), vec) == 0, ctypes.get_errno()
        del buf
        return sum(v & 1 for v in vec) / pages


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="mincore and posix_fadvise: Linux")
def test_fill_page_cache_reads_the_named_files_into_the_page_cache_only(tmp_path):
    import os

    hot, cold = tmp_path / "seg" / "payload_storage" / "page_0.dat", tmp_path / "seg" / "wal" / "open-1"
    for path in (hot, cold):
        path.parent.mkdir(parents=True)
        path.write_bytes(os.urandom(4 << 20))
        fd = os.open(path, os.O_RDONLY)
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)  # out of the page cache, as a closed shard leaves it
        os.close(fd)
    if cached_share(hot) > 0.5:
        pytest.skip("this filesystem keeps its pages whatever is advised")
    before = rss_kb()
    assert heap.fill_page_cache(tmp_path, only=("/payload_storage/",)) == 4 << 20
    assert cached_share(hot) == 1.0 and cached_share(cold) < 0.5
    assert rss_kb() - before < 2048  # read through one small buffer: the process is no bigger
