"""The hot tier: the few memories of high utility and frequent recent use that every session is
offered (seed 001: utility >= 0.8, 10+ recalls, used within 30 days, at most 15, cached 5 minutes).

Kept cheap: recalls and the dream name the candidates (`consider`), and on expiry the cache is
recomputed from those few ids alone, never from a scan of the store."""

from __future__ import annotations

import threading
from datetime import datetime, timedelta
from typing import Callable, Iterable, Sequence

from mnemex.config.dream import HotTierConfig
from mnemex.config.lifecycle import LifecycleConfig
from mnemex.engine.lifecycle.strength import as_utc, assess, days_between
from mnemex.models import Memory, MemoryStatus


def is_hot(memory: Memory, now: datetime, config: LifecycleConfig) -> bool:
    """Current, active, useful (utility after drift) and recalled often, the last time recently."""
    hot = config.hot
    if memory.lifecycle.dormant or memory.status != MemoryStatus.ACTIVE or memory.access_count < hot.min_recalls:
        return False
    if as_utc(memory.valid_from) > now or (memory.valid_until is not None and as_utc(memory.valid_until) <= now):
        return False
    last = memory.last_accessed_at
    if last is None or days_between(last, now) > hot.window_days:
        return False
    return assess(memory, now, config).utility >= hot.min_utility


def select(memories: Iterable[Memory], now: datetime, config: LifecycleConfig) -> list[Memory]:
    """The hot tier among `memories`: the hot ones, most useful first, at most `max_items`."""
    hot = [m for m in memories if is_hot(m, now, config)]
    hot.sort(key=lambda m: (-assess(m, now, config).utility, -m.access_count, m.id))
    return hot[: config.hot.max_items]


class HotTier:
    """The cached hot tier of one engine. `load(ids)` reads memories from the store."""

    def __init__(self, config: LifecycleConfig, load: Callable[[Sequence[str]], list[Memory]],
                 clock: Callable[[], datetime]):
        self._config = config
        self._hot: HotTierConfig = config.hot
        self._load = load
        self._clock = clock
        self._candidates: set[str] = set()
        self._cached: list[Memory] = []
        self._expires: datetime | None = None
        self._lock = threading.Lock()

    def consider(self, memories: Iterable[Memory], now: datetime | None = None) -> None:
        """Memories that may be hot now (just recalled, or found by the dream)."""
        now = now or self._clock()
        with self._lock:
            for m in memories:
                if m.access_count >= self._hot.min_recalls:
                    self._candidates.add(m.id)

    def memories(self, now: datetime | None = None, *, cache: bool = True) -> list[Memory]:
        """The hot tier: from the cache, recomputed from the candidates when it expired (or, with
        `cache` False, computed for `now` and neither read from nor kept in the cache)."""
        if not self._hot.max_items:
            return []
        now = now or self._clock()
        with self._lock:
            if cache and self._expires is not None and now < self._expires:
                return list(self._cached)
            ids = sorted(self._candidates)
        found = self._load(ids) if ids else []
        chosen = select(found, now, self._config)
        if not cache:
            return chosen
        with self._lock:
            keep = {m.id for m in found if m.access_count >= self._hot.min_recalls and not m.lifecycle.dormant}
            self._candidates &= keep | (self._candidates - set(ids))
            self._cached = chosen
            self._expires = now + timedelta(minutes=self._hot.cache_minutes)
        return list(chosen)

    def expire(self) -> None:
        with self._lock:
            self._expires = None
