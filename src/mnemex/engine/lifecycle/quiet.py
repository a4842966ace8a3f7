"""Lifecycle runs keep out of the way of a client's calls: the cyclic garbage collector is held
off while they run, threads switch more often, and they step aside while a call is served
(`Foreground`).

The collector: a dream or a sweep reads every memory into Python objects (13,000 memories: several hundred
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
import sys
import threading
import time
from contextlib import contextmanager
from typing import Any, Iterable, Iterator, TypeVar

T = TypeVar("T")

#: Python's thread switch interval while a lifecycle run is on (the default is 5 ms). A thread
#: that gives the GIL up (a journal write, a lock) waits that long to get it back from a busy
#: one: with 5 ms, searches during a dream over 10,000 memories took up to 455 ms; with 0.5 ms,
#: 96-136 ms (a dream beside a search loop, as `benchmarks/scale.py`'s `dream_during_search`).
SWITCH_INTERVAL = 0.0005
#: A long loop of a lifecycle run checks for a client's call every this many items (`Foreground.paced`),
#: and reads the store this many memories a page (one store call, so one checkpoint, per page). A
#: loop between two checks runs beside the call that began meanwhile, and both share the GIL: with
#: 256 and 256, searches beside a dream and a sweep over the year store at May (8,220 memories, a
#: search loop with no gap) waited up to 82-99 ms longer than alone; with 32 and 64, up to 60 ms, and
#: 44 ms once the forgetting rules and the sweep's plan were paced too; the dream took 26-29 s instead
#: of 24 while the loop ran (`benchmarks/RESULTS.md`). Alone (no call) a check costs one dict lookup.
PACE_EVERY = 32
PAGE = 64

_lock = threading.Lock()
_holders = 0
_was_enabled = True
_was_interval = 0.005


@contextmanager
def background_run() -> Iterator[None]:
    """No automatic cyclic collection inside, and a finer thread switch interval
    (`SWITCH_INTERVAL`); both as before once the last holder leaves."""
    global _holders, _was_enabled, _was_interval
    with _lock:
        if _holders == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
            _was_interval = sys.getswitchinterval()
            sys.setswitchinterval(min(SWITCH_INTERVAL, _was_interval))
        _holders += 1
    try:
        yield
    finally:
        with _lock:
            _holders -= 1
            if _holders == 0:
                sys.setswitchinterval(_was_interval)
            if _holders == 0 and _was_enabled:
                # what the run allocated and kept sits in the youngest generation: the first collection
                # after the hold would walk all of it at once (160 ms after a dream over 8,000 memories,
                # finding no garbage). Frozen, it is left out of collections; reference counting still
                # frees it when it dies.
                gc.freeze()
                gc.enable()


class Foreground:
    """Calls a client waits for go first: background work (a dream, a sweep) steps aside at its
    checkpoints while one runs.

    Python runs one thread at a time (the GIL), and a Qdrant Edge call holds it until it
    returns. A search beside a dream therefore waited for the dream's calls, one after another: its
    longest took 137 ms at 3,000 memories and 766 ms at 100k, against 45 and 39 ms alone. Here the
    background thread waits, without asking for the GIL, while a call of another thread is running,
    so a search meets at most the one step the dream was in when it began.

    `most`: the longest one checkpoint waits; if calls were still running then (a stream of calls
    with no gap), the background work goes on for `grant` seconds before it steps aside again, so
    such a stream slows it (to about grant / (most + grant) of its speed) without stopping it.
    """

    def __init__(self, most: float = 0.1, grant: float = 0.02) -> None:
        self.most, self.grant = most, grant
        self._cond = threading.Condition()
        self._calls: dict[int, int] = {}  # thread id -> calls it is in (nested calls count once)
        self._granted_until = 0.0

    @contextmanager
    def call(self) -> Iterator[None]:
        """Mark the current thread as serving a client's call for the duration."""
        me = threading.get_ident()
        with self._cond:
            self._calls[me] = self._calls.get(me, 0) + 1
        try:
            yield
        finally:
            with self._cond:
                left = self._calls[me] - 1
                if left:
                    self._calls[me] = left
                else:
                    del self._calls[me]
                    self._cond.notify_all()

    def busy(self) -> bool:
        """A client's call is running and the current thread is not serving one (a call never
        waits for another call)."""
        calls = self._calls
        return bool(calls) and threading.get_ident() not in calls

    def checkpoint(self) -> None:
        """Wait (at most `most` seconds) while a call of another thread runs; at once when none does."""
        if not self.busy() or time.monotonic() < self._granted_until:
            return
        with self._cond:
            if not self._cond.wait_for(lambda: not self.busy(), timeout=self.most):
                self._granted_until = time.monotonic() + self.grant

    def paced(self, items: Iterable[T], every: int | None = None) -> Iterator[T]:
        """`items`, with a `checkpoint` every `every` of them: a long loop in Python otherwise
        shares the GIL with a search for its whole length (`every`: `PACE_EVERY` by default)."""
        every = every or PACE_EVERY
        for i, item in enumerate(items):
            if i % every == 0:
                self.checkpoint()
            yield item


def release(foreground: Foreground, *held: Any) -> None:
    """Empty the lists and dicts a run read into, 512 entries at a time with a `checkpoint`
    between: dropping them whole frees every memory in one C loop holding the GIL (a search beside
    a dream over 100,000 memories waited 1,002 ms for it). A dict of lists is emptied list by list."""
    for container in held:
        if isinstance(container, dict):
            for key in list(container):
                value = container.pop(key)
                if isinstance(value, list):
                    release(foreground, value)
                del value
                if len(container) % 512 == 0:
                    foreground.checkpoint()
        else:
            while container:
                del container[-512:]
                foreground.checkpoint()


class Yielding:
    """A store whose every call first steps aside for a client's call (`Foreground.checkpoint`),
    except under the engine's write lock: a client's write may be waiting for that lock, and the
    background must not wait for it in turn."""

    def __init__(self, store: Any, foreground: Foreground, lock: Any) -> None:
        self._store, self._foreground, self._lock = store, foreground, lock

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._store, name)
        if not callable(attr):
            return attr

        def stepping_aside(*args: Any, **kwargs: Any) -> Any:
            if not self._lock._is_owned():
                self._foreground.checkpoint()
            return attr(*args, **kwargs)

        return stepping_aside
