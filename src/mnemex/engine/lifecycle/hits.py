"""The hit rate (issue 13's stats): how often what the memory offered was then used. A search or a
context injection offers memories; a recall of one of them within `window` of the offer is a
followed recall. The rate is followed recalls per offer (searches and injections: the issue's
"recalls that followed a search or injection / searches", with injections counted as searches); the
counts are shown beside it. In process memory: counted since the server started."""

from __future__ import annotations

import threading
from collections import OrderedDict
from datetime import datetime, timedelta
from typing import Any, Iterable

#: Most offered ids remembered (the oldest offers are dropped first beyond it).
MAX_OFFERED = 20_000


class HitRate:
    def __init__(self, window_minutes: float = 60.0):
        self._window = timedelta(minutes=window_minutes)
        self._offered: OrderedDict[str, datetime] = OrderedDict()
        self._lock = threading.Lock()
        self.searches = 0
        self.injections = 0
        self.recalls = 0
        self.followed = 0

    def offered(self, ids: Iterable[str], at: datetime, *, by: str) -> None:
        """A search (`by` "search") or an injection ("injection") showed `ids` at `at`."""
        with self._lock:
            if by == "search":
                self.searches += 1
            else:
                self.injections += 1
            for memory_id in ids:
                self._offered.pop(memory_id, None)
                self._offered[memory_id] = at
            while len(self._offered) > MAX_OFFERED:
                self._offered.popitem(last=False)

    def recalled(self, ids: Iterable[str], at: datetime) -> bool:
        """A recall of `ids` at `at`; True when it followed an offer of one of them (within the window)."""
        with self._lock:
            self.recalls += 1
            hit = any((when := self._offered.get(i)) is not None and timedelta(0) <= at - when <= self._window
                      for i in ids)
            self.followed += hit
            return hit

    def as_dict(self) -> dict[str, Any]:
        with self._lock:
            offers = self.searches + self.injections
            rate = round(self.followed / offers, 4) if offers else None
            return {"searches": self.searches, "injections": self.injections, "recalls": self.recalls,
                    "followed_recalls": self.followed, "hit_rate": rate}
