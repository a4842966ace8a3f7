"""Routine tool runs (the same command succeeding again and again, the same file read again) and
chatter (lines of conversation with no knowledge in them).

Such records say that something ran, not what anyone knows. They quote the command, path or
tool a question asks about, so a dozen of them would crowd out the one decision or convention
about it. Among the candidates, a tool event is routine when it did not fail, is no edit, and
another candidate records the same command, file or wording (`statements/runs.py`) succeeding too,
or the record stands for earlier runs the dream folded into it (its `runs` tally); its relevance is scaled by
`routine_run_weight` unless the question asks about runs ("when did we last run the migration",
"did the build pass"). The other tool-run records (a failed run, an edit, a coverage report, a run
recorded once) are scaled by the milder `record_weight` outside questions about runs: a record says
what ran, not what is known, and in a year-long store it took the last of the top places from a
fact about the same component (`benchmarks/lifecycle_year.py`). Every other kind of memory keeps
its relevance.

However they are weighed, records may take only a share of the first places (`record_share`):
commits, pipeline runs and coverage reports about a component each hold its name, and four of
them in a top 5 left one place for what is known about it. Past the share, the best knowledge
candidate takes the place and the record follows it. Questions about runs are left alone.

Chatter ("X asked whether billing is affected", "reading through the billing code to get
oriented", flagged by the observer) names the component a question asks about and says nothing
about it; its relevance is scaled by `chatter_weight` unless the question asks who said or asked
what.
"""

from __future__ import annotations

import math
import re
from collections import Counter

from mnemex.config.retrieval import RetrievalConfig
from mnemex.engine.retrieval.candidates import Candidates
from mnemex.engine.retrieval.fusion import ranked
from mnemex.engine.statements.runs import run_key, runs_of
from mnemex.models import MemoryKind

# a question about the conversation itself: who asked, said or mentioned what
_ABOUT_TALK = re.compile(r"\b(?:who (?:asked|said|mentioned|brought up|was out|is out)|what did \w+ (?:say|ask|mention)"
                         r"|did (?:anyone|anybody|someone|somebody) (?:ask|say|mention)|asked (?:about|whether|if))\b", re.I)


def demote_routine(order: list[str], cands: Candidates, cfg: RetrievalConfig, about_runs: bool,
                   query: str = "") -> list[str]:
    """`order` with the routine runs' relevance scaled by `routine_run_weight` and the other tool
    records' by `record_weight` unless the question is about runs, and chatter's by `chatter_weight`
    unless it is about the conversation (re-ranked)."""
    demoted: list[tuple[str, float, str]] = []
    if not about_runs and cfg.routine_run_weight < 1.0:
        keys = {key: run_key(cands[key].memory) for key in order if cands[key].hit.kind == MemoryKind.TOOL_EVENT}
        runs = Counter(k for k in keys.values() if k)
        # the same success again, among the candidates or folded into this record by the dream
        routine = {key for key, run in keys.items() if run and (runs[run] >= 2 or runs_of(cands[key].memory) >= 2)}
        demoted += [(key, cfg.routine_run_weight, "routine") for key in keys if key in routine]
        if cfg.record_weight < 1.0:
            demoted += [(key, cfg.record_weight, "a record") for key in keys if key not in routine]
    if cfg.chatter_weight < 1.0 and not _ABOUT_TALK.search(query):
        demoted += [(key, cfg.chatter_weight, "chatter") for key in order if cands[key].hit.is_chatter]
    for key, weight, why in demoted:
        cands[key].relevance *= weight
        cands[key].why.append(why)
    return ranked({key: cands[key].relevance for key in order}) if demoted else order


def cap_records(order: list[str], cands: Candidates, cfg: RetrievalConfig, about_runs: bool, limit: int) -> list[str]:
    """`order` with tool-run records taking at most `record_share` of each prefix of the first
    `limit` places (rounded up: one of the first two, two of the first five, four of the first ten)
    unless the question is about runs. A record past the share waits for the best knowledge
    candidate below it; its relevance is lowered to the place it lands on, so scores still fall."""
    if about_runs or cfg.record_share >= 1.0:
        return order
    records = {key for key in order if cands[key].hit.kind == MemoryKind.TOOL_EVENT}
    if not records or len(records) == len(order):
        return order
    out: list[str] = []
    rest = list(order)
    held = 0
    while rest and len(out) < limit:
        key = rest[0]
        if key in records and held + 1 > math.ceil(cfg.record_share * (len(out) + 1)):
            key = next((k for k in rest if k not in records), key)
        rest.remove(key)
        if key in records:
            held += 1
        out.append(key)
    out += rest
    if out == order:
        return order
    moved = {key for i, key in enumerate(out) if key in records and order.index(key) < i}
    for prev, key in zip(out, out[1:]):
        if cands[key].relevance > cands[prev].relevance:
            cands[key].relevance = cands[prev].relevance
    for key in moved:
        cands[key].why.append("records capped")
    return out
