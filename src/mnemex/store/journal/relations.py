"""The relation graph: typed, weighted edges between memories, a breadth-first walk, and pruning
that never drops the structural types (supersedes, contradicts, causes)."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any, Iterable

from mnemex.errors import InvalidInputError
from mnemex.store.journal.database import Database, _dumps, _loads


class RelationType(StrEnum):
    SUPERSEDES = "supersedes"
    CONTRADICTS = "contradicts"
    CAUSES = "causes"
    ELABORATES = "elaborates"
    SAME_ENTITY = "same_entity"
    RELATED_TO = "related_to"


#: Structural relations: pruning never removes them.
PROTECTED_RELATIONS = frozenset({RelationType.SUPERSEDES, RelationType.CONTRADICTS, RelationType.CAUSES})
#: Prunable relations, least valuable first (pruned first).
_PRUNE_ORDER = {RelationType.RELATED_TO: 0, RelationType.SAME_ENTITY: 1, RelationType.ELABORATES: 2}


@dataclass(frozen=True, slots=True)
class Relation:
    src: str
    dst: str
    type: RelationType
    weight: float
    detail: dict[str, Any] | None
    created_at: datetime


class RelationGraph(Database):
    def add_relation(self, src: str, dst: str, type: RelationType | str, weight: float = 1.0,
                     detail: dict[str, Any] | None = None) -> Relation:
        """Link `src` to `dst`. One edge per (src, dst, type): adding it again updates its
        weight and detail instead of duplicating it."""
        rtype = _relation_type(type)
        if src == dst:
            raise InvalidInputError("a memory cannot be related to itself")
        if not 0.0 <= weight <= 1.0:
            raise InvalidInputError(f"relation weight must be between 0 and 1, not {weight}")
        ts, _ = self._now()
        with self._tx() as con:
            con.execute("INSERT INTO relations VALUES (?,?,?,?,?,?) ON CONFLICT (src, dst, type) DO UPDATE "
                        "SET weight = excluded.weight, detail = excluded.detail",
                        (src, dst, rtype.value, weight, _dumps(detail), ts))
            row = con.execute("SELECT * FROM relations WHERE src = ? AND dst = ? AND type = ?",
                              (src, dst, rtype.value)).fetchone()
        return _relation(row)

    def relations(self, memory_id: str, types: Iterable[RelationType | str] | None = None,
                  direction: str = "both") -> list[Relation]:
        """Edges touching a memory: `out` (it is src), `in` (it is dst) or `both`; strongest first."""
        if direction not in ("out", "in", "both"):
            raise InvalidInputError(f"direction must be out, in or both, not {direction!r}")
        ends = {"out": "src = ?", "in": "dst = ?", "both": "(src = ? OR dst = ?)"}[direction]
        args: list[Any] = [memory_id] * (2 if direction == "both" else 1)
        sql = f"SELECT * FROM relations WHERE {ends}"
        if types is not None:
            names = [_relation_type(t).value for t in types]
            sql += f" AND type IN ({','.join('?' * len(names))})"
            args += names
        rows = self._conn().execute(sql + " ORDER BY weight DESC, src, dst, type", args).fetchall()
        return [_relation(r) for r in rows]

    def edges(self, type: RelationType | str, *, limit: int = 10_000) -> list[tuple[str, str]]:
        """(src, dst) of every edge of one type, oldest first, at most `limit`."""
        rows = self._conn().execute("SELECT src, dst FROM relations WHERE type = ? ORDER BY created_at LIMIT ?",
                                    (_relation_type(type).value, int(limit))).fetchall()
        return [(r[0], r[1]) for r in rows]

    def traverse(self, start_id: str, max_hops: int = 2, types: Iterable[RelationType | str] | None = None,
                 direction: str = "both") -> list[tuple[str, int, tuple[str, ...]]]:
        """Breadth-first walk from `start_id`: each reachable memory once, as (id, hops, path)
        where path runs from start_id to id; nearest first, then strongest edge first."""
        wanted = None if types is None else [_relation_type(t) for t in types]
        seen = {start_id}
        found: list[tuple[str, int, tuple[str, ...]]] = []
        queue: deque[tuple[str, tuple[str, ...]]] = deque([(start_id, (start_id,))])
        while queue:
            node, path = queue.popleft()
            if len(path) - 1 >= max_hops:
                continue
            for rel in self.relations(node, wanted, direction):
                other = rel.dst if rel.src == node else rel.src
                if other in seen:
                    continue
                seen.add(other)
                found.append((other, len(path), (*path, other)))
                queue.append((other, (*path, other)))
        return found

    def prune_relations(self, memory_id: str, cap: int) -> int:
        """Keep at most `cap` relations touching `memory_id`, dropping the least valuable
        prunable ones first (related_to, then same_entity, then elaborates; weakest, then
        oldest). supersedes, contradicts and causes are never removed, even over the cap.
        Returns how many edges were removed."""
        rels = self.relations(memory_id)
        excess = len(rels) - max(cap, 0)
        prunable = sorted((r for r in rels if r.type not in PROTECTED_RELATIONS),
                          key=lambda r: (_PRUNE_ORDER[r.type], r.weight, r.created_at))
        doomed = prunable[:max(excess, 0)]
        if doomed:
            with self._tx() as con:
                con.executemany("DELETE FROM relations WHERE src = ? AND dst = ? AND type = ?",
                                [(r.src, r.dst, r.type.value) for r in doomed])
        return len(doomed)


def _relation_type(value: RelationType | str) -> RelationType:
    try:
        return RelationType(value)
    except ValueError:
        names = ", ".join(t.value for t in RelationType)
        raise InvalidInputError(f"unknown relation type {value!r}: use one of {names}") from None


def _relation(row: tuple) -> Relation:
    return Relation(row[0], row[1], RelationType(row[2]), row[3], _loads(row[4]), datetime.fromisoformat(row[5]))
