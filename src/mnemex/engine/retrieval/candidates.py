"""The candidate table every stage of the read path works on, and what the path returns."""

from __future__ import annotations

from dataclasses import dataclass, field

from mnemex.models import Memory
from mnemex.store.base import Hit


@dataclass(frozen=True, slots=True)
class RankedMemory:
    """One search result: the memory, its final score, a 0..1 confidence and why it matched."""

    memory: Memory
    score: float
    confidence: float
    why: tuple[str, ...] = ()
    context_of: str | None = None  # id of the hit this memory is a neighbour in time of
    outdated_by: str | None = None  # id of a newer memory about the same subject that says otherwise
    said_otherwise_by: str | None = None  # id of a later result that may say otherwise (the query kept the order)


@dataclass(slots=True)
class Candidate:
    """One memory a search found, with the signals the stages read and write."""

    hit: Hit
    cosine: float | None = None
    bm25: float = 0.0
    bm25_share: float = 0.0
    relevance: float = 0.0
    why: list[str] = field(default_factory=list)

    @property
    def memory(self) -> Memory:
        return self.hit.memory


#: Candidates by memory id.
Candidates = dict[str, Candidate]
