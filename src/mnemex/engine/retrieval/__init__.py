"""The read path: gate, route, expand, hybrid candidates, fuse, propagate, re-score, diversify."""

from mnemex.config.retrieval import (
    BM25_ONLY,
    DEFAULT,
    DENSE_ONLY,
    FAST,
    PLAIN_RRF,
    RECIPES,
    SEED_ROUTER,
    CompositeWeights,
    IntentProfile,
    RetrievalConfig,
)
from mnemex.engine.retrieval.pipeline import RankedMemory, Retriever

__all__ = [
    "BM25_ONLY", "DEFAULT", "DENSE_ONLY", "FAST", "PLAIN_RRF", "RECIPES", "SEED_ROUTER", "CompositeWeights",
    "IntentProfile", "RankedMemory", "RetrievalConfig", "Retriever",
]
