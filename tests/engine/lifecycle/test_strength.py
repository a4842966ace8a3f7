"""The strength math against hand-computed values (pure functions, plain numbers)."""

from __future__ import annotations

import math
from datetime import datetime, timedelta, timezone

import pytest

from mnemex.config.lifecycle import LifecycleConfig
from mnemex.engine.lifecycle.strength import (
    PERMANENT,
    actr_activation,
    assess,
    decayed_importance,
    drifted_utility,
    judged,
    recalled,
    retrievability,
    stability,
    stability_of_rate,
    storage_after_recall,
    surprise_after,
    utility_after_feedback,
)
from mnemex.models import Lifecycle, Memory, MemoryKind

NOW = datetime(2026, 6, 1, tzinfo=timezone.utc)
CFG = LifecycleConfig()


def test_fsrs_retention_is_a_power_law_of_elapsed_time_over_stability():
    assert retrievability(0, 10) == 1.0
    assert retrievability(10, 10) == pytest.approx((10 / 9) ** -2)  # 0.81 at t = S
    assert retrievability(90, 10) == pytest.approx(0.25)            # (1 + 1)^-2 at t = 9 S
    assert retrievability(1000, PERMANENT) == 1.0
    assert retrievability(5, 0) == 0.0


def test_category_rate_sets_stability_so_that_a_day_costs_that_rate():
    # S = 1 / (9 ((1 - d)^-1/2 - 1)): fact 0.005 -> 44.28 days, decision 0.02 -> 10.94, other 0.05 -> 4.28
    assert stability_of_rate(0.005) == pytest.approx(44.277, abs=1e-3)
    assert stability_of_rate(0.02) == pytest.approx(10.944, abs=1e-3)
    assert stability_of_rate(0.05) == pytest.approx(4.2771, abs=1e-3)
    for rate in (0.005, 0.02, 0.05):
        assert retrievability(1, stability_of_rate(rate)) == pytest.approx(1 - rate)
    assert stability_of_rate(0.0) == PERMANENT


def test_stability_grows_with_storage_and_shrinks_with_the_tier_decay():
    assert stability(0.02, storage=2.0, tier_decay=3.0) == pytest.approx(10.944 * 2 / 3, abs=1e-3)
    assert stability(0.02, storage=1.0, tier_decay=0.0) == PERMANENT  # a frozen tier
    assert stability(0.0, storage=1.0, tier_decay=10.0) == PERMANENT  # a permanent kind


def test_storage_grows_more_for_a_nearly_forgotten_memory_and_is_capped():
    assert storage_after_recall(1.0, 1.0, gain=0.5, cap=10) == pytest.approx(1.5)
    assert storage_after_recall(1.0, 0.25, gain=0.5, cap=10) == pytest.approx(1.875)
    assert storage_after_recall(9.9, 0.0, gain=0.5, cap=10) == 10


def test_actr_activation_from_recalls_and_age():
    assert actr_activation(0, 0) == pytest.approx(1 / (1 + math.exp(-1.5)))          # 0.818
    assert actr_activation(0, 30) == pytest.approx(0.446, abs=1e-3)                  # ln 31 / 2 = 1.717
    assert actr_activation(9, 30) == pytest.approx(0.8895, abs=1e-3)                 # + ln 10


def test_utility_ema_and_its_drift_to_the_prior():
    assert utility_after_feedback(0.5, True, 0.1) == pytest.approx(0.55)
    assert utility_after_feedback(0.5, False, 0.1) == pytest.approx(0.45)
    assert drifted_utility(0.1, 30, 0.01) == pytest.approx(0.22)   # 0.1 + 0.3 x 0.4
    assert drifted_utility(0.9, 200, 0.01) == pytest.approx(0.5)   # all the way back, not beyond


def test_importance_half_life_by_tier_and_kind():
    assert decayed_importance(0.8, 180, half_life_days=180, tier_decay=1, permanent=False) == pytest.approx(0.4)
    assert decayed_importance(0.8, 180, half_life_days=180, tier_decay=3, permanent=False) == pytest.approx(0.1)
    assert decayed_importance(0.8, 180, half_life_days=180, tier_decay=3, permanent=True) == 0.8
    assert decayed_importance(0.8, 180, half_life_days=180, tier_decay=0, permanent=False) == 0.8


def test_surprise_rises_when_a_memory_helps_beyond_what_was_expected():
    assert surprise_after(0.0, 0.5, 1.0, 0.3) == pytest.approx(0.15)
    assert surprise_after(0.15, 0.5, 0.0, 0.3) == pytest.approx(0.105)


def _memory(kind=MemoryKind.FACT, *, days=10.0, **fields) -> Memory:
    created = NOW - timedelta(days=days)
    return Memory(id="00000000-0000-0000-0000-000000000001", content="x", kind=kind, created_at=created,
                  recorded_at=created, valid_from=created, **fields)


def test_assess_reads_a_fresh_fact_in_the_episodic_tier():
    s = assess(_memory(days=10), NOW, CFG)
    assert s.tier == "episodic"
    assert s.stability == pytest.approx(44.277 / 3, abs=1e-3)              # episodic decays x3
    assert s.retrievability == pytest.approx((1 + 10 / (9 * 44.277 / 3)) ** -2, abs=1e-4)  # 0.865
    assert s.utility == 0.5 and s.storage == 1.0 and s.held(CFG.storage_max) == 0.0
    assert s.importance == pytest.approx(0.5 * 0.5 ** (10 * 3 / 180))
    assert assess(_memory(MemoryKind.PREFERENCE, days=400), NOW, CFG).retrievability == 1.0


def test_a_recall_grows_storage_and_keeps_the_recall_time():
    m = _memory(days=10)
    r = assess(m, NOW, CFG).retrievability
    state = recalled(m, NOW, CFG)
    assert state.storage == pytest.approx(1 + 0.5 * (2 - r))
    assert state.recent_accesses == (NOW,)
    many = _memory(days=10, lifecycle=Lifecycle(recent_accesses=tuple(NOW - timedelta(hours=i) for i in range(16, 0, -1))))
    assert len(recalled(many, NOW, CFG).recent_accesses) == CFG.recent_accesses


def test_nine_misleading_verdicts_bring_utility_under_the_seed_floor():
    m = _memory()
    for _ in range(9):
        m = m.model_copy(update={"lifecycle": judged(m, False, NOW, CFG)})
    assert m.lifecycle.utility == pytest.approx(0.5 * 0.9 ** 9)  # 0.194 < 0.2
    assert m.lifecycle.misled == 9 and m.lifecycle.helped == 0 and m.lifecycle.utility_at == NOW
