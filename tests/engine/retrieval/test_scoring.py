"""Composite re-scoring: activation, boosts and their reasons, confidence."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from mnemex.config.retrieval import DEFAULT
from mnemex.engine.retrieval.query import (
    parse_time_window,
)
from mnemex.engine.retrieval.scoring import actr_activation, composite_score, confidence
from mnemex.models import Lifecycle, Memory, Provenance

NOW = datetime(2024, 3, 15, 12, 0, tzinfo=timezone.utc)  # a Friday


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


def test_strength_leads_only_where_recalls_built_it():
    """Storage strength the dream gave (rehearsal, flashbulbs) keeps a memory retrievable, but only
    recalls earn it a lead at read time: rehearsal picks among equals, and compounding it on a few
    never-recalled memories let them outrank the fact asked about (the simulated year, October)."""
    w = DEFAULT.weights
    assert w.strength > 0

    def score(**kw) -> tuple[float, list[str]]:
        why: list[str] = []
        s = composite_score(_memory(**kw), 0.5, weights=w, now=NOW, entities=frozenset(), session_id=None,
                            window=None, why=why)
        return s, why

    plain, _ = score()
    strong = Lifecycle(storage=7.5)
    rehearsed, why_rehearsed = score(lifecycle=strong)
    recalled, why_recalled = score(lifecycle=strong, access_count=3, last_accessed_at=NOW - timedelta(days=1))
    used, _ = score(access_count=3, last_accessed_at=NOW - timedelta(days=1))  # the same recalls, no strength
    assert rehearsed == plain and "strong" not in why_rehearsed
    assert recalled > used and "strong" in why_recalled


def test_confidence_is_bounded_and_monotone_in_similarity():
    lo, hi = confidence(0.1, 0.0, 0), confidence(0.8, 1.0, 0)
    assert 0.0 <= lo < 0.2 < 0.8 < hi <= 1.0
    assert confidence(None, 1.0, 0) <= 0.35
