"""Composition of an engine from settings: the one place that turns config into parts."""

from __future__ import annotations

from mnemex.config import Settings
from mnemex.embed.dense import FastEmbedder
from mnemex.embed.sparse import SparseEncoder
from mnemex.embed.vocabulary import Vocabulary
from mnemex.engine.service import EngineLimits, MemoryEngine
from mnemex.store import open_store
from mnemex.store.journal import Journal


def build_embedder(settings: Settings) -> FastEmbedder:
    emb = settings.embedding
    return FastEmbedder(emb.model, model_path=emb.model_path, cache_dir=settings.data_dir / "models",
                        query_cache_size=emb.query_cache_size, threads=emb.threads)


def build_engine(settings: Settings, *, default_project: str | None = None,
                 embedder: FastEmbedder | None = None) -> MemoryEngine:
    dense = embedder or build_embedder(settings)
    store = open_store(url=settings.store.url, api_key=settings.store.api_key, path=settings.store_dir,
                       collection=settings.store.collection, dim=dense.identity.dim)
    limits = EngineLimits(max_content_chars=settings.limits.max_content_chars,
                          max_results=settings.limits.max_results,
                          optimize_every=settings.store.optimize_every)
    journal = vocabulary = None
    try:
        journal = Journal(settings.journal_path, level=settings.audit.level)
        sparse = SparseEncoder(settings.store.bm25_avg_len)
        vocabulary = Vocabulary(dense, sparse, settings.vocabulary_path)
        return MemoryEngine(store=store, dense=dense, sparse=sparse, journal=journal, limits=limits,
                            default_project=default_project, vocabulary=vocabulary)
    except BaseException:
        store.close()
        for part in (journal, vocabulary):
            if part is not None:
                part.close()
        raise
