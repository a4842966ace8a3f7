"""A question that asks what was decided ("what did we decide about the cache?", "which
database did we choose?") is answered by a decision: the memories the observer classified as
decisions get their relevance scaled by `decision_boost`. Valid facts about the same component
otherwise outrank the decision on the shared name alone."""

from __future__ import annotations

import re

from mnemex.config.retrieval import RetrievalConfig
from mnemex.engine.retrieval.candidates import Candidates
from mnemex.engine.retrieval.fusion import ranked
from mnemex.models import MemoryKind

_ASKS_DECISION = re.compile(r"\b(?:decide[ds]?|deciding|decisions?|agreed|agree on|chose|chosen|choose|"
                            r"settled on|went with|go with)\b", re.I)


def asks_for_decision(query: str) -> bool:
    return _ASKS_DECISION.search(query) is not None


def favour_decisions(order: list[str], cands: Candidates, cfg: RetrievalConfig, query: str) -> list[str]:
    """`order` with the decisions' relevance scaled by `decision_boost` (re-ranked) when the
    question asks what was decided."""
    if cfg.decision_boost <= 1.0 or not asks_for_decision(query):
        return order
    chosen = [key for key in order if cands[key].hit.kind == MemoryKind.DECISION.value]
    for key in chosen:
        cands[key].relevance *= cfg.decision_boost
        cands[key].why.append("a decision, asked for")
    return ranked({key: cands[key].relevance for key in order}) if chosen else order
