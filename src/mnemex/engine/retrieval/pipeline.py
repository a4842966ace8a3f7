"""`Retriever`: one search over a `MemoryStore`, returning ranked memories with reasons.

Stages (each switchable in `RetrievalConfig`):
  gate → plan (intent, time window, sub-queries) → per sub-query: dense search + BM25 search,
  fused by score (or RRF; the embedding leads when the words are no anchor: the best BM25 match
  is unrelated, or most query words are in no memory) → sub-queries fused by RRF → neighbour propagation (same session,
  adjacent in time) → composite re-score → near-duplicate removal / MMR → confidence.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Sequence

import numpy as np

from mnemex.embed.dense import DenseEmbedder
from mnemex.embed.sparse import SparseEncoder
from mnemex.embed.vocabulary import Vocabulary
from mnemex.config.retrieval import DEFAULT, RetrievalConfig
from mnemex.engine.retrieval.fusion import convex_fusion, max_normalize, mmr, ranked, rrf
from mnemex.engine.retrieval.neighbours import TimelineCache
from mnemex.engine.retrieval.query import (
    QueryPlan,
    TimeWindow,
    hypothetical_documents,
    is_trivial,
    plan_query,
)
from mnemex.engine.retrieval.scoring import composite_score, confidence, names_code, query_entities
from mnemex.models import Memory, MemoryFilter, SparseVec, utcnow
from mnemex.store.base import Hit, MemoryStore, VectorQuery


@dataclass(frozen=True, slots=True)
class RankedMemory:
    """One search result: the memory, its final score, a 0..1 confidence and why it matched."""

    memory: Memory
    score: float
    confidence: float
    why: tuple[str, ...] = ()
    context_of: str | None = None  # id of the hit this memory is a neighbour in time of


@dataclass(slots=True)
class _Candidate:
    hit: Hit
    cosine: float | None = None
    bm25: float = 0.0
    bm25_share: float = 0.0
    relevance: float = 0.0
    why: list[str] = field(default_factory=list)
    memory: Memory | None = None

    def as_memory(self) -> Memory:
        if self.memory is None:
            self.memory = self.hit.memory
        return self.memory


class Retriever:
    """Runs the read path for one store. Thread-safe as long as the store and embedders are."""

    def __init__(self, store: MemoryStore, dense: DenseEmbedder, sparse: SparseEncoder,
                 config: RetrievalConfig = DEFAULT, vocabulary: Vocabulary | None = None):
        self._store = store
        self._dense = dense
        self._sparse = sparse
        self._vocabulary = vocabulary
        self.config = config
        self._timelines = TimelineCache()

    # ------------------------------------------------------------------ public
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
        now = now or utcnow()
        plan = plan_query(text, now=now, temporal=cfg.temporal, decomposition=cfg.decomposition,
                          max_subqueries=cfg.max_subqueries)
        flt = filter
        window = plan.window
        if window is not None and window.anchor:
            window = self._resolve_anchor(window, flt, cfg)
        if window is not None and cfg.temporal_filter and (window.start or window.end):
            flt = _narrow(flt, window)

        qvec, cands = self._fused_candidates(plan, flt, cfg, limit)
        if not cands:
            return []
        if cfg.propagation:
            cands = self._propagate(cands, qvec, flt, cfg)
        order = ranked({cid: c.relevance for cid, c in cands.items()})
        if cfg.composite:
            order = self._rescore(order, cands, cfg, plan, window, now, session_id, limit)
        order = self._diversify(order, cands, cfg, limit)
        return self._results(order[:limit], cands, cfg, flt, limit)

    # ------------------------------------------------------- candidate search
    def _fused_candidates(self, plan: QueryPlan, flt: MemoryFilter, cfg: RetrievalConfig,
                          limit: int) -> tuple[list[float] | None, dict[str, _Candidate]]:
        dense_w, sparse_w, pool = cfg.dense_weight, cfg.sparse_weight, max(cfg.candidates, limit)
        if cfg.intent_routing and plan.intent in cfg.intent_profiles:
            prof = cfg.intent_profiles[plan.intent]
            dense_w, sparse_w, pool = prof.dense_weight, prof.sparse_weight, max(prof.candidates, limit)
        if len(plan.subqueries) == 1:
            return self._search_one(plan.text, plan, flt, cfg, dense_w, sparse_w, pool)
        # Compound question: the whole query and each part run separately, fused by RRF.
        qvec, merged = self._search_one(plan.text, plan, flt, cfg, dense_w, sparse_w, pool)
        lists = [ranked({k: c.relevance for k, c in merged.items()})]
        best = max((c.relevance for c in merged.values()), default=1.0)
        for sub in plan.subqueries:
            _, part = self._search_one(sub, plan, flt, cfg, dense_w, sparse_w, pool)
            lists.append(ranked({k: c.relevance for k, c in part.items()}))
            for key, cand in part.items():
                if key not in merged:
                    merged[key] = cand
                    cand.why.append("subquery")
        fused = max_normalize(rrf(lists, k=cfg.rrf_k))
        for key, cand in merged.items():
            cand.relevance = fused.get(key, 0.0) * best
        return qvec, merged

    def _search_one(self, text: str, plan: QueryPlan, flt: MemoryFilter, cfg: RetrievalConfig,
                    dense_w: float, sparse_w: float, pool: int) -> tuple[list[float] | None, dict[str, _Candidate]]:
        qvec = self._query_vector(text, plan, cfg) if cfg.use_dense else None
        svec = self._sparse.embed_query(text) if cfg.use_sparse else None
        if svec is not None and not svec.indices:
            svec = None
        cands: dict[str, _Candidate] = {}
        lexical = self._expanded(text, svec, cfg) if svec is not None else None
        dense_hits = self._store.query(VectorQuery(dense=qvec, filter=flt, limit=pool)) if qvec is not None else []
        sparse_hits = self._store.query(VectorQuery(sparse=lexical, filter=flt, limit=pool)) if lexical is not None else []
        for h in dense_hits:
            cands[h.id] = _Candidate(hit=h, cosine=h.score, why=["dense"])
        for h in sparse_hits:
            cand = cands.get(h.id)
            if cand is None:
                cand = cands[h.id] = _Candidate(hit=h)
            cand.bm25 = h.score
            cand.why.append("bm25")
        if not cands:
            return qvec, cands
        bm25_top = max((c.bm25 for c in cands.values()), default=0.0)
        for cand in cands.values():
            cand.bm25_share = cand.bm25 / bm25_top if bm25_top > 0 else 0.0
        if qvec is not None:
            missing = [k for k, c in cands.items() if c.cosine is None]
            if missing:
                for key, score in self._store.dense_scores(qvec, missing).items():
                    cands[key].cosine = score
        if cfg.fusion == "rrf":
            # rescaled to 0..1 (1 = first in every list) so the composite boosts keep their meaning
            best = sum(w / (cfg.rrf_k + 1) for w, hits in ((dense_w, dense_hits), (sparse_w, sparse_hits)) if hits)
            scores = {k: v / best for k, v in rrf([[h.id for h in dense_hits], [h.id for h in sparse_hits]],
                                                  [dense_w, sparse_w], k=cfg.rrf_k).items()} if best > 0 else {}
        else:
            if dense_w > 0 and sparse_w > 0 and not names_code(text) and (
                    _lexical_match_unrelated(cands, cfg) or self._vocabulary_missing(svec, flt, cfg)):
                dense_w, sparse_w = _lean_on_embedding(cfg, dense_w, sparse_w)
            scores = convex_fusion({k: c.bm25 for k, c in cands.items() if c.bm25 > 0},
                                   {k: c.cosine for k, c in cands.items() if c.cosine is not None},
                                   sparse_weight=sparse_w, dense_weight=dense_w)
        for key, cand in cands.items():
            cand.relevance = scores.get(key, 0.0)
        return qvec, cands

    def _expanded(self, text: str, svec: SparseVec, cfg: RetrievalConfig) -> SparseVec:
        """The query's BM25 vector plus the memory words nearest in meaning to its words, each
        weighted `expansion_weight` × cosine ("career" also looks for "jobs"). The rules that ask
        whether the query's own words are in memory keep using `svec`."""
        if not cfg.expansion or self._vocabulary is None or cfg.expansion_terms <= 0:
            return svec
        extra = self._vocabulary.expand(text, floor=cfg.expansion_floor, per_word=cfg.expansion_terms,
                                        weight=cfg.expansion_weight, exclude=svec.indices)
        if not extra:
            return svec
        return SparseVec(svec.indices + tuple(extra), svec.values + tuple(extra.values()))

    def _vocabulary_missing(self, svec: SparseVec | None, flt: MemoryFilter, cfg: RetrievalConfig) -> bool:
        """Do too many of the query's words occur in no memory at all?

        "Would she pursue writing as a career option?" — when "pursue" and "option" are nowhere in
        memory, BM25 can only match the rest of the question, which is not what it asks; the
        embedding, which knows "career" is near "jobs", should lead. One tiny BM25 lookup per
        query word (limit 1), under the same filter; queries of one word are left alone.
        """
        if cfg.vocabulary_floor <= 0 or svec is None or len(svec.indices) < 2:
            return False
        total = len(svec.indices)
        present = missing = 0
        for index, value in zip(svec.indices, svec.values):
            if self._store.query(VectorQuery.term(index, flt, value)):
                present += 1
            else:
                missing += 1
            # stop as soon as the answer is known (a remote store pays a round trip per word)
            if present / total >= cfg.vocabulary_floor:
                return False
            if (total - missing) / total < cfg.vocabulary_floor:
                return True
        return present / total < cfg.vocabulary_floor

    def _query_vector(self, text: str, plan: QueryPlan, cfg: RetrievalConfig) -> list[float]:
        vec = self._dense.embed_query(text)
        if not cfg.hyde or cfg.hyde_weight <= 0:
            return vec
        variants = hypothetical_documents(text, plan.intent)
        if not variants:
            return vec
        extra = self._dense.embed_documents(variants)
        mixed = [v + cfg.hyde_weight * sum(e[i] for e in extra) / len(extra) for i, v in enumerate(vec)]
        norm = sum(x * x for x in mixed) ** 0.5 or 1.0
        return [x / norm for x in mixed]

    def _resolve_anchor(self, window: TimeWindow, flt: MemoryFilter, cfg: RetrievalConfig) -> TimeWindow | None:
        """"before/after <event>": the time of the best match for the event bounds the window."""
        assert window.anchor is not None
        probe = cfg.model_copy(update={"propagation": False, "composite": False, "decomposition": False,
                                       "temporal": False, "hyde": False, "candidates": 10})
        plan = QueryPlan(text=window.anchor, intent=plan_query(window.anchor, now=utcnow()).intent,
                         window=None, subqueries=(window.anchor,))
        _, cands = self._search_one(window.anchor, plan, flt, probe, probe.dense_weight, probe.sparse_weight, 10)
        if not cands:
            return None
        best = max(cands.values(), key=lambda c: c.relevance)
        if best.bm25_share <= 0 and (best.cosine or 0.0) < 0.5:
            return None  # the event is not in memory: no reliable bound
        when = best.as_memory().created_at
        if window.anchor_side == "before":
            return TimeWindow(None, when, text=window.text)
        return TimeWindow(when, None, text=window.text)

    # -------------------------------------------------------------- neighbours
    def _propagate(self, cands: dict[str, _Candidate], qvec: list[float] | None, flt: MemoryFilter,
                   cfg: RetrievalConfig) -> dict[str, _Candidate]:
        """Answers follow questions: a memory gains a share of its neighbours' relevance.

        Neighbours are the previous/next memories of the same session by created_at. Only the
        top `propagate_top` candidates and their neighbours are considered; a neighbour that was
        not a candidate is scored by its cosine alone (its BM25 was below the candidate cut).
        """
        top = ranked({k: c.relevance for k, c in cands.items()})[: cfg.propagate_top]
        links = self._timelines.links(self._store, [cands[k].hit for k in top])
        if links.empty:
            return cands
        focus = set(top)
        for key in top:
            focus.update(n for n in links.neighbours(key) if n is not None)
        scope = set(focus)
        for key in focus:
            scope.update(n for n in links.neighbours(key) if n is not None)
        new = [k for k in scope if k not in cands]
        if new and qvec is not None:
            # one filtered query: cosine and payload of the neighbours the filter lets through
            for hit in self._fetch(new, qvec, flt):
                # below both candidate cuts: with score fusion its cosine still counts, with RRF it has no rank
                own = cfg.dense_weight * hit.score if cfg.fusion == "score" else 0.0
                cands[hit.id] = _Candidate(hit=hit, cosine=hit.score, relevance=own)
        base = {k: c.relevance for k, c in cands.items()}
        for key in focus:
            cand = cands.get(key)
            if cand is None:
                continue
            prev_key, next_key = links.neighbours(key)
            gain = 0.0
            if prev_key is not None and prev_key in base:
                gain += (cfg.answer_weight if links.asks(prev_key) else cfg.follow_weight) * base[prev_key]
            if next_key is not None and next_key in base:
                gain += cfg.lead_weight * base[next_key]
            cand.relevance = base[key] + gain
            if gain > 0.05 and gain > 0.5 * base[key]:
                cand.why.append("neighbour")
        return cands

    def _fetch(self, ids: Sequence[str], qvec: list[float], flt: MemoryFilter) -> list[Hit]:
        """The memories `ids` that pass `flt`, scored by cosine to `qvec`."""
        return self._store.query(VectorQuery(dense=qvec, filter=flt.model_copy(update={"ids": tuple(ids)}),
                                             limit=len(ids)))

    # ------------------------------------------------------- re-score, diversify
    def _rescore(self, order: list[str], cands: dict[str, _Candidate], cfg: RetrievalConfig, plan: QueryPlan,
                 window: TimeWindow | None, now: datetime, session_id: str | None, limit: int) -> list[str]:
        head = order[: max(cfg.propagate_top, 3 * limit, cfg.mmr_pool if cfg.mmr else 0)]
        entities = query_entities(plan.text)
        scores: dict[str, float] = {}
        for key in head:
            cand = cands[key]
            cand.relevance = composite_score(cand.as_memory(), cand.relevance, weights=cfg.weights, now=now,
                                             entities=entities, session_id=session_id, window=window,
                                             why=cand.why)
            scores[key] = cand.relevance
        return ranked(scores) + order[len(head):]

    def _diversify(self, order: list[str], cands: dict[str, _Candidate], cfg: RetrievalConfig,
                   limit: int) -> list[str]:
        dedupe = cfg.dedupe_above < 1.0
        if not (cfg.mmr or dedupe) or not cfg.use_dense:
            return order
        pool = order[: max(cfg.mmr_pool if cfg.mmr else 0, 2 * limit)]
        vectors = self._vectors(pool, cands)
        pool = [k for k in pool if k in vectors]
        if len(pool) < 2:
            return order
        index = {k: i for i, k in enumerate(pool)}
        mat = np.asarray([vectors[k] for k in pool], dtype=np.float32)
        sims = mat @ mat.T

        def sim(a: str, b: str) -> float:
            return float(sims[index[a], index[b]])

        picked = (mmr(pool, {k: cands[k].relevance for k in pool}, sim, lambda_=cfg.mmr_lambda, limit=len(pool))
                  if cfg.mmr else pool)
        if dedupe:
            kept: list[str] = []
            for key in picked:
                if all(sims[index[key], index[other]] <= cfg.dedupe_above for other in kept):
                    kept.append(key)
            picked = kept
        chosen = set(pool)
        return picked + [k for k in order if k not in chosen]

    def _vectors(self, ids: Sequence[str], cands: dict[str, _Candidate]) -> dict[str, Sequence[float]]:
        out = {k: cands[k].hit.dense for k in ids if cands[k].hit.dense is not None}
        missing = [k for k in ids if k not in out]
        if missing:
            for hit in self._store.retrieve(missing, with_vectors=True):
                if hit.dense is not None:
                    out[hit.id] = hit.dense
        return out

    # ------------------------------------------------------------------ output
    def _results(self, order: list[str], cands: dict[str, _Candidate], cfg: RetrievalConfig,
                 flt: MemoryFilter, limit: int) -> list[RankedMemory]:
        results: list[RankedMemory] = []
        for rank, key in enumerate(order):
            cand = cands[key]
            if cand.relevance < cfg.min_score:
                continue
            results.append(RankedMemory(
                memory=cand.as_memory(), score=round(cand.relevance, 6),
                confidence=confidence(cand.cosine, cand.bm25_share, rank),
                why=tuple(dict.fromkeys(cand.why)),
            ))
        results = results[:limit]
        if cfg.context_neighbours and cfg.context_hits and results:
            results = self._attach_context(results, cands, flt, cfg)
        return results

    def _attach_context(self, results: list[RankedMemory], cands: dict[str, _Candidate],
                        flt: MemoryFilter, cfg: RetrievalConfig) -> list[RankedMemory]:
        """Insert the neighbours in time of the top hits right after them (marked `context_of`).

        They come on top of the `limit` hits; a caller that keeps only the first k results
        (the benchmark) sees them displace the weakest hits."""
        anchors = results[: cfg.context_hits]
        links = self._timelines.links(self._store, [cands[r.memory.id].hit for r in anchors])
        present = {r.memory.id for r in results}
        wanted = [k for r in anchors for k in links.neighbours(r.memory.id) if k is not None and k not in present]
        found: dict[str, Hit] = {}
        if wanted:
            page, _ = self._store.scroll(flt.model_copy(update={"ids": tuple(wanted)}), limit=len(wanted))
            found = {h.id: h for h in page}
        out: list[RankedMemory] = []
        for i, res in enumerate(results):
            out.append(res)
            if i >= len(anchors):
                continue
            for key in links.neighbours(res.memory.id):
                if key is None or key in present or key not in found:
                    continue
                present.add(key)
                out.append(RankedMemory(memory=found[key].memory, score=0.0,
                                        confidence=round(res.confidence * 0.5, 4), why=("context",),
                                        context_of=res.memory.id))
        return out


