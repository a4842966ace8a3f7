"""Query understanding, one parser at a time: trivial messages, intent, time expressions, decomposition, HyDE templates."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from mnemex.engine.retrieval.plan import plan_query
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

NOW = datetime(2024, 3, 15, 12, 0, tzinfo=timezone.utc)  # a Friday


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
