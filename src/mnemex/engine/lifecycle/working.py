"""Working memory: per session, the few memories in use right now (seed 001: at most 9 items).

An item is scored importance x recency x (1 + 0.1 x uses), recency halving every 30 minutes since
its last use; when a tenth item arrives the lowest-scoring one is evicted, and an evicted item
used at least twice or important enough (0.6) becomes a promotion candidate, which the next dream
promotes one tier up. A session's working memory is cleared when the session ends. In process
memory only: it is a view of what a session is doing, not something to keep.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime

from mnemex.config.dream import WorkingMemoryConfig


@dataclass(slots=True)
class WorkingItem:
    memory_id: str
    importance: float
    uses: int
    last_used: datetime

    def score(self, now: datetime, half_life_minutes: float) -> float:
        minutes = max((now - self.last_used).total_seconds(), 0.0) / 60.0
        return self.importance * 0.5 ** (minutes / half_life_minutes) * (1.0 + 0.1 * self.uses)


class WorkingMemory:
    """The working memories of many sessions (the least recently active session is cleared first
    beyond `sessions`); thread-safe."""

    def __init__(self, config: WorkingMemoryConfig):
        self.config = config
        self._sessions: OrderedDict[str, dict[str, WorkingItem]] = OrderedDict()
        self._candidates: dict[str, None] = {}
        self._lock = threading.Lock()

    def attend(self, session_id: str, memory_id: str, importance: float, now: datetime) -> str | None:
        """`memory_id` is in use in the session now (again: one more use, in place). Returns the id
        evicted to make room, if any."""
        with self._lock:
            items = self._sessions.setdefault(session_id, {})
            self._sessions.move_to_end(session_id)
            while len(self._sessions) > self.config.sessions:
                self._sessions.popitem(last=False)
            item = items.get(memory_id)
            if item is not None:
                item.uses += 1
                item.last_used = now
                item.importance = max(item.importance, importance)
                return None
            evicted = None
            if len(items) >= self.config.size:
                evicted = min(items.values(), key=lambda i: (i.score(now, self.config.half_life_minutes), i.last_used))
                del items[evicted.memory_id]
                if evicted.uses >= self.config.promote_uses or evicted.importance >= self.config.promote_importance:
                    self._candidates[evicted.memory_id] = None
            items[memory_id] = WorkingItem(memory_id, importance, 1, now)
            return evicted.memory_id if evicted is not None else None

    def items(self, session_id: str, now: datetime) -> list[str]:
        """The session's items, highest score first."""
        with self._lock:
            items = list(self._sessions.get(session_id, {}).values())
        return [i.memory_id for i in sorted(items, key=lambda i: -i.score(now, self.config.half_life_minutes))]

    def end(self, session_id: str) -> int:
        """Clear the session's working memory; returns how many items it held."""
        with self._lock:
            return len(self._sessions.pop(session_id, {}))

    def take_candidates(self) -> list[str]:
        """The promotion candidates evicted since the last call (then forgotten here)."""
        with self._lock:
            out, self._candidates = list(self._candidates), {}
        return out
