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
    # memories tied for the best match decide together, whichever the store listed first
    # (the same sentence about three components: before, the first listed decided alone)
    tied = [("a", cand(7.5, 0.12)), ("b", cand(7.5, 0.27)), ("c", cand(7.5, 0.05)), ("d", cand(3.0, 0.0))]
    for order in (tied, tied[::-1], tied[1:] + tied[:1]):
        assert not lexical_match_unrelated(dict(order), DEFAULT)  # one of them is related: "b"
    apart = [("a", cand(7.5, 0.05)), ("b", cand(7.5, 0.15)), ("d", cand(3.0, 0.9))]
    for order in (apart, apart[::-1]):
        assert lexical_match_unrelated(dict(order), DEFAULT)  # none of them is; "d" matched fewer words
    assert lean_on_embedding(DEFAULT, 0.5, 0.5) == pytest.approx((0.8, 0.2))
    assert lean_on_embedding(DEFAULT, 0.9, 0.1) == pytest.approx((0.9, 0.1))  # never less embedding
    assert terms_of("where is poll_carrier_status").names_code and terms_of("TS2345 again").names_code and terms_of("promote-prod-v2").names_code
    assert not terms_of("how does merged code end up live").names_code
    # prose compounds and numbers are not code: the rule still applies to them
    for prose in ("a follow-up on the long-term plan", "e.g. the retry policy", "it took 1.5 hours", "v1.2.3"):
        assert not terms_of(prose).names_code, prose


def test_term_presence_is_remembered_until_the_store_is_written_to(tmp_path):
    """The vocabulary rule asks, per query word, whether any memory holds it: the answer is
    kept while the store reports no write, and asked again after one (real Edge store)."""
    from mnemex.engine.retrieval.stages.context import TermCache
    from mnemex.models import MemoryFilter
    from mnemex.store import EdgeStore
    from tests.store.test_store import axis, point, sparse

    store = EdgeStore(tmp_path / "shard", dim=8)
    asked = []
    real_query = store.query
    store.query = lambda request: asked.append(request) or real_query(request)  # count the probes
    try:
        cache, flt = TermCache(), MemoryFilter()
        scope = flt.model_dump_json()
        assert not cache.held(store, 7, flt, scope) and not cache.held(store, 7, flt, scope)
        assert len(asked) == 1  # the second answer came from the cache
        store.upsert([point(1, axis(1.0), sparse(t7=1.0))])
        assert cache.held(store, 7, flt, scope) and len(asked) == 2  # a write: asked again
        other = MemoryFilter(project="/other")
        assert not cache.held(store, 7, other, other.model_dump_json()) and len(asked) == 3  # another question
    finally:
        store.close()
