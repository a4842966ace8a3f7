"""What both store backends share: `MemoryFilter` as a neutral condition tree, id checks,
point checks and the record → `Hit` conversion.

Each backend renders the tree into its own filter type with one small recursive
function, so the meaning of a filter (scope/project rules, validity modes) lives here once.
"""

from __future__ import annotations

import re
import time
import uuid
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Iterable, Sequence, Union

from mnemex.errors import InvalidInputError
from mnemex.models import MemoryFilter, Scope, ValidityMode
from mnemex.store._payload import ORDER_FIELDS
from mnemex.store.base import DENSE_VECTOR, Hit, StoredPoint


@dataclass(frozen=True, slots=True)
class Match:
    """The payload field `key` holds one of `values` (for arrays: any element does)."""

    key: str
    values: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Range:
    """The numeric payload field `key` lies in the given bounds (None = unbounded)."""

    key: str
    gt: float | None = None
    gte: float | None = None
    lt: float | None = None
    lte: float | None = None


@dataclass(frozen=True, slots=True)
class HasIds:
    """The point id is one of `ids` (canonical UUID strings)."""

    ids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class AnyOf:
    """At least one of `conditions` holds."""

    conditions: tuple["Condition", ...]


@dataclass(frozen=True, slots=True)
class Not:
    condition: "Condition"


Condition = Union[Match, Range, HasIds, AnyOf, Not]


def to_epoch(value: datetime) -> float:
    """Epoch seconds of `value`; a naive datetime is taken as UTC, never as local time."""
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    return value.timestamp()


def conditions_for(flt: MemoryFilter, *, now: float | None = None) -> list[Condition]:
    """The conditions (all must hold) that select what `flt` lets a query see.

    `created_after`/`created_before` form the half-open range [after, before).
    `now` (epoch seconds) defaults to the current time; it is the reference of the
    CURRENT mode and of AS_OF without `as_of`.
    """
    now = time.time() if now is None else now
    out: list[Condition] = []
    if flt.scopes:
        out.append(Match("scope", tuple(str(s) for s in flt.scopes)))
    if flt.project is not None:
        # Only project-scoped memories belong to a project; global/session/agent ones stay visible.
        out.append(AnyOf((Match("project", (flt.project,)), Not(Match("scope", (str(Scope.PROJECT),))))))
    if flt.kinds:
        out.append(Match("kind", tuple(str(k) for k in flt.kinds)))
    if flt.tags:
        out.append(Match("tags", tuple(flt.tags)))
    if flt.session_id is not None:
        out.append(Match("session_id", (flt.session_id,)))
    if flt.created_after is not None or flt.created_before is not None:
        out.append(Range(
            "created_ts",
            gte=to_epoch(flt.created_after) if flt.created_after is not None else None,
            lt=to_epoch(flt.created_before) if flt.created_before is not None else None,
        ))
    if flt.history:
        out.append(AnyOf((Match("status", ("superseded",)), Match("marks", ("dormant",)))))
        out.append(Not(Match("status", ("forgotten",))))
    elif flt.validity == ValidityMode.CURRENT:
        out.append(Match("status", ("active",)))
        out.append(Range("valid_until_ts", gt=now))
    elif flt.validity == ValidityMode.AS_OF:
        at = to_epoch(flt.as_of) if flt.as_of is not None else now
        out.append(Range("valid_from_ts", lte=at))
        out.append(Range("valid_until_ts", gt=at))
        out.append(Range("recorded_ts", lte=at))
    if flt.ids:
        out.append(HasIds(canonical_ids(flt.ids)))
    if flt.pinned is not None:
        pinned = Match("marks", ("pinned",))
        out.append(pinned if flt.pinned else Not(pinned))
    if flt.dormant is not None and not flt.history:
        dormant = Match("marks", ("dormant",))
        out.append(dormant if flt.dormant else Not(dormant))
    return out


#: A UUID already in its canonical form (what `str(uuid.UUID(x))` gives back unchanged).
_CANONICAL = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def canonical_id(point_id: str) -> str:
    """`point_id` as a canonical (lower-case, hyphenated) UUID string; InvalidInputError if it is none."""
    if isinstance(point_id, str) and _CANONICAL.fullmatch(point_id):
        return point_id  # as it comes back from every hit: no UUID made and printed again
    try:
        return str(uuid.UUID(str(point_id)))
    except ValueError:
        raise InvalidInputError(f"not a memory id (UUID expected): {point_id!r}") from None


def canonical_ids(ids: Iterable[str]) -> tuple[str, ...]:
    return tuple(canonical_id(i) for i in ids)


def check_points(points: Sequence[StoredPoint], dim: int) -> None:
    """InvalidInputError unless every point has a UUID id, a `dim`-long dense vector and a valid sparse one."""
    for p in points:
        canonical_id(p.memory.id)
        if len(p.dense) != dim:
            raise InvalidInputError(f"point {p.memory.id}: dense vector has {len(p.dense)} dimensions, store has {dim}")
        if len(p.sparse.indices) != len(p.sparse.values):
            raise InvalidInputError(f"point {p.memory.id}: sparse vector has {len(p.sparse.indices)} indices "
                                    f"but {len(p.sparse.values)} values")


def order_field(by: str) -> str:
    """The indexed payload field that orders points by the memory field `by`."""
    try:
        return ORDER_FIELDS[by]
    except KeyError:
        raise InvalidInputError(f"cannot order by {by!r}: use one of {', '.join(ORDER_FIELDS)}") from None


def to_hit(record: Any, score: float, with_vectors: bool) -> Hit:
    """A backend record or scored point (with `.id`, `.payload`, `.vector`) as a `Hit`."""
    dense = None
    if with_vectors and isinstance(record.vector, dict):
        dense = record.vector.get(DENSE_VECTOR)
        dense = list(dense) if dense is not None else None
    payload = dict(record.payload or {})
    # the memory's own id, when canonical, is the point's id (`upsert` stores canonical_id(memory.id)):
    # reading it from the payload spares making a UUID object and printing it (~3 % of a search at 100k)
    key = payload.get("id")
    if not (isinstance(key, str) and _CANONICAL.fullmatch(key)):
        key = str(record.id)
    return Hit(key, float(score), payload, dense)


def in_asked_order(hits: Iterable[Hit], ids: Sequence[str]) -> list[Hit]:
    """`hits` reordered to follow `ids` (canonical), ids without a hit skipped."""
    by_id = {h.id: h for h in hits}
    return [by_id[i] for i in ids if i in by_id]
