"""Candidate generation: per searched text, a dense search and a BM25 search (its words plus the
memory words nearest in meaning), fused by score or RRF; a compound question's parts fused by
RRF. The embedding leads when the words are no anchor: the best BM25 match is unrelated, or
most query words are in no memory — unless the text names code or a rare exact term that a
candidate holds (`stages/exact.py`)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from mnemex.config.retrieval import RetrievalConfig
from mnemex.engine.retrieval.candidates import Candidate, Candidates
from mnemex.engine.retrieval.fusion import convex_fusion, max_normalize, ranked, rrf
from mnemex.engine.retrieval.plan import QueryPlan, Terms, plan_query, terms_of
from mnemex.engine.retrieval.query import TimeWindow, hypothetical_documents
from mnemex.engine.retrieval.query.exact import ExactTerm
from mnemex.engine.retrieval.stages.context import ReadContext
from mnemex.engine.retrieval.stages.exact import anchored
from mnemex.models import MemoryFilter, SparseVec, utcnow
from mnemex.store.base import VectorQuery


def candidates(ctx: ReadContext, plan: QueryPlan, flt: MemoryFilter, limit: int, cfg: RetrievalConfig,
               rare: tuple[ExactTerm, ...] = (), fused: Fused | None = None) -> tuple[list[float] | None, Candidates]:
    """(query vector, candidates with their fused relevance) for the plan's text and parts;
    `rare` are the query's rare exact terms (`stages/exact.py`), which anchor the texts holding them.
    `fused`, when given, receives how the whole text's scores were fused (`search_text`)."""
    dense_w, sparse_w, pool = cfg.dense_weight, cfg.sparse_weight, max(cfg.candidates, limit)
    if cfg.intent_routing and plan.intent in cfg.intent_profiles:
        prof = cfg.intent_profiles[plan.intent]
        dense_w, sparse_w, pool = prof.dense_weight, prof.sparse_weight, max(prof.candidates, limit)
    qvec, merged = search_text(ctx, plan.terms, plan, flt, cfg, dense_w, sparse_w, pool, rare, fused)
    if not plan.compound:
        return qvec, merged
    # Compound question: the whole query and each part run separately, fused by RRF.
    lists = [ranked({k: c.relevance for k, c in merged.items()})]
    best = max((c.relevance for c in merged.values()), default=1.0)
    for terms in plan.subterms:
        _, part = search_text(ctx, terms, plan, flt, cfg, dense_w, sparse_w, pool, rare)
        lists.append(ranked({k: c.relevance for k, c in part.items()}))
        for key, cand in part.items():
            if key not in merged:
                merged[key] = cand
                cand.why.append("subquery")
    fused = max_normalize(rrf(lists, k=cfg.rrf_k))
    for key, cand in merged.items():
        cand.relevance = fused.get(key, 0.0) * best
    return qvec, merged


@dataclass(slots=True)
class Fused:
    """How one text's candidates were scored (score fusion): the weights used and the best BM25
    score they were divided by, so that other memories can be scored on the same scale."""

    dense_weight: float = 0.0
    sparse_weight: float = 0.0
    bm25_top: float = 0.0
    lexical: SparseVec | None = None
    done: bool = False

    def share(self, bm25: float) -> float:
        return min(bm25 / self.bm25_top, 1.0) if self.bm25_top > 0 else 0.0

    def score(self, bm25: float, cosine: float | None) -> float:
        return self.sparse_weight * self.share(bm25) + self.dense_weight * (cosine or 0.0)


