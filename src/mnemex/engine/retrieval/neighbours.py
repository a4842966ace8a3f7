"""Neighbours in time: the memories just before and after a hit in the same session.

A session's order is (created_at, recorded_at, id). `TimelineCache` keeps, per session, only
the ordered ids and whether each memory asks a question; it is checked against the store's
count for the session on every use, so a write to the session rebuilds it. Sessions larger
than `max_cached` are read around the hits instead of whole.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Iterable

from mnemex.models import MemoryFilter, ValidityMode
from mnemex.store.base import Hit, MemoryStore

#: How far around the hits a session too large to cache is read.
WINDOW = timedelta(hours=12)


@dataclass(frozen=True, slots=True)
class _Timeline:
    count: int
    ids: tuple[str, ...]
    asks: tuple[bool, ...]
    position: dict[str, int]


def _build(members: list[Hit], count: int) -> _Timeline:
    members.sort(key=lambda h: h.order_key)
    ids = tuple(h.id for h in members)
    asks = tuple("?" in h.content for h in members)
    return _Timeline(count=count, ids=ids, asks=asks, position={k: i for i, k in enumerate(ids)})


class TimelineCache:
    """Ordered ids per session, shared by all queries of one `Retriever`."""

    def __init__(self, max_sessions: int = 512, max_cached: int = 2000):
        self._lock = threading.Lock()
        self._cache: OrderedDict[str, _Timeline] = OrderedDict()
        self._max_sessions = max_sessions
        self._max_cached = max_cached

    def links(self, store: MemoryStore, hits: Iterable[Hit]) -> "Links":
        """prev/next/asks for every memory of the sessions `hits` belong to."""
        by_session: dict[str, list[float]] = {}
        for h in hits:
            if h.session_id:
                by_session.setdefault(h.session_id, []).append(h.created_ts)
        links = Links()
        for sid, stamps in by_session.items():
            timeline = self._timeline(store, sid, stamps)
            if timeline is not None:
                links.add(timeline)
        return links

    def _timeline(self, store: MemoryStore, sid: str, stamps: list[float]) -> _Timeline | None:
        flt = MemoryFilter(session_id=sid, validity=ValidityMode.TIMELINE)
        count = store.count(flt)
        if count <= 1:
            return None
        with self._lock:
            cached = self._cache.get(sid)
            if cached is not None and cached.count == count:
                self._cache.move_to_end(sid)
                return cached
        if count > self._max_cached:
            lo = datetime.fromtimestamp(min(stamps), tz=timezone.utc) - WINDOW
            hi = datetime.fromtimestamp(max(stamps), tz=timezone.utc) + WINDOW
            members, _ = store.scroll(flt.model_copy(update={"created_after": lo, "created_before": hi}),
                                      limit=self._max_cached)
            return _build(members, count)
        members: list[Hit] = []
        offset: str | None = None
        while True:
            page, offset = store.scroll(flt, limit=min(count + 1, 1024), offset=offset)
            members.extend(page)
            if offset is None:
                break
        timeline = _build(members, count)
        with self._lock:
            self._cache[sid] = timeline
            while len(self._cache) > self._max_sessions:
                self._cache.popitem(last=False)
        return timeline


class Links:
    """prev/next links and question flags for a set of session timelines."""

    def __init__(self) -> None:
        self._timelines: dict[str, _Timeline] = {}

    def add(self, timeline: _Timeline) -> None:
        for key in timeline.ids:
            self._timelines[key] = timeline

    @property
    def empty(self) -> bool:
        return not self._timelines

    def neighbours(self, memory_id: str) -> tuple[str | None, str | None]:
        tl = self._timelines.get(memory_id)
        if tl is None:
            return None, None
        i = tl.position[memory_id]
        return (tl.ids[i - 1] if i > 0 else None, tl.ids[i + 1] if i + 1 < len(tl.ids) else None)

    def asks(self, memory_id: str) -> bool:
        tl = self._timelines.get(memory_id)
        return bool(tl is not None and tl.asks[tl.position[memory_id]])
