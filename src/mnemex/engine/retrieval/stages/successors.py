"""A question worded like a fact that has since changed finds the old statement; its current
successor answers it.

Supersede never deletes: the old statement stays in the store, out of default retrieval. But a
question is often worded like the old statement ("Who is the code owner of search-indexer?"
beside "Code owner for search-indexer: Aiko Tanaka.") while the statement that replaced it is
worded its own way ("Lucia Romero took over search-indexer from Arjun Nair."). While the old one
was current, read-time resolution put the newer one just above it; once it is superseded, or a
dream has put a memory flagged outdated to sleep, nothing led to the newer one any more.

So the read path also searches what default retrieval no longer sees (`MemoryFilter.history`:
superseded memories and dormant ones, never forgotten ones) and scores those hits on the main
search's scale (`search.Fused`). An old statement that no current candidate is closer to in
meaning (`history_floor` of the best current query cosine) gives its current successor — the
memory that superseded it, followed to the end of the chain, or the newer memory a dormant one
was flagged `maybe_outdated_by` — at least its own relevance, and its confidence. The old
statement itself is never shown; records and chatter (`lifecycle.policy.is_record`: true of their
moment, no fact) neither lead to a successor nor are one; a
successor must not be unrelated to the old statement (`history_likeness`), so that a wrong
supersede, or a chain of them through look-alike lines about other components, leads nowhere. A flagged
successor must also answer the query about as well as the old statement
(`resolution_relevance`); the write path's own supersedes were decided with more evidence.

A successor that leads with saying the old thing was switched off ("The Jenkins release job is
switched off. Until the new pipeline exists, ...", `statements.leads_with_switch_off`) holds no
current way of working; when a memory written
after it speaks of what the old statement said (the workflow that replaced it), that one leads and
the switch-off comes just after it (`history_stop_yields`, `yield_stops`, run on the final order).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mnemex.config.retrieval import RetrievalConfig
from mnemex.engine.retrieval.candidates import Candidate, Candidates
from mnemex.engine.retrieval.stages.context import ReadContext
from mnemex.engine.retrieval.stages.search import Fused
from mnemex.engine.lifecycle.policy import is_record
from mnemex.engine.statements import MAYBE_OUTDATED_BY, leads_with_switch_off
from mnemex.models import Memory, MemoryFilter, MemoryStatus, ValidityMode
from mnemex.store.base import VectorQuery

#: Supersede chains are followed this far (a fact changed again and again).
MAX_HOPS = 8


def through_history(ctx: ReadContext, cands: Candidates, qvec: Sequence[float] | None, flt: MemoryFilter,
                    cfg: RetrievalConfig, fused: Fused) -> dict[str, tuple[str, ...]]:
    """Add or lift the current successors of the superseded or dormant memories that match the
    query (in place). Returns, for each lifted successor that only says the old thing was switched
    off, the later candidates it must not stand above (`yield_stops`)."""
    if cfg.history_candidates <= 0 or not fused.done or flt.validity != ValidityMode.CURRENT or flt.ids:
        return {}
    past = flt.model_copy(update={"history": True, "dormant": None})
    # an old statement stands for the question only when no current memory is closer to it in
    # meaning; one that shares the question's words (a component's name) but not what it asks
    # about would otherwise lift the successors of all that component's changed facts. So the
    # history is searched by meaning, and BM25 scored only for what passes (one small query)
    cosine: dict[str, float] = {}
    bm25: dict[str, float] = {}
    if qvec is not None:
        found = ctx.store.query(VectorQuery(dense=qvec, filter=past, limit=cfg.history_candidates,
                                            with_vectors=True))
        floor = cfg.history_floor * max((c.cosine or 0.0 for c in cands.values()), default=0.0)
        hits = {h.id: h for h in found if h.score >= floor}
        cosine = {k: h.score for k, h in hits.items()}
        if hits and fused.lexical is not None:
            bm25 = {h.id: h.score for h in ctx.store.query(VectorQuery(
                sparse=fused.lexical, filter=past.model_copy(update={"ids": tuple(hits)}), limit=len(hits)))}
    elif fused.lexical is not None:
        found = ctx.store.query(VectorQuery(sparse=fused.lexical, filter=past, limit=cfg.history_candidates,
                                            with_vectors=True))
        floor = cfg.history_floor * max((c.relevance for c in cands.values()), default=0.0)
        bm25 = {h.id: h.score for h in found}
        hits = {h.id: h for h in found if fused.score(h.score, None) >= floor}
    else:
        return {}
    old_score = {k: fused.score(bm25.get(k, 0.0), cosine.get(k)) for k in hits}
    # the strongest old statements first: each successor takes the best relevance it is owed
    heads: dict[str, tuple[str, bool]] = {}
    for key in sorted(hits, key=lambda k: -old_score[k]):
        if is_record(hits[key].memory):
            continue
        head = _successor(ctx, hits[key].memory)
        if head is not None and head[0] not in heads:
            heads[head[0]] = (key, head[1])
    if not heads:
        return {}
    page, _ = ctx.store.scroll(flt.model_copy(update={"ids": tuple(heads)}), limit=len(heads), with_vectors=True)
    current = {h.id: h for h in page}
    # a successor still says something about what the old statement did: a wrong supersede (or a
    # chain of them through look-alike lines about other components) leads nowhere
    vectors = {h.id: np.asarray(h.dense, dtype=np.float32)
               for h in [*page, *(hits[o] for o, _ in heads.values())] if h.dense is not None}
    new_ids = [k for k in current if k not in cands]
    new_cos = ctx.store.dense_scores(qvec, new_ids) if qvec is not None and new_ids else {}
    stops: list[tuple[str, str]] = []  # lifted successors that only say something stopped, and their old statement
    for head, (old, flagged) in heads.items():
        hit = current.get(head)
        if hit is None or is_record(hit.memory) or head not in vectors or old not in vectors:
            continue
        if float(np.dot(vectors[head], vectors[old])) < cfg.history_likeness:
            continue
        cand = cands.get(head)
        if cand is None:
            cand = Candidate(hit=hit, cosine=new_cos.get(head), why=[])
            cand.relevance = fused.score(0.0, cand.cosine)
        if flagged and (cand.cosine or 0.0) < cfg.resolution_relevance * (cosine.get(old) or 0.0):
            continue  # only flagged, and the query is about what the old statement said
        if old_score[old] <= cand.relevance:
            continue
        if cfg.history_stop_yields and leads_with_switch_off(cand.memory.content):
            stops.append((head, old))
        cands[head] = cand
        cand.relevance = old_score[old]
        # as sure as the statement it stands for (the confidence the agent reads)
        cand.cosine = max(cand.cosine or 0.0, cosine.get(old) or 0.0) if qvec is not None else cand.cosine
        cand.bm25_share = max(cand.bm25_share, fused.share(bm25.get(old, 0.0)))
        cand.why.append(f"replaces {old} (found by what it said)")
    return {head: later for head, old in stops if (later := _later_about(ctx, cands, head, vectors[old], cfg))}


def _later_about(ctx: ReadContext, cands: Candidates, stop: str, old: np.ndarray, cfg: RetrievalConfig) -> tuple[str, ...]:
    """The candidates written after the switch-off `stop` about what the old statement said (cosine to
    it at least `resolution_floor`), records aside."""
    when = cands[stop].memory.created_at
    later = [k for k, c in cands.items() if k != stop and not is_record(c.memory) and c.memory.created_at > when]
    if not later:
        return ()
    alike = ctx.store.dense_scores(old.tolist(), later)
    return tuple(k for k in later if alike.get(k, 0.0) >= cfg.resolution_floor)


def yield_stops(order: list[str], cands: Candidates, later: dict[str, tuple[str, ...]]) -> list[str]:
    """`order` with each lifted switch-off (`through_history`'s answer) just below the best ranked of the
    later memories about what it stopped, when it stood above all of them: a line that only says the
    old workflow was switched off holds no current way of working, the workflow written down after it
    does (the newer leads), with at least the switch-off's score. Nothing is dropped."""
    if not later:
        return order
    order = list(order)
    for stop, after in later.items():
        if stop not in order:
            continue
        at = order.index(stop)
        below = [k for k in order[at + 1:] if k in after]
        if not below or any(k in after for k in order[:at]):
            continue
        order.remove(below[0])
        order.insert(at, below[0])
        cands[below[0]].relevance = max(cands[below[0]].relevance, cands[stop].relevance)
        cands[stop].why.append(f"stopped what {below[0]} says now")
    return order


def _successor(ctx: ReadContext, memory: Memory) -> tuple[str, bool] | None:
    """(the id of the memory that now holds what `memory` said, whether only a flag says so), or None."""
    flagged = False
    if memory.status is MemoryStatus.SUPERSEDED and memory.superseded_by:
        nxt = memory.superseded_by
    elif memory.status is MemoryStatus.ACTIVE and memory.lifecycle.dormant \
            and isinstance(memory.metadata.get(MAYBE_OUTDATED_BY), str):
        nxt, flagged = memory.metadata[MAYBE_OUTDATED_BY], True
    else:
        return None
    seen = {memory.id}
    for _ in range(MAX_HOPS):
        if nxt in seen:
            return None
        seen.add(nxt)
        got = ctx.store.retrieve([nxt])
        if not got:
            return None
        m = got[0].memory
        if m.status is MemoryStatus.ACTIVE:
            return m.id, flagged
        if m.status is not MemoryStatus.SUPERSEDED or not m.superseded_by:
            return None  # forgotten on the way: nothing holds it now
        nxt = m.superseded_by
    return None
