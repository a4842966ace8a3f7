"""MemoryEngine: the one facade every entry point uses (tools, CLI, hooks, benchmark).

It owns the write lock, the write path, the read path (`Retriever`) and the journal.
Calls are blocking; async callers run them in a worker thread.
"""

from __future__ import annotations

import logging
import shutil
import threading
import uuid
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence

from mnemex.embed.dense import DenseEmbedder, EmbeddingIdentity
from mnemex.embed.sparse import SparseEncoder
from mnemex.embed.vocabulary import Vocabulary
from mnemex.engine.retrieval.pipeline import RankedMemory, Retriever
from mnemex.engine.write.redact import redact
from mnemex.engine.write.sanitize import clean_text, scrub, scrub_tags, scrub_tree
from mnemex.engine.writer import WritePath, embedding_text, sanitized, validate_content
from mnemex.errors import (
    ImmutableMemoryError,
    InvalidInputError,
    ModelMismatchError,
    NotFoundError,
    StorageFullError,
)
from mnemex.models import (
    Memory,
    MemoryChanges,
    MemoryFilter,
    MemoryStatus,
    NewMemory,
    Provenance,
    ValidityMode,
    WriteOutcome,
    utcnow,
)
from mnemex.store.base import HybridQuery, MemoryStore
from mnemex.store.payload import payload_to_memory


log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class EngineLimits:
    max_content_chars: int = 20_000
    max_results: int = 50
    optimize_every: int = 500
    relations_per_memory: int = 50
    min_free_bytes: int = 64 * 2**20


