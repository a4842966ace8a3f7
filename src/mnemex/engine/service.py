"""MemoryEngine: the one facade every entry point uses (tools, CLI, hooks, benchmark).

It writes (memorize, update, forget, import) through the write wing under one lock, reads
(search, get, recall, export) through the read path, and hands the rest to two parts:
`explore` (timeline, history, relations, entity lookup) and `upkeep` (optimize, reindex,
vocabulary, stats). Calls are blocking; async callers run them in a worker thread.
"""

from __future__ import annotations

import functools
import shutil
import threading
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence

from mnemex.config import LimitSettings
from mnemex.config.blocks import DEFAULT_BLOCKS, BlocksConfig
from mnemex.config.gate import DEFAULT_GATE, GateConfig
from mnemex.config.lifecycle import DEFAULT_LIFECYCLE, LifecycleConfig
from mnemex.config.observer import DEFAULT_OBSERVER, ObserverConfig
from mnemex.config.redaction import DEFAULT_REDACTION, RedactionConfig
from mnemex.config.retrieval import DEFAULT as DEFAULT_RETRIEVAL
from mnemex.config.retrieval import RetrievalConfig
from mnemex.embed.dense import DenseEmbedder
from mnemex.embed.sparse import SparseEncoder
from mnemex.embed.vocabulary import Vocabulary
from mnemex.engine.blocks import MemoryBlocks
from mnemex.engine.explore import Explorer
from mnemex.engine.ids import resolve_id
from mnemex.engine.lifecycle.coactivation import CoActivations
from mnemex.engine.lifecycle.dream import Dreamer, DreamReport, Progress
from mnemex.engine.lifecycle.hits import HitRate
from mnemex.engine.lifecycle.hot import HotTier
from mnemex.engine.lifecycle.keeper import LifecycleKeeper, SweepReport
from mnemex.engine.lifecycle.quiet import Foreground
from mnemex.engine.lifecycle.stats import lifecycle_stats
from mnemex.engine.lifecycle.working import WorkingMemory
from mnemex.engine.retrieval.pipeline import RankedMemory, Retriever
from mnemex.engine.upkeep import Upkeep, all_memories
from mnemex.engine.write.identity import check_identity
from mnemex.engine.write.log import JournalLog, NoLog
from mnemex.engine.write.path import WritePath
from mnemex.engine.write.purge import Purger
from mnemex.engine.write.sanitize import clean_text, scrub
from mnemex.errors import ImmutableMemoryError, InvalidInputError, NotFoundError, StorageFullError
from mnemex.heap import trim
from mnemex.models import (
    Memory,
    MemoryChanges,
    MemoryFilter,
    NewMemory,
    Provenance,
    ValidityMode,
    WriteOutcome,
    utcnow,
)
from mnemex.store.base import MemoryStore


def partners_of(journal: Any) -> Callable[[Sequence[str]], dict[str, dict[str, float]]]:
    """For the read path's co-activation boost: each id's memories wired to it by recalls together."""

    def partners(ids: Sequence[str]) -> dict[str, dict[str, float]]:
        out: dict[str, dict[str, float]] = {}
        for memory_id in ids:
            out[memory_id] = {(r.dst if r.src == memory_id else r.src): r.weight
                              for r in journal.relations(memory_id, types=["related_to"])
                              if (r.detail or {}).get("co_activations")}
        return out

    return partners


def _first(method: Callable[..., Any]) -> Callable[..., Any]:
    """A client's call: the dream and the sweep step aside while it runs (`quiet.Foreground`)."""
    @functools.wraps(method)
    def call(self: "MemoryEngine", *args: Any, **kwargs: Any) -> Any:
        with self.foreground.call():
            return method(self, *args, **kwargs)
    return call


