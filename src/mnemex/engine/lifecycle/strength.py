"""How strongly a memory is held: pure functions of its state and the time (no store, no clock).

  retrievability  R = (1 + t / (9 S))^-2                 FSRS-6 power-law retention; t days since
                                                          the last recall (or creation), S stability
  stability       S = S_category x storage / tier decay   S_category from the category's decay per
                                                          day: R(1 day) = 1 - rate; rate 0 or a
                                                          frozen tier (decay 0) = permanent (S = inf)
  storage         s' = min(max, s + gain x (2 - R))       dual strength: grows with each recall,
                                                          more when the memory was nearly forgotten;
                                                          never decays (R is what decays)
  activation      sigmoid(ln(1 + n) - d ln(1 + age) + 1.5) ACT-R base level, n recalls, age in days
  utility         u' = u + a (target - u)                 feedback EMA, target 1 helped / 0 misled;
                  u + min(1, r days) (0.5 - u)            drift back to the prior while unjudged
  importance      i x 0.5^(age x tier decay / half-life)  permanent kinds and frozen tiers keep theirs
  surprise        s' = s + a (max(0, outcome - expected) - s)

`assess(memory, now, config)` reads all of them at once for the read path and the tier policy.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timezone

from mnemex.config.lifecycle import LifecycleConfig
from mnemex.models import Lifecycle, Memory

PERMANENT = math.inf


def retrievability(elapsed_days: float, stability: float) -> float:
    """FSRS-6 retention after `elapsed_days` at `stability` (days): 1 at t = 0, 0.81 at t = S, 0.25 at t = 9 S."""
    if stability == PERMANENT:
        return 1.0
    if stability <= 0:
        return 0.0
    return (1.0 + max(elapsed_days, 0.0) / (9.0 * stability)) ** -2.0


def stability_of_rate(decay_per_day: float) -> float:
    """The FSRS stability (days) at which a day without use costs `decay_per_day` of retention;
    PERMANENT for a rate of 0."""
    if decay_per_day <= 0:
        return PERMANENT
    return 1.0 / (9.0 * ((1.0 - decay_per_day) ** -0.5 - 1.0))


def stability(decay_per_day: float, storage: float, tier_decay: float) -> float:
    """Days of stability: the category's, times the storage strength, over the tier's decay multiplier."""
    base = stability_of_rate(decay_per_day)
    if base == PERMANENT or tier_decay <= 0:
        return PERMANENT
    return base * max(storage, 1.0) / tier_decay


def storage_after_recall(storage: float, recalled_at_r: float, *, gain: float, cap: float) -> float:
    """Storage strength after a successful recall made at retrievability `recalled_at_r`."""
    return min(cap, max(storage, 1.0) + gain * (2.0 - min(max(recalled_at_r, 0.0), 1.0)))


def actr_activation(uses: int, age_days: float, decay: float = 0.5) -> float:
    """ACT-R base-level activation squashed to 0..1: 0.82 for a fresh unused memory, about 0.45 after
    a month, 0.2 after a year; each use lifts it."""
    base = math.log1p(max(uses, 0)) - decay * math.log1p(max(age_days, 0.0))
    return 1.0 / (1.0 + math.exp(-(base + 1.5)))


def utility_after_feedback(utility: float, helped: bool, rate: float) -> float:
    """The utility EMA one step toward 1 (helped) or 0 (misled)."""
    return utility + rate * ((1.0 if helped else 0.0) - utility)


def drifted_utility(utility: float, days_unjudged: float, rate: float) -> float:
    """`utility` after `days_unjudged` days without feedback: back toward the 0.5 prior."""
    return utility + min(1.0, rate * max(days_unjudged, 0.0)) * (0.5 - utility)


def decayed_importance(importance: float, age_days: float, *, half_life_days: float, tier_decay: float,
                       permanent: bool) -> float:
    """Importance after its half-life decay (none for permanent kinds or a frozen tier)."""
    if permanent or tier_decay <= 0:
        return importance
    return importance * 0.5 ** (max(age_days, 0.0) * tier_decay / half_life_days)


def surprise_after(surprise: float, expected: float, outcome: float, rate: float) -> float:
    """The surprise EMA: how much more useful the memory proved than was expected of it."""
    return surprise + rate * (max(0.0, outcome - expected) - surprise)


@dataclass(frozen=True, slots=True)
class Strength:
    """A memory's strength at one moment, as the read path and the tier policy see it."""

    tier: str
    retrievability: float   # FSRS R, 0..1
    stability: float        # days (inf = permanent)
    storage: float          # 1..storage_max
    activation: float       # ACT-R, 0..1
    utility: float          # after drift, 0..1
    importance: float       # after half-life decay, 0..1
    idle_days: float        # since the last recall, or creation
    age_days: float         # since creation

    def held(self, storage_max: float) -> float:
        """0..1: how much use has strengthened the memory, as far as it is still retrievable:
        R x (storage - 1) / (max - 1). 0 for a memory never recalled."""
        return self.retrievability * (self.storage - 1.0) / (storage_max - 1.0)