class MemoryEngine:
    def __init__(self, *, store: MemoryStore, dense: DenseEmbedder, sparse: SparseEncoder,
                 journal: Any = None, limits: EngineLimits = EngineLimits(),
                 default_project: str | None = None, clock: Callable[[], datetime] = utcnow,
                 vocabulary: Vocabulary | None = None, data_dir: Path | None = None):
        self.store = store
        self.dense = dense
        self.sparse = sparse
        self.journal = journal
        self.limits = limits
        self.default_project = default_project
        self._clock = clock
        self._data_dir = data_dir
        self._lock = threading.RLock()
        self._writes_since_optimize = 0
        check_identity(store, dense.identity)
        self.vocabulary = vocabulary if vocabulary is not None else Vocabulary(dense, sparse)
        self.writer = WritePath(store=store, dense=dense, sparse=sparse,
                                max_content_chars=limits.max_content_chars, clock=clock,
                                on_write=self._journal_write, on_link=self._journal_link,
                                vocabulary=self.vocabulary)
        self.retriever = Retriever(store, dense, sparse, vocabulary=self.vocabulary)
        self._closing = threading.Event()
        self._vocabulary_build: threading.Thread | None = None
        self.resume_purges()  # before anything can read what an interrupted purge left behind
        if not self.vocabulary.complete:
            if store.count(MemoryFilter(validity=ValidityMode.TIMELINE)) == 0:
                self.vocabulary.mark_complete()
            else:
                # a store written before the vocabulary existed (or by another model): learn its
                # words in the background; searches expand with what is known meanwhile
                self._vocabulary_build = threading.Thread(target=self._build_vocabulary_quietly,
                                                          name="mnemex-vocabulary", daemon=True)
                self._vocabulary_build.start()

    # ------------------------------------------------------------------ writes
    def memorize(self, new: NewMemory, *, project: str | None = None) -> WriteOutcome:
        """Remember one piece of content; the outcome says what the write path did (with the
        outcomes of further atomic claims, when the content held several, in `also`)."""
        return self.memorize_many([new], project=project)[0]

    def memorize_many(self, items: Sequence[NewMemory], *, project: str | None = None,
                      gated: bool = True) -> list[WriteOutcome]:
        """Remember several items (one embedding batch), one outcome per item; `gated=False`
        stores every atom as formed, without the prediction-error gate."""
        self._ensure_space()
        default_project = project or self.default_project
        built = [self.writer.build(item, default_project=default_project) for item in items]
        flat = [m for group in built for m in group]
        with self._lock:
            outcomes = iter(self.writer.write(flat, gated=gated))
            self._count_writes(len(flat))
        result = []
        for group in built:
            parts = [next(outcomes) for _ in group]
            result.append(parts[0].model_copy(update={"also": tuple(parts[1:])}) if len(parts) > 1 else parts[0])
        return result

    def update(self, memory_id: str, changes: MemoryChanges, *, actor: str = "agent",
               client: str | None = None) -> Memory:
        """Edit a memory in place; the previous version stays in the journal history."""
        self._ensure_space()
        with self._lock:
            before = self.get(memory_id)
            if before.immutable:
                raise ImmutableMemoryError(f"memory {memory_id} is immutable and cannot be edited")
            fields = changes.model_dump(exclude_none=True)
            if not fields:
                raise InvalidInputError("nothing to update: pass content, kind, tags, importance, confidence or pinned")
            if "content" in fields:
                fields["content"] = redact(validate_content(fields["content"], self.limits.max_content_chars)).text
            if "tags" in fields:
                fields["tags"] = scrub_tags(fields["tags"])
            if "metadata" in fields:
                fields["metadata"] = scrub_tree(fields["metadata"])
            fields["updated_at"] = self._clock()
            after = self.writer.replace(before, before.model_copy(update=fields), op="update",
                                        reembed="content" in fields or "tags" in fields,
                                        by=Provenance(source=actor, client=client))
            self._count_writes(1)
            return after

    def forget(self, memory_id: str, *, purge: bool = False, reason: str = "", actor: str = "agent",
               client: str | None = None) -> Memory | None:
        """Invalidate a memory (kept in the timeline); with purge=True remove it and its content everywhere."""
        self._ensure_space()  # a purge rewrites the store: it needs room as much as a write
        with self._lock:
            if purge:
                self._purge(memory_id, actor, client)
                return None
            before = self.get(memory_id)
            if before.pinned:
                raise InvalidInputError(f"memory {memory_id} is pinned: unpin it first (update_memory pinned=false)")
            now = self._clock()
            after = before.model_copy(update={
                "status": MemoryStatus.FORGOTTEN,
                "valid_until": before.valid_until or now,
                "updated_at": now,
                "metadata": {**before.metadata, **({"forget_reason": scrub(reason)} if reason.strip() else {})},
            })
            self.writer.replace(before, after, op="forget", reembed=False, by=Provenance(source=actor, client=client))
            return after

    def _purge(self, memory_id: str, actor: str, client: str | None = None) -> None:
        """Purge as a journaled operation: the intent is recorded first, then the point, the
        store's deleted bytes, the words only it used and its journal content go. A crash in
        between leaves the intent, and `resume_purges` finishes it before the next read. A
        memory the store no longer holds but the journal still knows (a purge interrupted
        before purges were journaled) is purged from the journal."""
        canonical = memory_id_of(memory_id)
        present = bool(canonical) and bool(self.store.retrieve([canonical]))
        if not present and not (canonical and self.journal is not None and self.journal.knows(canonical)):
            raise NotFoundError(memory_id)
        who = f"{actor} ({client})" if client else actor
        if self.journal is not None:
            self.journal.begin_purge(canonical, who)
        self._finish_purge(canonical, who)

    def _finish_purge(self, memory_id: str, actor: str | None) -> None:
        """Every step is idempotent, so a purge resumed after a crash simply runs them all."""
        texts = [embedding_text(payload_to_memory(h.payload)) for h in self.store.retrieve([memory_id])]
        if self.journal is not None:  # earlier wordings (an update, a merge) taught words too
            texts += [embedding_text(Memory.model_validate(v.payload)) for v in self.journal.versions(memory_id)
                      if not v.purged]
        self.store.delete([memory_id])
        self.store.compact()
        self.vocabulary.prune(texts, self._token_in_use)
        if self.journal is not None:
            self.journal.purge(memory_id, actor=actor)

    def resume_purges(self) -> list[str]:
        """Finish every purge a crash interrupted (called on open, before any read); their ids."""
        if self.journal is None:
            return []
        done = []
        with self._lock:
            for memory_id, actor in self.journal.pending_purges():
                log.warning("finishing the purge of %s interrupted by a crash", memory_id)
                self._finish_purge(memory_id, actor)
                done.append(memory_id)
        return done

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
            memories = [sanitized(m, self.limits.max_content_chars) for m in memories]
            self.writer.write(memories, gated=False)
            self._count_writes(len(memories))
        return len(memories)

    # ------------------------------------------------------------------- reads
    def search(self, query: str, *, filter: MemoryFilter | None = None, limit: int = 10,
               session_id: str | None = None, now: datetime | None = None, client: str | None = None,
               **options: Any) -> list[RankedMemory]:
        """The one read path: search_memory, strategies, hooks and the benchmark all call this."""
        if not isinstance(query, str) or not query.strip():
            raise InvalidInputError("query is empty: say what you are looking for")
        if not 1 <= limit <= self.limits.max_results:
            raise InvalidInputError(f"limit must be between 1 and {self.limits.max_results}")
        query = clean_text(query)
        flt = filter or self.default_filter()
        results = self.retriever.search(query, filter=flt, limit=limit, now=now, session_id=session_id, **options)
        if self.journal is not None:
            self.journal.record_read("search", [r.memory.id for r in results], actor=client,
                                     detail={"query": scrub(query), **({"project": flt.project} if flt.project else {})},
                                     payloads=self._read_payloads([r.memory for r in results]))
        return results

    def _read_payloads(self, memories: Sequence[Memory]) -> list[dict[str, Any]] | None:
        """What a read returned, only when the audit level keeps it (verbose)."""
        if getattr(self.journal, "level", None) != "verbose":
            return None
        return [m.model_dump(mode="json") for m in memories]

    def default_filter(self, **fields: Any) -> MemoryFilter:
        """Current memories of the default project plus every non-project scope."""
        fields.setdefault("project", self.default_project)
        return MemoryFilter(**fields)

    def get(self, memory_id: str) -> Memory:
        """The memory with this id in any spelling (`memory_id_of`); NotFoundError if none."""
        canonical = memory_id_of(memory_id)
        hits = self.store.retrieve([canonical]) if canonical else []
        if not hits:
            raise NotFoundError(memory_id)
        return payload_to_memory(hits[0].payload)

    def recall(self, ids: Sequence[str], *, touch: bool = True, client: str | None = None) -> list[Memory]:
        """Full memories by id, in the order asked; NotFoundError names the first unknown id."""
        canonical = [memory_id_of(i) for i in ids]
        found = {h.id: payload_to_memory(h.payload) for h in self.store.retrieve([c for c in canonical if c])}
        for asked, memory_id in zip(ids, canonical):
            if memory_id not in found:
                raise NotFoundError(asked)
        memories = [found[c] for c in canonical]
        if touch:
            now = self._clock()
            for m in memories:
                self.store.set_payload(m.id, {"access_count": m.access_count + 1,
                                              "last_accessed_at": now.isoformat()})
        if self.journal is not None:
            self.journal.record_read("recall", [m.id for m in memories], actor=client,
                                     payloads=self._read_payloads(memories))
        return memories

    def timeline(self, anchor_id: str, *, before: int = 3, after: int = 3,
                 include_history: bool = False) -> tuple[list[Memory], Memory, list[Memory]]:
        """The memories just before and after an anchor in time, in its project: (earlier, anchor, later)."""
        if not (0 <= before <= 50 and 0 <= after <= 50):
            raise InvalidInputError("before and after must be between 0 and 50")
        anchor = self.get(anchor_id)
        validity = ValidityMode.TIMELINE if include_history else ValidityMode.CURRENT
        base = dict(project=anchor.project, validity=validity)
        earlier = self.store.ordered(MemoryFilter(created_before=anchor.created_at, **base),
                                     key="created_ts", descending=True, limit=before) if before else []
        later = self.store.ordered(MemoryFilter(created_after=anchor.created_at, **base),
                                   key="created_ts", limit=after + 1) if after else []
        earlier_m = [payload_to_memory(h.payload) for h in reversed(earlier)]
        later_m = [payload_to_memory(h.payload) for h in later if h.id != anchor.id][:after]
        return earlier_m, anchor, later_m

    # ----------------------------------------------------------- graph, history
    def _require_journal(self) -> Any:
        if self.journal is None:
            raise InvalidInputError("this engine runs without a journal: history and relations are unavailable")
        return self.journal

    def link(self, src: str, dst: str, relation: str, *, weight: float = 1.0, actor: str = "agent") -> None:
        """Record a typed relation between two existing memories."""
        journal = self._require_journal()
        self._ensure_space()
        src, dst = (m.id for m in self.recall([src, dst], touch=False))
        journal.add_relation(src, dst, relation, weight, {"by": actor})
        journal.record_op("link", src, actor, None, None, {"dst": dst, "type": relation, "weight": weight})

    def related(self, memory_id: str, *, max_hops: int = 2, types: Sequence[str] | None = None,
                ) -> list[tuple[Memory, int, tuple[str, ...], str]]:
        """Memories reachable from `memory_id` over relations (BFS): (memory, hops, path, type of the last edge)."""
        if not 1 <= max_hops <= 5:
            raise InvalidInputError("max_hops must be between 1 and 5")
        journal = self._require_journal()
        memory_id = self.get(memory_id).id
        found = journal.traverse(memory_id, max_hops=max_hops, types=types or None)
        memories = {h.id: payload_to_memory(h.payload) for h in self.store.retrieve([f[0] for f in found])}
        edges: dict[str, list[Any]] = {}  # relations of each parent on a path, read once
        out = []
        for other, hops, path in found:
            if other in memories:
                parent = path[-2]
                if parent not in edges:
                    edges[parent] = journal.relations(parent, types=types or None)
                rel = next((r.type.value for r in edges[parent] if other in (r.src, r.dst)), "related_to")
                out.append((memories[other], hops, path, rel))
        return out

    def about_entity(self, entity: str, *, include_history: bool = False) -> list[Memory]:
        """Every memory that mentions `entity` (file, module, tool, service...), newest first."""
        if not entity.strip():
            raise InvalidInputError("entity is empty")
        ids = self._require_journal().entity_hub(entity)
        memories = [payload_to_memory(h.payload) for h in self.store.retrieve(ids)]
        if not include_history:
            memories = [m for m in memories if m.is_current(self._clock())]
        return sorted(memories, key=lambda m: m.created_at, reverse=True)

    def history(self, memory_id: str) -> dict[str, Any]:
        """A memory's content versions, its supersede chain (oldest to newest) and its audit trail."""
        journal = self._require_journal()
        memory = self.get(memory_id)
        memory_id = memory.id
        chain = [memory]
        seen = {memory.id}
        while chain[0].supersedes and chain[0].supersedes[0] not in seen:
            hits = self.store.retrieve([chain[0].supersedes[0]])
            if not hits:
                break
            chain.insert(0, payload_to_memory(hits[0].payload))
            seen.add(chain[0].id)
        while chain[-1].superseded_by and chain[-1].superseded_by not in seen:
            hits = self.store.retrieve([chain[-1].superseded_by])
            if not hits:
                break
            chain.append(payload_to_memory(hits[0].payload))
            seen.add(chain[-1].id)
        return {"memory": memory, "versions": journal.versions(memory_id), "chain": chain,
                "ops": journal.ops(memory_id=memory_id, limit=50)}

    def export(self, *, include_all: bool = True) -> Iterator[Memory]:
        """Every memory (all validity states), in store order."""
        flt = MemoryFilter(validity=ValidityMode.TIMELINE if include_all else ValidityMode.CURRENT)
        offset: str | None = None
        while True:
            page, offset = self.store.scroll(flt, limit=256, offset=offset)
            for hit in page:
                yield payload_to_memory(hit.payload)
            if offset is None:
                return

    def stats(self) -> dict[str, Any]:
        total = self.store.count(MemoryFilter(validity=ValidityMode.TIMELINE))
        current = self.store.count(MemoryFilter())
        return {
            "memories_total": total,
            "memories_current": current,
            "memories_invalidated": total - current,
            "embedding_model": self.dense.identity.model,
            "embedding_dim": self.dense.identity.dim,
            "model_loaded": getattr(self.dense, "loaded", True),
            "writes_since_optimize": self._writes_since_optimize,
            "vocabulary_words": len(self.vocabulary),
            "vocabulary_complete": self.vocabulary.complete,
        }

    # ------------------------------------------------------------- maintenance
    def needs_optimize(self) -> bool:
        every = self.limits.optimize_every
        return bool(every) and self._writes_since_optimize >= every

    def reindex(self, *, dense: bool = False, batch: int = 256,
                progress: Callable[[int, int], None] | None = None) -> int:
        """Rebuild every memory's BM25 vector (and its embedding with `dense=True`) with the current
        encoders, e.g. after an upgrade that changed how code names are tokenized. Memories,
        history and the journal are untouched. `progress(done, total)` is called per batch."""
        self.wait_vocabulary()
        with self._lock:
            total = self.store.count(MemoryFilter(validity=ValidityMode.TIMELINE))
            self.vocabulary.clear()  # relearnt from every memory below
            done = 0
            chunk: list[Memory] = []
            for memory in list(self.export()):
                chunk.append(memory)
                if len(chunk) >= batch:
                    self.writer.reindex(chunk, dense=dense)
                    done += len(chunk)
                    chunk = []
                    if progress is not None:
                        progress(done, total)
            if chunk:
                self.writer.reindex(chunk, dense=dense)
                done += len(chunk)
                if progress is not None:
                    progress(done, total)
            self.vocabulary.mark_complete()
            self._count_writes(done)
        return done

    def build_vocabulary(self, *, batch: int = 256) -> int:
        """Learn the words of every stored memory (query expansion, `embed/vocabulary.py`);
        returns how many were new. Runs by itself when an engine opens a store whose vocabulary
        was never built."""
        added = 0
        offset: str | None = None
        flt = MemoryFilter(validity=ValidityMode.TIMELINE)
        while not self._closing.is_set():
            page, offset = self.store.scroll(flt, limit=batch, offset=offset)
            added += self.vocabulary.add(embedding_text(payload_to_memory(h.payload)) for h in page)
            if offset is None:
                self.vocabulary.mark_complete()
                break
        return added

    def wait_vocabulary(self, timeout: float | None = None) -> bool:
        """Wait for a background vocabulary build, if one runs; True when none is left running."""
        thread = self._vocabulary_build
        if thread is not None:
            thread.join(timeout)
            return not thread.is_alive()
        return True

    def _build_vocabulary_quietly(self) -> None:
        try:
            added = self.build_vocabulary()
            log.info("vocabulary built: %d words", added)
        except Exception as exc:  # a store closed under it, a model failure: expansion just stays partial
            if not self._closing.is_set():
                log.warning("vocabulary build stopped: %s", exc)

    def _token_in_use(self, token: int) -> bool:
        return bool(self.store.query(HybridQuery.term(token, MemoryFilter(validity=ValidityMode.TIMELINE))))

    def optimize(self) -> None:
        """Build the indexes. Holds the store (and Edge holds the GIL): run it when idle."""
        with self._lock:
            self.store.optimize()
            self._writes_since_optimize = 0

    def close(self) -> None:
        self._closing.set()
        self.wait_vocabulary(timeout=30)
        with self._lock:
            self.store.close()
            self.vocabulary.close()
            if self.journal is not None:
                self.journal.close()

    def _ensure_space(self) -> None:
        """StorageFullError before a write when the data dir's disk is nearly full: the embedded
        store maps its files into memory and dies (SIGBUS) when a page cannot be allocated, so
        the write must be refused before it starts, while a clear answer is still possible."""
        need = self.limits.min_free_bytes
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

    def _count_writes(self, n: int) -> None:
        self._writes_since_optimize += n

    def _journal_link(self, src: str, dst: str, rel: str, weight: float) -> None:
        if self.journal is not None:
            self.journal.add_relation(src, dst, rel, weight)
            self.journal.prune_relations(src, self.limits.relations_per_memory)

    def _journal_write(self, op: str, before: Memory | None, after: Memory, by: Provenance) -> None:
        if self.journal is None:
            return
        after_data = after.model_dump(mode="json")
        self.journal.record_op(op, after.id, by.source, before.model_dump(mode="json") if before else None,
                               after_data, _who(by, after.project))
        if before is None or before.content != after.content:
            self.journal.add_version(after.id, after.content, after_data, op)
        if before is None or before.entities != after.entities:
            self.journal.index_entities(after.id, after.entities)


