"""The tier policy on plain memories: promotion and demotion rules of the three presets."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from mnemex.config.lifecycle import LifecycleConfig, TierSpec
from mnemex.engine.lifecycle.policy import decide, over_capacity
from mnemex.engine.lifecycle.strength import assess
from mnemex.models import Lifecycle, Memory, MemoryKind

NOW = datetime(2026, 6, 1, tzinfo=timezone.utc)
DEFAULT = LifecycleConfig()
CONTINUUM = LifecycleConfig(preset="continuum")
HOT_WARM_COLD = LifecycleConfig(preset="lifecycle")


def _memory(kind=MemoryKind.FACT, *, days=100.0, idle=None, n=1, tier=None, utility=0.5, judged=True,
            recalls=0, recent=(), **fields) -> Memory:
    created = NOW - timedelta(days=days)
    last = NOW - timedelta(days=idle) if idle is not None else None
    state = Lifecycle(tier=tier, utility=utility, utility_at=NOW if judged else None,
                      recent_accesses=tuple(NOW - timedelta(days=d) for d in recent), **fields.pop("state", {}))
    return Memory(id=f"00000000-0000-0000-0000-{n:012d}", content="x", kind=kind, created_at=created,
                  recorded_at=created, valid_from=created, access_count=recalls, last_accessed_at=last,
                  lifecycle=state, **fields)


def test_episodic_memories_are_promoted_by_recalls_sustained_utility_or_shared_entities():
    move = decide(_memory(recalls=3, idle=1), NOW, DEFAULT)
    assert (move.source, move.target, move.direction, move.reason) == ("episodic", "semantic", "promote", "3 recalls")
    assert decide(_memory(recalls=2, idle=1), NOW, DEFAULT) is None
    assert decide(_memory(days=8, utility=0.75), NOW, DEFAULT).target == "semantic"
    assert decide(_memory(days=5, utility=0.75), NOW, DEFAULT) is None  # not sustained long enough
    assert decide(_memory(days=5), NOW, DEFAULT, entity_sessions=3).reason.startswith("an entity shared with 3")
    assert decide(_memory(days=5), NOW, DEFAULT, entity_sessions=2) is None
    # records are not knowledge: a tool run naming a component seen in many sessions stays where it is
    assert decide(_memory(MemoryKind.TOOL_EVENT, days=5), NOW, DEFAULT, entity_sessions=30) is None
    assert decide(_memory(MemoryKind.TOOL_EVENT, recalls=3, idle=1), NOW, DEFAULT).target == "semantic"


def test_demotion_to_dormant_needs_idle_time_and_low_utility():
    move = decide(_memory(tier="semantic", idle=61, utility=0.1), NOW, DEFAULT)
    assert (move.target, move.direction) == ("dormant", "demote")
    assert "idle 61.0 days" in move.reason and "utility 0.10" in move.reason
    assert decide(_memory(tier="semantic", idle=61, utility=0.3), NOW, DEFAULT) is None
    assert decide(_memory(tier="semantic", idle=30, utility=0.1), NOW, DEFAULT) is None
    assert decide(_memory(idle=61, utility=0.1), NOW, DEFAULT).source == "episodic"


def test_demotion_reads_the_judged_utility_not_its_drift_back_to_the_prior():
    stale = _memory(tier="semantic", idle=90, utility=0.1, state={})
    stale = stale.model_copy(update={"lifecycle": stale.lifecycle.model_copy(
        update={"utility_at": NOW - timedelta(days=90)})})
    assert assess(stale, NOW, DEFAULT).utility > 0.4           # drifted most of the way back
    assert decide(stale, NOW, DEFAULT).target == "dormant"     # the verdict still counts


def test_truth_anchors_flashbulbs_and_permanent_kinds_never_go_dormant():
    low = dict(tier="semantic", idle=61, utility=0.1)
    assert decide(_memory(pinned=True, **low), NOW, DEFAULT) is None
    assert decide(_memory(immutable=True, **low), NOW, DEFAULT) is None
    assert decide(_memory(metadata={"flashbulb": True}, **low), NOW, DEFAULT) is None
    for kind in (MemoryKind.CORRECTION, MemoryKind.PREFERENCE, MemoryKind.ENTITY):
        assert decide(_memory(kind, **low), NOW, DEFAULT) is None


def test_minimum_retention_holds_a_memory_out_of_dormancy_until_its_age():
    quick = DEFAULT.model_copy(update={"tiers": {
        **DEFAULT.tier_table, "semantic": TierSpec(ttl_days=10, demote_utility_below=0.2, demote_to="dormant")}})
    assert decide(_memory(MemoryKind.DECISION, tier="semantic", days=30, idle=20, utility=0.1), NOW, quick) is None
    assert decide(_memory(MemoryKind.DECISION, tier="semantic", days=50, idle=20, utility=0.1), NOW, quick).target == "dormant"


def test_continuum_demotes_on_ttl_or_importance_and_promotes_on_surprise():
    assert decide(_memory(idle=2, judged=False), NOW, CONTINUUM).target == "glacial"        # slow: 1 day TTL
    low = _memory(days=1, idle=0.5, judged=False, importance=0.4)  # 0.4 x 0.5^(1/180) = 0.398: over 0.3
    assert decide(low, NOW, CONTINUUM) is None
    fading = _memory(days=1, idle=0.5, judged=False, importance=0.2)
    assert "importance 0.20" in decide(fading, NOW, CONTINUUM).reason
    move = decide(_memory(tier="medium", idle=0.01, judged=False, state={"surprise": 0.8}), NOW, CONTINUUM)
    assert (move.target, move.reason) == ("fast", "surprise 0.80")
    assert decide(_memory(tier="glacial", idle=30, judged=False), NOW, CONTINUUM) is None  # nowhere lower


def test_hot_warm_cold_counts_recalls_within_the_access_window():
    assert decide(_memory(recalls=1, recent=(2,), idle=2, judged=False), NOW, HOT_WARM_COLD).target == "warm"
    assert decide(_memory(recalls=1, recent=(10,), idle=10, judged=False), NOW, HOT_WARM_COLD) is None
    warm = _memory(tier="warm", recalls=5, recent=(30, 6, 3, 1), idle=1, judged=False)
    assert decide(warm, NOW, HOT_WARM_COLD).reason == "3 recalls in 7 days"
    assert decide(_memory(tier="hot", idle=2 / 24, judged=False), NOW, HOT_WARM_COLD).target == "warm"
    assert decide(_memory(tier="warm", idle=8, judged=False), NOW, HOT_WARM_COLD).target == "cold"


def test_a_tier_over_capacity_hands_down_its_weakest_members():
    spec = DEFAULT.tier_table["working"]
    members = [_memory(tier="working", n=i, idle=0, judged=False,
                       state={"storage": 1.0 + i}) for i in range(11)]
    members[0] = members[0].model_copy(update={"pinned": True})
    moves = over_capacity([(m, assess(m, NOW, DEFAULT)) for m in members], spec, "working", DEFAULT)
    assert [m.memory_id[-2:] for m in moves] == ["01", "02"]  # the weakest movable two; the pinned one stays
    assert all(m.target == "episodic" for m in moves)


def test_a_tier_the_table_no_longer_has_sends_the_memory_to_the_entry_tier():
    move = decide(_memory(tier="glacial", judged=False), NOW, DEFAULT)
    assert (move.source, move.target) == ("glacial", "episodic")


def test_the_capacity_trim_sends_records_dormant_before_any_knowledge():
    """Over the cap, tool runs and episodes go first even when they are newer and score higher: a year
    of tool runs outnumbers a project's facts ten to one."""
    from mnemex.config.dream import ForgettingConfig
    from mnemex.engine.lifecycle.forgetting import capacity

    config = DEFAULT.model_copy(update={"forgetting": ForgettingConfig(capacity=4, trim_to=0.5)})
    facts = [Memory(id=f"00000000-0000-4000-8000-0000000000f{i}", content=f"fact {i}", kind=MemoryKind.FACT,
                    project="/p", importance=0.3, created_at=NOW - timedelta(days=200)) for i in range(3)]
    runs = [Memory(id=f"00000000-0000-4000-8000-0000000000e{i}", content=f"ran pytest {i}", kind=MemoryKind.TOOL_EVENT,
                   project="/p", importance=0.9, created_at=NOW - timedelta(days=30)) for i in range(3)]
    out = capacity([(m, assess(m, NOW, config)) for m in facts + runs], config, set())
    assert sorted(f.memory_id[-2:] for f in out) == ["e0", "e1", "e2", "f0"]  # by keep score alone: f0-f2 first


