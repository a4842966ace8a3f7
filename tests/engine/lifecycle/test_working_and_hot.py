"""Working memory (9 items per session, eviction by importance x recency x use, promotion
candidates, cleared at session end), the hot tier's selection and cache, theme text merging and
clusters, co-activation counting, arousal. Pure: hand-set times, no store."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from mnemex.config.dream import HotTierConfig, WorkingMemoryConfig
from mnemex.config.lifecycle import LifecycleConfig
from mnemex.engine.lifecycle.arousal import arousal
from mnemex.engine.lifecycle.coactivation import CoActivations, strengthened
from mnemex.engine.lifecycle.hot import HotTier, select
from mnemex.engine.lifecycle.themes import clusters, merge_text
from mnemex.engine.lifecycle.working import WorkingMemory
from mnemex.models import Lifecycle, Memory

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)


def test_the_tenth_item_evicts_the_lowest_importance_x_recency_x_use():
    wm = WorkingMemory(WorkingMemoryConfig())
    for i in range(9):
        assert wm.attend("s1", f"m{i}", 0.5, T0 + timedelta(minutes=i)) is None
    wm.attend("s1", "m0", 0.5, T0 + timedelta(minutes=20))  # used again: in place, now the freshest
    # m1 is the oldest now: 0.5 x 0.5^(29/30) x 1.1; m2 0.5 x 0.5^(28/30) x 1.1 ...
    assert wm.attend("s1", "new", 0.5, T0 + timedelta(minutes=30)) == "m1"
    assert len(wm.items("s1", T0 + timedelta(minutes=30))) == 9
    assert wm.attend("s2", "other", 0.5, T0) is None  # sessions are separate
    assert wm.take_candidates() == []  # m1: used once, importance 0.5 -> no candidate


def test_an_important_item_outlives_trivial_ones_until_long_unused_and_is_then_a_promotion_candidate():
    wm = WorkingMemory(WorkingMemoryConfig(size=2))
    wm.attend("s", "key", 0.9, T0)
    wm.attend("s", "chit", 0.1, T0 + timedelta(minutes=10))
    assert wm.attend("s", "chat", 0.1, T0 + timedelta(minutes=11)) == "chit"  # 0.9 x 0.77 > 0.1 x 0.98
    wm.attend("s", "chat", 0.1, T0 + timedelta(hours=2))  # in use again two hours on
    # 0.9 x 0.5^(121/30) x 1.1 = 0.06 < 0.1 x 0.5^(1/30) x 1.2 = 0.12: the important one is gone
    assert wm.attend("s", "later", 0.5, T0 + timedelta(hours=2, minutes=1)) == "key"
    assert wm.take_candidates() == ["key"] and wm.take_candidates() == []
    assert wm.end("s") == 2 and wm.items("s", T0) == []


def _memory(i: str, *, utility: float, recalls: int, last: datetime) -> Memory:
    return Memory(id=i, content=i, created_at=T0 - timedelta(days=90), recorded_at=T0 - timedelta(days=90),
                  valid_from=T0 - timedelta(days=90), access_count=recalls, last_accessed_at=last,
                  lifecycle=Lifecycle(utility=utility, utility_at=last))


def test_the_hot_tier_takes_useful_often_and_recently_recalled_memories_most_useful_first():
    config = LifecycleConfig(hot=HotTierConfig(max_items=2))
    now = T0
    memories = [
        _memory("useful", utility=0.85, recalls=12, last=now - timedelta(days=1)),
        _memory("best", utility=0.95, recalls=10, last=now - timedelta(days=2)),
        _memory("rare", utility=0.95, recalls=3, last=now - timedelta(days=1)),
        _memory("long-ago", utility=0.95, recalls=40, last=now - timedelta(days=45)),
        _memory("so-so", utility=0.6, recalls=30, last=now - timedelta(days=1)),
        _memory("third", utility=0.82, recalls=11, last=now - timedelta(days=1)),
    ]
    assert [m.id for m in select(memories, now, config)] == ["best", "useful"]


def test_the_hot_tier_is_cached_and_recomputed_from_its_candidates_on_expiry():
    config = LifecycleConfig()
    store = {"a": _memory("a", utility=0.9, recalls=10, last=T0)}
    loads: list[list[str]] = []

    def load(ids):
        loads.append(list(ids))
        return [store[i] for i in ids if i in store]

    clock = [T0]
    hot = HotTier(config, load, lambda: clock[0])
    hot.consider(store.values())
    assert [m.id for m in hot.memories()] == ["a"]
    store["a"] = _memory("a", utility=0.9, recalls=10, last=T0 - timedelta(days=40))
    clock[0] = T0 + timedelta(minutes=4)
    assert [m.id for m in hot.memories()] == ["a"] and len(loads) == 1  # cached
    clock[0] = T0 + timedelta(minutes=6)
    assert hot.memories() == [] and len(loads) == 2  # expired: recomputed


def test_a_theme_keeps_the_most_useful_text_and_adds_only_what_the_others_say_new():
    base = dict(created_at=T0, recorded_at=T0, valid_from=T0)
    a = Memory(id="a", content="Deploys go out on Tuesdays.", lifecycle=Lifecycle(utility=0.9), **base)
    b = Memory(id="b", content="Deploys go out on Tuesdays. Freeze on Fridays.", **base)
    c = Memory(id="c", content="deploys go out on tuesdays", **base)
    assert merge_text([b, a, c], max_chars=200) == "Deploys go out on Tuesdays. Freeze on Fridays."
    assert merge_text([b, a, c], max_chars=30) == "Deploys go out on Tuesdays."


def test_clusters_are_the_connected_groups_largest_first():
    assert clusters([("a", "b"), ("c", "d"), ("b", "e"), ("f", "f")]) == [["a", "b", "e"], ["c", "d"], ["f"]]


def test_recalls_together_or_close_in_time_count_as_co_activations():
    co = CoActivations(window_minutes=10)
    co.recalled(["a", "b"], T0)
    co.recalled(["c"], T0 + timedelta(minutes=5))
    co.recalled(["d"], T0 + timedelta(hours=1))
    assert co.drain() == [("a", "b", 1), ("a", "c", 1), ("b", "c", 1)]
    assert co.drain() == []
    assert strengthened(0.0, 1, 0.1) == pytest.approx(0.1) and round(strengthened(0.1, 2, 0.1), 3) == 0.271


def test_arousal_reads_incidents_outages_and_security_findings():
    assert arousal("Production outage: payments went down after the Redis failover") >= 0.8
    assert arousal("Security finding: the admin API accepted expired tokens") >= 0.8
    assert arousal("We had an incident once") < 0.8
    assert arousal("Use pnpm, not npm") == 0.0


def test_close_statements_with_different_values_are_not_the_same_subject():
    from mnemex.engine.lifecycle.themes import same_subject

    def m(text: str) -> Memory:
        return Memory(id=text, content=text, project="/p", created_at=T0, recorded_at=T0, valid_from=T0)

    assert not same_subject(m("Service svc0 listens on port 8000"), m("Service svc9 listens on port 8009"))
    assert same_subject(m("Service svc0 listens on port 8000"), m("svc0 listens on port 8000, behind the gateway"))
    assert same_subject(m("Deploys go out on Tuesdays"), m("We deploy on Tuesdays"))


def test_statements_that_trade_a_word_are_neither_merged_nor_redundant():
    """On the blind year benchmark the redundancy rule (cosine > 0.9) sent the newer of 'Priya owns ...' /
    'Marcus owns ...' dormant when the older was a weekly-recalled favourite: R@5 of valid facts fell."""
    from mnemex.engine.lifecycle.themes import same_subject
    from mnemex.models import MemoryKind

    def fact(i: int, text: str) -> Memory:
        return Memory(id=f"00000000-0000-4000-8000-00000000000{i}", content=text, kind=MemoryKind.FACT, project="/p")

    old, new = fact(1, "Priya is on call for the billing-api alerts."), fact(2, "Marcus is on call for the billing-api alerts.")
    assert not same_subject(old, new)
    again = fact(3, "Reminder: Priya is on call for the billing-api alerts.")
    assert same_subject(old, again)
