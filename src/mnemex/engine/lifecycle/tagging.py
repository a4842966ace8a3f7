"""Synaptic tagging and capture (seed 001), as a pure rule: which weak memories a strong one
stabilizes. Pure (no store, no clock).

A memory stored with importance under `dream.tag_below` carries a tag for `dream.tag_hours`; a
memory of at least `dream.capture_importance` stored in the same session while the tag lasts
captures it: the dream multiplies the weak memory's storage strength by `dream.capture_boost`,
once. The detail noted just before the incident, the decision or the correction that made the
session matter is kept with it instead of fading on its own schedule.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import timedelta
from typing import Iterable

from mnemex.engine.lifecycle.policy import is_record
from mnemex.engine.lifecycle.strength import as_utc
from mnemex.models import Memory

#: Metadata key of a captured memory: the id of the memory that captured it.
CAPTURED_BY = "captured_by"


def captures(memories: Iterable[Memory], *, tag_below: float, hours: float, strong: float) -> list[tuple[str, str]]:
    """(weak id, strong id) for each tagged memory, not yet captured, that a strong memory of its
    session followed within `hours` (the first such). Records (tool runs, episodes) neither tag
    nor capture: their importance says nothing about what the session meant."""
    if hours <= 0:
        return []
    sessions: dict[str, list[Memory]] = defaultdict(list)
    for m in memories:
        if m.provenance.session_id and not is_record(m):
            sessions[m.provenance.session_id].append(m)
    window = timedelta(hours=hours)
    out = []
    for members in sessions.values():
        strong_ones = sorted((m for m in members if m.importance >= strong), key=lambda m: as_utc(m.created_at))
        if not strong_ones:
            continue
        for weak in members:
            if weak.importance >= tag_below or weak.metadata.get(CAPTURED_BY):
                continue
            start = as_utc(weak.created_at)
            first = next((s for s in strong_ones if start < as_utc(s.created_at) <= start + window), None)
            if first is not None:
                out.append((weak.id, first.id))
    return sorted(out)
