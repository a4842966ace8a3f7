"""Coding-agent retrieval cases through the real engine and the real embedding model.

tests/data/coding_cases.json holds decisions, conventions, paths, error messages, commands and
superseded facts; each case names the memory that must be in the top 3, and superseded facts
that must not appear in current-mode results.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest

from benchmarks.coding import case_id as mid
from benchmarks.coding import case_memories

DATA = json.loads((Path(__file__).parent / "data" / "coding_cases.json").read_text())
NOW = datetime.fromisoformat(DATA["now"])


@pytest.fixture
def loaded(engine):
    engine.import_memories(case_memories(DATA))
    return engine


def test_coding_cases_top3(loaded):
    failures = []
    for case in DATA["cases"]:
        results = loaded.search(case["query"], limit=3, now=NOW)
        got = [r.memory.id for r in results]
        for key in case["expect"]:
            if mid(key) not in got:
                names = {mid(m["key"]): m["key"] for m in DATA["memories"]}
                failures.append(f"{case['query']!r}: expected {key} in top 3, got {[names.get(g, g) for g in got]}")
        for key in case.get("absent", []):
            assert mid(key) not in [r.memory.id for r in loaded.search(case["query"], limit=10, now=NOW)], \
                f"{case['query']!r}: superseded {key} returned in current mode"
    assert not failures, "\n".join(failures)


def test_results_carry_reasons_and_confidence(loaded):
    results = loaded.search("ERR_SSL_PROTOCOL_ERROR on staging", limit=3, now=NOW)
    top = results[0]
    assert top.memory.id == mid("ssl_err")
    assert "bm25" in top.why and 0.0 < top.confidence <= 1.0
    assert all(a.score >= b.score for a, b in zip(results, results[1:]))


def test_trivial_messages_skip_retrieval(loaded):
    for text in DATA["trivial"]:
        assert loaded.search(text, limit=5, now=NOW) == []


def test_timeline_mode_still_finds_superseded_facts(loaded):
    from mnemex.models import ValidityMode

    flt = loaded.default_filter(validity=ValidityMode.TIMELINE)
    got = [r.memory.id for r in loaded.search("API server port 5000", filter=flt, limit=5, now=NOW)]
    assert mid("port_old") in got


def test_context_neighbours_are_marked(loaded):
    results = loaded.search("which Python version is targeted", limit=4, now=NOW, neighbours=True)
    ids = [r.memory.id for r in results]
    assert mid("py_answer") in ids and mid("py_question") in ids
    ctx = [r for r in results if r.context_of is not None]
    assert all(r.context_of in ids for r in ctx)
