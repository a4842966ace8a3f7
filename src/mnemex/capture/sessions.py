"""What a session's captured events add up to, decided by rules (no model): the episode — what
was done, files touched, commands that failed and what fixed them — and the procedures learnt —
a command that failed, then edits, then the same command passing: "when X fails with E, do Y".

Pure functions of the session log (`CaptureEvent`s in order): the same events always give the
same text, so an episode rewritten at each Stop changes only when the session did."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from pathlib import PurePath
from typing import Sequence

from mnemex.store.journal import CaptureEvent

_EXCEPTION = re.compile(r"\b\w*(?:Error|Exception|Failure)\b:?|\bpanicked at\b|\bTraceback\b")
_ERROR = re.compile(r"\b(?:error|fatal|ERR!|FAILED|failed|not found|denied)\b", re.I)
_STATUS = re.compile(r"^(?:exit(?:ed)?(?: with)?(?: code| status)?|command exited .*)\s*:?\s*-?\d+\.?$", re.I)
EPISODE_CHARS = 1_400
MOST_FILES = 8
MOST_FAILURES = 4


@dataclass(frozen=True, slots=True)
class Procedure:
    """A fix learnt in a session: `failure` (the first failing run), the `edits` between it and
    `success` (the same command passing)."""

    failure: CaptureEvent
    edits: tuple[CaptureEvent, ...]
    success: CaptureEvent

    def files(self, project: str) -> list[str]:
        return _unique(_relative(f, project) for e in self.edits for f in (e.files or (e.ref,)) if f)

    def source(self, project: str) -> str:
        """What makes two fixes the same: the project, the command, the files the fix touched."""
        return f"procedure:{project}\x00{self.failure.key}\x00{chr(10).join(sorted(self.files(project)))}"

    def text(self, project: str) -> str:
        """The fix as one instruction ("when X fails with E, edit F — then X passes"), one sentence so
        it is stored whole."""
        files = self.files(project)
        error = _first_line(self.failure.error) or (f"exit {self.failure.exit}" if self.failure.exit is not None
                                                     else "an error")
        change = _change_of(self.edits[-1]) if len(files) == 1 else ""
        where = ", ".join(files[:4]) + (f" and {len(files) - 4} more" if len(files) > 4 else "")
        fix = f"edit {where}" + (f" ({change})" if change else "")
        return _cut(f"When `{_cut(self.failure.ref, 200)}` fails with \"{_cut(error, 200)}\", {fix} — then "
                    f"`{_cut(self.success.ref, 200)}` passes (learnt {self.success.at:%Y-%m-%d}).", 700)


def procedures(events: Sequence[CaptureEvent]) -> list[Procedure]:
    """Every fix in the session: for each command key, a run that failed, then at least one edit,
    then a run of the same command that passed (the first failure of the streak is the one named;
    the edits are all those in between)."""
    open_: dict[str, tuple[CaptureEvent, list[CaptureEvent]]] = {}
    found: list[Procedure] = []
    for event in events:
        if event.kind != "tool":
            continue
        if event.tool == "Bash" and event.key:
            if event.failed:
                open_.setdefault(event.key, (event, []))
            elif event.key in open_:
                failure, edits = open_.pop(event.key)
                if edits:
                    found.append(Procedure(failure, tuple(edits), event))
        elif event.files and not event.failed and event.tool != "Read":
            for _, edits in open_.values():
                edits.append(event)
    return found


def episode_text(events: Sequence[CaptureEvent], project: str) -> str | None:
    """The session told in a paragraph, or None when it did nothing worth telling (no tool use)."""
    tools = [e for e in events if e.kind == "tool"]
    if not tools:
        return None
    start, end = events[0].at, events[-1].at
    when = f"{start:%Y-%m-%d %H:%M}" + (f"–{end:%H:%M}" if end.date() == start.date() else f" – {end:%Y-%m-%d %H:%M}")
    parts = [f"Session {when} UTC in {PurePath(project).name or project}"]
    asked = next((e.text for e in events if e.kind == "prompt" and e.text.strip()), "")
    parts[0] += f": asked \"{_cut(_first_line(asked), 160)}\"." if asked else "."
    edited = Counter(f for e in tools if e.tool != "Read" and e.tool != "Bash" and not e.failed
                     for f in (e.files or (e.ref,)) if f)
    if edited:
        names = [_relative(f, project) + (f" ({n}×)" if n > 1 else "") for f, n in edited.most_common(MOST_FILES)]
        more = len(edited) - MOST_FILES
        parts.append(f"Edited {', '.join(names)}" + (f" and {more} more" if more > 0 else "") + ".")
    read = _unique(e.ref for e in tools if e.tool == "Read" and e.ref)
    if read:
        shown = ", ".join(_relative(f, project) for f in read[:MOST_FILES])
        parts.append(f"Read {len(read)} file{'s' if len(read) != 1 else ''}: {shown}" +
                     (f" and {len(read) - MOST_FILES} more" if len(read) > MOST_FILES else "") + ".")
    runs = [e for e in tools if e.tool == "Bash"]
    if runs:
        failed = [e for e in runs if e.failed]
        line = f"Ran {len(runs)} command{'s' if len(runs) != 1 else ''}"
        line += f", {len(failed)} failed" if failed else ", all passed"
        parts.append(line + ".")
        fixes = {p.failure.id: p for p in procedures(events)}
        told: set[str] = set()
        for e in failed:
            if e.key in told or len(told) >= MOST_FAILURES:
                continue
            told.add(e.key)
            fix = fixes.get(e.id)
            err = _cut(_first_line(e.error), 120)
            if fix is not None:
                parts.append(f"`{_cut(e.ref, 120)}` failed ({err or 'non-zero exit'}); fixed by editing "
                             f"{', '.join(fix.files(project)[:3])}, then it passed.")
            else:
                passed_later = any(r.key == e.key and not r.failed and r.at >= e.at for r in runs)
                parts.append(f"`{_cut(e.ref, 120)}` failed ({err or 'non-zero exit'})" +
                             ("; it passed later." if passed_later else "; not fixed in this session."))
    other = Counter(e.tool for e in tools if e.tool not in ("Read", "Bash") and not e.files)
    if other:
        parts.append("Also used " + ", ".join(f"{t} ({n}×)" if n > 1 else t for t, n in other.most_common(5)) + ".")
    return _cut(" ".join(parts), EPISODE_CHARS)


def _change_of(edit: CaptureEvent) -> str:
    """The change an edit made, from its line ("Edited a.py: `old` → `new`")."""
    _, sep, change = edit.text.partition(": ")
    return _cut(change, 200) if sep and "→" in change else ""


def _unique(items) -> list[str]:  # type: ignore[no-untyped-def]
    return list(dict.fromkeys(items))


def _relative(path: str, project: str) -> str:
    """A path inside the project relative to its root; others as they are."""
    root = project.rstrip("/") + "/"
    return path[len(root):] if project and path.startswith(root) else path


def _first_line(text: str) -> str:
    """The most telling line of an error tail: the last naming an exception or error
    (`AssertionError: ...`, `error: ...`), else the last line that is not a bare exit status."""
    lines = [ln.strip() for ln in (text or "").splitlines() if ln.strip()]
    for pattern in (_EXCEPTION, _ERROR):
        for line in reversed(lines):
            if pattern.search(line):
                return line
    rest = [ln for ln in lines if not _STATUS.match(ln)]
    return rest[-1] if rest else (lines[-1] if lines else "")


def _cut(text: str, most: int) -> str:
    return text if len(text) <= most else text[: most - 1] + "…"


