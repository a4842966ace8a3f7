"""What the write path records besides the store: a small port it is given (`WriteLog`), so the
write wing never calls back into the engine facade. `JournalLog` writes to the journal (audit
row, content version, entity index, relations with pruning); `NoLog` records nothing."""

from __future__ import annotations

from typing import Any, Protocol, Sequence

from mnemex.models import Memory, Provenance


class WriteLog(Protocol):
    def wrote(self, op: str, before: Memory | None, after: Memory, by: Provenance, *, reason: str = "") -> None:
        """A memory was created (before is None) or changed by `op` at the request of `by` (and why)."""

    def linked(self, src: str, dst: str, relation: str, weight: float) -> None:
        """A relation between two memories was recorded."""

    def skipped(self, held_by: Memory, by: Provenance, *, reason: str) -> None:
        """A statement was not stored: `held_by` already says it (its text is not kept)."""

    def begin_supersede(self, new_id: str, target_ids: Sequence[str]) -> None:
        """`new_id` is about to replace `target_ids`: remembered until `end_supersede`, across a crash."""

    def end_supersede(self, new_id: str) -> None:
        """Every memory `new_id` replaces is marked."""

    def pending_supersedes(self) -> list[tuple[str, tuple[str, ...]]]:
        """(newer id, the ids it replaces) of every supersede begun and not ended."""


class NoLog:
    def wrote(self, op: str, before: Memory | None, after: Memory, by: Provenance, *, reason: str = "") -> None:
        pass

    def linked(self, src: str, dst: str, relation: str, weight: float) -> None:
        pass

    def skipped(self, held_by: Memory, by: Provenance, *, reason: str) -> None:
        pass

    def begin_supersede(self, new_id: str, target_ids: Sequence[str]) -> None:
        pass

    def end_supersede(self, new_id: str) -> None:
        pass

    def pending_supersedes(self) -> list[tuple[str, tuple[str, ...]]]:
        return []


class JournalLog:
    """The journal as the write path's log: every write op with before/after and who asked
    (client and project), each new content version, the entity index, the relation graph."""

    def __init__(self, journal: Any, *, relations_per_memory: int):
        self.journal = journal
        self._relations_per_memory = relations_per_memory

    def wrote(self, op: str, before: Memory | None, after: Memory, by: Provenance, *, reason: str = "") -> None:
        after_data = after.model_dump(mode="json")
        detail = {**(who(by, after.project) or {}), **({"reason": reason} if reason else {})}
        self.journal.record_op(op, after.id, by.source, before.model_dump(mode="json") if before else None,
                               after_data, detail or None)
        if before is None or before.content != after.content:
            self.journal.add_version(after.id, after.content, after_data, op)
        if before is None or before.entities != after.entities:
            self.journal.index_entities(after.id, after.entities)

    def skipped(self, held_by: Memory, by: Provenance, *, reason: str) -> None:
        """A `skip` op on the memory that holds it, with who asked and why: what the write path did
        is counted in full (the viewer's chart, `memory_history`), though nothing changed."""
        detail = {**(who(by, held_by.project) or {}), "reason": reason}
        self.journal.record_op("skip", held_by.id, by.source, None, None, detail)

    def linked(self, src: str, dst: str, relation: str, weight: float) -> None:
        self.journal.add_relation(src, dst, relation, weight)
        self.journal.prune_relations(src, self._relations_per_memory)

    def begin_supersede(self, new_id: str, target_ids: Sequence[str]) -> None:
        self.journal.begin_supersede(new_id, target_ids)

    def end_supersede(self, new_id: str) -> None:
        self.journal.end_supersede(new_id)

    def pending_supersedes(self) -> list[tuple[str, tuple[str, ...]]]:
        return self.journal.pending_supersedes()


def who(by: Provenance, project: str | None) -> dict[str, Any] | None:
    """The audit detail naming who wrote: the client (from its MCP `clientInfo`) and the project."""
    detail = {k: v for k, v in (("client", by.client), ("project", project)) if v}
    return detail or None
