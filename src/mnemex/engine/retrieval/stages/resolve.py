"""Read-time resolution: when the results hold memories about the same subject that disagree,
the newer one leads and the older one is marked as possibly outdated — never dropped.

What the write gate was unsure of stays current on both sides; here it is settled for the
reader. The source is the gate's own flag: an older memory with `maybe_outdated_by`, set when a
newer statement said something changed about it ("now", "moved to", "instead of") without the
gate being sure. The newer memory is brought in even when the search did not find it, moved just
above the older one, and the older one is marked `outdated_by` with its id so the model reads
which is current. A weaker source is `said_otherwise_by`: newer memories about much the same thing
that gave another value with no word of change (the candidates the gate offered the agent). One of
them leads only when the search found it too (never brought in), the query shares a word with it,
not only a name (`statements.asks_in_words`: "what datastore does cdn-purger use?" is not about
"cdn-purger needs DATABASE_URL set"), and the query does not name more of what only the older one
holds than of what only the newer one holds (`statements.asks_for_older`): "how are Eastgate's
kiosks locked down?" asks about the older statement, not about Northfield's. That last guard is
waived when the newer one says in its own words that something changed ("now", "instead", "no
longer": `resolution_otherwise_cued`): a question about a changed fact is usually worded as the
fact was first written, and a look-alike rarely says it changed anything. A line the observer
marked as chatter outdates nothing. With `resolution_compare` the top results are also compared by
the gate's rules (`engine/statements`) — off by default: pairs the gate never compared are mostly
look-alikes, and on the coding sets it cost R@1 without helping the knowledge-update benchmark.

Where a pair is linked by the gate but the query keeps the order (it names what only the older one
holds), and both are shown, the older one is not marked
outdated; it carries `said_otherwise_by` instead (`resolution_hints`) when the later one answers
the query about as well: a later result may say otherwise, and the model that reads both judges.
On the update sets the query-worded guard holds back about half of the real updates it sees and
almost every look-alike (benchmarks/RESULTS.md): no rule on the words tells them apart, a reader
does.

A wrong resolution puts a look-alike above the answer, so every pair must also pass: the two are
similar enough (`resolution_floor`), they are not about another environment or component or said
to add to each other (`statements.conflict`), the newer one does not name as left behind something
the older one never mentions (`statements.tells_other_change`: "alerts now go to #oncall instead of
#team-x" changes nothing a database statement holds), and — unless the rules are sure the newer one
replaces the older one — the newer one answers the query about as well (`resolution_relevance`,
on the query cosine): a flag about something the query does not ask for leaves the order alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from mnemex.config.retrieval import RetrievalConfig
from mnemex.engine.retrieval.candidates import Candidate, Candidates
from mnemex.engine.retrieval.stages.context import ReadContext
from mnemex.engine.retrieval.stages.diversify import vectors_of
from mnemex.engine.statements import (
    ATOM_OF,
    MAYBE_OUTDATED_BY,
    Relation,
    Statement,
    asks_for_older,
    asks_in_words,
    compare,
    conflict,
    evidence,
    read,
    said_otherwise,
    tells_other_change,
)
from mnemex.models import RECORD_KINDS, MemoryFilter

#: Records of what happened are never outdated: they stay true of their moment.


@dataclass(frozen=True, slots=True)
class Resolution:
    """What read-time resolution did: the order, {older id: the newer id that outdates it}, and
    {older id: a later id, also shown, that may say otherwise} where the query kept the order."""

    order: list[str]
    outdated: dict[str, str] = field(default_factory=dict)
    hints: dict[str, str] = field(default_factory=dict)


def resolve(ctx: ReadContext, order: list[str], cands: Candidates, cfg: RetrievalConfig, flt: MemoryFilter,
            limit: int, qvec: Sequence[float] | None = None, query: str = "") -> Resolution:
    """The order with each newer statement just above the older one it outdates, and what was marked."""
    window = [k for k in order[: max(limit, cfg.resolution_window)] if cands[k].memory.kind not in RECORD_KINDS]
    if not window:
        return Resolution(order)
    flagged = _flags(window, cands, MAYBE_OUTDATED_BY)
    otherwise = _otherwise(window, cands) if cfg.resolution_otherwise and query else {}
    otherwise = {k: v for k, v in otherwise.items() if k not in flagged}
    if not flagged and not otherwise and not cfg.resolution_compare:
        return Resolution(order)
    _bring(ctx, [v for v in dict.fromkeys(flagged.values()) if v not in cands], cands, flt)
    keys = list(dict.fromkeys(window + [v for v in flagged.values() if v in cands]))
    vectors = vectors_of(ctx, keys, cands)
    if len(vectors) < 2:
        return Resolution(order)
    judge = _Judge(cands, cfg, vectors, qvec)
    outdated: dict[str, str] = {}
    for old, new in flagged.items():
        why = judge.flagged(old, new)
        if why:
            outdated[old] = new
            cands[old].why.append(f"outdated by {new} ({why})")
    asked = read(query) if otherwise else None
    shown = set(window)
    for old, later in otherwise.items():
        # no word of change: only when the search found the newer one too (never brought in), the
        # query asks about what it says (a word, not only a name) and not about the older one's own
        # subject; of several, the most alike
        passing = [new for new in later if new in shown
                   and judge.flagged(old, new, judge.said_change(new) >= cfg.resolution_otherwise_cued)
                   and asks_in_words(asked, judge.statement(new)) and not judge.held_back(asked, old, new)]
        if passing:
            new = max(passing, key=lambda n: judge.sim(old, n))
            outdated[old] = new
            cands[old].why.append(f"outdated by {new} (said otherwise, later)")
    pairs = [k for k in window if k not in outdated and k in vectors] if cfg.resolution_compare else []
    for i, a in enumerate(pairs):
        for b in pairs[i + 1:]:
            old, new = (a, b) if _newer(cands[b], cands[a]) else (b, a)
            if old in outdated:
                continue
            why = judge.pair(old, new)
            if why:
                outdated[old] = new
                cands[old].why.append(f"outdated by {new} ({why})")
    hints = _hints(judge, window[:limit], {**{k: [v] for k, v in flagged.items()}, **otherwise}, outdated) \
        if cfg.resolution_hints else {}
    if not outdated:
        return Resolution(order, {}, hints)
    return Resolution(_newer_first(order, outdated, cands), outdated, hints)


def _hints(judge: "_Judge", shown: list[str], linked: dict[str, list[str]], outdated: dict[str, str]) -> dict[str, str]:
    """{older id: the later id that may say otherwise} for the pairs the gate linked that were left
    in their order, both among the first results, and not told apart by what they are about."""
    seen = set(shown)
    out: dict[str, str] = {}
    for old, later in linked.items():
        if old not in seen or old in outdated:
            continue
        near = [n for n in later if n in seen and judge.may_say_otherwise(old, n)]
        if near:
            out[old] = max(near, key=lambda n: judge.sim(old, n))
    return out


class _Judge:
    """Decides, for an older and a newer candidate, whether the newer one outdates the older one."""

    def __init__(self, cands: Candidates, cfg: RetrievalConfig, vectors: dict[str, Sequence[float]],
                 qvec: Sequence[float] | None):
        self.cands, self.cfg, self.vectors = cands, cfg, vectors
        self.q = None if qvec is None else np.asarray(qvec, dtype=np.float32)
        self._read: dict[str, Statement] = {}
        self._said: dict[str, float] = {}

    def statement(self, key: str) -> Statement:
        if key not in self._read:
            m = self.cands[key].memory
            self._read[key] = read(m.content, tuple(m.entities))
        return self._read[key]

    def sim(self, a: str, b: str) -> float:
        return float(np.dot(np.asarray(self.vectors[a], dtype=np.float32), np.asarray(self.vectors[b], dtype=np.float32)))

    def held_back(self, asked: Statement, old: str, new: str) -> bool:
        """The query asks about the older one's own subject, and the newer one does not say it changed
        anything (`resolution_otherwise_cued`)."""
        if self.said_change(new) >= self.cfg.resolution_otherwise_cued:
            return False
        return asks_for_older(asked, self.statement(old), self.statement(new))

    def said_change(self, key: str) -> float:
        """The strongest change cue of what was said: the memory's own words, or the whole statement
        it is an atom of ("Logs go to Loki first; the old hosted service still gets a copy" is kept
        as two memories, and the first says no change by itself)."""
        if key not in self._said:
            whole = self.cands[key].memory.metadata.get(ATOM_OF)
            own = self.statement(key).change
            self._said[key] = max(own, read(whole).change) if isinstance(whole, str) and whole else own
        return self._said[key]

    def answers(self, new: str, old: str, cued: bool = False) -> bool:
        """The newer one answers the query about as well as the older one (a look-alike the query is
        not about scores lower)."""
        share = self.cfg.resolution_cued_relevance if cued else self.cfg.resolution_relevance
        if self.q is not None:
            q_old = float(np.dot(self.q, np.asarray(self.vectors[old], dtype=np.float32)))
            q_new = float(np.dot(self.q, np.asarray(self.vectors[new], dtype=np.float32)))
            return q_new >= share * q_old
        return self.cands[new].relevance >= share * self.cands[old].relevance

    def flagged(self, old: str, new: str, cued: bool = False) -> str:
        """The write gate flagged `old` as maybe outdated by `new`: still the same thing, for this query?"""
        if new not in self.cands or new not in self.vectors or old not in self.vectors:
            return ""
        if self.cands[new].hit.is_chatter:  # a line of conversation outdates no fact
            return ""
        # a newer statement that says it changed something, linked when written (at the gate's
        # `offer_at` cosine or more): the link is the evidence of likeness, not resolution_floor
        floor = 0.0 if cued else self.cfg.resolution_floor
        if not _newer(self.cands[new], self.cands[old]) or self.sim(old, new) < floor:
            return ""
        earlier, later = self.statement(old), self.statement(new)
        if conflict(earlier, later) or tells_other_change(earlier, later) or not self.answers(new, old, cued):
            return ""  # (a flag of an older version of the gate, which did not yet tell the change elsewhere)
        return "flagged when written"

    def may_say_otherwise(self, old: str, new: str) -> bool:
        """A later, shown memory the gate linked to `old` that answers the query about as well
        (`answers`) and that only the query's wording sets apart from it: not a line of
        conversation, not about another environment or component, not telling a change of
        something `old` never mentions."""
        if new not in self.vectors or old not in self.vectors or self.cands[new].hit.is_chatter:
            return False
        if not _newer(self.cands[new], self.cands[old]) or not self.answers(new, old):
            return False
        earlier, later = self.statement(old), self.statement(new)
        return not (conflict(earlier, later) or tells_other_change(earlier, later))

    def pair(self, old: str, new: str) -> str:
        """Why `new` outdates `old` by the gate's rules, or ""."""
        cfg = self.cfg
        sim = self.sim(old, new)
        if sim < cfg.resolution_floor:
            return ""
        earlier, later = self.statement(old), self.statement(new)
        if conflict(earlier, later):  # another environment, another component, "also": both hold
            return ""
        verdict = compare(earlier, later, sim)
        if verdict.relation is Relation.REPLACES:
            return verdict.reason
        if verdict.relation is Relation.RESTATES or not self.answers(new, old):
            return ""
        if verdict.relation is Relation.MAY_REPLACE and later.change >= 0.5:
            return f"may replace: {verdict.reason}"
        if cfg.resolution_uncued and verdict.subject >= cfg.resolution_about \
                and (_changed(earlier, later) or sim >= cfg.resolution_same):
            # no cue, but two statements about the same thing, answering the question about as
            # well, give different values: the later one is the one that holds now
            return "says otherwise, later"
        return ""


