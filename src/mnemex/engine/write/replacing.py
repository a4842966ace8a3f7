"""Replacing memories: what a supersede does, whoever decided it (the gate, the judge, the caller).

A superseded memory is never deleted: it gets `valid_until`, status superseded and
`superseded_by`, and a `supersedes` relation links the two; search shows only current memories
while the timeline and point-in-time queries keep it. Pinned and immutable memories (truth
anchors) are never superseded: the newcomer is stored beside them with a `contradicts` link.

When the gate is not sure, nothing is hidden: the new statement is stored beside the memories
it may replace, the caller gets them as candidates (ids and one-line previews) to confirm with
`supersedes=[ids]`, and when the new statement itself says something changed ("now", "moved
to", "instead of") the older memory is flagged `maybe_outdated_by` so the read path can put the
newer one first and mark the older one as possibly outdated.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Callable, Sequence

from mnemex.engine.ids import memory_id_of
from mnemex.engine.statements import (
    MAY_REPLACE,
    MAYBE_OUTDATED_BY,
    SAID_OTHERWISE_BY,
    SAID_OTHERWISE_KEPT,
    SAID_OTHERWISE_SIMS,
    said_otherwise,
)
from mnemex.engine.write.log import WriteLog
from mnemex.engine.write.prediction_gate import Candidate
from mnemex.errors import InvalidInputError, NotFoundError
from mnemex.models import Memory, MemoryStatus, Provenance, ReplaceCandidate, Scope, WriteAction, WriteOutcome
from mnemex.store.base import MemoryStore

PREVIEW_CHARS = 120
#: Who finishes, on open, a supersede a crash cut short.
RECOVERY = Provenance(source="recovery")

log = logging.getLogger(__name__)

StorePoints = Callable[[Sequence[tuple[Memory, Sequence[float], str]]], None]
Replace = Callable[..., Memory]


def preview(content: str, limit: int = PREVIEW_CHARS) -> str:
    """The content on one line, cut to `limit` characters."""
    line = " ".join(content.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def canonical_ids(ids: Sequence[str]) -> tuple[str, ...]:
    """The ids a caller says a statement replaces, canonical and distinct; InvalidInputError for
    a value that is no id."""
    out = []
    for value in ids:
        canonical = memory_id_of(value)
        if canonical is None:
            raise InvalidInputError(f"supersedes: {value!r} is not a memory id")
        out.append(canonical)
    return tuple(dict.fromkeys(out))


class Replacements:
    """Supersedes and flags, for the write path (which owns the store, the clock and the log)."""

    def __init__(self, *, store: MemoryStore, clock: Callable[[], datetime], log: WriteLog,
                 store_points: StorePoints, replace: Replace):
        self._store = store
        self._clock = clock
        self._log = log
        self._store_points = store_points
        self._replace = replace

    def check(self, memory: Memory, ids: Sequence[str]) -> list[Memory]:
        """The memories `ids` name, for a statement `memory` that says it replaces them:
        NotFoundError for an unknown id, InvalidInputError for one of another project."""
        found = {h.id: h.memory for h in self._store.retrieve(list(ids))}
        for memory_id in ids:
            if memory_id not in found:
                raise NotFoundError(memory_id)
            old = found[memory_id]
            if old.scope == Scope.PROJECT and old.project != memory.project:
                raise InvalidInputError(f"supersedes: memory {memory_id} belongs to another project")
        return [found[i] for i in ids]

    def as_asked(self, memory: Memory, vector: Sequence[float], text: str, olds: Sequence[Memory],
                 held: Memory | None = None) -> WriteOutcome:
        """Store `memory` and supersede the current memories among `olds`, as the caller said.
        `held`: a current memory that already says the same words (the statement as the caller
        memorized it a moment ago, before it was told what that replaces): it becomes the newer
        statement, and no second copy is stored."""
        now = self._clock()
        current = [m for m in olds if m.status == MemoryStatus.ACTIVE and (m.valid_until is None or m.valid_until > now)]
        anchors = [m for m in current if m.pinned or m.immutable]
        targets = [m for m in current if not (m.pinned or m.immutable)]
        notes = []
        if len(current) < len(olds):
            notes.append(f"{len(olds) - len(current)} no longer current, left as they are")
        if anchors:
            notes.append(f"{len(anchors)} pinned or immutable, kept and linked as contradicted")
        why = "supersedes as the caller said" + (f" ({'; '.join(notes)})" if notes else "")
        if held is not None:
            return self._adopt(held, targets, anchors, why, by=memory.provenance)
        if not targets:
            self.store_new(memory, vector, text, contradicts=anchors)
            return WriteOutcome(action=WriteAction.CREATED, id=memory.id, affected_ids=tuple(m.id for m in anchors),
                                reason=why.replace("supersedes as the caller said", "nothing to supersede"))
        out = self.supersede(memory, vector, text, targets, why, by=memory.provenance)
        for anchor in anchors:
            self._log.linked(memory.id, anchor.id, "contradicts", 1.0)
        return out

    def _adopt(self, held: Memory, targets: Sequence[Memory], anchors: Sequence[Memory], why: str, *,
               by: Provenance) -> WriteOutcome:
        """The caller memorized again, with supersedes, a statement `held` already holds: `held` is
        the newer statement of each target; nothing new is stored."""
        note = f"the statement is already stored as {held.id}"
        for anchor in anchors:
            self._log.linked(held.id, anchor.id, "contradicts", 1.0)
        if not targets:
            return WriteOutcome(action=WriteAction.SKIPPED, affected_ids=(held.id, *(m.id for m in anchors)),
                                reason=f"{why.replace('supersedes as the caller said', 'nothing to supersede')}; {note}")
        now = self._clock()
        after = held.model_copy(update={"supersedes": tuple(dict.fromkeys((*held.supersedes, *(t.id for t in targets)))),
                                        "updated_at": now})
        self._log.begin_supersede(held.id, [t.id for t in targets])
        self._replace(held, after, op="supersede", reembed=False, by=by)
        self._mark(after, targets, by=by)
        self._log.end_supersede(held.id)
        return WriteOutcome(action=WriteAction.SUPERSEDED, id=held.id, affected_ids=tuple(t.id for t in targets),
                            reason=f"{why}; {note}")

    def _mark(self, new: Memory, targets: Sequence[Memory], *, by: Provenance) -> None:
        """Mark each of `targets` superseded by `new` (valid until `new` holds) and link them."""
        now = self._clock()
        for target in targets:
            after = target.model_copy(update={
                "status": MemoryStatus.SUPERSEDED, "superseded_by": new.id, "updated_at": now,
                "valid_until": max(new.valid_from, target.valid_from),
            })
            self._replace(target, after, op="supersede", reembed=False, by=by)
            self._log.linked(new.id, target.id, "supersedes", 1.0)

    def supersede(self, memory: Memory, vector: Sequence[float], text: str, targets: Sequence[Memory],
                  reason: str, *, by: Provenance, candidates: Sequence[Candidate] = ()) -> WriteOutcome:
        """Store `memory` as the current statement and mark each of `targets` superseded by it."""
        new = memory.model_copy(update={"supersedes": tuple(t.id for t in targets)})
        new = self._with_candidates(new, candidates)
        # recorded first: a crash after the newer statement is stored and before every older one
        # is marked would leave both current; the next open finishes it (`resume`)
        self._log.begin_supersede(new.id, [t.id for t in targets])
        self._store_points([(new, vector, text)])
        self._log.wrote("create", None, new, new.provenance)
        self._mark(new, targets, by=by)
        self._log.end_supersede(new.id)
        self.flag(new, candidates)
        return WriteOutcome(action=WriteAction.SUPERSEDED, id=new.id, affected_ids=tuple(t.id for t in targets),
                            reason=reason, candidates=replace_candidates(candidates))

    def resume(self) -> list[str]:
        """Finish every supersede a crash cut short: when the newer memory was stored and is
        current, the older ones still current are marked superseded by it (and named in its
        `supersedes`); when it was never stored, nothing changed. The ids of the newer memories."""
        done = []
        for new_id, target_ids in self._log.pending_supersedes():
            found = {h.id: h.memory for h in self._store.retrieve([new_id, *target_ids])}
            new = found.get(new_id)
            if new is not None and new.status == MemoryStatus.ACTIVE:
                targets = [found[t] for t in target_ids if t in found and found[t].status == MemoryStatus.ACTIVE]
                if targets:
                    log.warning("finishing the supersede by %s of %d memories, cut short by a crash", new_id,
                                len(targets))
                    missing = tuple(t.id for t in targets if t.id not in new.supersedes)
                    if missing:
                        new = self._replace(new, new.model_copy(update={"supersedes": (*new.supersedes, *missing)}),
                                            op="supersede", reembed=False, by=RECOVERY)
                    self._mark(new, targets, by=RECOVERY)
                    done.append(new_id)
            self._log.end_supersede(new_id)
        return done

    def store_new(self, memory: Memory, vector: Sequence[float], text: str, *, contradicts: Sequence[Memory] = (),
                  candidates: Sequence[Candidate] = ()) -> Memory:
        """Store `memory` beside what it may replace (flagged) or contradicts (linked)."""
        memory = self._with_candidates(memory, candidates)
        self._store_points([(memory, vector, text)])
        self._log.wrote("create", None, memory, memory.provenance)
        for anchor in contradicts:
            self._log.linked(memory.id, anchor.id, "contradicts", 1.0)
        self.flag(memory, candidates)
        return memory

    def flag(self, new: Memory, candidates: Sequence[Candidate]) -> None:
        """Mark each older memory the new statement says changed (a cued candidate) as possibly
        outdated by it, so a search that finds the older one also brings the newer one first; an
        uncued candidate (much the same thing, another value, no word of change) is marked as said
        otherwise by it, which the read path weighs against what the query asks about."""
        for c in candidates:
            if c.memory.pinned or c.memory.immutable or not (c.cued or c.marks):
                continue
            old = c.memory
            if c.cued:
                if old.metadata.get(MAYBE_OUTDATED_BY) == new.id:
                    continue
                mark: dict[str, str | list[str]] = {MAYBE_OUTDATED_BY: new.id}
            else:  # several later statements may each give another value: the most alike are kept
                held = said_otherwise(old.metadata)
                if new.id in held:
                    continue
                mark = _kept_otherwise(old.metadata, held, new.id, c.similarity)
            after = old.model_copy(update={"metadata": {**old.metadata, **mark}})
            self._replace(old, after, op="flag", reembed=False, by=new.provenance)

    @staticmethod
    def _with_candidates(memory: Memory, candidates: Sequence[Candidate]) -> Memory:
        cued = [c.memory.id for c in candidates if c.cued]
        if not cued:
            return memory
        return memory.model_copy(update={"metadata": {**memory.metadata, MAY_REPLACE: cued}})


def _kept_otherwise(metadata: dict, held: list[str], new_id: str, similarity: float) -> dict[str, list]:
    """The ids marked said_otherwise_by with the new one, at most `SAID_OTHERWISE_KEPT`: when full,
    the least alike goes (the earliest of equals; a mark kept before cosines were, as 0). A memory
    many later statements come near keeps the one that most nearly says the same thing: with the
    last few kept, a port's later statement was pushed out by four unrelated notes about the plant."""
    sims = metadata.get(SAID_OTHERWISE_SIMS)
    sims = [float(x) for x in sims] if isinstance(sims, list) and len(sims) == len(held) else [0.0] * len(held)
    pairs = list(zip(held, sims)) + [(new_id, round(float(similarity), 4))]
    while len(pairs) > SAID_OTHERWISE_KEPT:
        pairs.pop(min(range(len(pairs)), key=lambda i: pairs[i][1]))
    return {SAID_OTHERWISE_BY: [i for i, _ in pairs], SAID_OTHERWISE_SIMS: [x for _, x in pairs]}


def replace_candidates(candidates: Sequence[Candidate]) -> tuple[ReplaceCandidate, ...]:
    """The candidates as the caller sees them: id, one-line preview, why."""
    return tuple(ReplaceCandidate(id=c.memory.id, preview=preview(c.memory.content), reason=c.reason)
                 for c in candidates)
