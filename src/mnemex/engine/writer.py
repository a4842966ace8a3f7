"""The single write path: validate, form, gate, embed, store, link, journal.

Every write of every entry point (tools, CLI, hooks, import, benchmark) goes through
`WritePath`, under the engine's write lock, so gate decisions are never raced: two
writers sending near-duplicates produce one memory and one reinforcement.

Episodes and tool events are records of what happened: they are stored verbatim (after
redaction), never merged. Semantic kinds (facts, decisions, conventions, ...) pass the
prediction-error gate against their nearest current neighbours in the same scope.
"""

from __future__ import annotations

import logging
import uuid
from datetime import datetime
from typing import Callable, Sequence

from mnemex.embed.dense import DenseEmbedder
from mnemex.embed.sparse import SparseEncoder
from mnemex.embed.vocabulary import Vocabulary
from mnemex.engine import formation
from mnemex.engine.gate import GateConfig, GateDecision, decide, synthesize
from mnemex.engine.write.sanitize import clean_text, scrub, scrub_tags, scrub_tree
from mnemex.errors import InvalidInputError
from mnemex.models import (
    Memory,
    MemoryFilter,
    MemoryStatus,
    NewMemory,
    Provenance,
    Scope,
    WriteAction,
    WriteOutcome,
)
from mnemex.store.base import HybridQuery, MemoryStore, PointRecord
from mnemex.store.payload import memory_to_payload, payload_to_memory

log = logging.getLogger(__name__)

#: (op, before, after, by): `by` is who asked for the write (source, client), for the audit log.
OnWrite = Callable[[str, "Memory | None", Memory, Provenance], None]
OnLink = Callable[[str, str, str, float], None]


def validate_content(content: str, max_chars: int) -> str:
    """The content to store, cleaned (`clean_text`) and stripped; InvalidInputError if empty or too long."""
    if not isinstance(content, str):
        raise InvalidInputError("content must be a string")
    text = clean_text(content).strip()
    if not text:
        raise InvalidInputError("content is empty: give the fact, decision or note to remember")
    if len(text) > max_chars:
        raise InvalidInputError(
            f"content is {len(text)} characters, over the limit of {max_chars}: "
            "split it into smaller memories or raise limits.max_content_chars"
        )
    return text


def embedding_text(memory: Memory) -> str:
    """What the vectors are made of: the content, plus tags so they are findable."""
    if memory.tags:
        return f"{memory.content}\n[tags: {', '.join(memory.tags)}]"
    return memory.content


def sanitized(item: NewMemory | Memory, max_chars: int) -> NewMemory | Memory:
    """`item` with its content validated and every other text field cleaned and redacted
    (tags, metadata, provenance): secrets never reach the store through a side field. The
    content of a request is redacted by formation (which reports what it found); a whole
    Memory (an import) has its content redacted here."""
    prov = item.provenance
    content = validate_content(item.content, max_chars)
    return item.model_copy(update={
        "content": scrub(content) if isinstance(item, Memory) else content,
        "tags": scrub_tags(item.tags),
        "metadata": scrub_tree(item.metadata),
        "provenance": prov.model_copy(update={
            k: scrub(v) for k, v in prov.model_dump().items() if isinstance(v, str)}),
    })


