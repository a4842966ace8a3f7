"""Composite re-scoring of fused candidates, and a per-result confidence.

final = relevance                                   (fused BM25 + dense, with neighbour propagation)
      + w_entity     · min(entity overlap, cap)     (query names the speaker / an entity / a tag)
      + w_session    · [same session as the caller]  (episode boost)
      + w_temporal   · [created inside the query's time window]
      + w_activation · ACT-R base-level activation   (recency and frequency of recall)
      + w_importance · (importance − 0.5)            (after its half-life decay, `decayed_importance`)
      + w_utility    · (utility − 0.5)               (feedback, drifting back to the 0.5 prior)
      + w_strength   · R · (storage − 1)/(max − 1)   (dual strength: recalls held, as far as still retrievable)
then × a trust factor for memories from low-confidence sources. The lifecycle signals come from
`engine/lifecycle/strength.assess`; a memory never recalled nor judged gets 0 from utility and
strength, so a fresh import ranks as it did before the lifecycle existed.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta, timezone

from mnemex.config.lifecycle import DEFAULT_LIFECYCLE, LifecycleConfig
from mnemex.config.retrieval import CompositeWeights
from mnemex.engine.lifecycle.strength import assess
from mnemex.engine.lifecycle.strength import actr_activation as base_level
from mnemex.engine.lifecycle.strength import days_between
from mnemex.engine.retrieval.query.temporal import TimeWindow
from mnemex.models import Memory

def memory_entities(memory: Memory) -> frozenset[str]:
    """What a memory is about, from its metadata (not its text, which BM25 already covers)."""
    names = {e.lower() for e in memory.entities}
    names.update(t.lower() for t in memory.tags)
    prov = memory.provenance
    if prov.speaker:
        names.add(prov.speaker.lower())
        names.update(part.lower() for part in prov.speaker.split() if len(part) > 1)
    if prov.reference:
        ref = prov.reference.lower()
        names.add(ref)
        names.add(ref.rstrip("/").rsplit("/", 1)[-1])
    return frozenset(names)


def actr_activation(memory: Memory, now: datetime, decay: float = 0.5) -> float:
    """ACT-R base-level activation of `memory` squashed to 0..1 (`strength.actr_activation`):
    recalls and the time since the last one (or since creation)."""
    return base_level(memory.access_count, days_between(memory.last_accessed_at or memory.created_at, now), decay)


def composite_score(memory: Memory, relevance: float, *, weights: CompositeWeights, now: datetime,
                    entities: frozenset[str], session_id: str | None, window: TimeWindow | None,
                    why: list[str], lifecycle: LifecycleConfig = DEFAULT_LIFECYCLE) -> float:
    """`relevance` plus the weighted boosts; appends the boosts that fired to `why`."""
    score = relevance
    if entities and weights.entity:
        overlap = sorted(entities & memory_entities(memory))
        if overlap:
            score += weights.entity * min(len(overlap), weights.entity_cap)
            why.extend(f"entity:{name}" for name in overlap[: weights.entity_cap])
    if session_id and weights.session and memory.provenance.session_id == session_id:
        score += weights.session
        why.append("session")
    if window is not None and weights.temporal and (window.start or window.end):
        slack = timedelta(days=weights.temporal_slack_days)
        if window.contains(_utc(memory.created_at), slack):
            score += weights.temporal
            why.append("temporal")
    if weights.activation:
        act = actr_activation(memory, now, lifecycle.activation_decay)
        score += weights.activation * act
        if act >= 0.7:
            why.append("recent")
    state = memory.lifecycle
    # strength is what recalls built: a memory the dream rehearsed (or kept vivid) but nobody ever
    # recalled keeps its retention, not a lead over its never-recalled peers
    judged, recalled = state.utility_at is not None, state.storage > 1.0 and memory.access_count > 0
    # the strength signals only for what needs them: a memory never recalled nor judged costs nothing more
    held = assess(memory, now, lifecycle) if (weights.importance and weights.importance_decay) \
        or (weights.utility and judged) or (weights.strength and recalled) else None
    if weights.importance:
        importance = held.importance if held is not None and weights.importance_decay else memory.importance
        score += weights.importance * (importance - 0.5)
    if weights.utility and judged and held is not None:
        score += weights.utility * (held.utility - 0.5)
        if held.utility >= 0.51:
            why.append("helped")
        elif held.utility <= 0.49:
            why.append("misled")
    if weights.strength and recalled and held is not None:
        strength = held.held(lifecycle.storage_max)
        score += weights.strength * strength
        if strength >= 0.2:
            why.append("strong")
    if state.dormant:
        why.append("dormant")  # only a search that asked for dormant memories sees one
    if memory.pinned and weights.pinned:
        score += weights.pinned
        why.append("pinned")
    if memory.confidence < weights.low_trust_below:
        score *= weights.low_trust_factor
    return score


def confidence(cosine: float | None, bm25_share: float, rank: int) -> float:
    """0..1: how likely a hit answers the query, from absolute signals (not the rank alone).

    The dense cosine is mapped through a logistic centred at 0.35 (MiniLM: unrelated text sits
    near 0.1, paraphrases above 0.6); `bm25_share` is the hit's BM25 score over the best one.
    A small rank discount keeps the order monotone-ish.
    """
    dense_part = 0.0 if cosine is None else 1.0 / (1.0 + math.exp(-(cosine - 0.35) * 12.0))
    value = 0.65 * dense_part + 0.35 * max(0.0, min(1.0, bm25_share))
    return round(max(0.0, min(1.0, value * (1.0 - 0.01 * min(rank, 20)))), 4)


def _utc(value: datetime) -> datetime:
    return value.replace(tzinfo=timezone.utc) if value.tzinfo is None else value
