"""Clusters of near-duplicates and the theme memory that replaces them. Pure (no store, no model).

The dream compares memories with their nearest neighbours; pairs of one kind and scope at or above
`dream.merge_similarity` whose entities do not disagree are linked, and the linked groups
(`clusters`) of at least `dream.cluster_min` members are consolidated: by default
deterministically (`merge_text`: the most useful member first, then each other member's sentences
that say something the text does not say yet), optionally by a language model or by the agent.
"""

from __future__ import annotations

import re
from typing import Iterable, Sequence

from mnemex.engine.lifecycle.strength import as_utc
from mnemex.engine.statements import Statement, read, swaps_words
from mnemex.models import Memory

_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\n+")
_WORD = re.compile(r"[\w./:-]+")


_SPECIFIC = re.compile(r"[\w./:-]*(?:\d|[_./:]\w|[a-z][A-Z])[\w./:-]*")


def specifics(text: str) -> frozenset[str]:
    """The tokens that tell like statements apart: numbers, versions, paths, snake_case and
    camelCase names (`svc9`, `8009`, `a/b.py`, `poll_status`, `fooBar`)."""
    return frozenset(t.lower().strip(".:-") for t in _SPECIFIC.findall(text)) - {""}


def same_subject(a: Memory, b: Memory) -> bool:
    """Two memories may be merged (or one sent dormant as redundant): the same kind, scope and project,
    entities that overlap (or are missing on one side: a paraphrase may name nothing), no specific
    token of each that the other lacks (`port 8000` and `port 8009` are two facts however close their
    embeddings), and no word traded for another (`statements.swaps_words`, the write gate's rule)."""
    if (a.kind, a.scope, a.project) != (b.kind, b.scope, b.project):
        return False
    ea, eb = {e.lower() for e in a.entities}, {e.lower() for e in b.entities}
    if ea and eb and not ea & eb:
        return False
    sa, sb = specifics(a.content), specifics(b.content)
    if not (sa <= sb or sb <= sa):
        return False
    return not _traded(read(a.content, tuple(a.entities)), read(b.content, tuple(b.entities)))


def _traded(a: Statement, b: Statement) -> bool:
    """Each holds words the other lacks where it matters: in what the sentence is about ("Priya owns
    the billing alerts" / "Marcus owns ..."), or two or more on each side ("... the metrics-cron
    database" / "... the search-sdk dashboards"). Two facts, or a fact and what replaced it; a
    rewording that drops one word and adds a detail ("Service svc0 listens ..." / "svc0 listens ...,
    behind the gateway") is still one."""
    if not swaps_words(a, b):
        return False
    if a.head - b.keys - b.parts and b.head - a.keys - a.parts:
        return True
    return len(a.keys - b.keys - b.parts) >= 2 and len(b.keys - a.keys - a.parts) >= 2


def clusters(pairs: Iterable[tuple[str, str]]) -> list[list[str]]:
    """The connected groups of the linked ids (union-find), each sorted, largest first."""
    parent: dict[str, str] = {}

    def root(x: str) -> str:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in pairs:
        ra, rb = root(a), root(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    groups: dict[str, list[str]] = {}
    for x in parent:
        groups.setdefault(root(x), []).append(x)
    return sorted((sorted(g) for g in groups.values()), key=lambda g: (-len(g), g[0]))


def representative(members: Sequence[Memory]) -> Memory:
    """The member a theme starts from: the most useful (utility, recalls, importance), then the newest."""
    return max(members, key=lambda m: (m.lifecycle.utility, m.access_count, m.importance, as_utc(m.created_at), m.id))


def _words(text: str) -> frozenset[str]:
    return frozenset(w.lower().strip(".:-") for w in _WORD.findall(text)) - {""}


def _said(words: frozenset[str], kept: list[frozenset[str]], overlap: float) -> bool:
    return any(len(words & k) >= overlap * min(len(words), len(k)) for k in kept if k)


def merge_text(members: Sequence[Memory], *, max_chars: int, overlap: float = 0.7) -> str:
    """One text for the cluster: the representative's, then each other member's sentences (newest
    member first) that the text does not already say (under `overlap` of their words in a kept
    sentence), while it stays within `max_chars`."""
    first = representative(members)
    text = " ".join(first.content.split())
    kept = [_words(s) for s in _SENTENCE.split(first.content) if s.strip()]
    for m in sorted((m for m in members if m.id != first.id), key=lambda m: (as_utc(m.created_at), m.id), reverse=True):
        for sentence in _SENTENCE.split(m.content):
            sentence = " ".join(sentence.split())
            words = _words(sentence)
            if not words or _said(words, kept, overlap):
                continue
            addition = sentence[0].upper() + sentence[1:]
            addition = addition if addition[-1] in ".!?" else addition + "."
            joined = text + (" " if text[-1:] in ".!?" else ". ") + addition
            if len(joined) > max_chars:
                continue
            text, kept = joined, [*kept, words]
    return text
