"""`Retriever`: one search over a `MemoryStore`, returning ranked memories with reasons.

The query is analysed once into a plan (`plan.py`); then each stage, a function over the
candidate table (`stages/`), runs if `RetrievalConfig` switches it on:
  gate → plan → search (dense + BM25 per searched text, fused; parts of a compound question
  fused by RRF) → successors (the current memory that replaced a superseded or dormant one the
  query matches ranks at least as high as the old one would) → propagate (neighbours in time) → rescore (composite boosts) → co-activation
  (memories recalled together with the top hits lifted; off by default) → routine
  (successful tool runs and reads scaled down unless the question is about runs) → diversify
  (MMR, near-duplicates) → records capped (tool-run records take at most a share of the first
  places unless the question is about runs) → exact (a memory holding a rare term of the query verbatim ranks at
  least as high as BM25 alone ranks it) → resolve (a newer memory that says otherwise leads, the older one is
  marked outdated_by) → results (confidence, context).
"""

from __future__ import annotations

from datetime import datetime

from mnemex.config.lifecycle import DEFAULT_LIFECYCLE, LifecycleConfig
from mnemex.config.retrieval import DEFAULT, RetrievalConfig
from mnemex.embed.dense import DenseEmbedder
from mnemex.embed.sparse import SparseEncoder
from mnemex.embed.vocabulary import Vocabulary
from mnemex.engine.retrieval.candidates import RankedMemory
from mnemex.engine.retrieval.fusion import ranked
from mnemex.engine.retrieval.neighbours import TimelineCache
from mnemex.engine.retrieval.plan import plan_query
from mnemex.engine.retrieval.query import TimeWindow, is_trivial
from mnemex.engine.retrieval.stages.asked_kind import favour_asked
from mnemex.engine.retrieval.stages.coactivation import Partners, coactivation
from mnemex.engine.retrieval.stages.context import ReadContext
from mnemex.engine.retrieval.stages.diversify import diversify
from mnemex.engine.retrieval.stages.exact import exact_floor, holders, rare_terms
from mnemex.engine.retrieval.stages.propagate import propagate
from mnemex.engine.retrieval.stages.records import cap_records, demote_routine
from mnemex.engine.retrieval.stages.rescore import rescore
from mnemex.engine.retrieval.stages.resolve import Resolution, resolve
from mnemex.engine.retrieval.stages.results import results
from mnemex.engine.retrieval.stages.search import Fused, candidates, resolve_anchor
from mnemex.engine.retrieval.stages.successors import through_history, yield_stops
from mnemex.models import MemoryFilter, utcnow
from mnemex.store.base import MemoryStore


class Retriever:
    """Runs the read path for one store. Thread-safe as long as the store and embedders are."""

    def __init__(self, store: MemoryStore, dense: DenseEmbedder, sparse: SparseEncoder,
                 config: RetrievalConfig = DEFAULT, vocabulary: Vocabulary | None = None,
                 lifecycle: LifecycleConfig = DEFAULT_LIFECYCLE):
        self.config = config
        self.lifecycle = lifecycle
        self._ctx = ReadContext(store=store, dense=dense, sparse=sparse, vocabulary=vocabulary,
                                timelines=TimelineCache())
        self.partners: Partners | None = None  # co-activated memories (the journal's), set by the engine

    def search(self, query: str, *, filter: MemoryFilter, limit: int = 10, config: RetrievalConfig | None = None,
               now: datetime | None = None, session_id: str | None = None,
               neighbours: bool | None = None) -> list[RankedMemory]:
        """The best `limit` memories for `query` among those `filter` lets through, best first.

        `now` anchors relative time expressions and recency (default: the current time);
        `session_id` boosts the caller's own session; `neighbours` overrides
        `config.context_neighbours` (attach the neighbours in time of the top hits).
        """
        cfg = config or self.config
        if neighbours is not None:
            cfg = cfg.model_copy(update={"context_neighbours": neighbours})
        text = query.strip()
        if not text or limit <= 0 or (cfg.gate and is_trivial(text)):
            return []
        ctx = self._ctx
        now = now or utcnow()
        plan = plan_query(text, now=now, temporal=cfg.temporal, decomposition=cfg.decomposition,
                          max_subqueries=cfg.max_subqueries)
        flt = filter
        window = plan.window
        if window is not None and window.anchor:
            window = resolve_anchor(ctx, window, flt, cfg)
        if window is not None and cfg.temporal_filter and (window.start or window.end):
            flt = _narrow(flt, window)

        rare = rare_terms(ctx, plan.exact, flt, cfg) if plan.exact and (cfg.exact_floor or cfg.exact_anchor) else ()
        fused = Fused()
        qvec, cands = candidates(ctx, plan, flt, limit, cfg, rare, fused)
        if not cands:
            return []
        stopped = through_history(ctx, cands, qvec, flt, cfg, fused) \
            if cfg.history_candidates and not plan.compound else {}
        if cfg.propagation:
            cands = propagate(ctx, cands, qvec, flt, cfg)
        order = ranked({cid: c.relevance for cid, c in cands.items()})
        if cfg.composite:
            order = rescore(order, cands, cfg, plan, window, now, session_id, limit, self.lifecycle)
        order = coactivation(order, cands, cfg, limit, self.partners)
        order = demote_routine(order, cands, cfg, plan.about_runs, query)
        order = favour_asked(order, cands, cfg, query)
        order = diversify(ctx, order, cands, cfg, limit)
        order = cap_records(order, cands, cfg, plan.about_runs, limit)
        order = yield_stops(order, cands, stopped)
        if cfg.exact_floor and rare:
            order = exact_floor(order, cands, holders(rare, cands, cfg.exact_max_df))
        marks = resolve(ctx, order, cands, cfg, flt, limit, qvec, text) if cfg.resolution else Resolution(order)
        return results(ctx, marks.order[:limit], cands, cfg, flt, limit, marks.outdated, marks.hints)


def _narrow(flt: MemoryFilter, window: TimeWindow) -> MemoryFilter:
    after, before = window.start, window.end
    if flt.created_after is not None and after is not None:
        after = max(after, flt.created_after)
    if flt.created_before is not None and before is not None:
        before = min(before, flt.created_before)
    return flt.model_copy(update={"created_after": after or flt.created_after,
                                  "created_before": before or flt.created_before})


__all__ = ["RankedMemory", "Retriever"]
