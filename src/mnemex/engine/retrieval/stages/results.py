"""The results: the ranked memories above the score floor with a confidence and the reasons they
matched, and, when asked, their neighbours in time attached right after them."""

from __future__ import annotations

from dataclasses import replace

from mnemex.config.retrieval import RetrievalConfig
from mnemex.engine.retrieval.candidates import Candidates, RankedMemory
from mnemex.engine.retrieval.scoring import confidence
from mnemex.engine.retrieval.stages.context import ReadContext
from mnemex.models import MemoryFilter
from mnemex.store.base import Hit


def results(ctx: ReadContext, order: list[str], cands: Candidates, cfg: RetrievalConfig, flt: MemoryFilter,
            limit: int, outdated: dict[str, str] | None = None,
            hints: dict[str, str] | None = None) -> list[RankedMemory]:
    out: list[RankedMemory] = []
    outdated, hints = outdated or {}, hints or {}
    for rank, key in enumerate(order):
        cand = cands[key]
        if cand.relevance < cfg.min_score:
            continue
        out.append(RankedMemory(
            memory=cand.memory, score=round(cand.relevance, 6),
            confidence=confidence(cand.cosine, cand.bm25_share, rank),
            why=tuple(dict.fromkeys(cand.why)), outdated_by=outdated.get(key),
            said_otherwise_by=hints.get(key),
        ))
    out = out[:limit]
    shown = {r.memory.id for r in out}
    out = [r if r.said_otherwise_by in shown or r.said_otherwise_by is None
           else replace(r, said_otherwise_by=None) for r in out]  # only a later one the reader sees too
    if cfg.context_neighbours and cfg.context_hits and out:
        out = attach_context(ctx, out, cands, flt, cfg)
    return out


def attach_context(ctx: ReadContext, found: list[RankedMemory], cands: Candidates, flt: MemoryFilter,
                   cfg: RetrievalConfig) -> list[RankedMemory]:
    """Insert the neighbours in time of the top hits right after them (marked `context_of`).

    They come on top of the `limit` hits; a caller that keeps only the first k results
    (the benchmark) sees them displace the weakest hits."""
    anchors = found[: cfg.context_hits]
    links = ctx.timelines.links(ctx.store, [cands[r.memory.id].hit for r in anchors])
    present = {r.memory.id for r in found}
    wanted = [k for r in anchors for k in links.neighbours(r.memory.id) if k is not None and k not in present]
    near: dict[str, Hit] = {}
    if wanted:
        page, _ = ctx.store.scroll(flt.model_copy(update={"ids": tuple(wanted)}), limit=len(wanted))
        near = {h.id: h for h in page}
    out: list[RankedMemory] = []
    for i, res in enumerate(found):
        out.append(res)
        if i >= len(anchors):
            continue
        for key in links.neighbours(res.memory.id):
            if key is None or key in present or key not in near:
                continue
            present.add(key)
            out.append(RankedMemory(memory=near[key].memory, score=0.0, confidence=round(res.confidence * 0.5, 4),
                                    why=("context",), context_of=res.memory.id))
    return out