def test_redundancy_sends_dormant_only_what_the_kept_memory_already_says():
    """Cosine above 0.9 is not redundancy on its own: the less useful of two close statements goes
    dormant only when it holds no value, name or negation the more useful one lacks."""
    from mnemex.engine.lifecycle.forgetting import redundancy

    def fact(i: int, text: str, recalls: int) -> Memory:
        return Memory(id=f"00000000-0000-4000-8000-00000000000{i}", content=text, kind=MemoryKind.FACT,
                      project="/p", access_count=recalls, created_at=NOW - timedelta(days=100 - i))

    favourite = fact(1, "checkout-api listens on port 8080 in staging.", recalls=9)
    moved = fact(2, "checkout-api listens on port 9090 in staging.", recalls=0)
    detail = fact(3, "checkout-api listens on port 8080 in staging, behind the nginx gateway.", recalls=0)
    again = fact(4, "Reminder: checkout-api listens on port 8080 in staging.", recalls=0)
    assessed = {m.id: (m, assess(m, NOW, DEFAULT)) for m in (favourite, moved, detail, again)}
    pairs = [(favourite.id, m.id, 0.95) for m in (moved, detail, again)]
    out = redundancy(pairs, assessed)
    assert [f.memory_id for f in out] == [again.id]
    assert "redundant with " + favourite.id in out[0].reason


