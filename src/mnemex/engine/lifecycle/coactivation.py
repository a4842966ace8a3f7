"""Hebbian co-activation (seed 001): memories recalled together are wired together. Recalls feed
pairs here (the ids of one recall, and those of recalls within `coactivation_window_minutes` of
each other); the dream drains the counts into `related_to` relation weights, each co-activation
moving a pair's weight `coactivation_step` of the way to 1. In process memory until then."""

from __future__ import annotations

import threading
from datetime import datetime
from itertools import combinations
from typing import Sequence

#: Most pairs held between two dreams (the oldest counts are dropped first beyond it).
MAX_PAIRS = 50_000


def strengthened(weight: float, times: int, step: float) -> float:
    """A relation weight after `times` co-activations: 1 - (1 - weight)(1 - step)^times."""
    return 1.0 - (1.0 - weight) * (1.0 - step) ** times


class CoActivations:
    def __init__(self, window_minutes: float):
        self._window = window_minutes * 60.0
        self._last: tuple[datetime, tuple[str, ...]] | None = None
        self._pairs: dict[tuple[str, str], int] = {}
        self._lock = threading.Lock()

    def recalled(self, ids: Sequence[str], at: datetime) -> None:
        """One recall of `ids` at `at`."""
        ids = tuple(dict.fromkeys(ids))
        with self._lock:
            together = set(ids)
            if self._last is not None and 0 <= (at - self._last[0]).total_seconds() <= self._window:
                together |= set(self._last[1])
            for a, b in combinations(sorted(together), 2):
                if a in ids or b in ids:
                    key = (a, b)
                    self._pairs[key] = self._pairs.pop(key, 0) + 1
            while len(self._pairs) > MAX_PAIRS:
                self._pairs.pop(next(iter(self._pairs)))
            self._last = (at, ids)

    def drain(self, most: int | None = None) -> list[tuple[str, str, int]]:
        """The pairs counted since the last drain (most co-activated first), then forgotten here."""
        with self._lock:
            pairs = sorted(self._pairs.items(), key=lambda kv: (-kv[1], kv[0]))
            taken = pairs if most is None else pairs[:most]
            for key, _ in taken:
                del self._pairs[key]
        return [(a, b, n) for (a, b), n in taken]
