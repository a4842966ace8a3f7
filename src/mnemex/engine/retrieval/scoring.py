"""Composite re-scoring of fused candidates, and a per-result confidence.

final = relevance                                   (fused BM25 + dense, with neighbour propagation)
      + w_entity     · min(entity overlap, cap)     (query names the speaker / an entity / a tag)
      + w_session    · [same session as the caller]  (episode boost)
      + w_temporal   · [created inside the query's time window]
      + w_activation · ACT-R base-level activation   (recency and frequency of use)
      + w_importance · (importance − 0.5)
      + w_utility    · utility                       (metadata["utility"], set by the lifecycle)
then × a trust factor for memories from low-confidence sources.
"""

from __future__ import annotations

import math
import re
from datetime import datetime, timedelta, timezone

from mnemex.embed.sparse import code_names
from mnemex.config.retrieval import CompositeWeights
from mnemex.engine.retrieval.query.temporal import TimeWindow
from mnemex.models import Memory

_CAPITALISED = re.compile(r"\b[A-Z][\w'-]*[A-Za-z0-9]\b|\b[A-Z]\b")
# runs of word characters and . / - (anchored and possessive: linear time on any input); a run is an
# identifier when a separator sits inside it (paths, snake_case, dotted names)
_RUN = re.compile(r"(?<![\w./-])[\w./-]++")
_INNER_SEPARATOR = re.compile(r"\w[_./]+\w|_")
_CAMEL_WORD = re.compile(r"\b\w*[a-z][A-Z]\w*\b")
_ERROR_CODE = re.compile(r"\b[A-Z]{1,5}-?\d{2,}\b")
_NOT_ENTITIES = frozenset("""
i what which where when why who whom whose how is are was were do does did has have had can could should
would will might may must the a an and or but if then so in on at by for with from to of about
""".split())


def query_entities(query: str) -> frozenset[str]:
    """Lower-cased names and identifiers a query mentions: capitalised words (not question words),
    paths, snake/camelCase identifiers, error codes. Possessive 's is dropped."""
    found = set()
    for m in _CAPITALISED.finditer(query):
        word = re.sub(r"'s$", "", m.group(0)).lower()
        if word not in _NOT_ENTITIES and len(word) > 1:
            found.add(word)
    for token in _identifiers(query):
        token = token.strip("./-").lower()
        if len(token) > 1:
            found.add(token)
    return frozenset(found)


def _identifiers(query: str) -> list[str]:
    out = [m.group(0) for m in _RUN.finditer(query) if _INNER_SEPARATOR.search(m.group(0).strip("./-"))]
    out += [m.group(0) for m in _CAMEL_WORD.finditer(query)]
    out += [m.group(0) for m in _ERROR_CODE.finditer(query)]
    return out


def names_code(query: str) -> bool:
    """Does the query name code (a path, a snake/camel/kebab-case identifier, an error code)? Such a
    query is anchored in its words: a BM25 match on them is evidence, whatever the embedding says."""
    return bool(code_names(query)[1]) or _ERROR_CODE.search(query) is not None


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
    """ACT-R base-level activation squashed to 0..1.

    B = ln(1 + uses) − d·ln(1 + age_days), age since the last access (or creation);
    activation = sigmoid(B + 1.5): 0.82 for a fresh unused memory, about 0.45 after a month,
    0.2 after a year; each use lifts it.
    """
    last = memory.last_accessed_at or memory.created_at
    age_days = max((_utc(now) - _utc(last)).total_seconds(), 0.0) / 86_400.0
    base = math.log1p(max(memory.access_count, 0)) - decay * math.log1p(age_days)
    return 1.0 / (1.0 + math.exp(-(base + 1.5)))


def composite_score(memory: Memory, relevance: float, *, weights: CompositeWeights, now: datetime,
                    entities: frozenset[str], session_id: str | None, window: TimeWindow | None,
                    why: list[str]) -> float:
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
        act = actr_activation(memory, now)
        score += weights.activation * act
        if act >= 0.7:
            why.append("recent")
    if weights.importance:
        score += weights.importance * (memory.importance - 0.5)
    utility = memory.metadata.get("utility") if memory.metadata else None
    if weights.utility and isinstance(utility, (int, float)):
        score += weights.utility * max(0.0, min(1.0, float(utility)))
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
