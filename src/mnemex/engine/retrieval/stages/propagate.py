"""Neighbour propagation: answers follow questions, so a memory gains a share of the relevance
of the memories just before and after it in its session. Tool-run records and chatter stand
beside that exchange: they neither give a share nor take one."""

from __future__ import annotations

from typing import Sequence

from mnemex.config.retrieval import RetrievalConfig
from mnemex.engine.retrieval.candidates import Candidate, Candidates
from mnemex.engine.retrieval.fusion import ranked
from mnemex.engine.retrieval.stages.context import ReadContext
from mnemex.models import MemoryFilter, MemoryKind
from mnemex.store.base import Hit, VectorQuery


def propagate(ctx: ReadContext, cands: Candidates, qvec: list[float] | None, flt: MemoryFilter,
              cfg: RetrievalConfig) -> Candidates:
    """Neighbours are the previous/next memories of the same session by created_at. Only the
    top `propagate_top` candidates and their neighbours are considered; a neighbour that was
    not a candidate is scored by its cosine alone (its BM25 was below the candidate cut)."""
    top = ranked({k: c.relevance for k, c in cands.items()})[: cfg.propagate_top]
    links = ctx.timelines.links(ctx.store, [cands[k].hit for k in top])
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
        # one filtered query: cosine and memory of the neighbours the filter lets through
        for hit in _fetch(ctx, new, qvec, flt):
            # below both candidate cuts: with score fusion its cosine still counts, with RRF it has no rank
            own = cfg.dense_weight * hit.score if cfg.fusion == "score" else 0.0
            cands[hit.id] = Candidate(hit=hit, cosine=hit.score, relevance=own)
    # only turns that carry knowledge pass relevance on: a tool-run record or a line of chatter
    # neither asks nor answers, so it gives no share and takes none (and a dream that puts idle
    # records and chatter to sleep moves no one else's score)
    base = {k: c.relevance for k, c in cands.items() if not _aside(c.hit)}
    for key in focus:
        cand = cands.get(key)
        if cand is None or key not in base:
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


def _aside(hit: Hit) -> bool:
    """A tool-run record or chatter: beside the conversation's questions and answers. Not
    `lifecycle.policy.is_record`: an episode is a turn of the conversation, what propagation is for."""
    return hit.kind == MemoryKind.TOOL_EVENT or hit.is_chatter


def _fetch(ctx: ReadContext, ids: Sequence[str], qvec: list[float], flt: MemoryFilter) -> list[Hit]:
    """The memories `ids` that pass `flt`, scored by cosine to `qvec`."""
    return ctx.store.query(VectorQuery(dense=qvec, filter=flt.model_copy(update={"ids": tuple(ids)}),
                                       limit=len(ids)))
