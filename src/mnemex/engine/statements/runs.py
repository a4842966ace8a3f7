"""What a record of a tool run says ran: the key under which the same run, repeated, is recognised.

A captured command is keyed by itself (or its reference); a text quoting a
command (`Ran \\`pytest -q\\` -> exit 0`) or a read (`Read src/x.py`) is keyed by it. A record
written as free text by a client or a script ("CI pipeline #4411 for billing-api: passed",
"docker build api:1.4.2 finished in 212s") is keyed by its wording with the numbers, versions and
hashes that change from run to run masked: the same wording again is the same run again.

A failure, an edit or a change is never keyed: each is information, never routine. Pure (reads
only `models`), shared by the read path (routine runs weigh less) and the lifecycle (an older
repeat of a routine run goes dormant).
"""

from __future__ import annotations

import re

from mnemex.models import Memory, MemoryKind

# a record of a failure: "exit 2", "3 failed", "1 error", "error: ...", "FAILED", "panicked"; not "0 failed"
FAILED = re.compile(r"(?<!\b0 )\bfail(?:ed|s|ure|ures|ing)?\b|\b[1-9][\d,]*\s+errors?\b|\berror:|\bpanick?ed\b"
                    r"|\btraceback\b|\bexit(?:ed)?(?: with)?(?: code| status)?\s*[:=]?\s*[1-9]", re.I)
# what capture writes for a change (capture/events.py): a change is information, never routine
_CHANGE = re.compile(r"^(?:Edited|Wrote) ")
_QUOTED_COMMAND = re.compile(r"`([^`\n]+)`")
_READ = re.compile(r"^Read (\S+)")
# what changes from one run of the same thing to the next: hashes (hex with a digit), then numbers
# with their separators and units glued on ("3.12.3", "292s", "1,024", "#4411", "v2"), not a digit
# inside a name ("i18n", "ec2", "s3")
_HASH = re.compile(r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b", re.I)
_NUMBER = re.compile(r"(?<![a-uw-z\d])\d+(?:[.,:_]\d+)*")
_WORD = re.compile(r"[a-z]{2,}")
#: a free-text record needs this many words besides its numbers to be recognised as the same run
MIN_WORDS = 3


def run_signature(text: str) -> str | None:
    """The wording of a free-text run record with what varies between runs masked; None when
    too little wording is left to tell one run from another."""
    masked = _NUMBER.sub("#", _HASH.sub("#", " ".join(text.lower().split())))
    return masked if len(_WORD.findall(masked)) >= MIN_WORDS else None


def run_key(memory: Memory) -> str | None:
    """What a successful tool event records running or reading (its command or path, as captured
    or as the first `quoted` command of its text, else its masked wording), or None when it records
    a failure, a change or nothing recognisable."""
    if memory.kind != MemoryKind.TOOL_EVENT or "failed" in memory.tags:
        return None
    meta = memory.metadata or {}
    if meta.get("exit") not in (None, 0) or _CHANGE.match(memory.content) or FAILED.search(memory.content):
        return None
    key = meta.get("command") or memory.provenance.reference
    if not key:
        found = _QUOTED_COMMAND.search(memory.content) or _READ.match(memory.content)
        key = found.group(1) if found else None
    if key:
        return " ".join(str(key).lower().split())
    return run_signature(memory.content)


#: Metadata key of a routine run's record: how many runs it stands for (itself and the older,
#: now dormant, records of the same run the dream folded into it); absent = 1.
RUNS = "runs"


def runs_of(memory: Memory) -> int:
    """How many runs this record stands for (its `runs` tally, at least 1)."""
    value = (memory.metadata or {}).get(RUNS, 1)
    return value if isinstance(value, int) and value > 1 else 1
