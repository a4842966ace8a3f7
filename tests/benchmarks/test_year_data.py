"""The lifecycle benchmark's year generator (benchmarks/year_data.py) keeps its promises; no engine."""

from __future__ import annotations

import hashlib
from collections import Counter

from benchmarks.year_data import GENERATOR_VERSION, generate

YEAR = generate(2_000)


def test_the_year_is_deterministic_in_time_order_and_sized_as_asked() -> None:
    again = generate(2_000)
    assert [(i.key, i.at, i.text) for i in YEAR.items] == [(i.key, i.at, i.text) for i in again.items]
    assert YEAR.questions == again.questions and YEAR.recalls == again.recalls
    assert len(YEAR.items) == 2_000 and isinstance(GENERATOR_VERSION, int)
    times = [i.at for i in YEAR.items]
    assert times == sorted(times)
    assert [r.at for r in YEAR.recalls] == sorted(r.at for r in YEAR.recalls)
    assert len({i.key for i in YEAR.items}) == len(YEAR.items)


def test_the_mix_has_every_group_and_enough_variety() -> None:
    groups = Counter(i.group for i in YEAR.items)
    for group in ("fact", "stable", "convention", "decision", "incident", "security", "foresight", "tool", "noise"):
        assert groups[group] > 0, group
    assert groups["tool"] + groups["noise"] > len(YEAR.items) / 2
    assert len({i.text for i in YEAR.items}) > len(YEAR.items) / 2
    assert any("until the freeze on 2026-06-30" in i.text.lower() for i in YEAR.items)


def test_every_question_is_answered_by_items_valid_at_its_time() -> None:
    items = {i.key: i for i in YEAR.items}
    assert {q.at for q in YEAR.questions} <= set(YEAR.checkpoints)
    for q in YEAR.questions:
        assert q.keys
        for key in q.keys:
            item = items[key]
            assert item.at <= q.at and item.label(q.at) == "valid"
            assert q.answer.lower() in item.text.lower() and q.subject.lower() in item.text.lower()


def test_changed_facts_turn_stale_and_their_successor_holds_the_new_value() -> None:
    chains: dict[str, list] = {}
    for item in YEAR.items:
        if item.group == "fact":
            chains.setdefault(item.slot, []).append(item)
    changed = [c for c in chains.values() if len({i.value for i in c}) > 1]
    assert len(changed) > len(chains) / 3
    for chain in changed:
        first, last = chain[0], chain[-1]
        assert first.ends is not None and first.label(first.ends) == "stale"
        assert last.ends is None and last.value != first.value
    labels = Counter(i.label(YEAR.checkpoints[-1]) for i in YEAR.items)
    assert labels["stale"] > 0 and labels["valid"] > 0 and labels["tool"] > 0 and labels["noise"] > 0


def test_recalled_memories_are_few_and_weekly() -> None:
    recalled = Counter(r.key for r in YEAR.recalls)
    assert 0 < len({YEAR.recalls[0].key, *recalled}) <= 60  # a chain's current statement changes over the year
    assert len(recalled) < len(YEAR.items) / 10
    assert any(r.helped for r in YEAR.recalls) and not all(r.helped for r in YEAR.recalls)


def test_a_changed_output_comes_with_a_new_generator_version() -> None:
    """The harness caches embeddings under GENERATOR_VERSION: changing the year without bumping it
    would mix two years' figures. Bump the version and record the new fingerprint here."""
    fingerprints = {1: "b21ea8c542037f99ad518724068e2ed06c1a06c1"}
    digest = hashlib.sha1(repr((YEAR.items, YEAR.questions, YEAR.recalls)).encode()).hexdigest()
    assert fingerprints.get(GENERATOR_VERSION) == digest
