"""The single write path: validate, form, gate, embed, store, link, log.

Every write of every entry point (tools, CLI, hooks, import, benchmark) goes through
`WritePath`, under the engine's write lock, so gate decisions are never raced: two
writers sending near-duplicates produce one memory and one reinforcement. Reads that touch a
memory (its access count) and corrections go through it too (`touch`, `amend`, `replace`).

Episodes and tool events are records of what happened: they are stored verbatim (after
redaction), never merged. Semantic kinds (facts, decisions, conventions, ...) pass the
prediction-error gate against their nearest current neighbours in the same scope.
"""

from __future__ import annotations

import logging
import re
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Callable, Sequence

from mnemex.config.gate import DEFAULT_GATE, GateConfig
from mnemex.config.lifecycle import DEFAULT_LIFECYCLE, LifecycleConfig
from mnemex.config.observer import DEFAULT_OBSERVER, ObserverConfig
from mnemex.config.redaction import DEFAULT_REDACTION, RedactionConfig
from mnemex.embed.dense import DenseEmbedder
from mnemex.embed.sparse import SparseEncoder
from mnemex.embed.vocabulary import Vocabulary
from mnemex.engine.lifecycle.strength import recalled as strengthened
from mnemex.engine.write import formation
from mnemex.engine.write.formation import CHANNELS, RECORD_KINDS, Skip
from mnemex.engine.write.log import NoLog, WriteLog
from mnemex.engine.write.observe.signals import Channels
from mnemex.engine.write.judge import Judge, build_judge
from mnemex.engine.write.prediction_gate import GateDecision, decide, synthesize
from mnemex.engine.write.replacing import Replacements, canonical_ids, replace_candidates
from mnemex.engine.write.redact import redact
from mnemex.engine.write.sanitize import (
    sanitized,
    scrub,
    scrub_tags,
    scrub_tree,
    validate_content,
)
from mnemex.errors import InvalidInputError
from mnemex.models import (
    Lifecycle,
    Memory,
    MemoryChanges,
    MemoryFilter,
    MemoryKind,
    MemoryStatus,
    NewMemory,
    Provenance,
    SUMMARY_OF,
    Scope,
    SparseVec,
    WriteAction,
    WriteOutcome,
)
from mnemex.store.base import MemoryStore, StoredPoint, VectorQuery

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Formed:
    """A claim ready to store: the memory, and the channels its importance was estimated from
    (None when the caller gave the importance)."""

    memory: Memory
    channels: Channels | None = None
    noisy: bool = False
    explicit_kind: bool = False
    """The caller gave the kind: a skip never drops it."""
    replaces: tuple[str, ...] = ()
    """Ids the caller says this statement replaces (`NewMemory.supersedes`)."""


#: Kinds the gate compares a new statement with: records of what happened are never merged,
#: reinforced or superseded by a fact.
GATED_KINDS = tuple(k for k in MemoryKind if k not in RECORD_KINDS)


#: Metadata key: other wordings of a memory that reinforced it (a restatement in other words).
ALSO_SAID = "also_said"
#: How many other wordings a memory keeps, and how long each may be.
ALSO_SAID_MAX, ALSO_SAID_CHARS = 3, 240
_WORDS = re.compile(r"[a-z0-9][a-z0-9_.-]*[a-z0-9]")
_NO_WORDS = SparseVec((), ())


def embedding_text(memory: Memory) -> str:
    """What the vectors are made of: the content, the other wordings that restated it (a memory
    reinforced by "X uses DynamoDB, as noted before" stays findable by those words too), plus tags
    so they are findable."""
    text = memory.content
    also = memory.metadata.get(ALSO_SAID)
    if isinstance(also, list) and also:
        text += "\n" + "\n".join(str(a) for a in also[:ALSO_SAID_MAX])
    if memory.tags:
        return f"{text}\n[tags: {', '.join(memory.tags)}]"
    return text


def _also_said(target: Memory, said: str) -> list[str] | None:
    """`target`'s other wordings with `said` added, or None when `said` has no word that its
    content and the kept wordings lack, or there is no room left."""
    said = said.strip()[:ALSO_SAID_CHARS]
    known = target.metadata.get(ALSO_SAID)
    known = [str(a) for a in known] if isinstance(known, list) else []
    if not said or len(known) >= ALSO_SAID_MAX:
        return None
    held = set(_WORDS.findall(" ".join([target.content, *known]).casefold()))
    return known + [said] if set(_WORDS.findall(said.casefold())) - held else None


