"""Applies the lifecycle to the store: recalls strengthen (and reactivate dormant memories),
feedback moves utility, the sweep moves memories between tiers. Every change but a recall's
access fields goes through the write wing (`WritePath.replace`), so it has an audit row with
before, after, who and why, like any other change; nothing here deletes anything.
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from typing import Callable, Iterable, Sequence

from mnemex.config.lifecycle import LifecycleConfig
from mnemex.engine.lifecycle import policy
from mnemex.engine.lifecycle.quiet import PAGE, Foreground, Yielding, background_run, release
from mnemex.engine.lifecycle.strength import Strength, assess, judged, recalled
from mnemex.engine.write.path import WritePath
from mnemex.models import Lifecycle, Memory, MemoryFilter, Provenance
from mnemex.store.base import MemoryStore

#: Who the sweep's changes are recorded as.
SWEEPER = Provenance(source="lifecycle")


@dataclass
class SweepReport:
    """What one sweep did: memories scanned, moves made per direction and per tier pair, moves
    left for the next sweep (over `sweep_max_moves`), and how many memories each tier holds after."""

    scanned: int = 0
    promoted: int = 0
    demoted: int = 0
    deferred: int = 0
    moves: dict[str, int] = field(default_factory=dict)
    tiers: dict[str, int] = field(default_factory=dict)


class LifecycleKeeper:
    def __init__(self, *, store: MemoryStore, writer: WritePath, config: LifecycleConfig,
                 lock: threading.RLock, clock: Callable[[], datetime],
                 on_recall: Callable[[list[Memory], datetime], None] | None = None,
                 foreground: Foreground | None = None):
        self._foreground = foreground or Foreground()
        self._store = Yielding(store, self._foreground, lock)  # a sweep steps aside for a client's call
        self._on_recall = on_recall  # the dream's co-activation and hot-tier bookkeeping
        self._writer = writer
        self.config = config
        self._lock = lock
        self._clock = clock
        self._swept_at: float | None = None  # monotonic time of this process's last sweep

    def swept_ago(self) -> float | None:
        """Seconds since this process's last sweep (None: none yet)."""
        return None if self._swept_at is None else time.monotonic() - self._swept_at

    def swept(self, ago: float) -> None:
        """Count a sweep `ago` seconds back as this process's last (a daemon's successor carries it on)."""
        self._swept_at = time.monotonic() - max(ago, 0.0)

    def sweep_due(self) -> bool:
        """Whether the daemon should sweep now: `sweep_every_hours` after the last sweep of this
        process (the first one when it first goes idle, as seed 003 sweeps at session start)."""
        every = self.config.sweep_every_hours
        return bool(every) and (self._swept_at is None or time.monotonic() - self._swept_at >= every * 3600)

    # --------------------------------------------------------------- recalls
    def recalled(self, memories: Sequence[Memory], *, by: Provenance) -> list[Memory]:
        """Record a recall of each memory: access count and time, storage strength and recent
        recalls in one payload write; a dormant memory is reactivated (a full, audited change).
        Returns the memories as they now stand."""
        now = self._clock()
        with self._lock:
            plain: list[tuple[Memory, Lifecycle]] = []
            out: dict[str, Memory] = {}
            for memory in memories:
                state = recalled(memory, now, self.config)
                if memory.lifecycle.dormant:
                    out[memory.id] = self._reactivate(memory, state, now, by)
                else:
                    plain.append((memory, state))
                    out[memory.id] = memory.model_copy(update={
                        "access_count": memory.access_count + 1, "last_accessed_at": now, "lifecycle": state})
            self._writer.touch([m for m, _ in plain], [s for _, s in plain], at=now)
        result = [out[m.id] for m in memories]
        if self._on_recall is not None:
            self._on_recall(result, now)
        return result

    def _reactivate(self, memory: Memory, state: Lifecycle, now: datetime, by: Provenance) -> Memory:
        source = state.tier or self.config.entry
        target = self.reactivation_tier(source)
        after = memory.model_copy(update={
            "access_count": memory.access_count + 1, "last_accessed_at": now,
            "lifecycle": state.model_copy(update={"tier": target, "dormant": False, "tier_since": now}),
        })
        return self._writer.replace(memory, after, op="reactivate", reembed=False, by=by,
                                    reason=f"recalled: {source} -> {target}")

    def reactivation_tier(self, source: str) -> str:
        """Where a dormant memory recalled from `source` goes."""
        if self.config.reactivate_to is not None:
            return self.config.reactivate_to
        spec = self.config.tier_table.get(source)
        if spec is not None and spec.promote_to is not None:
            return spec.promote_to
        return self.config.entry

    # -------------------------------------------------------------- feedback
    def rate(self, memory: Memory, helped: bool, *, by: Provenance) -> Memory:
        """Feedback on a memory: it helped (utility one step toward 1) or misled (toward 0)."""
        with self._lock:
            fresh = self._fresh(memory)
            after = fresh.model_copy(update={"lifecycle": judged(fresh, helped, self._clock(), self.config)})
            return self._writer.replace(fresh, after, op="feedback", reembed=False, by=by,
                                        reason="helped" if helped else "misled")

    # ----------------------------------------------------------------- sweep
    def sweep(self, *, max_moves: int | None = None) -> SweepReport:
        """Apply the tier policy to every current memory: promotions first, then demotions, then
        each tier over its capacity hands its weakest down; at most `max_moves` (default
        `sweep_max_moves`) changes, each re-checked on a fresh copy under the write lock."""
        with background_run():
            return self._sweep(max_moves)

    def _sweep(self, max_moves: int | None) -> SweepReport:
        now = self._clock()
        self._swept_at = time.monotonic()
        limit = self.config.sweep_max_moves if max_moves is None else max_moves
        members = self._scan(now)
        report = SweepReport(scanned=sum(len(group) for group in members.values()))
        counts = {tier: len(group) for tier, group in members.items()}
        for move in self._plan(members, now):
            if report.promoted + report.demoted >= limit:
                report.deferred += 1
            elif self._apply(move, now):
                if move.direction == "promote":
                    report.promoted += 1
                else:
                    report.demoted += 1
                key = f"{move.source}->{move.target}"
                report.moves[key] = report.moves.get(key, 0) + 1
                counts[move.source] = counts.get(move.source, 0) - 1
                counts[move.target] = counts.get(move.target, 0) + 1
        report.tiers = {tier: counts.get(tier, 0) for tier in self.config.tier_table}
        release(self._foreground, members)  # a slice at a time: freed whole, it holds the GIL
        return report

    def _scan(self, now: datetime) -> dict[str, list[tuple[Memory, Strength]]]:
        """Every current memory (dormant ones too) with its strength, by tier: read-only, a page
        at a time, no lock held."""
        members: dict[str, list[tuple[Memory, Strength]]] = defaultdict(list)
        offset: str | None = None
        while True:
            hits, offset = self._store.scroll(MemoryFilter(), limit=PAGE, offset=offset)
            for hit in hits:
                memory = hit.memory
                members[memory.lifecycle.tier or self.config.entry].append((memory, assess(memory, now, self.config)))
            if offset is None:
                return members

    def _plan(self, members: dict[str, list[tuple[Memory, Strength]]], now: datetime) -> list[policy.Move]:
        """The policy's moves (promotions first, then demotions), then each capped tier's weakest
        beyond what stays in it and what the moves bring."""
        memories = [m for group in members.values() for m, _ in group]
        sessions = entity_sessions(memories, self._foreground.paced)
        moves = [move for m in self._foreground.paced(memories)
                 if (move := policy.decide(m, now, self.config, entity_sessions=sessions.get(m.id, 0))) is not None]
        moves.sort(key=lambda m: m.direction != "promote")
        moving = {m.memory_id for m in moves}
        for tier, spec in self.config.tier_table.items():
            if spec.capacity is not None:
                staying = [(m, s) for m, s in members.get(tier, []) if m.id not in moving]
                arriving = sum(1 for m in moves if m.target == tier)
                moves += policy.over_capacity(staying, spec, tier, self.config, room=max(spec.capacity - arriving, 0))
        return moves

    def _apply(self, move: policy.Move, now: datetime) -> bool:
        self._foreground.checkpoint()  # not under the lock: a client's write may wait for it
        with self._lock:
            hits = self._store.retrieve([move.memory_id])
            if not hits:
                return False
            memory = hits[0].memory
            if (memory.lifecycle.tier or self.config.entry) != move.source or policy.exempt(memory):
                return False  # changed since the scan: the next sweep decides again
            spec = self.config.tier_table[move.target]
            after = memory.model_copy(update={"lifecycle": memory.lifecycle.model_copy(update={
                "tier": move.target, "dormant": not spec.searchable, "tier_since": now})})
            self._writer.replace(memory, after, op=move.direction, reembed=False, by=SWEEPER,
                                 reason=f"{move.source} -> {move.target}: {move.reason}")
            return True

    def _fresh(self, memory: Memory) -> Memory:
        hits = self._store.retrieve([memory.id])
        return hits[0].memory if hits else memory


def entity_sessions(memories: Sequence[Memory],
                    paced: Callable[[Iterable[Memory]], Iterable[Memory]] = iter) -> dict[str, int]:
    """Per memory: how many memories of other sessions share one of its entities (the most for
    any one entity). A memory without a session counts as its own session. Linear in the entities.
    `paced` wraps each pass (`Foreground.paced`: the sweep steps aside for a client's call)."""
    total: dict[str, int] = defaultdict(int)
    per_session: dict[tuple[str, str], int] = defaultdict(int)
    for m in paced(memories):
        session = m.provenance.session_id or m.id
        for entity in {e.lower() for e in m.entities}:
            total[entity] += 1
            per_session[(entity, session)] += 1
    out: dict[str, int] = {}
    for m in paced(memories):
        session = m.provenance.session_id or m.id
        best = max((total[e] - per_session[(e, session)] for e in {e.lower() for e in m.entities}), default=0)
        if best:
            out[m.id] = best
    return out