def _flags(window: list[str], cands: Candidates, key: str) -> dict[str, str]:
    """{older id: newer id} of the window's memories the write path marked under `key`."""
    found = {k: cands[k].memory.metadata.get(key) for k in window}
    return {k: v for k, v in found.items() if isinstance(v, str) and v != k}


def _otherwise(window: list[str], cands: Candidates) -> dict[str, list[str]]:
    """{older id: the newer ids it was marked said otherwise by} in the window."""
    found = {k: [i for i in said_otherwise(cands[k].memory.metadata) if i != k] for k in window}
    return {k: ids for k, ids in found.items() if ids}


def _changed(old: Statement, new: Statement) -> bool:
    e = evidence(old, new)
    return bool(e.typed_change or e.swapped or e.negation_flip or e.left_hit)


def _newer(a: Candidate, b: Candidate) -> bool:
    return (a.memory.valid_from, a.memory.created_at) > (b.memory.valid_from, b.memory.created_at)


def _bring(ctx: ReadContext, ids: list[str], cands: Candidates, flt: MemoryFilter) -> None:
    """Add the newer memories the gate flagged to the candidates, if the filter lets them through."""
    if not ids:
        return
    page, _ = ctx.store.scroll(flt.model_copy(update={"ids": tuple(dict.fromkeys(ids))}), limit=len(ids))
    for hit in page:
        cands.setdefault(hit.id, Candidate(hit=hit, why=["newer"]))


def _newer_first(order: list[str], outdated: dict[str, str], cands: Candidates) -> list[str]:
    """`order` with each newer memory moved just above the older one it outdates (when below it)."""
    out = list(order)
    for k in dict.fromkeys(outdated.values()):
        if k not in out:
            out.append(k)  # brought in by a flag: placed by the older memory below
    for old, new in sorted(outdated.items(), key=lambda on: out.index(on[0])):
        at, pos = out.index(old), out.index(new)
        if pos > at:
            out.pop(pos)
            out.insert(at, new)
            cands[new].relevance = max(cands[new].relevance, cands[old].relevance)
            if cands[new].cosine is None:  # brought in by a flag: as sure as the one it outdates
                cands[new].cosine, cands[new].bm25_share = cands[old].cosine, cands[old].bm25_share
    return out
