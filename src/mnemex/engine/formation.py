"""Formation: turn a request into the memories to store (redact, observe, split, classify)
and detect relations between a new memory and its neighbours. Deterministic and offline."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from mnemex.models import Memory, MemoryKind, NewMemory


@dataclass(frozen=True, slots=True)
class Draft:
    content: str
    kind: MemoryKind
    importance: float
    entities: tuple[str, ...] = ()
    valid_until: datetime | None = None
    metadata: dict[str, Any] = field(default_factory=dict)


def form(new: NewMemory, *, now: datetime) -> list[Draft]:
    """The drafts a request becomes (one per atomic statement)."""
    return [Draft(content=new.content.strip(), kind=new.kind or MemoryKind.FACT,
                  importance=new.importance if new.importance is not None else 0.5)]


def relation_between(new: Memory, other: Memory, similarity: float) -> tuple[str, float] | None:
    """A heuristic relation from `new` to an existing neighbour, or None."""
    shared = set(new.entities) & set(other.entities)
    if len(shared) >= 2:
        return "same_entity", 0.7
    if similarity >= 0.6 and shared:
        return "elaborates", 0.5
    if similarity >= 0.55 and new.kind == other.kind:
        return "related_to", 0.4
    return None
