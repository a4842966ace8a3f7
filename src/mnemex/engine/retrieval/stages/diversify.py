"""Diversification: MMR over the head of the ranking, and removal of near-duplicates."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from mnemex.config.retrieval import RetrievalConfig
from mnemex.engine.retrieval.candidates import Candidates
from mnemex.engine.retrieval.fusion import mmr
from mnemex.engine.retrieval.stages.context import ReadContext


def diversify(ctx: ReadContext, order: list[str], cands: Candidates, cfg: RetrievalConfig, limit: int) -> list[str]:
    dedupe = cfg.dedupe_above < 1.0
    if not (cfg.mmr or dedupe) or not cfg.use_dense:
        return order
    pool = order[: max(cfg.mmr_pool if cfg.mmr else 0, 2 * limit)]
    vectors = vectors_of(ctx, pool, cands)
    pool = [k for k in pool if k in vectors]
    if len(pool) < 2:
        return order
    index = {k: i for i, k in enumerate(pool)}
    mat = np.asarray([vectors[k] for k in pool], dtype=np.float32)
    sims = mat @ mat.T

    def sim(a: str, b: str) -> float:
        return float(sims[index[a], index[b]])

    picked = (mmr(pool, {k: cands[k].relevance for k in pool}, sim, lambda_=cfg.mmr_lambda, limit=len(pool))
              if cfg.mmr else pool)
    if dedupe:
        kept: list[str] = []
        for key in picked:
            if all(sims[index[key], index[other]] <= cfg.dedupe_above for other in kept):
                kept.append(key)
        picked = kept
    chosen = set(pool)
    return picked + [k for k in order if k not in chosen]


def vectors_of(ctx: ReadContext, ids: Sequence[str], cands: Candidates) -> dict[str, Sequence[float]]:
    """The dense vectors of candidates `ids`: from their hits, else read from the store."""
    out = {k: cands[k].hit.dense for k in ids if cands[k].hit.dense is not None}
    missing = [k for k in ids if k not in out]
    if missing:
        for hit in ctx.store.retrieve(missing, with_vectors=True):
            if hit.dense is not None:
                out[hit.id] = hit.dense
    return out