class MemoryEngine:
    def __init__(self, *, store: MemoryStore, dense: DenseEmbedder, sparse: SparseEncoder,
                 journal: Any = None, limits: LimitSettings = LimitSettings(), optimize_every: int = 500,
                 default_project: str | None = None, clock: Callable[[], datetime] = utcnow,
                 vocabulary: Vocabulary | None = None, data_dir: Path | None = None,
                 gate: GateConfig = DEFAULT_GATE, observer: ObserverConfig = DEFAULT_OBSERVER,
                 retrieval: RetrievalConfig = DEFAULT_RETRIEVAL, redaction: RedactionConfig = DEFAULT_REDACTION,
                 blocks: BlocksConfig = DEFAULT_BLOCKS, lifecycle: LifecycleConfig = DEFAULT_LIFECYCLE):
        self.store = store
        self.dense = dense
        self.journal = journal
        self.limits = limits
        self.default_project = default_project
        self._clock = clock
        self._data_dir = data_dir
        self._redaction = redaction
        self._lock = threading.RLock()
        check_identity(store, dense.identity)
        self.vocabulary = vocabulary if vocabulary is not None else Vocabulary(dense, sparse)
        log = JournalLog(journal, relations_per_memory=limits.relations_per_memory) if journal is not None else NoLog()
        self.writer = WritePath(store=store, dense=dense, sparse=sparse, max_content_chars=limits.max_content_chars,
                                clock=clock, log=log, vocabulary=self.vocabulary, gate=gate, observer=observer,
                                redaction=redaction, lifecycle=lifecycle)
        self.retriever = Retriever(store, dense, sparse, config=retrieval, vocabulary=self.vocabulary,
                                   lifecycle=lifecycle)
        if journal is not None:
            self.retriever.partners = partners_of(journal)
        self.working = WorkingMemory(lifecycle.working_memory)
        self.hot = HotTier(lifecycle, lambda ids: [h.memory for h in store.retrieve(list(ids))], clock)
        coactivations = CoActivations(lifecycle.dream.coactivation_window_minutes)
        self.hits = HitRate(lifecycle.dream.hit_window_minutes)

        def on_recall(memories: list[Memory], at: datetime) -> None:
            coactivations.recalled([m.id for m in memories], at)
            self.hot.consider(memories, at)

        self.foreground = Foreground()  # a client's calls go first; the dream and the sweep step aside
        self.lifecycle = LifecycleKeeper(store=store, writer=self.writer, config=lifecycle, lock=self._lock,
                                         clock=clock, on_recall=on_recall, foreground=self.foreground)
        summarizer = None
        if lifecycle.dream.consolidation == "llm" and gate.judge.url and gate.judge.model:
            from mnemex.engine.lifecycle.summarizer import HttpSummarizer

            summarizer = HttpSummarizer(gate.judge, max_tokens=lifecycle.dream.llm_max_tokens)
        self.dreamer = Dreamer(store=store, writer=self.writer, config=lifecycle, lock=self._lock, journal=journal,
                               coactivations=coactivations, working=self.working, hot=self.hot, summarizer=summarizer,
                               foreground=self.foreground)
        self.upkeep = Upkeep(store=store, dense=dense, vocabulary=self.vocabulary, writer=self.writer,
                             lock=self._lock, optimize_every=optimize_every)
        self.explore = Explorer(store=store, journal=journal, clock=clock, get=self.get, recall=self.recall,
                                before_write=self._ensure_space)
        self.blocks = MemoryBlocks(journal, lock=self._lock, before_write=self._ensure_space, config=blocks,
                                   redaction=redaction, default_project=default_project)
        self._purger = Purger(store, self.vocabulary, journal)
        with self._lock:  # before anything can read what an interrupted purge or supersede left behind
            self._purger.resume()
            self.writer.resume()
        self.upkeep.start_vocabulary_build()
        self.upkeep.start_payload_upgrade()

    # ------------------------------------------------------------------ writes
    def memorize(self, new: NewMemory, *, project: str | None = None) -> WriteOutcome:
        """Remember one piece of content; the outcome says what the write path did (with the
        outcomes of further atomic claims, when the content held several, in `also`)."""
        return self.memorize_many([new], project=project)[0]

    @_first
    def memorize_many(self, items: Sequence[NewMemory], *, project: str | None = None,
                      gated: bool = True) -> list[WriteOutcome]:
        """Remember several items (one embedding batch), one outcome per item; `gated=False`
        stores every atom as formed, without the prediction-error gate."""
        self._ensure_space()
        default_project = project or self.default_project
        built = [self.writer.build(item, default_project=default_project) for item in items]
        with self._lock:
            outcomes = self.writer.write(built, gated=gated)
            self.upkeep.count_writes(sum(len(group) for group in built))
        now = self._clock()
        for item, outcome in zip(items, outcomes):  # what a session writes is what it works with
            if item.provenance.session_id and outcome.id:
                self.working.attend(item.provenance.session_id, outcome.id, item.importance or 0.5, now)
        return outcomes

    @_first
    def update(self, memory_id: str, changes: MemoryChanges, *, actor: str = "agent",
               client: str | None = None) -> Memory:
        """Edit a memory in place; the previous version stays in the journal history."""
        self._ensure_space()
        with self._lock:
            before = self.get(memory_id)
            if before.immutable:
                raise ImmutableMemoryError(f"memory {memory_id} is immutable and cannot be edited")
            after = self.writer.amend(before, changes, by=Provenance(source=actor, client=client))
            self.upkeep.count_writes(1)
            return after

    @_first
    def forget(self, memory_id: str, *, purge: bool = False, reason: str = "", actor: str = "agent",
               client: str | None = None) -> Memory | None:
        """Invalidate a memory (kept in the timeline); with purge=True remove it and its content
        everywhere (`write/purge.py`: journaled, finished after a crash)."""
        self._ensure_space()  # a purge rewrites the store: it needs room as much as a write
        with self._lock:
            if purge:
                self._purger.purge(self.resolve(memory_id), asked=memory_id,
                                   actor=f"{actor} ({client})" if client else actor)
                return None
            before = self.get(memory_id)
            if before.pinned:
                raise InvalidInputError(f"memory {memory_id} is pinned: unpin it first (`mnemex unpin`, or update_memory pinned=false)")
            return self.writer.invalidate(before, reason=reason, by=Provenance(source=actor, client=client))

    def import_memories(self, memories: Iterable[Memory], *, batch: int = 128) -> int:
        """Store memories exactly as given (ids, times, status): the inverse of `export`."""
        count = 0
        chunk: list[Memory] = []
        for memory in memories:
            chunk.append(memory)
            if len(chunk) >= batch:
                count += self._import_chunk(chunk)
                chunk = []
        if chunk:
            count += self._import_chunk(chunk)
        return count

    def _import_chunk(self, memories: list[Memory]) -> int:
        self._ensure_space()
        with self._lock:
            self.writer.write_as_given(memories)
            self.upkeep.count_writes(len(memories))
        return len(memories)

    # ------------------------------------------------------------------- reads
    @_first
    def search(self, query: str, *, filter: MemoryFilter | None = None, limit: int = 10,
               session_id: str | None = None, now: datetime | None = None, client: str | None = None,
               dormant: bool | None = False, offered_by: str | None = "search", **options: Any) -> list[RankedMemory]:
        """The one read path: search_memory, strategies, hooks and the benchmark all call this.
        Dormant memories are left out unless `dormant` is None (both) or True (only them); a
        filter that says `dormant` itself wins. `offered_by`: what the results count as in the hit
        rate (a search; None when a caller counts them itself, as the context injection does)."""
        if not isinstance(query, str) or not query.strip():
            raise InvalidInputError("query is empty: say what you are looking for")
        if not 1 <= limit <= self.limits.max_results:
            raise InvalidInputError(f"limit must be between 1 and {self.limits.max_results}")
        query = clean_text(query)
        flt = filter if filter is not None else self.default_filter(dormant=dormant)
        if flt.dormant is None and dormant is not None:
            flt = flt.model_copy(update={"dormant": dormant})
        results = self.retriever.search(query, filter=flt, limit=limit, now=now, session_id=session_id, **options)
        if offered_by:
            self.hits.offered([r.memory.id for r in results], self._clock(), by=offered_by)
        if self.journal is not None:
            self.journal.record_read("search", [r.memory.id for r in results], actor=client,
                                     detail={"query": scrub(query, self._redaction),
                                             **({"project": flt.project} if flt.project else {})},
                                     payloads=self._read_payloads([r.memory for r in results]))
        return results

    def _read_payloads(self, memories: Sequence[Memory]) -> list[dict[str, Any]] | None:
        """What a read returned, only when the audit level keeps it (verbose)."""
        if getattr(self.journal, "level", None) != "verbose":
            return None
        return [m.model_dump(mode="json") for m in memories]

    def default_filter(self, **fields: Any) -> MemoryFilter:
        """Current, non-dormant memories of the default project plus every non-project scope."""
        fields.setdefault("project", self.default_project)
        fields.setdefault("dormant", False)
        return MemoryFilter(**fields)

    @_first
    def get(self, memory_id: str) -> Memory:
        """The memory with this id in any spelling, or a unique prefix of it (`resolve`); NotFoundError if none."""
        canonical = self.resolve(memory_id)
        hits = self.store.retrieve([canonical]) if canonical else []
        if not hits:
            raise NotFoundError(memory_id)
        return hits[0].memory

    @_first
    def recall(self, ids: Sequence[str], *, touch: bool = True, client: str | None = None) -> list[Memory]:
        """Full memories by id, in the order asked; NotFoundError names the first unknown id."""
        canonical = [self.resolve(i) for i in ids]
        found = {h.id: h.memory for h in self.store.retrieve([c for c in canonical if c])}
        for asked, memory_id in zip(ids, canonical):
            if memory_id not in found:
                raise NotFoundError(asked)
        memories = [found[c] for c in canonical]
        if touch:  # a recall strengthens; a dormant memory recalled is reactivated
            memories = self.lifecycle.recalled(memories, by=Provenance(source="agent", client=client))
            self.hits.recalled([m.id for m in memories], self._clock())
        if self.journal is not None:
            self.journal.record_read("recall", [m.id for m in memories], actor=client,
                                     payloads=self._read_payloads(memories))
        return memories

    @_first
    def rate(self, memory_id: str, *, helped: bool, actor: str = "agent", client: str | None = None) -> Memory:
        """Feedback on a memory: it helped (its utility moves toward 1) or misled (toward 0); the
        read path ranks it accordingly and the sweep reads it."""
        self._ensure_space()
        return self.lifecycle.rate(self.get(memory_id), helped, by=Provenance(source=actor, client=client))

    def sweep(self, *, max_moves: int | None = None) -> SweepReport:
        """Move memories between tiers by the lifecycle policy (promote, demote to dormant); returns counts."""
        self._ensure_space()
        report = self.lifecycle.sweep(max_moves=max_moves)
        self.upkeep.count_writes(report.promoted + report.demoted)
        return report

    def dream(self, now: datetime | None = None, *, limit: int | None = None,
              progress: Progress | None = None) -> DreamReport:
        """One dream cycle at `now` (default: the clock): rehearsal, flashbulbs, co-activation,
        consolidation of near-duplicates into theme memories, strategic forgetting (to dormant, never
        deleted), scope promotion, the hot tier. At most `limit` (default `lifecycle.dream.max_changes`)
        memories changed; `progress(step, done, total)` is told each step."""
        if limit is not None and limit < 1:
            raise InvalidInputError("limit must be at least 1")
        self._ensure_space()
        at = now or self._clock()
        if at.tzinfo is None:  # a naive time is UTC, as everywhere in mnemex
            at = at.replace(tzinfo=timezone.utc)
        report = self.dreamer.run(at, limit=limit, progress=progress)
        self.upkeep.count_writes(report.changed)
        trim()  # a cycle reads and embeds thousands of memories: give the heap it freed back
        return report

    @_first
    def memory_clusters(self, *, project: str | None = None, limit: int = 10) -> list[list[Memory]]:
        """Groups of near-duplicate current memories (one kind and scope each) the agent may
        consolidate (`consolidate`): the project's and the other scopes', largest first."""
        from mnemex.engine.lifecycle.strength import as_utc
        from mnemex.engine.lifecycle.themes import clusters

        flt = self.default_filter(project=project or self.default_project)
        pool: list[Memory] = []
        offset: str | None = None
        while True:
            hits, offset = self.store.scroll(flt, limit=256, offset=offset)
            pool += [h.memory for h in hits]
            if offset is None:
                break
        pool.sort(key=lambda m: (as_utc(m.recorded_at), m.id), reverse=True)
        config = self.dreamer.config.dream
        pairs, _ = self.dreamer.near_duplicates(pool, pool, most=config.max_compared)
        groups = [g for g in clusters((a, b) for a, b, s in pairs if s >= config.merge_similarity)
                  if len(g) >= config.cluster_min][:limit]
        by_id = {m.id: m for m in pool}
        return [[by_id[i] for i in g] for g in groups]

    @_first
    def consolidate(self, ids: Sequence[str], summary: str, *, actor: str = "agent",
                    client: str | None = None) -> Memory:
        """Replace the memories `ids` (current, one kind and scope, no truth anchor; at least two)
        by one theme memory holding `summary`: it supersedes them through the write path."""
        if not isinstance(summary, str) or not summary.strip():
            raise InvalidInputError("summary is empty: write the one statement that replaces the memories")
        canonical = [self.resolve(i) for i in ids]
        for asked, memory_id in zip(ids, canonical):
            if memory_id is None:
                raise NotFoundError(asked)
        if len(set(canonical)) < 2:
            raise InvalidInputError("consolidate needs at least two distinct memory ids")
        self._ensure_space()
        with self._lock:
            made = self.dreamer.consolidate([c for c in canonical if c], summary, now=self._clock(),
                                            by=Provenance(source=actor, client=client))
            if made is None:
                raise InvalidInputError("these memories cannot be consolidated: each must be current and active, "
                                        "of one kind, scope and project, and none pinned or immutable")
            self.upkeep.count_writes(len(canonical) + 1)
        return self.get(made)

    def hot_memories(self, now: datetime | None = None) -> list[Memory]:
        """The hot tier: the few memories of high utility and frequent recent use (cached)."""
        return self.hot.memories(now)

    def attend(self, session_id: str, memories: Sequence[Memory], now: datetime | None = None) -> None:
        """The memories are in use in the session now: they enter its working memory."""
        at = now or self._clock()
        for m in memories:
            self.working.attend(session_id, m.id, m.importance, at)

    def end_session(self, session_id: str) -> int:
        """The session ended: its working memory is cleared; returns how many items it held."""
        return self.working.end(session_id)

    def injected(self, ids: Sequence[str]) -> None:
        """The context strategy gave these memories to an agent: offers, for the hit rate."""
        if ids:
            self.hits.offered(ids, self._clock(), by="injection")

    def lifecycle_stats(self) -> dict[str, Any]:
        """Counts per tier, kind and scope, promotions and demotions, average retention, the last dream,
        the hit rate."""
        return {**lifecycle_stats(self.store, self.journal, self.dreamer, self.lifecycle.config),
                "hits": self.hits.as_dict()}

    def resolve(self, memory_id: str) -> str | None:
        """The canonical id a caller means: any spelling of an id, or a unique prefix of one (the
        tools show 8 characters); None when it names nothing, InvalidInputError when ambiguous."""
        lookup = self.journal.ids_with_prefix if self.journal is not None else (lambda _prefix: [])
        return resolve_id(memory_id, lookup)

    def export(self, *, include_all: bool = True) -> Iterator[Memory]:
        """Every memory (all validity states), in store order."""
        return all_memories(self.store, MemoryFilter(validity=ValidityMode.TIMELINE if include_all
                                                     else ValidityMode.CURRENT))

    # --------------------------------------------------------------- lifecycle
    def timers(self) -> dict[str, float | None]:
        """Seconds since this process's last dream and sweep (None: not yet), for a process that
        takes the store over to carry on from (`carry_timers`)."""
        return {"dream": self.dreamer.ran_ago(), "sweep": self.lifecycle.swept_ago()}

    def carry_timers(self, timers: dict[str, Any]) -> None:
        if isinstance(timers.get("dream"), (int, float)):
            self.dreamer.ran(float(timers["dream"]))
        if isinstance(timers.get("sweep"), (int, float)):
            self.lifecycle.swept(float(timers["sweep"]))

    def close_handed_over(self, timeout: float = 5.0) -> None:
        """Close what stays this process's once its store was handed over to another process
        (`server/handoff.py`): upkeep stops, the vocabulary and the journal close under the write
        lock (a batch in progress ends first). The store is left open: it refuses writes already,
        and closing its shard (a flush, 0.3-0.5 s at 100k) would only take CPU from the process that
        serves now; the shard is that process's to remove."""
        self.upkeep.stop()
        held = self._lock.acquire(timeout=timeout)
        try:
            self.vocabulary.close()
            if self.journal is not None:
                self.journal.close()
        finally:
            if held:
                self._lock.release()

    def close(self) -> None:
        self.upkeep.stop()
        with self._lock:
            self.store.close()
            self.vocabulary.close()
            if self.journal is not None:
                self.journal.close()

    def _ensure_space(self) -> None:
        """StorageFullError before a write when the data dir's disk is nearly full: the embedded
        store maps its files into memory and dies (SIGBUS) when a page cannot be allocated, so
        the write must be refused before it starts, while a clear answer is still possible."""
        need = self.limits.min_free_disk_mb * 2**20
        if not need or self._data_dir is None:
            return
        try:
            free = shutil.disk_usage(self._data_dir).free
        except OSError:
            return  # cannot tell: let the write try and fail on its own terms
        if free < need:
            raise StorageFullError(
                f"the disk holding {self._data_dir} has {free / 2**20:.1f} MB free, under the {need / 2**20:.0f} MB "
                "mnemex keeps in reserve: nothing was written; free disk space (or move data_dir), "
                "or lower limits.min_free_disk_mb")
