"""Lifecycle runs with Python's cyclic garbage collector held off.

A dream or a sweep reads every memory into Python objects (13,000 memories: several hundred
thousand objects). Allocating that many makes the collector run full (generation 2) collections,
each walking every object the process holds; one took up to 234 ms with the GIL held, so a
search arriving then waited that long (measured with a 1 ms ticker thread and `gc.callbacks`
during a dream over 8,000 memories). What a run builds is freed by reference counting when it
ends (memories hold no reference cycles), so holding the collector off for the run's few seconds
costs nothing and removes those pauses. Nested and concurrent runs share one hold; when the last
one ends, what survived is frozen (`gc.freeze`) before the collector resumes.
"""

from __future__ import annotations

import gc
import threading
from contextlib import contextmanager
from typing import Iterator

_lock = threading.Lock()
_holders = 0
_was_enabled = True


@contextmanager
def collector_paused() -> Iterator[None]:
    """No automatic cyclic collection inside; the collector's state as before once the last holder leaves."""
    global _holders, _was_enabled
    with _lock:
        if _holders == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _holders += 1
    try:
        yield
    finally:
        with _lock:
            _holders -= 1
            if _holders == 0 and _was_enabled:
                # what the run allocated and kept sits in the youngest generation: the first collection
                # after the hold would walk all of it at once (160 ms after a dream over 8,000 memories,
                # finding no garbage). Frozen, it is left out of collections; reference counting still
                # frees it when it dies.
                gc.freeze()
                gc.enable()

