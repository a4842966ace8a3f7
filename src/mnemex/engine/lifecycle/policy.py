"""The tier policy: from a memory's state, where it should be. Pure (no store, no clock).

One policy for every tier table (`config/lifecycle.py`: default, continuum, lifecycle or your
own). A memory is promoted when any of its tier's promotion rules holds (recalls, within a window
when one is set; sustained utility with age; an entity shared with memories of other sessions;
surprise), demoted when its tier's demotion rules hold (idle past the TTL; utility under the
floor; decayed importance under the threshold — all of those set, or any, per tier). Pinned,
immutable and flashbulb memories never move; a memory of a permanent kind, or younger than its
kind's minimum retention, is never moved into a tier left out of default search. A tier over its
capacity hands its weakest memories down (`over_capacity`).

The demotion rule reads the utility as feedback left it, not its drift back to the prior: with
the seed's drift (1% a day) a memory idle for the seed's 60 days has drifted most of the way back
to 0.5, so "idle >= 60 days and utility < 0.2" could never hold on the drifted value.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Iterable, Literal

from mnemex.config.lifecycle import LifecycleConfig, TierSpec
from mnemex.engine.lifecycle.slices import sorted_in_slices
from mnemex.engine.lifecycle.strength import Strength, assess, days_between
from mnemex.models import RECORD_KINDS, Memory


@dataclass(frozen=True, slots=True)
class Move:
    """A tier change the policy asks for."""

    memory_id: str
    source: str
    target: str
    direction: Literal["promote", "demote"]
    reason: str


def is_record(memory: Memory) -> bool:
    """A record of a moment, not knowledge: a tool run, an episode, or chatter ("ok, thanks", "let
    me check the logs first"). Records are never rehearsed, tagged or promoted by the entities they
    share, and are compared with nothing."""
    return memory.kind in RECORD_KINDS or memory.is_chatter


def exempt(memory: Memory) -> bool:
    """Truth anchors and flashbulb memories stay where they are."""
    return memory.pinned or memory.immutable or bool(memory.metadata.get("flashbulb"))


def may_enter(memory: Memory, target: str, strength: Strength, config: LifecycleConfig) -> bool:
    """Whether `memory` may move into `target`: a tier outside default search only after its
    kind's minimum retention (never for a permanent kind)."""
    spec = config.tier_table[target]
    if spec.searchable:
        return True
    keep = config.category(memory.kind).min_retention_days
    return keep is not None and strength.age_days >= keep


def recalls_counted(memory: Memory, spec: TierSpec, now: datetime) -> int:
    """Recalls that count toward promotion: all, or those within the tier's access window."""
    if spec.access_window_days is None:
        return memory.access_count
    return sum(1 for at in memory.lifecycle.recent_accesses if days_between(at, now) <= spec.access_window_days)


def promotion(memory: Memory, spec: TierSpec, strength: Strength, now: datetime, entity_sessions: int) -> str | None:
    """Why the memory earns promotion out of its tier (the first rule that holds), or None."""
    if spec.promote_to is None:
        return None
    if spec.promote_accesses is not None:
        n = recalls_counted(memory, spec, now)
        if n >= spec.promote_accesses:
            window = f" in {spec.access_window_days:g} days" if spec.access_window_days is not None else ""
            return f"{n} recalls{window}"
    if spec.promote_utility is not None and memory.lifecycle.utility_at is not None \
            and strength.utility >= spec.promote_utility and strength.age_days >= spec.promote_min_age_days:
        return f"utility {strength.utility:.2f} at {strength.age_days:.0f} days"
    # convergent evidence is for knowledge: a test run that names a busy component in every session
    # is not knowledge because of it (on the year benchmark this rule promoted tool runs by the hundred)
    if spec.promote_entity_episodes is not None and entity_sessions >= spec.promote_entity_episodes \
            and not is_record(memory):
        return f"an entity shared with {entity_sessions} memories of other sessions"
    if spec.promote_surprise is not None and memory.lifecycle.surprise >= spec.promote_surprise:
        return f"surprise {memory.lifecycle.surprise:.2f}"
    return None


def demotion(memory: Memory, spec: TierSpec, strength: Strength) -> str | None:
    """Why the memory falls out of its tier (the rules that hold, per `demote_when`), or None."""
    if spec.demote_to is None:
        return None
    rules: list[tuple[bool, str]] = []
    if spec.ttl_days is not None:
        rules.append((strength.idle_days >= spec.ttl_days, f"idle {strength.idle_days:.1f} days"))
    if spec.demote_utility_below is not None:
        utility = memory.lifecycle.utility
        rules.append((utility < spec.demote_utility_below, f"utility {utility:.2f}"))
    if spec.importance_threshold > 0:
        rules.append((strength.importance < spec.importance_threshold, f"importance {strength.importance:.2f}"))
    if not rules:
        return None
    held = [why for ok, why in rules if ok]
    if (spec.demote_when == "all" and len(held) == len(rules)) or (spec.demote_when == "any" and held):
        return " and ".join(held)
    return None


def decide(memory: Memory, now: datetime, config: LifecycleConfig, *, entity_sessions: int = 0) -> Move | None:
    """The move the policy asks for `memory` at `now`, or None (promotion is checked first)."""
    if exempt(memory):
        return None
    strength = assess(memory, now, config)
    spec = config.tier_table.get(strength.tier)
    if spec is None:  # a tier the table no longer has (the config changed): back to the entry tier
        return Move(memory.id, strength.tier, config.entry, "demote", f"tier {strength.tier!r} is not configured")
    why = promotion(memory, spec, strength, now, entity_sessions)
    if why is not None and spec.promote_to is not None:
        return Move(memory.id, strength.tier, spec.promote_to, "promote", why)
    why = demotion(memory, spec, strength)
    if why is not None and spec.demote_to is not None and may_enter(memory, spec.demote_to, strength, config):
        return Move(memory.id, strength.tier, spec.demote_to, "demote", why)
    return None


def over_capacity(members: Iterable[tuple[Memory, Strength]], spec: TierSpec, tier: str,
                  config: LifecycleConfig, *, room: int | None = None) -> list[Move]:
    """The weakest members beyond `room` (default: the tier's capacity), by held strength, then
    utility, then importance, handed down to the tier's demote_to; exempt ones are kept and never
    chosen as weakest."""
    if spec.capacity is None or spec.demote_to is None:
        return []
    members = list(members)
    excess = len(members) - (spec.capacity if room is None else room)
    if excess <= 0:
        return []
    movable = [(m, s) for m, s in members if not exempt(m) and may_enter(m, spec.demote_to, s, config)]
    movable = sorted_in_slices(movable, key=lambda ms: (ms[1].held(config.storage_max), ms[1].utility,
                                                        ms[1].importance, ms[0].id), first=excess)
    return [Move(m.id, tier, spec.demote_to, "demote", f"over the {tier} tier's capacity of {spec.capacity}")
            for m, _ in movable]
