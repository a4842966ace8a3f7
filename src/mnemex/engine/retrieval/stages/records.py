"""Routine tool runs (the same command succeeding again and again, the same file read again) and
chatter (lines of conversation with no knowledge in them).

Such records say that something ran, not what anyone knows. They quote the command, path or
tool a question asks about, so a dozen of them would crowd out the one decision or convention
about it. Among the candidates, a tool event is routine when it did not fail, is no edit, and
another candidate records the same command (or file) succeeding too; its relevance is scaled by
`routine_run_weight` unless the question asks about runs ("when did we last run the migration",
"did the build pass"). A failed run, an edit, a run recorded once, and every other kind of memory
keep their relevance.

Chatter ("X asked whether billing is affected", "reading through the billing code to get
oriented", flagged by the observer) names the component a question asks about and says nothing
about it; its relevance is scaled by `chatter_weight` unless the question asks who said or asked
what.
"""

from __future__ import annotations

import re
from collections import Counter

from mnemex.config.retrieval import RetrievalConfig
from mnemex.engine.retrieval.candidates import Candidates
from mnemex.engine.retrieval.fusion import ranked
from mnemex.models import Memory, MemoryKind

# a record of a failure: "exit 2", "3 failed", "1 error", "error: ...", "FAILED", "panicked"; not "0 failed"
_FAILED = re.compile(r"(?<!\b0 )\bfail(?:ed|s|ure|ures|ing)?\b|\b[1-9][\d,]*\s+errors?\b|\berror:|\bpanick?ed\b"
                     r"|\btraceback\b|\bexit(?:ed)?(?: with)?(?: code| status)?\s*[:=]?\s*[1-9]", re.I)
# what capture writes for a change (capture/events.py): a change is information, never routine
_CHANGE = re.compile(r"^(?:Edited|Wrote) ")
_QUOTED_COMMAND = re.compile(r"`([^`\n]+)`")
_READ = re.compile(r"^Read (\S+)")
# a question about the conversation itself: who asked, said or mentioned what
_ABOUT_TALK = re.compile(r"\b(?:who (?:asked|said|mentioned|brought up|was out|is out)|what did \w+ (?:say|ask|mention)"
                         r"|did (?:anyone|anybody|someone|somebody) (?:ask|say|mention)|asked (?:about|whether|if))\b", re.I)


def run_key(memory: Memory) -> str | None:
    """What a successful tool event records running or reading (its command or path, as captured
    or as the first `quoted` command of its text), or None when it records a failure, a change
    or nothing recognisable."""
    if memory.kind != MemoryKind.TOOL_EVENT or "failed" in memory.tags:
        return None
    meta = memory.metadata or {}
    if meta.get("exit") not in (None, 0) or _CHANGE.match(memory.content) or _FAILED.search(memory.content):
        return None
    key = meta.get("command") or memory.provenance.reference
    if not key:
        found = _QUOTED_COMMAND.search(memory.content) or _READ.match(memory.content)
        key = found.group(1) if found else None
    return " ".join(str(key).lower().split()) if key else None


def demote_routine(order: list[str], cands: Candidates, cfg: RetrievalConfig, about_runs: bool,
                   query: str = "") -> list[str]:
    """`order` with the routine runs' relevance scaled by `routine_run_weight` unless the question
    is about runs, and chatter's by `chatter_weight` unless it is about the conversation (re-ranked)."""
    demoted: list[tuple[str, float, str]] = []
    if not about_runs and cfg.routine_run_weight < 1.0:
        keys = {key: run_key(cands[key].memory) for key in order if cands[key].hit.kind == MemoryKind.TOOL_EVENT}
        runs = Counter(k for k in keys.values() if k)
        # the same success again
        demoted += [(key, cfg.routine_run_weight, "routine") for key, run in keys.items() if run and runs[run] >= 2]
    if cfg.chatter_weight < 1.0 and not _ABOUT_TALK.search(query):
        demoted += [(key, cfg.chatter_weight, "chatter") for key in order if cands[key].hit.is_chatter]
    for key, weight, why in demoted:
        cands[key].relevance *= weight
        cands[key].why.append(why)
    return ranked({key: cands[key].relevance for key in order}) if demoted else order
