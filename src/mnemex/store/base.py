"""The store interface: what the engine needs from a vector store, nothing about MCP.

It speaks Memory: a point goes in as a memory with its dense and BM25 vectors (`StoredPoint`)
and comes out as a `Hit` whose memory is decoded on first use. How a memory is laid out in a
payload (`_payload.py`) stays inside `store/`.

Two implementations: `EdgeStore` (embedded Qdrant Edge, default) and `RemoteStore` (Qdrant
server/cluster through qdrant-client). Both hold one collection of points, each with a named
dense vector `dense` (cosine) and a named sparse vector `bm25` (IDF modifier).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Callable, Protocol, Sequence

from mnemex.errors import InvalidInputError
from mnemex.models import Lifecycle, Memory, MemoryFilter, SparseVec, flagged_chatter
from mnemex.store._payload import PAYLOAD_VERSION, payload_to_memory

__all__ = ["DENSE_VECTOR", "PAYLOAD_VERSION", "SPARSE_VECTOR", "Hit", "MemoryStore", "StoredPoint", "VectorQuery",
           "cut_ties", "tie_fetch"]

#: Points asked beyond a query's limit, so that equal scores at the cut are settled by id.
TIE_MARGIN = 8
#: ... and, when the points tied at the cut run past that, how many times the limit is asked again.
TIE_WIDEN = 4

DENSE_VECTOR = "dense"
SPARSE_VECTOR = "bm25"


@dataclass(frozen=True, slots=True)
class StoredPoint:
    """One memory as it is written: the memory and its two vectors."""

    memory: Memory
    dense: Sequence[float]
    sparse: SparseVec


class Hit:
    """One point the store returned: its id, score, memory (decoded from the payload when first
    read) and, when asked, its dense vector. The few fields the read path needs for every
    candidate (`session_id`, `created_ts`, `content`, `kind`) are read without decoding the memory."""

    __slots__ = ("id", "score", "dense", "_payload", "_memory")

    def __init__(self, id: str, score: float, payload: dict[str, Any], dense: Sequence[float] | None = None):
        self.id = id
        self.score = score
        self.dense = dense
        self._payload = payload
        self._memory: Memory | None = None

    def scored(self, score: float, *, dense: bool = True) -> "Hit":
        """This point with another score (and without its vector unless `dense`), sharing the payload."""
        hit = Hit(self.id, score, self._payload, self.dense if dense else None)
        hit._memory = self._memory
        return hit

    @property
    def memory(self) -> Memory:
        if self._memory is None:
            self._memory = payload_to_memory(self._payload)
        return self._memory

    @property
    def session_id(self) -> str | None:
        sid = self._payload.get("session_id")
        return str(sid) if sid else None

    @property
    def created_ts(self) -> float:
        """When the memory happened, in epoch seconds."""
        return float(self._payload.get("created_ts") or 0.0)

    @property
    def order_key(self) -> tuple[float, float, str]:
        """(created, recorded, id): the order of a session's memories."""
        return self.created_ts, float(self._payload.get("recorded_ts") or 0.0), self.id

    @property
    def content(self) -> str:
        return str(self._payload.get("content", ""))

    @property
    def kind(self) -> str:
        """The memory's kind, as stored (a `MemoryKind` value)."""
        return str(self._payload.get("kind", ""))

    @property
    def is_chatter(self) -> bool:
        """`Memory.is_chatter`, read without decoding the memory."""
        return flagged_chatter(self._payload.get("metadata") or {})

    def __repr__(self) -> str:
        return f"Hit(id={self.id!r}, score={self.score:.4f})"


@dataclass(frozen=True, slots=True)
class VectorQuery:
    """Nearest points to one vector, dense or BM25 (exactly one), among those `filter` lets through."""

    dense: Sequence[float] | None = None
    sparse: SparseVec | None = None
    filter: MemoryFilter = field(default_factory=MemoryFilter)
    limit: int = 10
    with_vectors: bool = False
    exact: bool = False  # score every point the filter lets through (no index): for a few ids
    payload: bool = True  # False: hits carry id and score only (an empty payload), for counts and cosines

    def __post_init__(self) -> None:
        if (self.dense is None) == (self.sparse is None):
            raise InvalidInputError("a vector query needs exactly one of a dense or a sparse vector")

    @classmethod
    def term(cls, token: int, filter: MemoryFilter, value: float = 1.0) -> "VectorQuery":
        """Does any memory under `filter` hold this one BM25 token? (limit 1)"""
        return cls(sparse=SparseVec((token,), (value,)), filter=filter, limit=1, payload=False)


