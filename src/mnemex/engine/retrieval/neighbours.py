"""Neighbours in time: the memories just before and after a hit in the same session.

A session's order is (created_at, recorded_at, id). The timeline is built per query from
one scroll per session touched, restricted to a time window around the hits, so a long
session costs no more than its part near the hits.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Iterable

from mnemex.models import MemoryFilter
from mnemex.store.base import MemoryStore, StoredHit

#: How far around the hits a session is scanned, and at most how many of its memories.
WINDOW = timedelta(hours=12)
MAX_PER_SESSION = 512


def _order_key(hit: StoredHit) -> tuple[float, float, str]:
    p = hit.payload
    return (float(p.get("created_ts") or 0.0), float(p.get("recorded_ts") or 0.0), hit.id)


@dataclass(slots=True)
class SessionTimeline:
    """prev/next links for the memories of the sessions a set of hits belongs to."""

    _links: dict[str, tuple[str | None, str | None]] = field(default_factory=dict)
    _hits: dict[str, StoredHit] = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        return not self._links

    def neighbours(self, memory_id: str) -> tuple[str | None, str | None]:
        return self._links.get(memory_id, (None, None))

    def hit(self, memory_id: str) -> StoredHit | None:
        return self._hits.get(memory_id)

    @classmethod
    def around(cls, store: MemoryStore, hits: Iterable[StoredHit], flt: MemoryFilter) -> "SessionTimeline":
        by_session: dict[str, list[float]] = {}
        for h in hits:
            sid = h.payload.get("session_id")
            if sid:
                by_session.setdefault(str(sid), []).append(float(h.payload.get("created_ts") or 0.0))
        timeline = cls()
        base = flt.model_copy(update={"ids": (), "created_after": None, "created_before": None})
        for sid, stamps in by_session.items():
            lo = datetime.fromtimestamp(min(stamps), tz=timezone.utc) - WINDOW
            hi = datetime.fromtimestamp(max(stamps), tz=timezone.utc) + WINDOW
            members, _ = store.scroll(base.model_copy(update={"session_id": sid, "created_after": lo,
                                                              "created_before": hi}), limit=MAX_PER_SESSION)
            members.sort(key=_order_key)
            for i, h in enumerate(members):
                timeline._hits[h.id] = h
                timeline._links[h.id] = (members[i - 1].id if i > 0 else None,
                                         members[i + 1].id if i + 1 < len(members) else None)
        return timeline