class WritePath:
    def __init__(self, *, store: MemoryStore, dense: DenseEmbedder, sparse: SparseEncoder,
                 max_content_chars: int, clock: Callable[[], datetime], log: WriteLog | None = None,
                 vocabulary: Vocabulary | None = None, gate: GateConfig = DEFAULT_GATE,
                 observer: ObserverConfig = DEFAULT_OBSERVER, redaction: RedactionConfig = DEFAULT_REDACTION,
                 judge: Judge | None = None, lifecycle: LifecycleConfig = DEFAULT_LIFECYCLE):
        self._store = store
        self._lifecycle = lifecycle
        self._vocabulary = vocabulary
        self._dense = dense
        self._sparse = sparse
        self._max_chars = max_content_chars
        self._clock = clock
        self._log = log or NoLog()
        self._gate = gate
        self._observer = observer
        self._redaction = redaction
        self._judge = judge if judge is not None else build_judge(gate.judge)
        self._replacing = Replacements(store=store, clock=clock, log=self._log, store_points=self._store_points,
                                       replace=self.replace)

    # ------------------------------------------------------------ building
    def build(self, new: NewMemory, *, default_project: str | None) -> list[Formed | Skip]:
        """What a request becomes: validated, redacted, classified, split into atoms (or skipped)."""
        new = sanitized(new, self._max_chars, self._redaction)
        now = self._clock()
        project = new.project or (default_project if new.scope == Scope.PROJECT else None)
        if new.scope == Scope.PROJECT and not project:
            raise InvalidInputError(
                "scope 'project' needs a project: run inside a git repository, pass project=..., "
                "or use scope 'global'"
            )
        created = new.created_at or now
        replaces = canonical_ids(new.supersedes)
        out: list[Formed | Skip] = []
        for draft in formation.form(new, now=created, observer=self._observer, redaction=self._redaction,
                                    whole=bool(replaces)):
            if isinstance(draft, Skip):
                out.append(draft)
                continue
            out.append(Formed(Memory(
                id=str(uuid.uuid4()), content=draft.content, kind=draft.kind, scope=new.scope,
                project=project, tags=new.tags, provenance=new.provenance, confidence=new.confidence,
                importance=draft.importance, pinned=new.pinned, immutable=new.immutable,
                created_at=created, recorded_at=now, valid_from=new.valid_from or created,
                valid_until=new.valid_until or draft.valid_until, entities=draft.entities,
                metadata={**new.metadata, **draft.metadata},
            ), draft.channels, draft.noisy, new.kind is not None, replaces))
        return out

    # -------------------------------------------------------------- writing
    def write(self, requests: Sequence[Sequence[Formed | Skip]], *, gated: bool = True) -> list[WriteOutcome]:
        """Store what `build` made of each request (one embedding batch for all); one outcome per
        request, with the outcomes of its further claims in `also`. Gated kinds go through the
        prediction-error gate one by one; records (and everything when `gated` is False) are
        stored as formed, together, after them."""
        formed = [item for group in requests for item in group if isinstance(item, Formed)]
        asked = {f.memory.id: self._replacing.check(f.memory, f.replaces) for f in formed if f.replaces and gated}
        texts = [embedding_text(f.memory) for f in formed]
        vectors = self._dense.embed_documents(texts) if formed else []
        encoded = {f.memory.id: (vector, text) for f, vector, text in zip(formed, vectors, texts)}
        plain: list[tuple[Memory, Sequence[float], str]] = []
        grouped: list[list[WriteOutcome]] = []
        for group in requests:
            parts: list[WriteOutcome] = []
            own: set[str] = set()  # what this request's earlier claims made or touched: never a duplicate of it
            for item in group:
                if isinstance(item, Skip):
                    parts.append(WriteOutcome(action=WriteAction.SKIPPED, reason=item.reason))
                    continue
                vector, text = encoded[item.memory.id]
                if not gated or item.memory.kind in RECORD_KINDS:
                    plain.append((item.memory, vector, text))
                    parts.append(WriteOutcome(action=WriteAction.CREATED, id=item.memory.id, reason="recorded"))
                elif item.memory.id in asked:
                    parts.append(self._replacing.as_asked(item.memory, vector, text, asked[item.memory.id],
                                                          held=self._held(item.memory, vector, own, item.replaces)))
                else:
                    parts.append(self._gated(item, vector, text, own))
                own.update(i for i in (parts[-1].id, *parts[-1].affected_ids) if i)
            grouped.append(parts)
        if plain:
            self._store_points(plain)
            for memory, _, _ in plain:
                self._log.wrote("create", None, memory, memory.provenance)
        return [parts[0].model_copy(update={"also": tuple(parts[1:])}) if len(parts) > 1 else parts[0]
                for parts in grouped]

    def write_as_given(self, memories: Sequence[Memory]) -> None:
        """Store whole memories (ids, times, status kept): an import. Redacted like every write."""
        memories = [sanitized(m, self._max_chars, self._redaction) for m in memories]
        self.write([[Formed(m)] for m in memories], gated=False)

    def _gated(self, formed: Formed, vector: Sequence[float], text: str, own: set[str]) -> WriteOutcome:
        memory = formed.memory
        neighbours, lexical = self._neighbours(memory, vector, own)
        novelty = 1.0 - (neighbours[0][1] if neighbours else 0.0)
        refined = formation.importance_with_novelty(formed.channels, formed.noisy, memory.kind, novelty)
        if refined is not None:
            memory = memory.model_copy(update={"importance": refined, "metadata": {
                **memory.metadata, CHANNELS: {**memory.metadata[CHANNELS], "novelty": round(novelty, 3)}}})
        decision = decide(memory.content, memory.kind, memory.importance, neighbours, self._gate,
                          entities=memory.entities, lexical=lexical)
        if self._judge is not None and decision.candidates and decision.action == WriteAction.CREATED \
                and decision.contradicts is None:
            decision = self._judged(memory, decision)
        held_by = decision.action in (WriteAction.SKIPPED, WriteAction.REINFORCED) and decision.target is not None
        if held_by and formed.explicit_kind and memory.kind != decision.target.kind:  # the caller's kind is kept
            decision = GateDecision(WriteAction.CREATED, None, decision.similarity,
                                    f"stored: the given kind {memory.kind} differs from {decision.target.id}'s")
        elif decision.action == WriteAction.SKIPPED and decision.target is not None:
            if set(memory.tags) - set(decision.target.tags):
                decision = GateDecision(WriteAction.REINFORCED, decision.target, decision.similarity,
                                        f"already held by {decision.target.id}; the given tags were added to it")
        return self._apply(memory, vector, text, decision, neighbours)

    def _judged(self, memory: Memory, decision: GateDecision) -> GateDecision:
        """Ask the judge about the candidates the rules were unsure of; its yes supersedes, anything
        else (no, no answer, over its budget) leaves the rules' decision as it was."""
        assert self._judge is not None
        confirmed = [c for c in decision.candidates if not (c.memory.pinned or c.memory.immutable)
                     and self._judge.replaces(c.memory.content, memory.content) is True]
        if not confirmed:
            return decision
        rest = tuple(c for c in decision.candidates if c not in confirmed)
        return GateDecision(WriteAction.SUPERSEDED, confirmed[0].memory, confirmed[0].similarity,
                            f"the judge found it replaces: {confirmed[0].reason}",
                            also_replaced=tuple(c.memory for c in confirmed[1:]), candidates=rest)

    def _held(self, memory: Memory, vector: Sequence[float], exclude: set[str], replaces: Sequence[str]) -> Memory | None:
        """A current memory of the same scope that says `memory`'s very words (whitespace and case
        aside) and is not among what it `replaces`: the statement memorized a moment ago, now
        memorized again with supersedes. (One that it replaces is replaced: a theme written in a
        member's words supersedes that member too.)"""
        words = " ".join(memory.content.split()).casefold()
        flt = MemoryFilter(scopes=(memory.scope,), project=memory.project, dormant=False)
        skip = exclude | set(replaces)
        for hit in self._store.query(VectorQuery(dense=vector, filter=flt, limit=3 + len(skip))):
            if hit.id not in skip and " ".join(hit.memory.content.split()).casefold() == words:
                return hit.memory
        return None

    def _neighbours(self, memory: Memory, vector: Sequence[float], exclude: set[str],
                    k: int = 5) -> tuple[list[tuple[Memory, float]], frozenset[str]]:
        """The nearest current memories in the same scope: by embedding, and (subject rules) by BM25,
        so an update in other words still meets the statement whose code names it shares."""
        subject = self._gate.rules == "subject"
        # dormant memories are no neighbours: a statement reinforced into one would vanish from search
        flt = MemoryFilter(scopes=(memory.scope,), project=memory.project, kinds=GATED_KINDS if subject else (),
                           dormant=False)
        found = {h.id: (h.memory, float(h.score)) for h in self._store.query(
            VectorQuery(dense=vector, filter=flt, limit=k + len(exclude))) if h.id not in exclude}
        lexical: set[str] = set()
        if subject and self._gate.lexical_neighbours:
            sparse = self._sparse.embed_query(memory.content)
            hits = [h for h in self._store.query(VectorQuery(sparse=sparse, filter=flt,
                                                             limit=self._gate.lexical_neighbours + len(exclude)))
                    if h.id not in exclude] if sparse.indices else []
            lexical = {h.id for h in hits}
            missing = [h for h in hits if h.id not in found]
            scores = self._store.dense_scores(vector, [h.id for h in missing]) if missing else {}
            for h in missing:
                found[h.id] = (h.memory, float(scores.get(h.id, 0.0)))
        ranked = sorted(found.values(), key=lambda ms: -ms[1])
        return ranked[: k + len(lexical)], frozenset(lexical)

    def _apply(self, memory: Memory, vector: Sequence[float], text: str, d: GateDecision,
               neighbours: list[tuple[Memory, float]]) -> WriteOutcome:
        now = self._clock()
        target, by = d.target, memory.provenance
        if d.action == WriteAction.SKIPPED:
            if target is not None:
                self._log.skipped(target, by, reason=d.reason)
            return WriteOutcome(action=d.action, affected_ids=(target.id,) if target else (), reason=d.reason)
        if d.action == WriteAction.REINFORCED and target is not None:
            # met again: as a recall, it strengthens (seed 001); chatter said again ("let me check the
            # logs first") is no more knowledge the fiftieth time: counted, never strengthened
            met = {} if target.is_chatter else {
                "access_count": target.access_count + 1, "last_accessed_at": now,
                "lifecycle": strengthened(target, now, self._lifecycle)}
            # said in other words: the wording is kept for search (not shown), so a question in
            # those words still finds the one memory that holds the fact
            also = None if target.is_chatter else _also_said(target, memory.content)
            after = target.model_copy(update={
                **met,
                "importance": max(target.importance, memory.importance),
                "tags": tuple(dict.fromkeys(target.tags + memory.tags)),
                "metadata": {**target.metadata, "reinforced": int(target.metadata.get("reinforced", 0)) + 1,
                             **({ALSO_SAID: also} if also else {})},
            })
            self.replace(target, after, op="reinforce", reembed=also is not None or after.tags != target.tags, by=by)
            return WriteOutcome(action=d.action, id=target.id, reason=d.reason)
        if d.action == WriteAction.UPDATED and target is not None:
            merged = validate_content(synthesize(target.content, memory.content), self._max_chars)
            after = target.model_copy(update={
                "content": merged, "updated_at": now,
                "tags": tuple(dict.fromkeys(target.tags + memory.tags)),
                "entities": tuple(dict.fromkeys(target.entities + memory.entities)),
                "importance": max(target.importance, memory.importance),
            })
            self.replace(target, after, op="update", reembed=merged != target.content, by=by)
            return WriteOutcome(action=d.action, id=target.id, reason=d.reason)
        if d.action == WriteAction.SUPERSEDED and target is not None:
            return self._replacing.supersede(memory, vector, text, (target, *d.also_replaced), d.reason, by=by,
                                             candidates=d.candidates)
        contradicts = (d.contradicts,) if d.contradicts is not None else ()
        memory = self._replacing.store_new(memory, vector, text, contradicts=contradicts, candidates=d.candidates)
        candidates = replace_candidates(d.candidates)
        if contradicts:
            return WriteOutcome(action=WriteAction.CREATED, id=memory.id, affected_ids=(contradicts[0].id,),
                                reason=d.reason, candidates=candidates)
        for other, sim in neighbours:
            rel = formation.relation_between(memory, other, sim)
            if rel is not None:
                self._log.linked(memory.id, other.id, rel[0], rel[1])
        return WriteOutcome(action=WriteAction.CREATED, id=memory.id, reason=d.reason, candidates=candidates)

    def _store_points(self, items: Sequence[tuple[Memory, Sequence[float], str]]) -> None:
        # a digest (a category summary) is found by meaning only: its words are its members' (`SUMMARY_OF`)
        points = [StoredPoint(memory, vector, _NO_WORDS if SUMMARY_OF in memory.metadata
                              else self._sparse.embed_document(text)) for memory, vector, text in items]
        self._store.upsert(points)
        if self._vocabulary is not None:
            try:
                self._vocabulary.add(text for memory, _, text in items if SUMMARY_OF not in memory.metadata)
            except Exception as exc:  # the memories are stored; only query expansion misses their words
                log.warning("vocabulary update failed (memories are stored): %s", exc)

    def resume(self) -> list[str]:
        """Finish the supersedes a crash cut short (`Replacements.resume`); the newer memories' ids."""
        return self._replacing.resume()

    # -------------------------------------------------------------- editing
    def replace(self, before: Memory, after: Memory, *, op: str, reembed: bool,
                by: Provenance | None = None, reason: str = "") -> Memory:
        """Write a new version of an existing memory (same id); returns it, validated. `by` is
        who asked (default: the memory's own provenance); `reason` goes into the audit row."""
        after = Memory.model_validate(after.model_dump())
        if reembed:
            text = embedding_text(after)
            self._store_points([(after, self._dense.embed_documents([text])[0], text)])
        else:
            self._store.save(after)
        self._log.wrote(op, before, after, by or after.provenance, reason=reason)
        return after

    def amend(self, before: Memory, changes: MemoryChanges, *, by: Provenance) -> Memory:
        """`before` with `changes` applied (content validated and redacted, tags and metadata
        scrubbed); InvalidInputError when nothing would change."""
        fields = changes.model_dump(exclude_none=True)
        if not fields:
            raise InvalidInputError("nothing to update: pass content, kind, tags, importance, confidence or pinned")
        if "content" in fields:
            fields["content"] = redact(validate_content(fields["content"], self._max_chars), self._redaction).text
        if "tags" in fields:
            fields["tags"] = scrub_tags(fields["tags"], self._redaction)
        if "metadata" in fields:
            fields["metadata"] = scrub_tree(fields["metadata"], self._redaction)
        fields["updated_at"] = self._clock()
        return self.replace(before, before.model_copy(update=fields), op="update",
                            reembed="content" in fields or "tags" in fields, by=by)

    def invalidate(self, before: Memory, *, reason: str, by: Provenance) -> Memory:
        """`before` forgotten: no longer current, kept in the timeline with the (scrubbed) reason."""
        now = self._clock()
        after = before.model_copy(update={
            "status": MemoryStatus.FORGOTTEN,
            "valid_until": before.valid_until or now,
            "updated_at": now,
            "metadata": {**before.metadata, **({"forget_reason": scrub(reason, self._redaction)}
                                               if reason.strip() else {})},
        })
        return self.replace(before, after, op="forget", reembed=False, by=by)

    def touch(self, memories: Sequence[Memory], lifecycles: Sequence[Lifecycle | None] | None = None,
              *, at: datetime | None = None) -> None:
        """Record that the memories were read (access count and time, and the lifecycle state the
        read changed: one payload write per memory, as before): what recall feeds activation and strength."""
        now = at or self._clock()
        states = lifecycles if lifecycles is not None else [None] * len(memories)
        for memory, state in zip(memories, states):
            self._store.mark_accessed(memory.id, memory.access_count + 1, now, state)

    def reindex(self, memories: Sequence[Memory], *, dense: bool) -> None:
        """Rebuild the vectors of stored memories as the current encoders make them (sparse always,
        dense when asked; otherwise the stored dense vector is kept), and write each payload in the
        current layout. Ids and the journal are untouched: nothing about the memories changes, only
        how they are found and stored."""
        if not memories:
            return
        texts = [embedding_text(m) for m in memories]
        if dense:
            vectors = self._dense.embed_documents(texts)
        else:
            stored = {h.id: h.dense for h in self._store.retrieve([m.id for m in memories], with_vectors=True)}
            vectors = [stored.get(m.id) for m in memories]
            missing = [i for i, v in enumerate(vectors) if v is None]
            if missing:
                fresh = self._dense.embed_documents([texts[i] for i in missing])
                for i, vec in zip(missing, fresh):
                    vectors[i] = vec
        self._store_points(list(zip(memories, vectors, texts)))
