"""Category summaries (seed 001): per project (or scope) and kind, one memory that lists what the
category holds. Pure (no store, no model): the dream finds the categories, writes the summaries.

A category (`Category`: scope, project, kind) with at least `summaries.min_members` current
memories gets a summary memory: its members' first lines, the most important first, within
`summaries.max_chars`. It carries the category key and a fingerprint of its members (ids and when
each was last written); when the fingerprint no longer matches, the dream writes a new summary
that supersedes the old one. Members are never changed.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Iterable, Sequence

from mnemex.engine.lifecycle.slices import sorted_in_slices
from mnemex.engine.lifecycle.strength import as_utc
from mnemex.models import SUMMARY_OF, Memory

#: Metadata key of a summary memory: the fingerprint of the members it was made from.
FINGERPRINT = "summary_fingerprint"
TAG = "summary"

PLURAL = {"fact": "facts", "decision": "decisions", "preference": "preferences", "convention": "conventions",
          "correction": "corrections", "procedure": "procedures", "entity": "entities", "plan": "plans",
          "note": "notes"}


@dataclass(frozen=True, slots=True)
class Category:
    scope: str
    project: str | None
    kind: str

    @property
    def key(self) -> str:
        return f"{self.scope}\x00{self.project or ''}\x00{self.kind}"


def category_of(memory: Memory) -> Category:
    return Category(memory.scope.value, memory.project, memory.kind.value)


def is_summary(memory: Memory) -> bool:
    return SUMMARY_OF in memory.metadata


def categories(memories: Iterable[Memory], *, kinds: Sequence[str], min_members: int) -> dict[Category, list[Memory]]:
    """The categories of `kinds` with at least `min_members` memories (summaries themselves not
    counted), each with its members (in the order given; `ordered` sorts them as a summary lists them)."""
    found: dict[Category, list[Memory]] = {}
    for m in memories:
        if m.kind.value in kinds and not is_summary(m):
            found.setdefault(category_of(m), []).append(m)
    return {c: ms for c, ms in sorted(found.items(), key=lambda cm: cm[0].key) if len(ms) >= min_members}


def ordered(members: Sequence[Memory], first: int | None = None) -> list[Memory]:
    """Most important first, then most useful, then oldest (a stable order: the same members list
    alike); with `first`, only that many."""
    return sorted_in_slices(members, key=lambda m: (-m.importance, -m.lifecycle.utility, as_utc(m.created_at), m.id),
                            first=first)


def fingerprint(members: Sequence[Memory], changed_at) -> str:  # type: ignore[no-untyped-def]
    """What the members are and when each was last written: a changed, added or removed member changes it."""
    parts = sorted_in_slices(f"{m.id}@{as_utc(changed_at(m)).isoformat()}" for m in members)
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:24]


def first_line(text: str, most: int) -> str:
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    line = " ".join(line.split())
    return line if len(line) <= most else line[: most - 1] + "…"


def summary_text(category: Category, members: Sequence[Memory], *, max_chars: int,
                 line_chars: int) -> tuple[str, list[str]]:
    """The summary's text (a heading, then one line per member while it fits `max_chars`, then how
    many more) and the ids of the members it lists."""
    where = f"project {category.project.rstrip('/').rsplit('/', 1)[-1]}" if category.project else f"{category.scope} scope"
    head = f"Summary of the {len(members)} current {PLURAL.get(category.kind, category.kind)} in {where}:"
    lines, listed = [head], []
    used = len(head)
    # a listed line takes at least 3 characters ("- " and its newline), so no more can be listed
    for i, m in enumerate(ordered(members, first=max_chars // 3 + 1)):
        line = f"- {first_line(m.content, line_chars)}"
        more = len(members) - i - 1
        tail = len(f"\n(and {more} more)") if more else 0
        if used + 1 + len(line) + tail > max_chars:
            break
        lines.append(line)
        listed.append(m.id)
        used += 1 + len(line)
    if len(listed) < len(members):
        lines.append(f"(and {len(members) - len(listed)} more)")
    return "\n".join(lines), listed


def stale(summary: Memory | None, print_: str) -> bool:
    """A summary must be (re)written: there is none, or its members changed since it was made."""
    return summary is None or summary.metadata.get(FINGERPRINT) != print_


def latest(summaries: Iterable[Memory]) -> dict[str, Memory]:
    """The newest current summary of each category key."""
    out: dict[str, Memory] = {}
    for m in sorted(summaries, key=lambda m: (as_utc(m.created_at), m.id)):
        out[str(m.metadata[SUMMARY_OF])] = m
    return out