class MemoryStore(Protocol):
    """What every backend provides. Calls are blocking; the engine runs them in worker threads."""

    def upsert(self, points: Sequence[StoredPoint]) -> None: ...

    def save(self, memory: Memory) -> None:
        """Replace the stored memory of an existing point, vectors unchanged; NotFoundError if absent."""

    def mark_accessed(self, memory_id: str, access_count: int, at: datetime,
                      lifecycle: Lifecycle | None = None) -> None:
        """Record a read of a memory (its access count and time, and the lifecycle state the read
        changed) without rewriting the rest."""

    def retrieve(self, ids: Sequence[str], *, with_vectors: bool = False) -> list[Hit]:
        """Points by id, in the order asked, missing ids skipped."""

    def delete(self, ids: Sequence[str]) -> None: ...

    def query_many(self, requests: Sequence[VectorQuery]) -> list[list[Hit]]:
        """`query` for each request, in one round trip where the backend can."""
        ...

    def query(self, request: VectorQuery) -> list[Hit]:
        """Nearest points first; score is the cosine (dense) or the BM25 score (sparse)."""

    def dense_scores(self, dense: Sequence[float], ids: Sequence[str]) -> dict[str, float]:
        """Cosine similarity of `dense` to each of `ids` (for re-scoring fused candidates)."""

    def scroll(self, filter: MemoryFilter, *, limit: int = 256, offset: str | None = None,
               with_vectors: bool = False) -> tuple[list[Hit], str | None]:
        """A page of points matching `filter`, and the offset of the next page (None at the end)."""

    def count(self, filter: MemoryFilter) -> int: ...

    def ordered(self, filter: MemoryFilter, *, by: str = "created_at", descending: bool = False,
                limit: int = 20) -> list[Hit]:
        """Up to `limit` points matching `filter`, sorted by the memory field `by`
        (created_at, recorded_at or valid_from)."""

    def read_identity(self) -> dict[str, Any] | None:
        """The embedding identity recorded with the collection, None for a new collection."""

    def write_identity(self, identity: dict[str, Any]) -> None: ...

    def optimize(self) -> None:
        """Build indexes (HNSW, segment merges). May take long; callers schedule it off the hot path."""

    def compact(self) -> None:
        """Rewrite storage so that deleted points' bytes leave the disk (used by purge). O(store size)."""

    def outdated(self) -> bool:
        """Whether storage is kept in a format older than a new store's."""

    def rebuild_outdated(self) -> bool:
        """Rebuild storage kept in a format older than a new store's (`mnemex reindex`); True when
        it did. O(store size)."""

    def close(self) -> None: ...


# Equal scores are common in BM25 (memories of the same length that hold the same one word); the
# engine returns them in the order it stored them, which a rebuild of the same memories changes
# (a restore, another replica, a reindex). So a query asks for a few more points than its limit
# and the cut is made on (score, id): the same memories give the same results, whatever the store
# layout (tests/store/test_store.py). A tie that runs past `TIE_WIDEN` times the limit as well (a
# word every memory of one length holds) stays in the engine's order: asking for all of it would
# cost more than the order is worth. LoCoMo dev, two builds of the same conversations: 49 of 997
# result lists differed before; the same after (benchmarks/RESULTS.md).

def tie_fetch(limit: int) -> int:
    """How many points to ask the engine for, for a cut at `limit` that settles ties by id."""
    return limit + max(TIE_MARGIN, limit // 4)


def cut_ties(points: Sequence[Any], limit: int, ask: Callable[[int], Sequence[Any]]) -> list[Any]:
    """The `limit` best of `points` (the engine's `tie_fetch(limit)` best, best first), equal scores
    in id order; when the points tied at the cut may run past them (as many came back as were asked,
    the last as good as the one at the cut), `ask(n)` gives the engine's `n` best again, for
    `TIE_WIDEN` times the limit more. Points have `.score` and `.id`."""
    asked = tie_fetch(limit)
    if len(points) >= asked and points[-1].score >= points[limit - 1].score:
        points = ask(asked + TIE_WIDEN * limit)
    return sorted(points, key=lambda p: (-float(p.score), str(p.id)))[:limit]
