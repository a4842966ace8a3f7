"""Code and time parsing stay linear and safe on hostile input."""

from __future__ import annotations

from datetime import datetime, timezone

from mnemex.embed.sparse import expand_code_tokens
from mnemex.engine.retrieval.plan import plan_query, query_entities, terms_of
from mnemex.engine.retrieval.query import (
    parse_time_window,
)

NOW = datetime(2024, 3, 15, 12, 0, tzinfo=timezone.utc)  # a Friday


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
