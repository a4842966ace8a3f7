"""The lifecycle as configuration: how strength decays and grows, what feedback does, and one
tier policy (`engine/lifecycle/`).

Every number starts from the seed documents: FSRS-6 retention and dual strength, category decay
rates and minimum retention, the utility EMA and its drift, the working / episodic / semantic /
dormant tiers with their decay multipliers and promotion / demotion rules (seed 001); the
continuum tiers with their TTLs, caps, importance thresholds and surprise score (seed 000); the
hot / warm / cold tiers with access windows and a sweep (seed 003). `preset` picks one of the
three tier tables; `tiers` replaces it whole.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from mnemex.config.base import Frozen
from mnemex.config.dream import (ConceptConfig, DreamConfig, EpisodeConfig, ForgettingConfig, HotTierConfig, ScopePromotionConfig, SummaryConfig,
                                 WorkingMemoryConfig)
from mnemex.models import MemoryKind


class CategoryRule(Frozen):
    """How a kind of memory fades (seed 001: category decay rates and minimum retention)."""

    decay_per_day: float = Field(ge=0, lt=1, description="Retention lost in the first day without use (FSRS stability follows from it: R(1 day) = 1 - rate); 0 = permanent, never decays.")
    min_retention_days: float | None = Field(None, ge=0, description="Never moved to a tier left out of default search before this age, in days; unset = permanent (never).")


#: seed 001: corrections, preferences and entities are permanent; decisions 0.02/day and 45 days,
#: facts 0.005/day and 14 days, other 0.05/day and 7 days. Kinds the seed does not name are mapped
#: to the nearest category: a convention is a standing rule (as a preference), a procedure is a fact
#: about how to do something, plans, notes, episodes and tool events are "other".
_PERMANENT = CategoryRule(decay_per_day=0.0, min_retention_days=None)
_DECISION = CategoryRule(decay_per_day=0.02, min_retention_days=45.0)
_FACT = CategoryRule(decay_per_day=0.005, min_retention_days=14.0)
_OTHER = CategoryRule(decay_per_day=0.05, min_retention_days=7.0)
DEFAULT_CATEGORIES: dict[MemoryKind, CategoryRule] = {
    MemoryKind.CORRECTION: _PERMANENT, MemoryKind.PREFERENCE: _PERMANENT, MemoryKind.ENTITY: _PERMANENT,
    MemoryKind.CONVENTION: _PERMANENT,
    MemoryKind.DECISION: _DECISION,
    MemoryKind.FACT: _FACT, MemoryKind.PROCEDURE: _FACT,
    MemoryKind.PLAN: _OTHER, MemoryKind.NOTE: _OTHER, MemoryKind.EPISODE: _OTHER, MemoryKind.TOOL_EVENT: _OTHER,
}


class TierSpec(Frozen):
    """One tier: how fast its memories fade, how many it holds, and when they move (`engine/lifecycle/policy.py`).

    A memory is promoted when any promotion rule holds, demoted when the demotion rules hold
    (`demote_when`: all or any of the rules that are set). Pinned, immutable and flashbulb memories
    never move."""

    decay: float = Field(1.0, ge=0, description="Multiplier of the decay rates (strength and importance) in this tier; 0 = frozen, nothing decays.")
    searchable: bool = Field(True, description="In default retrieval; false = dormant: left out unless a search asks for dormant memories, reactivated when recalled.")
    capacity: int | None = Field(None, ge=0, description="Most memories the tier holds; the sweep demotes the weakest beyond it (unset = no cap).")
    ttl_days: float | None = Field(None, gt=0, description="Demotion rule: idle (no recall) for at least this many days; unset = off.")
    demote_utility_below: float | None = Field(None, ge=0, le=1, description="Demotion rule: utility (as feedback left it, before its drift to the prior) below this; unset = off.")
    importance_threshold: float = Field(0.0, ge=0, le=1, description="Demotion rule: importance, after its half-life decay, below this; 0 = off.")
    demote_when: Literal["all", "any"] = Field("all", description="Demote when all the rules set above hold, or when any does.")
    demote_to: str | None = Field(None, description="Where a demoted memory goes; unset = it is never demoted.")
    promote_to: str | None = Field(None, description="Where a promoted memory goes; unset = it is never promoted.")
    promote_accesses: int | None = Field(None, ge=1, description="Promotion rule: at least this many recalls (within access_window_days when set); unset = off.")
    access_window_days: float | None = Field(None, gt=0, description="Count only the recalls of the last this many days (the last `recent_accesses` are kept); unset = all recalls.")
    promote_utility: float | None = Field(None, ge=0, le=1, description="Promotion rule: utility at least this, sustained: the memory is at least promote_min_age_days old; unset = off.")
    promote_min_age_days: float = Field(0.0, ge=0, description="Least age for the utility rule.")
    promote_entity_episodes: int | None = Field(None, ge=1, description="Promotion rule: an entity of the memory is shared by at least this many memories of other sessions (convergent evidence); unset = off.")
    promote_surprise: float | None = Field(None, ge=0, le=1, description="Promotion rule: surprise score (feedback that it helped when little was expected of it) at least this; unset = off.")


def _tiers(**specs: TierSpec) -> dict[str, TierSpec]:
    return dict(specs)


_DAY = 1.0
_HOUR = 1 / 24
_MINUTE = 1 / 1440

#: seed 001 (PAHF): working (Miller's 9 items, session-local, x10 decay), episodic (the default tier of
#: new memories, x3), semantic (promoted knowledge, x1), dormant (frozen, out of default search).
#: Promotion episodic -> semantic: 3 recalls, or utility >= 0.7 at 7+ days, or an entity shared with
#: 3+ memories of other sessions; demotion -> dormant: idle >= 60 days AND utility < 0.2. Nothing
#: enters the working tier yet (the working memory buffer is later work); its rules are the seed's.
DEFAULT_TIERS = _tiers(
    working=TierSpec(decay=10.0, capacity=9, ttl_days=30 * _MINUTE, demote_to="episodic"),
    episodic=TierSpec(decay=3.0, ttl_days=60 * _DAY, demote_utility_below=0.2, demote_to="dormant",
                      promote_to="semantic", promote_accesses=3, promote_utility=0.7, promote_min_age_days=7.0,
                      promote_entity_episodes=3),
    semantic=TierSpec(decay=1.0, ttl_days=60 * _DAY, demote_utility_below=0.2, demote_to="dormant"),
    dormant=TierSpec(decay=0.0, searchable=False, promote_to="episodic"),
)
#: seed 000 (continuum, HOPE): fast (1 min, 1000 items, importance >= 0.8), medium (1 h, 500, 0.5),
#: slow (1 day, 200, 0.3; where memories start), glacial (1 week, 100, archival). A memory is demoted
#: one tier down when idle past its tier's TTL or when its decayed importance falls under the
#: tier's threshold; promoted one up after 3 recalls or at surprise >= 0.7. Every tier stays searchable.
CONTINUUM_TIERS = _tiers(
    fast=TierSpec(decay=4.0, capacity=1000, ttl_days=1 * _MINUTE, importance_threshold=0.8, demote_when="any",
                  demote_to="medium"),
    medium=TierSpec(decay=2.0, capacity=500, ttl_days=1 * _HOUR, importance_threshold=0.5, demote_when="any",
                    demote_to="slow", promote_to="fast", promote_accesses=3, promote_surprise=0.7),
    slow=TierSpec(decay=1.0, capacity=200, ttl_days=1 * _DAY, importance_threshold=0.3, demote_when="any",
                  demote_to="glacial", promote_to="medium", promote_accesses=3, promote_surprise=0.7),
    glacial=TierSpec(decay=0.5, capacity=100, ttl_days=7 * _DAY, promote_to="slow", promote_accesses=3,
                     promote_surprise=0.7),
)
#: seed 003 (MemOS-style lifecycle): hot (the session's working set, 1 h), warm (7 days), cold (the
#: permanent default). cold -> warm on 1 recall in 7 days, warm -> hot on 3 recalls in 7 days; the
#: sweep moves hot -> warm after 1 h idle and warm -> cold after 7 days idle. Every tier stays searchable.
LIFECYCLE_TIERS = _tiers(
    hot=TierSpec(decay=1.0, ttl_days=1 * _HOUR, demote_to="warm"),
    warm=TierSpec(decay=1.0, ttl_days=7 * _DAY, demote_to="cold", promote_to="hot", promote_accesses=3,
                  access_window_days=7.0),
    cold=TierSpec(decay=1.0, promote_to="warm", promote_accesses=1, access_window_days=7.0),
)
PRESETS: dict[str, tuple[dict[str, TierSpec], str]] = {
    "default": (DEFAULT_TIERS, "episodic"), "continuum": (CONTINUUM_TIERS, "slow"), "lifecycle": (LIFECYCLE_TIERS, "cold"),
}


class LifecycleConfig(Frozen):
    """Strength, feedback and tiers: what use teaches about a memory (`engine/lifecycle/`)."""

    # -- strength (FSRS-6 dual strength, ACT-R)
    storage_gain: float = Field(0.5, ge=0, description="Storage strength added by a recall, times (2 - R): a recall of a nearly forgotten memory strengthens it more (the spacing effect). Storage strength never decays.")
    storage_max: float = Field(10.0, gt=1, description="Storage strength runs from 1 (never recalled) to this (seed: 1-10). FSRS stability = the category's stability x storage / the tier's decay.")
    activation_decay: float = Field(0.5, ge=0, description="ACT-R base-level decay d: B = ln(1 + recalls) - d ln(1 + days since last use).")
    importance_half_life_days: float = Field(180.0, gt=0, description="Importance halves in this many days (divided by the tier's decay); permanent kinds and frozen tiers keep theirs.")
    categories: dict[MemoryKind, CategoryRule] = Field(default_factory=lambda: dict(DEFAULT_CATEGORIES), description=(
        "Per kind of memory: decay per day and minimum retention (seed 001). A table here replaces the default table whole; a kind not listed decays as `note`."))
    recent_accesses: int = Field(16, ge=1, le=256, description="Recall times kept per memory, for the access-window rules.")

    # -- utility (seed 001) and surprise (seed 000)
    feedback_rate: float = Field(0.1, gt=0, le=1, description="Utility EMA step: utility += rate x (target - utility), target 1 when a memory helped, 0 when it misled (seed: 0.1, one bad session does not sink a useful memory).")
    utility_drift_per_day: float = Field(0.01, ge=0, le=1, description="Unjudged utility drifts toward the 0.5 prior: utility += min(1, rate x days since the last feedback) x (0.5 - utility).")
    surprise_rate: float = Field(0.3, gt=0, le=1, description="Surprise EMA step: surprise += rate x (max(0, outcome - expected) - surprise), where expected is the utility before the feedback.")

    # -- tiers
    preset: Literal["default", "continuum", "lifecycle"] = Field("default", description=(
        "The tier table: default = working / episodic / semantic / dormant (seed 001: decay x10 / x3 / x1 / frozen); "
        "continuum = fast / medium / slow / glacial (seed 000: TTLs, caps, importance thresholds, surprise); "
        "lifecycle = hot / warm / cold (seed 003: access windows and a sweep)."))
    tiers: dict[str, TierSpec] = Field(default_factory=dict, description="A tier table of your own, highest first (replaces the preset's whole); empty = the preset's.")
    entry_tier: str | None = Field(None, description="The tier of a memory never swept; unset = the preset's (episodic, slow, cold).")
    reactivate_to: str | None = Field(None, description="Where a dormant memory goes when it is recalled; unset = its tier's promote_to, else the entry tier.")

    # -- the sweep
    sweep_max_moves: int = Field(500, ge=1, description="Most memories one sweep moves (the rest wait for the next).")
    sweep_every_hours: float = Field(24.0, ge=0, description="The daemon sweeps when idle this often; 0 = only `mnemex sweep`.")

    # -- the active half: dream cycle, forgetting, working memory, hot tier, scope promotion
    dream: DreamConfig = Field(default_factory=DreamConfig, description="The dream cycle.")
    forgetting: ForgettingConfig = Field(default_factory=ForgettingConfig, description="Strategic forgetting.")
    summaries: SummaryConfig = Field(default_factory=SummaryConfig, description="Category summaries.")
    episodes: EpisodeConfig = Field(default_factory=EpisodeConfig, description="Semantic-shift episode boundaries.")
    concepts: ConceptConfig = Field(default_factory=ConceptConfig, description="Concept nodes.")
    working_memory: WorkingMemoryConfig = Field(default_factory=WorkingMemoryConfig, description="Working memory.")
    hot: HotTierConfig = Field(default_factory=HotTierConfig, description="The hot tier.")
    scope_promotion: ScopePromotionConfig = Field(default_factory=ScopePromotionConfig, description="Promotion across scopes.")

    @model_validator(mode="after")
    def _check_tiers(self) -> "LifecycleConfig":
        table, _entry = self.tier_table, self.entry
        for name, spec in table.items():
            for target in (spec.demote_to, spec.promote_to):
                if target is not None and target not in table:
                    raise ValueError(f"tier {name!r} moves to {target!r}, which is not a tier ({', '.join(table)})")
        for name in (self.entry_tier, self.reactivate_to):
            if name is not None and name not in table:
                raise ValueError(f"{name!r} is not a tier ({', '.join(table)})")
        if not table[self.entry].searchable:
            raise ValueError(f"the entry tier {self.entry!r} must be searchable")
        return self

    @property
    def tier_table(self) -> dict[str, TierSpec]:
        """The tiers in force: `tiers` when given, else the preset's."""
        return self.tiers or PRESETS[self.preset][0]

    @property
    def entry(self) -> str:
        """The tier of a memory the sweep has never placed."""
        if self.entry_tier is not None:
            return self.entry_tier
        default = PRESETS[self.preset][1]
        return default if default in self.tier_table else next(iter(self.tier_table))

    @property
    def dormant_tier(self) -> str | None:
        """Where forgetting sends a memory: the first tier left out of default search, or None
        (presets without one: the memory keeps its tier and is only marked dormant)."""
        return next((name for name, spec in self.tier_table.items() if not spec.searchable), None)

    def category(self, kind: MemoryKind) -> CategoryRule:
        return self.categories.get(kind) or self.categories.get(MemoryKind.NOTE) or _OTHER


DEFAULT_LIFECYCLE = LifecycleConfig()
