"""Co-activation boost: memories recalled together before (the dream's `related_to` weights, seed
001's Hebbian wiring) lift each other. A candidate near the top (the first 3 x limit) wired to one
of the top 3 hits ranked above it gets its score multiplied by 1 + `coactivation_boost` x the
strongest such weight; the head is re-ranked. Off unless `coactivation_boost` > 0 and the engine gives partners."""

from __future__ import annotations

from typing import Callable, Mapping, Sequence

from mnemex.config.retrieval import RetrievalConfig
from mnemex.engine.retrieval.candidates import Candidate
from mnemex.engine.retrieval.fusion import ranked

#: ids -> for each, the memories it was co-activated with and the relation weight
Partners = Callable[[Sequence[str]], Mapping[str, Mapping[str, float]]]
TOP = 3


def coactivation(order: list[str], cands: Mapping[str, Candidate], cfg: RetrievalConfig, limit: int,
                 partners: Partners | None) -> list[str]:
    if partners is None or cfg.coactivation_boost <= 0 or len(order) < 2:
        return order
    top = order[:TOP]
    wired = partners(top)
    head = order[: max(3 * limit, TOP + 1)]
    scores = {key: cands[key].relevance for key in head}
    changed = False
    for j, key in enumerate(head[1:], start=1):
        weight = max((wired.get(t, {}).get(key, 0.0) for t in top[:j]), default=0.0)  # only hits above it
        if weight > 0:
            scores[key] *= 1.0 + cfg.coactivation_boost * weight
            cands[key].relevance = scores[key]
            cands[key].why.append(f"co-activated x{1.0 + cfg.coactivation_boost * weight:.2f}")
            changed = True
    return ranked(scores) + order[len(head):] if changed else order
