"""Fusion and diversification as pure functions: RRF, score fusion, MMR."""

from __future__ import annotations

import pytest

from mnemex.engine.retrieval.fusion import (
    convex_fusion,
    max_normalize,
    mmr,
    ranked,
    rrf,
)


# ------------------------------------------------------------------ fusion
def test_rrf_matches_formula_and_weights():
    scores = rrf([["a", "b"], ["b", "c"]], k=60)
    assert scores["b"] == pytest.approx(1 / 62 + 1 / 61)
    assert scores["a"] == pytest.approx(1 / 61)
    assert ranked(scores) == ["b", "a", "c"]
    weighted = rrf([["a"], ["c"]], weights=[1.0, 3.0], k=60)
    assert ranked(weighted) == ["c", "a"]
    with pytest.raises(ValueError):
        rrf([["a"]], weights=[1.0, 2.0])


def test_convex_fusion_keeps_score_gaps_that_rrf_loses():
    sparse = {"exact": 12.0, "weak": 1.0}
    dense = {"exact": 0.30, "weak": 0.35, "other": 0.36}
    fused = convex_fusion(sparse, dense, sparse_weight=0.5, dense_weight=0.5)
    assert ranked(fused)[0] == "exact"
    assert fused["other"] == pytest.approx(0.18)
    assert max_normalize({"a": 2.0, "b": 1.0}) == {"a": 1.0, "b": 0.5}
    assert max_normalize({}) == {}


def test_mmr_prefers_diverse_and_lambda_one_is_relevance_order():
    rel = {"a": 1.0, "a2": 0.95, "b": 0.7}
    same = {frozenset(("a", "a2")): 0.99}

    def sim(x: str, y: str) -> float:
        return same.get(frozenset((x, y)), 0.0)

    assert mmr(["a", "a2", "b"], rel, sim, lambda_=0.7, limit=2) == ["a", "b"]
    assert mmr(["a", "a2", "b"], rel, sim, lambda_=1.0, limit=3) == ["a", "a2", "b"]
    assert mmr([], rel, sim) == []
