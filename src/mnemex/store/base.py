"""The store interface: what the engine needs from a vector store, nothing about MCP.

Two implementations: `EdgeStore` (embedded Qdrant Edge, default) and `RemoteStore`
(Qdrant server/cluster through qdrant-client). Both hold one collection of points,
each with a named dense vector `dense` (cosine) and a named sparse vector `bm25`
(IDF modifier), and a payload written by the engine (see `payload.py`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, Sequence

from mnemex.models import MemoryFilter

DENSE_VECTOR = "dense"
SPARSE_VECTOR = "bm25"

#: Payload fields the store indexes for filtering, with their index type.
INDEXED_FIELDS: dict[str, str] = {
    "kind": "keyword",
    "scope": "keyword",
    "project": "keyword",
    "tags": "keyword",
    "status": "keyword",
    "session_id": "keyword",
    "entities": "keyword",
    "created_ts": "float",
    "valid_from_ts": "float",
    "valid_until_ts": "float",
    "recorded_ts": "float",
}

#: valid_until_ts of a memory that is still valid (year 3000), so "current" is one range test.
OPEN_END_TS = 32_503_680_000.0


@dataclass(frozen=True, slots=True)
class SparseVec:
    indices: tuple[int, ...]
    values: tuple[float, ...]


@dataclass(frozen=True, slots=True)
class PointRecord:
    """One memory as the store sees it: id (UUID string), vectors, payload."""

    id: str
    dense: Sequence[float]
    sparse: SparseVec
    payload: dict[str, Any]


@dataclass(frozen=True, slots=True)
class StoredHit:
    id: str
    score: float
    payload: dict[str, Any]
    dense: Sequence[float] | None = None


@dataclass(frozen=True, slots=True)
class HybridQuery:
    """A candidate-generation request: dense and/or BM25 prefetches fused by weighted RRF."""

    dense: Sequence[float] | None
    sparse: SparseVec | None
    filter: MemoryFilter = field(default_factory=MemoryFilter)
    limit: int = 10
    candidates: int = 50          # per-prefetch limit
    dense_weight: float = 1.0
    sparse_weight: float = 1.0
    rrf_k: int = 60
    with_vectors: bool = False

    @classmethod
    def term(cls, token: int, filter: MemoryFilter, value: float = 1.0) -> "HybridQuery":
        """Does any memory under `filter` hold this one BM25 token? (limit 1)"""
        return cls(dense=None, sparse=SparseVec((token,), (value,)), filter=filter, limit=1)


class MemoryStore(Protocol):
    """What every backend provides. Calls are blocking; the engine runs them in worker threads."""

    def upsert(self, points: Sequence[PointRecord]) -> None: ...

    def set_payload(self, point_id: str, payload: dict[str, Any]) -> None:
        """Merge `payload` into the point's payload (keys not given stay)."""

    def retrieve(self, ids: Sequence[str], *, with_vectors: bool = False) -> list[StoredHit]:
        """Points by id, in the order asked, missing ids skipped."""

    def delete(self, ids: Sequence[str]) -> None: ...

    def query(self, request: HybridQuery) -> list[StoredHit]:
        """Fused candidates, best first; score is the (weighted) RRF score, or the raw score with one prefetch."""

    def dense_scores(self, dense: Sequence[float], ids: Sequence[str]) -> dict[str, float]:
        """Cosine similarity of `dense` to each of `ids` (for re-scoring fused candidates)."""

    def scroll(self, filter: MemoryFilter, *, limit: int = 256, offset: str | None = None,
               with_vectors: bool = False) -> tuple[list[StoredHit], str | None]:
        """A page of points matching `filter`, and the offset of the next page (None at the end)."""

    def count(self, filter: MemoryFilter) -> int: ...

    def ordered(self, filter: MemoryFilter, *, key: str, descending: bool = False,
                limit: int = 20) -> list[StoredHit]:
        """Up to `limit` points matching `filter`, sorted by the indexed float field `key`."""

    def read_identity(self) -> dict[str, Any] | None:
        """The embedding identity recorded with the collection, None for a new collection."""

    def write_identity(self, identity: dict[str, Any]) -> None: ...

    def optimize(self) -> None:
        """Build indexes (HNSW, segment merges). May take long; callers schedule it off the hot path."""

    def compact(self) -> None:
        """Rewrite storage so that deleted points' bytes leave the disk (used by purge). O(store size)."""

    def close(self) -> None: ...
