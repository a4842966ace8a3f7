"""Fusion and diversification as pure functions over ranked id lists and score maps."""

from __future__ import annotations

import math
from typing import Callable, Hashable, Mapping, Sequence, TypeVar

K = TypeVar("K", bound=Hashable)


def rrf(lists: Sequence[Sequence[K]], weights: Sequence[float] | None = None, k: int = 60) -> dict[K, float]:
    """Weighted reciprocal rank fusion: score(d) = sum_i w_i / (k + rank_i(d)), ranks from 1.

    Returns scores for every id in any list; sort by score (descending) for the fused ranking.
    """
    if weights is None:
        weights = [1.0] * len(lists)
    if len(weights) != len(lists):
        raise ValueError("one weight per list")
    out: dict[K, float] = {}
    for ranked, weight in zip(lists, weights):
        for rank, key in enumerate(ranked, start=1):
            out[key] = out.get(key, 0.0) + weight / (k + rank)
    return out


def max_normalize(scores: Mapping[K, float]) -> dict[K, float]:
    """Scores divided by the largest one (0..1 for non-negative scores); empty or all-zero stay as is."""
    top = max(scores.values(), default=0.0)
    if top <= 0.0:
        return dict(scores)
    return {key: value / top for key, value in scores.items()}


def convex_fusion(sparse: Mapping[K, float], dense: Mapping[K, float], *, sparse_weight: float,
                  dense_weight: float) -> dict[K, float]:
    """Score fusion: sparse_weight * BM25/max(BM25) + dense_weight * cosine over the union of ids.

    Unlike RRF it keeps how much better the best BM25 match is than the rest, which matters when
    one signal is much stronger than the other (exact names, identifiers, error codes).
    """
    bm25 = max_normalize(sparse)
    keys = set(bm25) | set(dense)
    return {key: sparse_weight * bm25.get(key, 0.0) + dense_weight * dense.get(key, 0.0) for key in keys}


def ranked(scores: Mapping[K, float]) -> list[K]:
    """Ids by descending score; ties keep insertion order."""
    return sorted(scores, key=lambda key: -scores[key])


def mmr(candidates: Sequence[K], relevance: Mapping[K, float], similarity: Callable[[K, K], float], *,
        lambda_: float = 0.7, limit: int = 10) -> list[K]:
    """Maximal marginal relevance: greedily pick argmax  λ·rel(d) − (1−λ)·max_{s∈picked} sim(d, s).

    `relevance` is divided by its maximum over `candidates` first so λ means the same whatever
    the score scale. λ = 1 returns the candidates by relevance.
    """
    pool = list(dict.fromkeys(candidates))
    if not pool or limit <= 0:
        return []
    top = max(relevance.get(c, 0.0) for c in pool)
    scale = top if top > 0 else 1.0
    rel = {c: relevance.get(c, 0.0) / scale for c in pool}
    picked: list[K] = []
    redundancy = {c: -math.inf for c in pool}
    while pool and len(picked) < limit:
        best = max(pool, key=lambda c: lambda_ * rel[c] - (1.0 - lambda_) * max(redundancy[c], 0.0))
        picked.append(best)
        pool.remove(best)
        for c in pool:
            redundancy[c] = max(redundancy[c], similarity(c, best))
    return picked
