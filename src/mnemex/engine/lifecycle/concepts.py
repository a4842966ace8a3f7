"""Concept nodes (seed 003, after GAM): the entities memories name, merged when their names are
near-identical, counted, and the frequent ones marked schematic. Pure (no store, no model).

Every entity key a current memory carries ("service:redis", "Redis", "webhooks") is normalised
(`normalised`: its type prefix, case, separators and a plural `s` dropped); keys with the same
normal form are one concept, and two forms whose string similarity reaches
`concepts.merge_similarity` are merged (compared only within a bucket of their first two letters,
of at most `MAX_BUCKET` names, and never for paths, so the work stays bounded). A concept named by at least `concepts.schematic_min` memories is
schematic: a core concept of the project.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Iterable

#: Most names compared pairwise in one bucket (names sharing their first two letters).
MAX_BUCKET = 400
_SEPARATORS = re.compile(r"[\s_\-]+")
_TYPED = re.compile(r"^([a-z]{3,}):(.+)$")


@dataclass(frozen=True, slots=True)
class Concept:
    name: str                   # the most used of its names
    names: tuple[str, ...]      # every entity key merged into it
    memories: int               # distinct current memories naming it
    schematic: bool

    def as_dict(self) -> dict[str, object]:
        return {"name": self.name, "names": list(self.names), "memories": self.memories}


def normalised(entity: str) -> str:
    """"service:Redis" -> "redis"; "Web-Hooks" -> "web hook"; paths keep their punctuation."""
    match = _TYPED.match(entity.strip())
    name = match.group(2) if match else entity.strip()
    name = _SEPARATORS.sub(" ", name.lower()).strip()
    words = [w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w for w in name.split(" ")]
    return " ".join(words)


def concepts(mentions: Iterable[tuple[str, str]], *, merge_similarity: float, schematic_min: int) -> list[Concept]:
    """The concepts of (memory id, entity key) mentions, most used first."""
    by_key: dict[str, set[str]] = {}
    for memory_id, entity in mentions:
        if entity and entity.strip():
            by_key.setdefault(entity.strip(), set()).add(memory_id)
    forms: dict[str, list[str]] = {}
    for key in by_key:
        forms.setdefault(normalised(key), []).append(key)
    parent = {f: f for f in forms}

    def root(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    buckets: dict[str, list[str]] = {}
    for form in sorted(forms):
        if "/" not in form:  # a path names one file: only its exact normal form merges
            buckets.setdefault(form[:2], []).append(form)
    for group in buckets.values():
        if len(group) > MAX_BUCKET:  # bound the pairwise work: such a bucket merges by normal form only
            continue
        for i, a in enumerate(group):
            for b in group[i + 1:]:
                if abs(len(a) - len(b)) > max(2, len(a) // 5):
                    continue
                if _similar(a, b, merge_similarity):
                    ra, rb = root(a), root(b)
                    if ra != rb:
                        parent[max(ra, rb)] = min(ra, rb)
    merged: dict[str, list[str]] = {}
    for form, keys in forms.items():
        merged.setdefault(root(form), []).extend(keys)
    out = []
    for keys in merged.values():
        ids = set().union(*(by_key[k] for k in keys))
        name = max(keys, key=lambda k: (len(by_key[k]), -len(k), k))
        out.append(Concept(name, tuple(sorted(keys)), len(ids), len(ids) >= schematic_min))
    return sorted(out, key=lambda c: (-c.memories, c.name))


def _similar(a: str, b: str, at_least: float) -> bool:
    if any(ch.isdigit() for ch in a + b) and re.sub(r"\D", "", a) != re.sub(r"\D", "", b):
        return False  # "python 3.11" and "python 3.12", "svc8" and "svc9" are two things
    return SequenceMatcher(None, a, b, autojunk=False).ratio() >= at_least