def test_tool_runs_nobody_recalled_for_a_week_go_dormant_knowledge_does_not():
    from mnemex.config.dream import ForgettingConfig
    from mnemex.engine.lifecycle.forgetting import records

    old_run = _memory(MemoryKind.TOOL_EVENT, days=40, n=1)
    recalled = _memory(MemoryKind.TOOL_EVENT, days=40, idle=3, n=2, recalls=1)
    fresh_run = _memory(MemoryKind.TOOL_EVENT, days=5, n=3)
    episode = _memory(MemoryKind.EPISODE, days=40, n=4)
    fact = _memory(MemoryKind.FACT, days=400, n=5)
    pinned = _memory(MemoryKind.TOOL_EVENT, days=40, n=6, pinned=True)
    items = [old_run, recalled, fresh_run, episode, fact, pinned]
    out = records([(m, assess(m, NOW, DEFAULT)) for m in items], DEFAULT)
    assert [f.memory_id for f in out] == [old_run.id]
    assert out[0].reason == "a tool event nobody recalled for 40 days"
    both = DEFAULT.model_copy(update={"forgetting": ForgettingConfig(record_kinds=("episode", "tool_event"))})
    assert {f.memory_id for f in records([(m, assess(m, NOW, both)) for m in items], both)} == {old_run.id, episode.id}
    off = DEFAULT.model_copy(update={"forgetting": ForgettingConfig(record_idle_days=None)})
    assert records([(m, assess(m, NOW, off)) for m in items], off) == []


def test_chatter_is_a_record_it_expires_unrecalled_and_is_never_promoted_by_shared_entities():
    from mnemex.config.dream import ForgettingConfig
    from mnemex.engine.lifecycle.forgetting import records
    from mnemex.engine.lifecycle.policy import is_record

    chat = _memory(days=40, n=1, metadata={"flags": ["chatter"]})
    asked = _memory(days=40, idle=2, n=2, recalls=1, metadata={"flags": ["chatter"]})
    fact = _memory(days=40, n=3, metadata={"flags": ["too_short"]})
    assert is_record(chat) and not is_record(fact)
    out = records([(m, assess(m, NOW, DEFAULT)) for m in (chat, asked, fact)], DEFAULT)
    assert [f.memory_id for f in out] == [chat.id]
    assert out[0].reason == "chatter nobody recalled for 40 days"
    runs_only = DEFAULT.model_copy(update={"forgetting": ForgettingConfig(record_kinds=("tool_event",))})
    assert records([(chat, assess(chat, NOW, runs_only))], runs_only) == []
    assert decide(_memory(days=5, metadata={"flags": ["chatter"]}), NOW, DEFAULT, entity_sessions=30) is None
    assert decide(_memory(days=5), NOW, DEFAULT, entity_sessions=30) is not None