class WritePath:
    def __init__(self, *, store: MemoryStore, dense: DenseEmbedder, sparse: SparseEncoder,
                 max_content_chars: int, clock: Callable[[], datetime],
                 gate: GateConfig = GateConfig(), on_write: OnWrite | None = None,
                 on_link: OnLink | None = None, vocabulary: Vocabulary | None = None):
        self._store = store
        self._vocabulary = vocabulary
        self._dense = dense
        self._sparse = sparse
        self._max_chars = max_content_chars
        self._clock = clock
        self._gate = gate
        self._on_write = on_write
        self._on_link = on_link

    # ------------------------------------------------------------ building
    def build(self, new: NewMemory, *, default_project: str | None) -> list[Memory]:
        """Complete Memories from a request: validated, redacted, classified, split into atoms."""
        new = sanitized(new, self._max_chars)
        now = self._clock()
        project = new.project or (default_project if new.scope == Scope.PROJECT else None)
        if new.scope == Scope.PROJECT and not project:
            raise InvalidInputError(
                "scope 'project' needs a project: run inside a git repository, pass project=..., "
                "or use scope 'global'"
            )
        created = new.created_at or now
        tags = new.tags
        out = []
        for draft in formation.form(new, now=created):
            out.append(Memory(
                id=str(uuid.uuid4()), content=draft.content, kind=draft.kind, scope=new.scope,
                project=project, tags=tags, provenance=new.provenance, confidence=new.confidence,
                importance=draft.importance, pinned=new.pinned, immutable=new.immutable,
                created_at=created, recorded_at=now, valid_from=new.valid_from or created,
                valid_until=new.valid_until or draft.valid_until, entities=draft.entities,
                metadata={**new.metadata, **draft.metadata},
            ))
        return out

    # -------------------------------------------------------------- writing
    def write(self, memories: Sequence[Memory], *, gated: bool = True) -> list[WriteOutcome]:
        """Store built memories; gated kinds go through the prediction-error gate one by one."""
        todo = [m for m in memories if not m.metadata.get(formation.SKIP_REASON)]
        embedded = iter(self._dense.embed_documents([embedding_text(m) for m in todo]) if todo else [])
        vectors = [[] if m.metadata.get(formation.SKIP_REASON) else next(embedded) for m in memories]
        outcomes: list[WriteOutcome] = []
        plain: list[tuple[Memory, list[float]]] = []
        for memory, vector in zip(memories, vectors):
            skip = memory.metadata.get(formation.SKIP_REASON)
            if skip:
                outcomes.append(WriteOutcome(action=WriteAction.SKIPPED, reason=skip))
            elif not gated or memory.kind in formation.RECORD_KINDS:
                plain.append((memory, vector))
                outcomes.append(WriteOutcome(action=WriteAction.CREATED, id=memory.id, reason="recorded"))
            else:
                outcomes.append(self._gated(memory, vector))
        if plain:
            self._store_points(plain)
            for memory, _ in plain:
                self._notify("create", None, memory)
        return outcomes

    def _gated(self, memory: Memory, vector: list[float]) -> WriteOutcome:
        neighbours = self._neighbours(memory, vector)
        novelty = 1.0 - (neighbours[0][1] if neighbours else 0.0)
        refined = formation.importance_with_novelty(memory, novelty)
        if refined is not None:
            memory = memory.model_copy(update={"importance": refined, "metadata": {
                **memory.metadata, formation.CHANNELS: {**memory.metadata[formation.CHANNELS],
                                                        "novelty": round(novelty, 3)}}})
        decision = decide(memory.content, memory.kind, memory.importance, neighbours, self._gate)
        return self._apply(memory, vector, decision, neighbours)

    def _neighbours(self, memory: Memory, vector: list[float], k: int = 5) -> list[tuple[Memory, float]]:
        flt = MemoryFilter(scopes=(memory.scope,), project=memory.project)
        hits = self._store.query(HybridQuery(dense=vector, sparse=None, filter=flt, limit=k, candidates=k))
        return [(payload_to_memory(h.payload), float(h.score)) for h in hits]

    def _apply(self, memory: Memory, vector: list[float], d: GateDecision,
               neighbours: list[tuple[Memory, float]]) -> WriteOutcome:
        now = self._clock()
        target = d.target
        if d.action == WriteAction.SKIPPED:
            return WriteOutcome(action=d.action, affected_ids=(target.id,) if target else (), reason=d.reason)
        if d.action == WriteAction.REINFORCED and target is not None:
            after = target.model_copy(update={
                "access_count": target.access_count + 1, "last_accessed_at": now,
                "importance": max(target.importance, memory.importance),
                "metadata": {**target.metadata, "reinforced": int(target.metadata.get("reinforced", 0)) + 1},
            })
            self.replace(target, after, op="reinforce", reembed=False, by=memory.provenance)
            return WriteOutcome(action=d.action, id=target.id, reason=d.reason)
        if d.action == WriteAction.UPDATED and target is not None:
            merged = validate_content(synthesize(target.content, memory.content), self._max_chars)
            after = target.model_copy(update={
                "content": merged, "updated_at": now,
                "tags": tuple(dict.fromkeys(target.tags + memory.tags)),
                "entities": tuple(dict.fromkeys(target.entities + memory.entities)),
                "importance": max(target.importance, memory.importance),
            })
            self.replace(target, after, op="update", reembed=merged != target.content, by=memory.provenance)
            return WriteOutcome(action=d.action, id=target.id, reason=d.reason)
        if d.action == WriteAction.SUPERSEDED and target is not None:
            new = memory.model_copy(update={"supersedes": (target.id,)})
            self._store_points([(new, vector)])
            self._notify("create", None, new)
            old_after = target.model_copy(update={
                "status": MemoryStatus.SUPERSEDED, "superseded_by": new.id, "updated_at": now,
                "valid_until": max(new.valid_from, target.valid_from),
            })
            self.replace(target, old_after, op="supersede", reembed=False, by=memory.provenance)
            self._link(new.id, target.id, "supersedes", 1.0)
            return WriteOutcome(action=d.action, id=new.id, affected_ids=(target.id,), reason=d.reason)
        self._store_points([(memory, vector)])
        self._notify("create", None, memory)
        if d.contradicts is not None:
            self._link(memory.id, d.contradicts.id, "contradicts", 1.0)
            return WriteOutcome(action=WriteAction.CREATED, id=memory.id, affected_ids=(d.contradicts.id,),
                                reason=d.reason)
        self._link_neighbours(memory, neighbours)
        return WriteOutcome(action=WriteAction.CREATED, id=memory.id, reason=d.reason)

    def _link_neighbours(self, memory: Memory, neighbours: list[tuple[Memory, float]]) -> None:
        for other, sim in neighbours:
            rel = formation.relation_between(memory, other, sim)
            if rel is not None:
                self._link(memory.id, other.id, rel[0], rel[1])

    def _store_points(self, items: Sequence[tuple[Memory, Sequence[float]]]) -> None:
        points, texts = [], []
        for memory, vector in items:
            text = embedding_text(memory)
            texts.append(text)
            points.append(PointRecord(id=memory.id, dense=vector, sparse=self._sparse.embed_document(text),
                                      payload=memory_to_payload(memory)))
        self._store.upsert(points)
        if self._vocabulary is not None:
            try:
                self._vocabulary.add(texts)
            except Exception as exc:  # the memories are stored; only query expansion misses their words
                log.warning("vocabulary update failed (memories are stored): %s", exc)

    def reindex(self, memories: Sequence[Memory], *, dense: bool) -> None:
        """Rebuild the vectors of stored memories as the current encoders make them (sparse always,
        dense when asked; otherwise the stored dense vector is kept). Payloads, ids and the journal
        are untouched: nothing about the memories changes, only how they are found."""
        if not memories:
            return
        if dense:
            vectors = self._dense.embed_documents([embedding_text(m) for m in memories])
        else:
            stored = {h.id: h.dense for h in self._store.retrieve([m.id for m in memories], with_vectors=True)}
            vectors = [stored.get(m.id) for m in memories]
            missing = [i for i, v in enumerate(vectors) if v is None]
            if missing:
                fresh = self._dense.embed_documents([embedding_text(memories[i]) for i in missing])
                for i, vec in zip(missing, fresh):
                    vectors[i] = vec
        self._store_points(list(zip(memories, vectors)))

    def replace(self, before: Memory, after: Memory, *, op: str, reembed: bool,
                by: Provenance | None = None) -> Memory:
        """Write a new version of an existing memory (same id); returns it, validated. `by` is
        who asked (default: the memory's own provenance)."""
        after = Memory.model_validate(after.model_dump())
        if reembed:
            vector = self._dense.embed_documents([embedding_text(after)])[0]
            self._store_points([(after, vector)])
        else:
            self._store.set_payload(after.id, memory_to_payload(after))
        self._notify(op, before, after, by)
        return after

    def _notify(self, op: str, before: Memory | None, after: Memory, by: Provenance | None = None) -> None:
        if self._on_write is not None:
            self._on_write(op, before, after, by or after.provenance)

    def _link(self, src: str, dst: str, rel: str, weight: float) -> None:
        if self._on_link is not None:
            self._on_link(src, dst, rel, weight)
