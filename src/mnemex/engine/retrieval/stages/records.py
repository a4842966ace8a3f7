"""Routine tool runs: the captured records of a command that succeeded, again and again, and of
files read. They say that something ran, not what anyone knows; matching a question's words as
well as the knowledge it asks about (they quote the same command, path or tool), a dozen of them
would crowd that knowledge out. Their relevance is scaled by `routine_run_weight` unless the
question asks about runs ("when did we last run the migration", "did the build pass").
A failed run, an edit and every other kind of memory keep theirs."""

from __future__ import annotations

import re

from mnemex.config.retrieval import RetrievalConfig
from mnemex.engine.retrieval.candidates import Candidates
from mnemex.engine.retrieval.fusion import ranked
from mnemex.models import Memory, MemoryKind

# what capture writes (capture/events.py): "Ran `cmd` → exit 0 in 41.3 s", "Ran `cmd` → ok", "Read path"
_SUCCEEDED = re.compile(r"^Ran `[^`\n]*` → (?:exit 0|ok)(?: in [\d.]+ s)?\s*$")
_READ = re.compile(r"^Read \S+(?: \([^)]*\))?\s*$")
_ROUTINE_TOOLS = frozenset({"read", "glob", "grep", "ls"})


def routine(memory: Memory) -> bool:
    """A tool event that records a command that succeeded or a file that was read."""
    if memory.kind != MemoryKind.TOOL_EVENT or "failed" in memory.tags:
        return False
    meta = memory.metadata or {}
    if str(meta.get("tool", "")).lower() in _ROUTINE_TOOLS:
        return True
    if "exit" in meta:
        return meta["exit"] == 0 and bool(_SUCCEEDED.match(memory.content))
    return bool(_SUCCEEDED.match(memory.content) or _READ.match(memory.content))


def demote_routine(order: list[str], cands: Candidates, cfg: RetrievalConfig, about_runs: bool) -> list[str]:
    """`order` with the routine runs' relevance scaled by `routine_run_weight` (re-ranked), unless
    the question is about runs."""
    if about_runs or cfg.routine_run_weight >= 1.0:
        return order
    changed = False
    for key in order:
        cand = cands[key]
        if cand.hit.kind == MemoryKind.TOOL_EVENT and routine(cand.memory):
            cand.relevance *= cfg.routine_run_weight
            cand.why.append("routine")
            changed = True
    return ranked({key: cands[key].relevance for key in order}) if changed else order