def search_text(ctx: ReadContext, terms: Terms, plan: QueryPlan, flt: MemoryFilter, cfg: RetrievalConfig,
                dense_w: float, sparse_w: float, pool: int,
                rare: tuple[ExactTerm, ...] = (), fused: Fused | None = None) -> tuple[list[float] | None, Candidates]:
    """Dense and BM25 candidates for one text, fused; with score fusion, `fused` (when given)
    receives the weights and scale used."""
    qvec = query_vector(ctx, terms.text, plan, cfg) if cfg.use_dense else None
    svec = ctx.sparse.embed_query(terms.text, terms.code) if cfg.use_sparse else None
    if svec is not None and not svec.indices:
        svec = None
    cands: Candidates = {}
    lexical = expanded(ctx, terms, svec, cfg) if svec is not None else None
    searches = [VectorQuery(dense=qvec, filter=flt, limit=pool)] if qvec is not None else []
    if lexical is not None:
        searches.append(VectorQuery(sparse=lexical, filter=flt, limit=pool))
    found = ctx.store.query_many(searches)  # one round trip for both
    dense_hits = found[0] if qvec is not None else []
    sparse_hits = found[-1] if lexical is not None else []
    for h in dense_hits:
        cands[h.id] = Candidate(hit=h, cosine=h.score, why=["dense"])
    for h in sparse_hits:
        cand = cands.get(h.id)
        if cand is None:
            cand = cands[h.id] = Candidate(hit=h)
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
            for key, score in ctx.store.dense_scores(qvec, missing).items():
                cands[key].cosine = score
    if cfg.fusion == "rrf":
        # rescaled to 0..1 (1 = first in every list) so the composite boosts keep their meaning
        best = sum(w / (cfg.rrf_k + 1) for w, hits in ((dense_w, dense_hits), (sparse_w, sparse_hits)) if hits)
        scores = {k: v / best for k, v in rrf([[h.id for h in dense_hits], [h.id for h in sparse_hits]],
                                              [dense_w, sparse_w], k=cfg.rrf_k).items()} if best > 0 else {}
    else:
        if dense_w > 0 and sparse_w > 0 and not terms.names_code and not (
                cfg.exact_anchor and anchored(terms.text, rare, cands, cfg.exact_max_df)) and not (
                rare_word_held(ctx, svec, flt, cfg.anchor_max_df)) and (
                lexical_match_unrelated(cands, cfg) or vocabulary_missing(ctx, svec, flt, cfg)):
            dense_w, sparse_w = lean_on_embedding(cfg, dense_w, sparse_w)
        scores = convex_fusion({k: c.bm25 for k, c in cands.items() if c.bm25 > 0},
                               {k: c.cosine for k, c in cands.items() if c.cosine is not None},
                               sparse_weight=sparse_w, dense_weight=dense_w)
        if fused is not None:
            fused.dense_weight, fused.sparse_weight, fused.bm25_top = dense_w, sparse_w, bm25_top
            fused.lexical, fused.done = lexical, True
    for key, cand in cands.items():
        cand.relevance = scores.get(key, 0.0)
    return qvec, cands


def expanded(ctx: ReadContext, terms: Terms, svec: SparseVec, cfg: RetrievalConfig) -> SparseVec:
    """The query's BM25 vector plus the memory words nearest in meaning to its words, each
    weighted `expansion_weight` × cosine ("career" also looks for "jobs"). The rules that ask
    whether the query's own words are in memory keep using `svec`."""
    if not cfg.expansion or ctx.vocabulary is None or cfg.expansion_terms <= 0:
        return svec
    extra = ctx.vocabulary.expand(terms.words, floor=cfg.expansion_floor, per_word=cfg.expansion_terms,
                                  weight=cfg.expansion_weight, exclude=svec.indices)
    if not extra:
        return svec
    return SparseVec(svec.indices + tuple(extra), svec.values + tuple(extra.values()))


def vocabulary_missing(ctx: ReadContext, svec: SparseVec | None, flt: MemoryFilter, cfg: RetrievalConfig) -> bool:
    """Do too many of the query's words occur in no memory at all?

    "Would she pursue writing as a career option?" — when "pursue" and "option" are nowhere in
    memory, BM25 can only match the rest of the question, which is not what it asks; the
    embedding, which knows "career" is near "jobs", should lead. One tiny BM25 lookup per
    query word, under the same filter, remembered until the store changes (`ctx.terms`);
    queries of one word are left alone. With `vocabulary_idf` each word counts by its rarity
    (`idf_share`), else each counts once.
    """
    if cfg.vocabulary_floor <= 0 or svec is None or len(svec.indices) < 2:
        return False
    if cfg.vocabulary_idf:
        return idf_share(ctx, svec, flt) < cfg.vocabulary_floor
    total = len(svec.indices)
    present = missing = 0
    scope = flt.model_dump_json()
    for index in svec.indices:
        if ctx.terms.held(ctx.store, index, flt, scope):
            present += 1
        else:
            missing += 1
        # stop as soon as the answer is known (a remote store pays a round trip per word)
        if present / total >= cfg.vocabulary_floor:
            return False
        if (total - missing) / total < cfg.vocabulary_floor:
            return True
    return present / total < cfg.vocabulary_floor


def rare_word_held(ctx: ReadContext, svec: SparseVec | None, flt: MemoryFilter, max_df: int) -> bool:
    """Does some memory under `flt` hold a query word that at most `max_df` memories hold? (0 = never asked)"""
    if max_df <= 0 or svec is None:
        return False
    for index in svec.indices:
        df = len(ctx.store.query(VectorQuery(sparse=SparseVec((index,), (1.0,)), filter=flt, limit=max_df + 1,
                                             payload=False)))
        if 1 <= df <= max_df:
            return True
    return False