def _lexical_match_unrelated(cands: dict[str, _Candidate], cfg: RetrievalConfig) -> bool:
    """Is the best lexical match semantically unrelated to the query?

    A paraphrased question ("how does merged code end up live") shares only incidental words
    with the memories; BM25's best match is then one that happens to say "live" or "code", and
    max-normalisation would give it full weight. If that match's cosine is below
    `agreement_floor`, the words it matched are taken as noise.
    """
    if cfg.agreement_floor <= 0:
        return False
    lexical = [c for c in cands.values() if c.bm25 > 0]
    if not lexical:
        return False
    best = max(lexical, key=lambda c: c.bm25)
    return best.cosine is not None and best.cosine < cfg.agreement_floor


def _lean_on_embedding(cfg: RetrievalConfig, dense_w: float, sparse_w: float) -> tuple[float, float]:
    """`unanchored_dense_weight` of the total for the embedding (never less than it had)."""
    total = dense_w + sparse_w
    share = max(dense_w / total, cfg.unanchored_dense_weight)
    return total * share, total * (1.0 - share)


def _narrow(flt: MemoryFilter, window: TimeWindow) -> MemoryFilter:
    after, before = window.start, window.end
    if flt.created_after is not None and after is not None:
        after = max(after, flt.created_after)
    if flt.created_before is not None and before is not None:
        before = min(before, flt.created_before)
    return flt.model_copy(update={"created_after": after or flt.created_after,
                                  "created_before": before or flt.created_before})


__all__ = ["RankedMemory", "Retriever"]
