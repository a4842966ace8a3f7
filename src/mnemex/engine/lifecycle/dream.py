"""The dream cycle (seed 001): what the lifecycle does while nobody is asking.

In order: utility decay (counted: the read path drifts utility as it reads), rehearsal of
endangered memories, flashbulb consolidation, synaptic tagging and capture (`tagging.py`), Hebbian co-activation, promotion of working-memory
candidates, clustering and consolidation of near-duplicates into theme memories (through the
write path: the theme supersedes its members), strategic forgetting (`forgetting.py`, in its
order), category summaries (`summaries.py`: one memory per large project-and-kind category,
superseded by a fresh one when its members change), concept nodes counted (`concepts.py`: entity
names merged when near-identical; the frequent ones schematic, for the stats), promotion across scopes, and the hot tier
recomputed.

Bounded: at most `dream.max_changes` memories are changed per run (the rest is counted as
deferred) and at most `dream.max_compared` memories compared with their neighbours. The store is
read without a lock; changes are made in batches of `dream.batch` under the write lock, each
re-checked on a fresh copy. A client's call goes first (`quiet.Foreground`): while one runs, the
dream steps aside between two reads or two changes.
Every change is an audited write (`WritePath.replace` or the write path itself); nothing is deleted.
"""

from __future__ import annotations

import heapq
import logging
import threading
import time
import uuid
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime
from typing import Any, Callable, Sequence

from mnemex.config.lifecycle import LifecycleConfig
from mnemex.engine.lifecycle import concepts, forgetting, summaries, tagging, themes
from mnemex.engine.lifecycle.arousal import arousal
from mnemex.engine.lifecycle.coactivation import CoActivations, strengthened
from mnemex.engine.lifecycle.hot import HotTier
from mnemex.engine.lifecycle.policy import exempt, is_record
from mnemex.engine.lifecycle.quiet import PAGE, Foreground, Yielding, background_run, release
from mnemex.engine.lifecycle.slices import sorted_in_slices
from mnemex.engine.lifecycle.strength import Strength, as_utc, assess
from mnemex.engine.lifecycle.summarizer import Summarizer
from mnemex.engine.lifecycle.working import WorkingMemory
from mnemex.engine.statements.runs import RUNS, runs_of
from mnemex.engine.write.path import Formed, WritePath
from mnemex.models import (
    Memory,
    MemoryFilter,
    MemoryKind,
    MemoryStatus,
    NewMemory,
    Provenance,
    Scope,
    ValidityMode,
)
from mnemex.store.base import MemoryStore, VectorQuery

log = logging.getLogger(__name__)

DREAMER = Provenance(source="dream")
STEPS = ("scan", "rehearsal", "flashbulb", "synaptic capture", "coactivation", "working memory", "consolidation", "forgetting",
         "category summaries", "concepts", "scope promotion", "hot tier")
#: Most members one theme memory replaces.
MAX_THEME = 12

Progress = Callable[[str, int, int], None]


@dataclass
class DreamReport:
    """What one dream did, step by step, and how long it took."""

    now: str = ""
    scanned: int = 0
    utility_drifted: int = 0
    rehearsed: int = 0
    flashbulbs: int = 0
    captured: int = 0
    coactivated: int = 0
    working_promoted: int = 0
    compared: int = 0
    clusters: int = 0
    themes: int = 0
    merged: int = 0
    forgotten: dict[str, int] = field(default_factory=lambda: {rule: 0 for rule in forgetting.RULES})
    summaries: int = 0
    summaries_refreshed: int = 0
    concepts: int = 0
    concepts_merged: int = 0
    schematic: int = 0
    scope_promoted: int = 0
    scope_proposed: int = 0
    hot: int = 0
    deferred: int = 0
    average_retention: float = 0.0
    tiers: dict[str, int] = field(default_factory=dict)
    elapsed_seconds: float = 0.0

    @property
    def changed(self) -> int:
        return (self.rehearsed + self.flashbulbs + self.captured + self.working_promoted + self.themes + self.merged
                + sum(self.forgotten.values()) + self.summaries + self.scope_promoted + self.scope_proposed)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def changed_at(memory: Memory) -> datetime:
    """When a memory was last written (stored or changed)."""
    return max(as_utc(memory.recorded_at), as_utc(memory.updated_at or memory.recorded_at))