def assess(memory: Memory, now: datetime, config: LifecycleConfig) -> Strength:
    """Every strength signal of `memory` at `now`."""
    state = memory.lifecycle
    tier = state.tier or config.entry
    spec = config.tier_table.get(tier)
    tier_decay = spec.decay if spec is not None else 1.0
    rule = config.category(memory.kind)
    age = days_between(memory.created_at, now)
    idle = days_between(memory.last_accessed_at or memory.created_at, now)
    s = stability(rule.decay_per_day, state.storage, tier_decay)
    unjudged = days_between(state.utility_at, now) if state.utility_at is not None else 0.0
    return Strength(
        tier=tier,
        retrievability=retrievability(idle, s),
        stability=s,
        storage=state.storage,
        activation=actr_activation(memory.access_count, idle, config.activation_decay),
        utility=drifted_utility(state.utility, unjudged, config.utility_drift_per_day),
        importance=decayed_importance(memory.importance, age, half_life_days=config.importance_half_life_days,
                                      tier_decay=tier_decay, permanent=rule.decay_per_day <= 0),
        idle_days=idle,
        age_days=age,
    )


def recalled(memory: Memory, now: datetime, config: LifecycleConfig) -> Lifecycle:
    """The lifecycle state after a successful recall at `now`: storage strength grown by how nearly
    forgotten the memory was, the recall time added to the recent ones."""
    state = memory.lifecycle
    r = assess(memory, now, config).retrievability
    recent = (*state.recent_accesses, now)[-config.recent_accesses:]
    return state.model_copy(update={
        "storage": storage_after_recall(state.storage, r, gain=config.storage_gain, cap=config.storage_max),
        "recent_accesses": recent,
    })


def judged(memory: Memory, helped: bool, now: datetime, config: LifecycleConfig) -> Lifecycle:
    """The lifecycle state after feedback: utility one EMA step from its drifted value, surprise
    updated against that expectation, the verdict counted."""
    state = memory.lifecycle
    expected = assess(memory, now, config).utility
    return state.model_copy(update={
        "utility": min(1.0, max(0.0, utility_after_feedback(expected, helped, config.feedback_rate))),
        "utility_at": now,
        "surprise": min(1.0, max(0.0, surprise_after(state.surprise, expected, 1.0 if helped else 0.0,
                                                     config.surprise_rate))),
        "helped": state.helped + (1 if helped else 0),
        "misled": state.misled + (0 if helped else 1),
    })


def days_between(start: datetime, end: datetime) -> float:
    """Days from `start` to `end` (0 if `end` is earlier); naive datetimes are UTC."""
    return max((_utc(end) - _utc(start)).total_seconds(), 0.0) / 86_400.0


def as_utc(value: datetime) -> datetime:
    """`value` with a time zone: a naive datetime is UTC (callers may store naive times)."""
    return _utc(value)


def _utc(value: datetime) -> datetime:
    return value.replace(tzinfo=timezone.utc) if value.tzinfo is None else value
