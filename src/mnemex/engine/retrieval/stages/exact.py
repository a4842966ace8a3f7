"""Rare exact terms: a code, flag, path, name or quoted phrase of the query that few memories hold.

BM25 already weighs such a term by its rarity; fused with the embedding, re-scored by entity and
recency boosts, spread by neighbours in time and by a compound question's parts, the memory
holding it can still fall behind memories that only share the question's common words. Two
rules keep the term's weight:

* the floor (`exact_floor`) — a memory holding a rare term verbatim ranks at least as high as
  BM25 alone ranks it among the candidates;
* the anchor (`exact_anchor`) — a searched text with a rare term some candidate holds is not one
  BM25 "cannot represent": the rules that let the embedding lead (`search.lean_on_embedding`)
  are skipped for it.

A term is rare when at most `exact_max_df` memories under the filter hold it: for a term, the
fewest memories holding any one of its BM25 tokens (an upper bound — a verbatim holder holds
them all; one small store query per token, only the whole-name token for a code name); for a
quoted phrase, the candidates holding it verbatim.
"""

from __future__ import annotations

from collections.abc import Iterable

from mnemex.config.retrieval import RetrievalConfig
from mnemex.engine.retrieval.candidates import Candidates
from mnemex.engine.retrieval.fusion import ranked
from mnemex.engine.retrieval.query.exact import ExactTerm, holds
from mnemex.engine.retrieval.stages.context import ReadContext
from mnemex.models import MemoryFilter, SparseVec
from mnemex.store.base import VectorQuery


def rare_terms(ctx: ReadContext, terms: Iterable[ExactTerm], flt: MemoryFilter,
               cfg: RetrievalConfig) -> tuple[ExactTerm, ...]:
    """The terms some memory under `flt` may hold and at most `exact_max_df` do; quoted phrases
    are all kept, for `holders` to judge on the candidates (no token stands for a phrase)."""
    out = []
    for term in terms:
        if term.phrase:
            out.append(term)
            continue
        vec = ctx.sparse.embed_query(term.text)
        # a code name's whole-name token (weighted above 1) is the tightest bound: ask only for it
        tokens = [i for i, v in zip(vec.indices, vec.values) if v > 1.0] or list(vec.indices)
        df = cfg.exact_max_df + 1
        for token in tokens:
            df = min(df, len(ctx.store.query(VectorQuery(sparse=SparseVec((token,), (1.0,)), filter=flt,
                                                         limit=cfg.exact_max_df + 1, payload=False))))
            if df == 0:
                break
        if 1 <= df <= cfg.exact_max_df:
            out.append(term)
    return tuple(out)


def holders(terms: Iterable[ExactTerm], cands: Candidates, max_df: int) -> dict[str, list[ExactTerm]]:
    """{candidate id: the rare terms it holds verbatim}, for the terms at most `max_df`
    candidates hold. Only BM25's candidates can hold one: the query's vector has the term's tokens."""
    lexical = [(key, cand.hit.content) for key, cand in cands.items() if cand.bm25 > 0]
    out: dict[str, list[ExactTerm]] = {}
    for term in terms:
        ids = [key for key, content in lexical if holds(term, content)]
        if len(ids) <= max_df:
            for key in ids:
                out.setdefault(key, []).append(term)
    return out


def anchored(text: str, terms: Iterable[ExactTerm], cands: Candidates, max_df: int) -> bool:
    """Does `text` have a rare term that some candidate holds verbatim?"""
    lowered = " ".join(text.lower().split())
    return bool(holders([t for t in terms if t.key in lowered], cands, max_df))


def exact_floor(order: list[str], cands: Candidates, held: dict[str, list[ExactTerm]]) -> list[str]:
    """`order` with each memory of `held` moved up to the rank BM25 alone gives it among the
    candidates, when it ranks lower; the others keep their order. A lifted memory's relevance is
    raised to that of the one now below it, so scores still fall down the list."""
    lexical = {key: rank for rank, key in enumerate(ranked({k: c.bm25 for k, c in cands.items() if c.bm25 > 0}))}
    position = {key: i for i, key in enumerate(order)}
    targets = {key: min(position[key], lexical[key]) for key in held if key in lexical and key in position}
    if not targets or all(targets[k] == position[k] for k in targets):
        return order
    lifted = sorted(targets, key=lambda k: (targets[k], lexical[k]))
    rest = [key for key in order if key not in targets]
    out: list[str] = []
    while lifted or rest:
        if lifted and (targets[lifted[0]] <= len(out) or not rest):
            key = lifted.pop(0)
            if targets[key] < position[key]:
                cands[key].why.append("exact:" + ",".join(t.text for t in held[key])[:80])
            out.append(key)
        else:
            out.append(rest.pop(0))
    for i in range(len(out) - 2, -1, -1):
        key = out[i]
        if key in targets and targets[key] < position[key]:
            cands[key].relevance = max(cands[key].relevance, cands[out[i + 1]].relevance)
    return out