def comparable(memory: Memory) -> bool:
    """A memory consolidation compares with its neighbours: knowledge, not a truth anchor or a summary."""
    return not is_record(memory) and not exempt(memory) and not summaries.is_summary(memory)


class Dreamer:
    def __init__(self, *, store: MemoryStore, writer: WritePath, config: LifecycleConfig, lock: threading.RLock,
                 journal: Any, coactivations: CoActivations, working: WorkingMemory, hot: HotTier,
                 summarizer: Summarizer | None = None, foreground: Foreground | None = None):
        self.foreground = foreground or Foreground()
        self._store = Yielding(store, self.foreground, lock)  # reads step aside for a client's call
        self.summarizer = summarizer  # consolidation = llm
        self._writer = writer
        self.config = config
        self._lock = lock
        self._journal = journal
        self.coactivations = coactivations
        self._working = working
        self._hot = hot
        self._compared_through: datetime | None = None  # recorded/updated time up to which memories were compared
        self._dreamt_at: float | None = None
        self.last: DreamReport | None = None
        self.schematic: list[dict[str, Any]] | None = None  # the last dream's schematic concepts
        self._budget = 0
        self._report = DreamReport()
        self._merged: set[str] = set()
        self._running = threading.Lock()

    def ran_ago(self) -> float | None:
        """Seconds since this process's last dream (None: none yet)."""
        return None if self._dreamt_at is None else time.monotonic() - self._dreamt_at

    def ran(self, ago: float) -> None:
        """Count a dream `ago` seconds back as this process's last (a daemon's successor carries it on)."""
        self._dreamt_at = time.monotonic() - max(ago, 0.0)

    def due(self) -> bool:
        every = self.config.dream.every_hours
        return bool(every) and (self._dreamt_at is None or time.monotonic() - self._dreamt_at >= every * 3600)

    # ------------------------------------------------------------------ run
    def run(self, now: datetime, *, limit: int | None = None, progress: Progress | None = None) -> DreamReport:
        """One dream at `now` (see the module docstring); one at a time: a second caller waits."""
        with self._running, background_run():
            return self._run(now, limit=limit, progress=progress)

    def _run(self, now: datetime, *, limit: int | None, progress: Progress | None) -> DreamReport:
        started = time.perf_counter()
        self._dreamt_at = time.monotonic()
        cfg = self.config.dream
        report = DreamReport(now=now.isoformat())
        self._budget = limit if limit is not None else cfg.max_changes
        self._report = report
        self._merged = set()
        tell = progress or (lambda step, done, total: None)

        tell("scan", 0, len(STEPS))
        active = self._scan()
        current = {m.id: m for m in active if m.valid_until is None or as_utc(m.valid_until) > now}
        paced = self.foreground.paced  # the long loops below step aside for a client's call now and then
        assessed = {i: (m, assess(m, now, self.config)) for i, m in paced(current.items())}
        awake = [(m, s) for m, s in assessed.values() if not m.lifecycle.dormant]
        report.scanned = len(active)
        report.average_retention = round(sum(s.retrievability for _, s in awake) / len(awake), 4) if awake else 0.0
        tiers: dict[str, int] = {name: 0 for name in self.config.tier_table}
        for m, s in assessed.values():
            tiers[s.tier] = tiers.get(s.tier, 0) + 1
        report.tiers = tiers
        report.utility_drifted = sum(1 for m, s in awake if abs(s.utility - m.lifecycle.utility) > 0.01)

        tell("rehearsal", 1, len(STEPS))
        self._rehearse(awake, now)
        tell("flashbulb", 2, len(STEPS))
        self._flashbulbs(awake, now)
        tell("synaptic capture", 3, len(STEPS))
        self._capture([m for m, _ in awake])
        tell("coactivation", 4, len(STEPS))
        self._coactivate(current)
        tell("working memory", 5, len(STEPS))
        self._promote_working(current, now)
        tell("consolidation", 6, len(STEPS))
        redundant = self._consolidate(awake, now)
        tell("forgetting", 7, len(STEPS))
        self._forget(active, current, assessed, redundant, now)
        tell("category summaries", 8, len(STEPS))
        again = self._scan()  # what consolidation and forgetting left
        left = [m for m in again if not m.lifecycle.dormant and (m.valid_until is None or as_utc(m.valid_until) > now)]
        self._summarize_categories(left, again, now)
        tell("concepts", 9, len(STEPS))
        self._count_concepts(left)
        tell("scope promotion", 10, len(STEPS))
        self._promote_scope(awake, now)
        tell("hot tier", 11, len(STEPS))
        self._hot.consider((m for m, _ in awake), now)
        self._hot.expire()  # recomputed at its next use, on the engine's clock
        report.hot = len(self._hot.memories(now, cache=False))
        tell("done", len(STEPS), len(STEPS))

        release(self.foreground, awake, assessed, current, left, again, active)  # a slice at a time
        report.elapsed_seconds = round(time.perf_counter() - started, 3)
        self.last = report
        if self._journal is not None:
            self._journal.record_op("dream", None, "lifecycle", None, None, report.as_dict())
        return report

    # ----------------------------------------------------------------- scan
    def _scan(self) -> list[Memory]:
        """Every memory still in force by status (active; dormant ones too), a page at a time, no lock."""
        out: list[Memory] = []
        offset: str | None = None
        flt = MemoryFilter(validity=ValidityMode.TIMELINE)
        while True:
            hits, offset = self._store.scroll(flt, limit=PAGE, offset=offset)
            out += [h.memory for h in hits if h.memory.status == MemoryStatus.ACTIVE]
            if offset is None:
                return out

    # -------------------------------------------------------------- changes
    def _changes(self, items: Sequence[Any], change: Callable[[Any], bool]) -> int:
        """Apply `change` to each item within the run's budget, at most `batch` at a time under the
        write lock; the lock is let go after each batch, and at once when a client's call comes,
        to step aside for it. Returns how many changed; items past the budget are deferred."""
        done, at = 0, 0
        batch = self.config.dream.batch
        while at < len(items):
            if self._budget <= 0:
                self._report.deferred += len(items) - at
                break
            self.foreground.checkpoint()  # not under the lock: a client's write may wait for it
            with self._lock:
                for _ in range(batch):
                    if at >= len(items) or self._budget <= 0:
                        break
                    if change(items[at]):
                        done += 1
                        self._budget -= 1
                    at += 1
                    if self.foreground.busy():
                        break
        return done

    def _fresh(self, memory_id: str) -> Memory | None:
        hits = self._store.retrieve([memory_id])
        memory = hits[0].memory if hits else None
        return memory if memory is not None and memory.status == MemoryStatus.ACTIVE else None

    def _rewrite(self, memory_id: str, op: str, reason: str, update: Callable[[Memory], dict[str, Any] | None]) -> bool:
        """Re-read the memory and write `update(memory)` (None: leave it) as an audited change."""
        memory = self._fresh(memory_id)
        if memory is None:
            return False
        fields = update(memory)
        if not fields:
            return False
        self._writer.replace(memory, memory.model_copy(update=fields), op=op, reembed=False, by=DREAMER, reason=reason)
        return True

    # ------------------------------------------------------------ the steps
    def _rehearse(self, awake: list[tuple[Memory, Strength]], now: datetime) -> None:
        """Endangered memories (retention under `rehearse_below`) get their storage strength raised,
        the most important and useful first (the testing effect, simulated); not records, nor memories
        rated unhelpful."""
        cfg = self.config.dream
        # records of what happened (episodes, tool events) and memories feedback found unhelpful are
        # left to fade: rehearsing them would keep noise alive
        endangered = [(m, s) for m, s in awake if s.retrievability < cfg.rehearse_below and not exempt(m)
                      and not is_record(m) and s.utility >= 0.5 and not summaries.is_summary(m)]
        endangered = sorted_in_slices(endangered, key=lambda ms: (-(ms[0].importance * ms[1].utility), ms[0].id))
        storage_max = self.config.storage_max

        def boost(memory: Memory) -> dict[str, Any] | None:
            state = memory.lifecycle
            grown = min(storage_max, state.storage * cfg.rehearse_boost)
            return {"lifecycle": state.model_copy(update={"storage": grown})} if grown > state.storage else None

        chosen = [m.id for m, _ in endangered[: cfg.rehearse_max]]
        self._report.rehearsed = self._changes(chosen, lambda i: self._rewrite(
            i, "rehearse", f"retention under {cfg.rehearse_below:g}: storage x{cfg.rehearse_boost:g}", boost))

    def _flashbulbs(self, awake: list[tuple[Memory, Strength]], now: datetime) -> None:
        """High-arousal events (incidents, outages, security findings) become flashbulb memories:
        importance floor, storage boost once, pinned when `flashbulb_pin`; exempt from forgetting."""
        cfg = self.config.dream
        # a category summary lists incidents among its members' first lines: it is not itself one
        found = [(m.id, a) for m, _ in self.foreground.paced(awake) if m.kind != MemoryKind.TOOL_EVENT and not m.metadata.get("flashbulb")
                 and not summaries.is_summary(m) and (a := arousal(m.content)) >= cfg.flashbulb_arousal]
        storage_max = self.config.storage_max

        def vivid(memory: Memory, level: float) -> dict[str, Any] | None:
            if memory.metadata.get("flashbulb"):
                return None
            state = memory.lifecycle
            return {"metadata": {**memory.metadata, "flashbulb": True, "arousal": round(level, 2)},
                    "importance": max(memory.importance, cfg.flashbulb_importance),
                    "pinned": memory.pinned or cfg.flashbulb_pin,
                    "lifecycle": state.model_copy(update={"storage": min(storage_max, state.storage * cfg.flashbulb_boost)})}

        self._report.flashbulbs = self._changes(found, lambda item: self._rewrite(
            item[0], "flashbulb", f"arousal {item[1]:.2f}: kept vivid", lambda m: vivid(m, item[1])))

    def _capture(self, awake: list[Memory]) -> None:
        """Synaptic tagging and capture (`tagging.py`): weak memories a strong one of their session
        followed within the tag's hours get their storage strength raised, once."""
        cfg = self.config.dream
        found = tagging.captures(awake, tag_below=cfg.tag_below, hours=cfg.tag_hours, strong=cfg.capture_importance)
        storage_max = self.config.storage_max

        def stabilize(memory: Memory, by: str) -> dict[str, Any] | None:
            if memory.metadata.get(tagging.CAPTURED_BY):
                return None
            state = memory.lifecycle
            return {"metadata": {**memory.metadata, tagging.CAPTURED_BY: by},
                    "lifecycle": state.model_copy(update={"storage": min(storage_max, state.storage * cfg.capture_boost)})}

        self._report.captured = self._changes(found, lambda pair: self._rewrite(
            pair[0], "capture", f"tagged, captured by {pair[1]} of its session: storage x{cfg.capture_boost:g}",
            lambda m: stabilize(m, pair[1])))

    def _coactivate(self, current: dict[str, Memory]) -> None:
        """Pairs recalled together since the last dream: their `related_to` weight moves toward 1."""
        if self._journal is None:
            self.coactivations.drain()
            return
        step = self.config.dream.coactivation_step
        n = 0
        for a, b, times in self.coactivations.drain():
            if a not in current or b not in current:
                continue
            edge = next((r for r in self._journal.relations(a, types=["related_to"], direction="out") if r.dst == b), None)
            weight = edge.weight if edge is not None else 0.0
            seen = int((edge.detail or {}).get("co_activations", 0)) if edge is not None else 0
            self._journal.add_relation(a, b, "related_to", round(strengthened(weight, times, step), 4),
                                       {**((edge.detail or {}) if edge else {}), "co_activations": seen + times})
            n += 1
        self._report.coactivated = n

    def _promote_working(self, current: dict[str, Memory], now: datetime) -> None:
        """Working-memory items evicted while still in use go one tier up (their tier's `promote_to`)."""
        table = self.config.tier_table

        def promote(memory: Memory) -> dict[str, Any] | None:
            source = memory.lifecycle.tier or self.config.entry
            target = table[source].promote_to if source in table else None
            if exempt(memory) or memory.lifecycle.dormant or target is None or not table[target].searchable:
                return None
            return {"lifecycle": memory.lifecycle.model_copy(update={"tier": target, "tier_since": now})}

        ids = [i for i in self._working.take_candidates() if i in current]
        self._report.working_promoted = self._changes(ids, lambda i: self._rewrite(
            i, "promote", "working-memory promotion candidate (evicted while in use)", promote))

    # --------------------------------------------------------- consolidation
    def _neighbour_pairs(self, awake: list[tuple[Memory, Strength]]) -> list[tuple[str, str, float]]:
        """Near-duplicate pairs among current memories: each memory new or changed since the last
        run (oldest first, at most `max_compared`) against its nearest neighbours of its kind and scope."""
        since = self._compared_through
        most = self.config.dream.max_compared
        written = ((changed_at(m), m) for m, _ in self.foreground.paced(awake) if comparable(m))
        fresh = [(at.timestamp(), m.id, m) for at, m in written if since is None or at > since]
        # the oldest `most`, not all of them sorted: a sort runs in C holding the GIL, and sorting
        # 100,000 (datetime, id) keys held it 1.9 s while a concurrent search waited
        oldest = [m for _, _, m in heapq.nsmallest(most, fresh, key=lambda t: (t[0], t[1]))]
        pairs, compared = self.near_duplicates([m for m, _ in awake], oldest, most=most)
        if compared:
            self._compared_through = changed_at(compared[-1])
        self._report.compared = len(compared)
        return pairs

    def near_duplicates(self, pool: Sequence[Memory], candidates: Sequence[Memory], *,
                        most: int) -> tuple[list[tuple[str, str, float]], list[Memory]]:
        """Pairs (a, b, cosine) of memories of `pool` that are near-duplicates (at or above the lower
        of `merge_similarity` and `forgetting.redundancy`, same kind, scope and subject), found from
        up to `most` of `candidates` (records and truth anchors skipped); and the candidates compared."""
        cfg = self.config.dream
        by_id = {m.id: m for m in pool}
        chosen = [m for m in candidates if comparable(m)][:most]
        low = min(cfg.merge_similarity, self.config.forgetting.redundancy)
        pairs: dict[tuple[str, str], float] = {}
        for start in range(0, len(chosen), 64):
            page = chosen[start:start + 64]
            vectors = {h.id: h.dense for h in self._store.retrieve([m.id for m in page], with_vectors=True)}
            for m in page:
                vector = vectors.get(m.id)
                if vector is None:
                    continue
                flt = MemoryFilter(scopes=(m.scope,), project=m.project, kinds=(m.kind,), dormant=False)
                for hit in self._store.query(VectorQuery(dense=vector, filter=flt, limit=cfg.neighbours + 1)):
                    other = by_id.get(hit.id)
                    if other is None or other.id == m.id or hit.score < low or exempt(other) \
                            or summaries.is_summary(other):
                        continue
                    if themes.same_subject(m, other):
                        key = (min(m.id, other.id), max(m.id, other.id))
                        pairs[key] = max(pairs.get(key, 0.0), float(hit.score))
            time.sleep(0)
        return [(a, b, sc) for (a, b), sc in pairs.items()], chosen

    def _consolidate(self, awake: list[tuple[Memory, Strength]], now: datetime) -> list[tuple[str, str, float]]:
        """Clusters of near-duplicates become theme memories; returns the redundant pairs left over
        (cosine above `forgetting.redundancy`, not merged) for forgetting."""
        cfg = self.config.dream
        pairs = self._neighbour_pairs(awake)
        close = [(a, b) for a, b, s in pairs if s >= cfg.merge_similarity]
        groups = [g for g in themes.clusters(close) if len(g) >= cfg.cluster_min]
        self._report.clusters = len(groups)
        merged = self._merged
        calls = cfg.llm_max_calls
        if cfg.consolidation in ("deterministic", "llm"):
            pool = {m.id: m for m, _ in awake}
            for group in groups:
                if self._budget < 2:
                    self._report.deferred += len(group)
                    continue
                members = [pool[i] for i in group][:MAX_THEME]
                summary = None
                if cfg.consolidation == "llm" and self.summarizer is not None and calls > 0:
                    calls -= 1  # asked outside the write lock: a slow endpoint holds up nothing
                    summary = self.summarizer.summarize([m.content for m in members], max_chars=cfg.theme_max_chars)
                with self._lock:
                    made = self.consolidate([m.id for m in members], summary, now=now, by=DREAMER,
                                            how="llm" if summary else "deterministic")
                if made is not None:
                    merged.update(m.id for m in members)
                    self._report.themes += 1
                    self._report.merged += len(members)
                    self._budget -= len(members) + 1
                time.sleep(0)
        return [(a, b, s) for a, b, s in pairs if s > self.config.forgetting.redundancy
                and a not in merged and b not in merged]

    def consolidate(self, ids: Sequence[str], summary: str | None, *, now: datetime, by: Provenance,
                    how: str = "agent") -> str | None:
        """One theme memory for the memories `ids` (current, one kind, scope and project, none a
        truth anchor): `summary` as written (by the agent or the model: `how`), or merged deterministically; it supersedes
        them through the write path. Returns its id, or None when the members no longer qualify.
        Call under the write lock."""
        members = [m for i in ids if (m := self._fresh(i)) is not None and not m.lifecycle.dormant]
        if len(members) < 2 or len(members) < len(set(ids)) or any(exempt(m) for m in members):
            return None
        first = members[0]
        if any((m.kind, m.scope, m.project) != (first.kind, first.scope, first.project) for m in members):
            return None
        text = summary or themes.merge_text(members, max_chars=self.config.dream.theme_max_chars)
        new = NewMemory(
            content=text, kind=first.kind, scope=first.scope, project=first.project,
            tags=tuple(dict.fromkeys(t for m in members for t in m.tags)),
            provenance=by, confidence=max(m.confidence for m in members),
            importance=max(self.config.dream.theme_importance, *(m.importance for m in members)),
            created_at=now, valid_from=now,
            metadata={"theme_of": [m.id for m in members], "consolidated": how if summary else "deterministic"},
            supersedes=tuple(m.id for m in members))
        built = self._writer.build(new, default_project=first.project)
        outcome = self._writer.write([built])[0]
        return outcome.id

    # ------------------------------------------------------------- forgetting
    def _forget(self, active: list[Memory], current: dict[str, Memory],
                assessed: dict[str, tuple[Memory, Strength]], redundant: list[tuple[str, str, float]],
                now: datetime) -> None:
        """The seven rules in order; each memory is sent dormant once, by the first rule that names it."""
        rules = self.config.forgetting
        chosen: dict[str, forgetting.Forget] = {}

        def add(found: list[forgetting.Forget]) -> None:
            for f in found:
                first = chosen.setdefault(f.memory_id, f)
                if f.kept is not None and first.kept is None:  # a repeat an earlier rule sends dormant still
                    chosen[f.memory_id] = replace(first, kept=f.kept)  # folds into the newest record of its run

        if rules.contradictions and self._journal is not None:
            add(forgetting.contradiction(self._journal.edges("contradicts"), current))
        paced = self.foreground.paced  # each rule reads every memory: step aside for a client's call
        if rules.foresight:
            add(forgetting.foresight(paced(active), now))
        add(forgetting.records(paced(assessed.values()), self.config))
        runs_seen = forgetting.run_groups(paced(assessed.values()))
        add(forgetting.repeats(runs_seen, self.config))
        add(forgetting.utility_floor(paced(assessed.values()), self.config))
        add(forgetting.redundancy(redundant, assessed))
        live = [(m, s) for m, s in assessed.values() if m.id not in self._merged]
        add(forgetting.capacity(live, self.config, leaving=set(chosen)))
        target = self.config.dormant_tier

        def sleep(memory: Memory, rule: str) -> dict[str, Any] | None:
            if exempt(memory) or memory.lifecycle.dormant:
                return None
            state = memory.lifecycle
            return {"lifecycle": state.model_copy(update={
                "tier": target or state.tier, "dormant": True, "tier_since": now})}

        runs: dict[str, int] = {}  # repeats: the runs each survivor now stands for, besides its own

        def apply(f: forgetting.Forget) -> bool:
            told: list[int] = []

            def sleep_told(memory: Memory) -> dict[str, Any] | None:
                told.append(runs_of(memory))
                return sleep(memory, f.rule)

            if not self._rewrite(f.memory_id, "dormant", f"{f.rule}: {f.reason}", sleep_told):
                return False
            if f.kept is not None:
                runs[f.kept] = runs.get(f.kept, 0) + told[0]
            return True

        for rule in forgetting.RULES:
            items = [f for f in chosen.values() if f.rule == rule]
            self._report.forgotten[rule] = self._changes(items, apply)

        # a survivor stands for what this dream folded into it, and at least for the dormant runs before it
        carried = forgetting.carried_runs(runs_seen, self.config)

        def tally(memory: Memory, more: int) -> dict[str, Any] | None:
            total = max(runs_of(memory) + more, carried.get(memory.id, 0))
            return {"metadata": {**memory.metadata, RUNS: total}} if total > runs_of(memory) else None

        self._changes(sorted(dict.fromkeys([*runs, *carried])), lambda key: self._rewrite(
            key, "tally", f"stands for {runs.get(key, 0)} earlier runs of the same routine run sent dormant now"
                          f"{f', and follows dormant ones standing for {carried[key] - 1}' if key in carried else ''}",
            lambda m: tally(m, runs.get(key, 0))))

    # ---------------------------------------------------- category summaries
    def _summarize_categories(self, current: list[Memory], scanned: list[Memory], now: datetime) -> None:
        """Each category (scope, project, kind) of at least `summaries.min_members` current memories
        gets a summary memory; one whose members changed since it was made is superseded by a new
        one (through the write path). Read after forgetting and consolidation, so it lists what is
        left; the members are not touched."""
        cfg = self.config.summaries
        if cfg.max_per_run <= 0:
            return
        # a dormant summary (trimmed by capacity) counts as made: rewriting it each dream would churn
        made = summaries.latest(m for m in scanned if summaries.is_summary(m))
        found = summaries.categories(self.foreground.paced(current), kinds=cfg.kinds, min_members=cfg.min_members)
        due = [(c, ms, fp) for c, ms in self.foreground.paced(found.items(), every=4)
               if summaries.stale(made.get(c.key), fp := summaries.fingerprint(ms, changed_at))]
        if len(due) > cfg.max_per_run:
            self._report.deferred += len(due) - cfg.max_per_run
            due = due[:cfg.max_per_run]

        def write(item: tuple[summaries.Category, list[Memory], str]) -> bool:
            category, members, print_ = item
            old = made.get(category.key)
            if old is not None and self._fresh(old.id) is None:
                old = None
            if self._write_summary(category, members, print_, old, now):
                if old is not None:
                    self._report.summaries_refreshed += 1
                return True
            return False

        self._report.summaries = self._changes(due, write)

    def _write_summary(self, category: summaries.Category, members: list[Memory], print_: str,
                       old: Memory | None, now: datetime) -> bool:
        """Store the summary (superseding `old`) and link it to the members it lists. Under the write lock."""
        cfg = self.config.summaries
        text, listed = summaries.summary_text(category, members, max_chars=cfg.max_chars, line_chars=cfg.line_chars)
        first = members[0]
        memory = Memory(
            id=str(uuid.uuid4()), content=text, kind=first.kind, scope=first.scope, project=first.project,
            tags=(summaries.TAG,), provenance=DREAMER, importance=cfg.importance,
            confidence=min(m.confidence for m in members), created_at=now, recorded_at=now, valid_from=now,
            metadata={summaries.SUMMARY_OF: category.key, summaries.FINGERPRINT: print_, "members": len(members),
                      "listed": listed})
        # stored as made (a summary is not split into claims nor gated against its own members);
        # a refresh supersedes the old summary as asked
        self._writer.write([[Formed(memory, explicit_kind=True, replaces=(old.id,) if old is not None else ())]],
                           gated=old is not None)
        if self._journal is not None:
            for member_id in listed:
                self._journal.add_relation(memory.id, member_id, "elaborates", 0.5, {"summary": True})
        return True

    # -------------------------------------------------------------- concepts
    def _count_concepts(self, current: list[Memory]) -> None:
        """The concepts the current memories name, near-identical names merged; the schematic ones
        (the most used first, at most `concepts.listed`) are kept for the stats and the audit log."""
        cfg = self.config.concepts
        if not cfg.enabled:
            return
        found = concepts.concepts(((m.id, e) for m in self.foreground.paced(current) for e in m.entities),
                                  merge_similarity=cfg.merge_similarity, schematic_min=cfg.schematic_min)
        schematic = [c for c in found if c.schematic]
        self._report.concepts = len(found)
        self._report.concepts_merged = sum(len(c.names) - 1 for c in found)
        self._report.schematic = len(schematic)
        self.schematic = [c.as_dict() for c in schematic[:cfg.listed]]
        if self._journal is not None:
            self._journal.record_op("concepts", None, "lifecycle", None, None,
                                    {"concepts": len(found), "schematic_count": len(schematic), "schematic": self.schematic})

    # ------------------------------------------------------- scope promotion
    def _promote_scope(self, awake: list[tuple[Memory, Strength]], now: datetime) -> None:
        """A project memory confirmed often enough (confidence, recalls, conversations that stated
        it) is proposed for, or promoted to, global scope; the thresholds go into the audit row."""
        rule = self.config.scope_promotion
        if rule.mode == "off":
            return
        thresholds = (f"confidence >= {rule.min_confidence:g}, recalls >= {rule.min_recalls}, "
                      f"sessions >= {rule.min_sessions}")

        def sessions(m: Memory) -> int:
            return 1 + int(m.metadata.get("reinforced", 0))

        found = [m.id for m, _ in awake
                 if m.scope == Scope.PROJECT and m.kind.value in rule.kinds and not m.metadata.get("promote_to_global")
                 and not summaries.is_summary(m)
                 and m.confidence >= rule.min_confidence and m.access_count >= rule.min_recalls
                 and sessions(m) >= rule.min_sessions and not m.immutable]

        def promote(memory: Memory) -> dict[str, Any] | None:
            if memory.scope != Scope.PROJECT or memory.metadata.get("promote_to_global"):
                return None
            mark = {"metadata": {**memory.metadata, "promote_to_global": now.isoformat(), "promoted_from": memory.project}}
            if rule.mode == "promote":
                return {**mark, "scope": Scope.GLOBAL, "project": None}
            return mark

        op = "promote-global" if rule.mode == "promote" else "propose-global"
        n = self._changes(found, lambda i: self._rewrite(i, op, thresholds, promote))
        if rule.mode == "promote":
            self._report.scope_promoted = n
        else:
            self._report.scope_proposed = n
