"""The read path's configuration: frozen recipes, overridable per call."""

from __future__ import annotations

import pytest

from mnemex.config.retrieval import DEFAULT, PLAIN_RRF, RECIPES, RetrievalConfig


# ------------------------------------------------------------------ config
def test_recipes_are_frozen_and_overridable_per_call():
    with pytest.raises(Exception):
        DEFAULT.mmr_lambda = 0.1  # type: ignore[misc]
    custom = DEFAULT.model_copy(update={"mmr": True})
    assert custom.mmr and not DEFAULT.mmr
    assert DEFAULT.rrf_k == 60 and DEFAULT.mmr_lambda == 0.7
    assert PLAIN_RRF.fusion == "rrf" and not PLAIN_RRF.propagation
    assert set(RECIPES) >= {"default", "bm25_only", "dense_only", "plain_rrf"}
    with pytest.raises(Exception):
        RetrievalConfig(unknown_field=1)  # type: ignore[call-arg]
