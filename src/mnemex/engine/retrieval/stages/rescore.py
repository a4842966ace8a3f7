"""Composite re-scoring of the head of the ranking: entity, session, time window, activation,
importance, utility, strength and trust boosts on top of the fused relevance (`scoring.composite_score`)."""

from __future__ import annotations

from datetime import datetime

from mnemex.config.lifecycle import DEFAULT_LIFECYCLE, LifecycleConfig
from mnemex.config.retrieval import RetrievalConfig
from mnemex.engine.retrieval.candidates import Candidates
from mnemex.engine.retrieval.fusion import ranked
from mnemex.engine.retrieval.plan import QueryPlan
from mnemex.engine.retrieval.query import TimeWindow
from mnemex.engine.retrieval.scoring import composite_score


def rescore(order: list[str], cands: Candidates, cfg: RetrievalConfig, plan: QueryPlan,
            window: TimeWindow | None, now: datetime, session_id: str | None, limit: int,
            lifecycle: LifecycleConfig = DEFAULT_LIFECYCLE) -> list[str]:
    head = order[: max(cfg.propagate_top, 3 * limit, cfg.mmr_pool if cfg.mmr else 0)]
    scores: dict[str, float] = {}
    for key in head:
        cand = cands[key]
        cand.relevance = composite_score(cand.memory, cand.relevance, weights=cfg.weights, now=now,
                                         entities=plan.entities, session_id=session_id, window=window,
                                         why=cand.why, lifecycle=lifecycle)
        scores[key] = cand.relevance
    return ranked(scores) + order[len(head):]
