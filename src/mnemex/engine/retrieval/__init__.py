"""The read path: gate, route, expand, hybrid candidates, fuse, re-score, diversify."""

from mnemex.engine.retrieval.config import BM25_ONLY, DEFAULT, DENSE_ONLY, PLAIN_RRF, RetrievalConfig
from mnemex.engine.retrieval.pipeline import RankedMemory, Retriever

__all__ = ["BM25_ONLY", "DEFAULT", "DENSE_ONLY", "PLAIN_RRF", "RankedMemory", "RetrievalConfig", "Retriever"]