#: Document frequencies are counted up to this many memories; a commoner word weighs as one this common.
DF_CAP = 50


def idf_share(ctx: ReadContext, svec: SparseVec, flt: MemoryFilter) -> float:
    """The share of the query's BM25 weight that memory can match: the IDF of the words some
    memory under `flt` holds over the IDF of all its words, a word no memory holds weighing as
    the rarest (df 0). A rare word found (a code, a name few memories use) then counts for much
    more than a common one, and a question whose matched words are all common counts as barely
    matched. IDF as BM25 takes it, ln(1 + (N - df + 0.5) / (df + 0.5)), df counted up to DF_CAP."""
    n = max(ctx.store.count(flt), 1)
    matched = total = 0.0
    for index in svec.indices:
        df = len(ctx.store.query(VectorQuery(sparse=SparseVec((index,), (1.0,)), filter=flt, limit=DF_CAP,
                                             payload=False)))
        idf = math.log(1.0 + (n - df + 0.5) / (df + 0.5))
        total += idf
        if df:
            matched += idf
    return matched / total if total > 0 else 1.0


def query_vector(ctx: ReadContext, text: str, plan: QueryPlan, cfg: RetrievalConfig) -> list[float]:
    vec = ctx.dense.embed_query(text)
    if not cfg.hyde or cfg.hyde_weight <= 0:
        return vec
    variants = hypothetical_documents(text, plan.intent)
    if not variants:
        return vec
    extra = ctx.dense.embed_documents(variants)
    mixed = [v + cfg.hyde_weight * sum(e[i] for e in extra) / len(extra) for i, v in enumerate(vec)]
    norm = sum(x * x for x in mixed) ** 0.5 or 1.0
    return [x / norm for x in mixed]


def resolve_anchor(ctx: ReadContext, window: TimeWindow, flt: MemoryFilter, cfg: RetrievalConfig) -> TimeWindow | None:
    """"before/after <event>": the time of the best match for the event bounds the window."""
    assert window.anchor is not None
    probe = cfg.model_copy(update={"propagation": False, "composite": False, "decomposition": False,
                                   "temporal": False, "hyde": False, "candidates": 10})
    anchor = plan_query(window.anchor, now=utcnow())
    plan = QueryPlan(text=window.anchor, intent=anchor.intent, window=None, subqueries=(window.anchor,),
                     terms=terms_of(window.anchor), subterms=(), entities=anchor.entities)
    _, cands = search_text(ctx, plan.terms, plan, flt, probe, probe.dense_weight, probe.sparse_weight, 10)
    if not cands:
        return None
    best = max(cands.values(), key=lambda c: c.relevance)
    if best.bm25_share <= 0 and (best.cosine or 0.0) < 0.5:
        return None  # the event is not in memory: no reliable bound
    when = best.memory.created_at
    if window.anchor_side == "before":
        return TimeWindow(None, when, text=window.text)
    return TimeWindow(when, None, text=window.text)


#: BM25 scores this close (relative) to the best one tie with it.
TIE = 1e-6


def lexical_match_unrelated(cands: Candidates, cfg: RetrievalConfig) -> bool:
    """Is the best lexical match semantically unrelated to the query?

    A paraphrased question ("how does merged code end up live") shares only incidental words
    with the memories; BM25's best match is then one that happens to say "live" or "code", and
    max-normalisation would give it full weight. If that match's cosine is below
    `agreement_floor`, the words it matched are taken as noise.

    Several memories can tie for the best match (the same sentence about different components:
    the query's words score alike in each). The words are taken as noise only when none of them
    is related, so the answer does not hang on which of them the store happened to list first;
    that order changed when a dream put unrelated memories to sleep, and with it the whole
    query's weighting. (Their mean instead cost coding set 1 a question.)
    """
    if cfg.agreement_floor <= 0:
        return False
    lexical = [c for c in cands.values() if c.bm25 > 0]
    if not lexical:
        return False
    top = max(c.bm25 for c in lexical)
    best = [c.cosine for c in lexical if c.bm25 >= top * (1.0 - TIE) and c.cosine is not None]
    return bool(best) and max(best) < cfg.agreement_floor


def lean_on_embedding(cfg: RetrievalConfig, dense_w: float, sparse_w: float) -> tuple[float, float]:
    """`unanchored_dense_weight` of the total for the embedding (never less than it had)."""
    total = dense_w + sparse_w
    share = max(dense_w / total, cfg.unanchored_dense_weight)
    return total * share, total * (1.0 - share)
