"""`Retriever`: one search over a `MemoryStore`, returning ranked memories with reasons."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from mnemex.embed.dense import DenseEmbedder
from mnemex.embed.sparse import SparseEncoder
from mnemex.engine.retrieval.config import DEFAULT, RetrievalConfig
from mnemex.models import Memory, MemoryFilter
from mnemex.store.base import HybridQuery, MemoryStore
from mnemex.store.payload import payload_to_memory


@dataclass(frozen=True, slots=True)
class RankedMemory:
    """One search result: the memory, its final score, a 0..1 confidence and why it matched."""

    memory: Memory
    score: float
    confidence: float
    why: tuple[str, ...] = ()
    context_of: str | None = None  # id of the hit this memory is a neighbour in time of


class Retriever:
    """Runs the read path for one store. Thread-safe as long as the store and embedders are."""

    def __init__(self, store: MemoryStore, dense: DenseEmbedder, sparse: SparseEncoder,
                 config: RetrievalConfig = DEFAULT):
        self._store = store
        self._dense = dense
        self._sparse = sparse
        self.config = config

    def search(self, query: str, *, filter: MemoryFilter, limit: int = 10,
               config: RetrievalConfig | None = None, now: datetime | None = None,
               session_id: str | None = None, neighbours: bool | None = None) -> list[RankedMemory]:
        cfg = config or self.config
        query = query.strip()
        if not query or limit <= 0:
            return []
        dense = self._dense.embed_query(query) if cfg.use_dense else None
        sparse = self._sparse.embed_query(query) if cfg.use_sparse else None
        if sparse is not None and not sparse.indices:
            sparse = None
        if dense is None and sparse is None:
            return []
        hits = self._store.query(HybridQuery(
            dense=dense, sparse=sparse, filter=filter, limit=limit,
            candidates=max(cfg.candidates, limit), dense_weight=cfg.dense_weight,
            sparse_weight=cfg.sparse_weight, rrf_k=cfg.rrf_k,
        ))
        if not hits:
            return []
        top = hits[0].score or 1.0
        why = tuple(name for name, on in (("dense", dense is not None), ("bm25", sparse is not None)) if on)
        out = []
        for hit in hits[:limit]:
            if hit.score < cfg.min_score:
                continue
            out.append(RankedMemory(memory=payload_to_memory(hit.payload), score=float(hit.score),
                                    confidence=max(0.0, min(1.0, hit.score / top)), why=why))
        return out
