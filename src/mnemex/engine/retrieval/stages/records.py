"""Routine tool runs: the same command succeeding again and again (and the same file read again).

Such records say that something ran, not what anyone knows. They quote the command, path or
tool a question asks about, so a dozen of them would crowd out the one decision or convention
about it. Among the candidates, a tool event is routine when it did not fail, is no edit, and
another candidate records the same command (or file) succeeding too; its relevance is scaled by
`routine_run_weight` unless the question asks about runs ("when did we last run the migration",
"did the build pass"). A failed run, an edit, a run recorded once, and every other kind of memory
keep their relevance.
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


def demote_routine(order: list[str], cands: Candidates, cfg: RetrievalConfig, about_runs: bool) -> list[str]:
    """`order` with the routine runs' relevance scaled by `routine_run_weight` (re-ranked), unless
    the question is about runs."""
    if about_runs or cfg.routine_run_weight >= 1.0:
        return order
    keys = {key: run_key(cands[key].memory) for key in order if cands[key].hit.kind == MemoryKind.TOOL_EVENT}
    runs = Counter(k for k in keys.values() if k)
    routine = [key for key, run in keys.items() if run and runs[run] >= 2]  # the same success again
    for key in routine:
        cands[key].relevance *= cfg.routine_run_weight
        cands[key].why.append("routine")
    return ranked({key: cands[key].relevance for key in order}) if routine else order
