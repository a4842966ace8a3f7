"""Pure, fast unit tests of the read path's parts: fusion, MMR, query understanding, scoring."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from mnemex.embed.sparse import expand_code_tokens
from mnemex.config.retrieval import DEFAULT, PLAIN_RRF, RECIPES, RetrievalConfig
from mnemex.engine.retrieval.fusion import convex_fusion, max_normalize, mmr, ranked, rrf
from mnemex.engine.retrieval.query import (
    Intent,
    classify_intent,
    decompose,
    hypothetical_documents,
    is_trivial,
    parse_time_window,
    question_core,
    strip_time_expression,
)
from mnemex.engine.retrieval.plan import plan_query, query_entities, terms_of
from mnemex.engine.retrieval.scoring import actr_activation, composite_score, confidence
from mnemex.models import Memory, Provenance

NOW = datetime(2024, 3, 15, 12, 0, tzinfo=timezone.utc)  # a Friday


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


# -------------------------------------------------------------------- gate
@pytest.mark.parametrize("text", ["ok", "thanks!", "Thank you", "/clear", "/compact now", "👍", "  ", "sounds good", "hi"])
def test_gate_skips_trivial_messages(text):
    assert is_trivial(text)


@pytest.mark.parametrize("text", ["ok so why did the migration fail?", "thanks, now fix ERR_SSL_PROTOCOL",
                                  "pytest", "what port does the API use", "/usr/bin/python3 missing"])
def test_gate_keeps_real_queries(text):
    assert not is_trivial(text)


# ------------------------------------------------------------------ intent
@pytest.mark.parametrize("query,intent", [
    ("When did we switch to Postgres?", Intent.TEMPORAL),
    ("Why did the deploy fail?", Intent.CAUSAL),
    ("How do I run the integration tests?", Intent.PROCEDURAL),
    ("Which formatter does the user prefer?", Intent.PREFERENCE),
    ("Who is Alice?", Intent.ENTITY),
    ("What port does the API server listen on?", Intent.FACTUAL),
    ("database migration notes", Intent.GENERAL),
    ("Would the user accept a breaking change here?", Intent.HYPOTHETICAL),
    ("what might break if we upgrade pydantic", Intent.HYPOTHETICAL),
    ("Could you show the deploy command?", Intent.GENERAL),
])
def test_intent_classification(query, intent):
    assert classify_intent(query) == intent


# ---------------------------------------------------------------- temporal
def test_relative_time_expressions():
    y = parse_time_window("what did I fix yesterday", NOW)
    assert (y.start, y.end) == (datetime(2024, 3, 14, tzinfo=timezone.utc), datetime(2024, 3, 15, tzinfo=timezone.utc))
    w = parse_time_window("decisions from last week", NOW)
    assert w.start == datetime(2024, 3, 4, tzinfo=timezone.utc) and w.end == datetime(2024, 3, 11, tzinfo=timezone.utc)
    ago = parse_time_window("the error from 2 days ago", NOW)
    assert ago.contains(NOW - timedelta(days=2)) and not ago.contains(NOW - timedelta(days=5))
    month = parse_time_window("anything last month?", NOW)
    assert month.start == datetime(2024, 2, 1, tzinfo=timezone.utc)


def test_absolute_dates_and_bounds():
    may = parse_time_window("what happened in May 2023", NOW)
    assert may.start == datetime(2023, 5, 1, tzinfo=timezone.utc) and may.end == datetime(2023, 6, 1, tzinfo=timezone.utc)
    day = parse_time_window("notes on 8 May, 2023", NOW)
    assert day.start == datetime(2023, 5, 8, tzinfo=timezone.utc) and day.end - day.start == timedelta(days=1)
    iso = parse_time_window("log from 2023-01-05", NOW)
    assert iso.start == datetime(2023, 1, 5, tzinfo=timezone.utc)
    us = parse_time_window("meeting on May 3, 2023", NOW)
    assert us.start == datetime(2023, 5, 3, tzinfo=timezone.utc)
    after = parse_time_window("changes after 2023-01-05", NOW)
    assert after.start == datetime(2023, 1, 6, tzinfo=timezone.utc) and after.end is None
    before = parse_time_window("config before March 2024", NOW)
    assert before.end == datetime(2024, 3, 1, tzinfo=timezone.utc) and before.start is None


def test_event_anchor_and_no_time():
    anchor = parse_time_window("what did we use before the migration?", NOW)
    assert anchor.anchor == "migration" and anchor.anchor_side == "before"
    assert parse_time_window("which database do we use", NOW) is None
    assert strip_time_expression("what broke yesterday", parse_time_window("what broke yesterday", NOW)) == "what broke"


def test_month_without_year_is_the_latest_such_month():
    now = datetime(2025, 6, 30, 12, 0, tzinfo=timezone.utc)
    april = parse_time_window("what went down in April?", now)
    assert (april.start, april.end) == (datetime(now.year, 4, 1, tzinfo=timezone.utc),
                                        datetime(now.year, 5, 1, tzinfo=timezone.utc))
    august = parse_time_window("what changed in August", now)   # not begun yet this year
    assert august.start == datetime(now.year - 1, 8, 1, tzinfo=timezone.utc)
    late = parse_time_window("the outage in late May", now)
    assert (late.start, late.end) == (datetime(now.year, 5, 21, tzinfo=timezone.utc),
                                      datetime(now.year, 6, 1, tzinfo=timezone.utc))
    early = parse_time_window("early March 2023 notes", now)
    assert (early.start, early.end) == (datetime(2023, 3, 1, tzinfo=timezone.utc), datetime(2023, 3, 11, tzinfo=timezone.utc))
    since = parse_time_window("what changed since March", now)
    assert since.start == datetime(now.year, 3, 1, tzinfo=timezone.utc) and since.end is None and since.anchor is None
    # "may" and "march" are verbs too; a month needs a cue word before it
    for text in ("what may cause this", "we march on", "the May release"):
        assert parse_time_window(text, now) is None, text


def test_only_misleading_time_words_leave_the_search_text():
    now = datetime(2025, 6, 30, 12, 0, tzinfo=timezone.utc)
    # deictic expressions never appear in the memory they point to
    assert plan_query("which api error did we fix 4 days ago", now=now).text == "which api error did we fix"
    # the part of a month goes ("late" would match acks_late), the month stays
    assert plan_query("what was the outage in late May about", now=now).text == "what was the outage in May about"
    # absolute dates may be written in the memory: kept
    assert plan_query("what did we ship on 8 May, 2023", now=now).text == "what did we ship on 8 May, 2023"


# ---------------------------------------------------------- decomposition
def test_decomposition_splits_compound_questions_only():
    assert decompose("Which port does the API use? And where are the logs written?") == [
        "Which port does the API use?", "And where are the logs written?"]
    assert decompose("what database do we use and also which ORM wraps it") == [
        "what database do we use", "which ORM wraps it"]
    assert decompose("what do Alice and Bob have in common?") == ["what do Alice and Bob have in common?"]
    assert len(decompose("a b c? d e f? g h i? j k l? m n o?", max_parts=4)) == 4
    plan = plan_query("What broke yesterday? Who fixed it then?", now=NOW)
    assert len(plan.subqueries) == 2 and plan.window is not None


# ------------------------------------------------------------- expansion
def test_template_hyde_by_intent():
    assert question_core("When did we switch to Postgres?") == "we switch to Postgres"
    variants = hypothetical_documents("Why did the deploy fail?", Intent.CAUSAL)
    assert variants and all("the deploy fail" in v for v in variants)
    assert "Why did the deploy fail?" not in variants


# ------------------------------------------------------------ tokenisation
def test_code_tokens_expand_identifiers():
    assert "parse Config" in expand_code_tokens("parseConfig failed")
    assert "HTTP Server" in expand_code_tokens("HTTPServer crashed")
    assert "Module Not Found Error" in expand_code_tokens("ModuleNotFoundError: no module named x")
    assert expand_code_tokens("plain words") == "plain words"


def test_compound_names_get_one_whole_name_token():
    # snake_case, paths, dotted and constant names: the tokenizer splits them, so the joined form is added
    assert expand_code_tokens("poll_carrier_status failed").split()[-1] == "pollcarrierstatus"
    assert "servicescommondbpy" in expand_code_tokens("see services/common/db.py").split()
    assert "errsslprotocolerror" in expand_code_tokens("ERR_SSL_PROTOCOL_ERROR again").split()
    # a file name also gives its name without extension: what the class name in PascalCase becomes
    assert "invoiceservice" in expand_code_tokens("edit invoice_service.py").split()
    # the same name in another case style meets on the same token
    assert "retrybackoffms" in expand_code_tokens("retry_backoff_ms").split()
    # numbers, dates and versions are not names
    assert expand_code_tokens("Python 3.12 since 2025-06-20") == "Python 3.12 since 2025-06-20"


def test_query_entities_names_identifiers_paths_codes():
    ents = query_entities("What did Alice say about src/app/config.py and parseConfig (E1101)?")
    assert {"alice", "src/app/config.py", "parseconfig", "e1101"} <= ents
    assert "what" not in ents


def test_agreement_weights_lean_on_the_embedding_only_for_unrelated_lexical_matches():
    from mnemex.engine.retrieval.candidates import Candidate
    from mnemex.engine.retrieval.stages.search import lean_on_embedding, lexical_match_unrelated
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


# ---------------------------------------------------------------- scoring
def _memory(**kw) -> Memory:
    base = dict(id="00000000-0000-0000-0000-000000000001", content="x", created_at=NOW - timedelta(days=1),
                recorded_at=NOW, valid_from=NOW - timedelta(days=1))
    base.update(kw)
    return Memory(**base)


def test_actr_activation_decays_with_age_and_grows_with_use():
    fresh = actr_activation(_memory(created_at=NOW), NOW)
    month = actr_activation(_memory(created_at=NOW - timedelta(days=30)), NOW)
    used = actr_activation(_memory(created_at=NOW - timedelta(days=30), access_count=10), NOW)
    assert 0 < month < fresh < 1
    assert used > month


def test_composite_boosts_and_reasons():
    mem = _memory(provenance=Provenance(speaker="Alice", session_id="s1"), importance=0.9)
    why: list[str] = []
    w = DEFAULT.weights
    window = parse_time_window("yesterday", NOW)
    score = composite_score(mem, 0.5, weights=w, now=NOW, entities=frozenset({"alice"}), session_id="s1",
                            window=window, why=why)
    plain = composite_score(_memory(), 0.5, weights=w, now=NOW, entities=frozenset(), session_id=None,
                            window=None, why=[])
    assert score > plain
    assert {"entity:alice", "session", "temporal"} <= set(why)
    low = composite_score(_memory(confidence=0.1), 0.5, weights=w, now=NOW, entities=frozenset(), session_id=None,
                          window=None, why=[])
    assert low < plain


def test_confidence_is_bounded_and_monotone_in_similarity():
    lo, hi = confidence(0.1, 0.0, 0), confidence(0.8, 1.0, 0)
    assert 0.0 <= lo < 0.2 < 0.8 < hi <= 1.0
    assert confidence(None, 1.0, 0) <= 0.35


def test_code_and_time_parsing_stay_linear_and_safe_on_hostile_input():
    """Every write and query runs these regexes: a 40,000-character token must not take seconds,
    and odd whitespace or punctuation must not raise."""
    import time


    for text in ("a" * 40_000, "a_" * 10_000, "a-" * 10_000, "x." * 10_000, "0123456789abcdef" * 2_500):
        t0 = time.perf_counter()
        expand_code_tokens(text)
        query_entities(text)
        terms_of(text).names_code
        plan_query(text, now=NOW)
        assert time.perf_counter() - t0 < 1.0, text[:10]
    for text in ("end\tof May 2023 release", "the end\u00a0of May", "?!", "   ", "how does sep.join work",
                 "open dec.txt", "email jan.kowalski@example.com"):
        plan_query(text, now=NOW)  # no exception
    assert parse_time_window("how does sep.join work", NOW) is None
    assert parse_time_window("message from Jan about the deploy", NOW) is None
    late = parse_time_window("late May", datetime(2024, 5, 5, tzinfo=timezone.utc))  # not begun yet this year
    assert late.start == datetime(2023, 5, 21, tzinfo=timezone.utc)
    assert plan_query("why was the deploy late in late May", now=NOW).text == "why was the deploy late in May"
