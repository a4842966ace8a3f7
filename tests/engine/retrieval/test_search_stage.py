"""The search stage's rules: when the embedding leads."""

from __future__ import annotations

import pytest

from mnemex.config.retrieval import DEFAULT
from mnemex.engine.retrieval.plan import terms_of


def test_agreement_weights_lean_on_the_embedding_only_for_unrelated_lexical_matches():
    from mnemex.engine.retrieval.candidates import Candidate
    from mnemex.engine.retrieval.stages.search import (
        lean_on_embedding,
        lexical_match_unrelated,
    )
    from mnemex.store.base import Hit

    def cand(bm25, cosine):
        return Candidate(hit=Hit("x", 0.0, {}), cosine=cosine, bm25=bm25)

    assert lexical_match_unrelated({"a": cand(7.5, 0.05), "b": cand(0.0, 0.6)}, DEFAULT)
    assert not lexical_match_unrelated({"a": cand(7.5, 0.35), "b": cand(0.0, 0.6)}, DEFAULT)
    assert not lexical_match_unrelated({"a": cand(7.5, 0.05)}, DEFAULT.model_copy(update={"agreement_floor": 0.0}))
    assert not lexical_match_unrelated({"b": cand(0.0, 0.6)}, DEFAULT)  # no lexical match at all
    assert lean_on_embedding(DEFAULT, 0.5, 0.5) == pytest.approx((0.8, 0.2))
    assert lean_on_embedding(DEFAULT, 0.9, 0.1) == pytest.approx((0.9, 0.1))  # never less embedding
    assert terms_of("where is poll_carrier_status").names_code and terms_of("TS2345 again").names_code and terms_of("promote-prod-v2").names_code
    assert not terms_of("how does merged code end up live").names_code
    # prose compounds and numbers are not code: the rule still applies to them
    for prose in ("a follow-up on the long-term plan", "e.g. the retry policy", "it took 1.5 hours", "v1.2.3"):
        assert not terms_of(prose).names_code, prose