def _who(by: Provenance, project: str | None) -> dict[str, Any] | None:
    """The audit detail naming who wrote: the client (from its MCP `clientInfo`) and the project."""
    detail = {k: v for k, v in (("client", by.client), ("project", project)) if v}
    return detail or None


def check_identity(store: MemoryStore, identity: EmbeddingIdentity) -> None:
    """Record the model identity in a new store; refuse a store made by another model."""
    stored = store.read_identity()
    if stored is None:
        store.write_identity(identity.as_dict())
        return
    have = EmbeddingIdentity.from_dict(stored)
    if (have.model, have.dim) != (identity.model, identity.dim):
        raise ModelMismatchError(
            f"this store was embedded with {have.model} ({have.dim}-d) but embedding.model is "
            f"{identity.model} ({identity.dim}-d): set embedding.model back to {have.model}, "
            "or use another data_dir/collection for the new model"
        )


def memory_id_of(value: str) -> str | None:
    """The canonical id (lower-case, hyphenated UUID) of any spelling of one — upper case,
    braces, `urn:uuid:`, no dashes — or None when `value` is no id at all. Every method that
    takes an id reads it through here, so all of them accept the same spellings."""
    try:
        return str(uuid.UUID(str(value).strip()))
    except (ValueError, TypeError, AttributeError):
        return None
