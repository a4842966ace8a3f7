"""Multi-query decomposition: a compound question becomes 2-4 sub-queries, fused by RRF."""

from __future__ import annotations

import re

_WH = r"(?:what|which|where|who|whom|whose|when|why|how|is|are|was|were|does|do|did|has|have|can|should)"
_QUESTION_SPLIT = re.compile(r"(?<=\?)\s+(?=\S)")
_CLAUSE_SPLIT = re.compile(rf"\s*(?:;|,?\s+and also\s+|,?\s+as well as\s+|,?\s+and\s+(?={_WH}\b))\s*", re.I)
_MIN_WORDS = 3


def decompose(query: str, max_parts: int = 4) -> list[str]:
    """Sub-queries of a compound `query` (several questions, "X and also Y", "what A and where B");
    a single-element list when it is not compound."""
    parts = [p.strip() for p in _QUESTION_SPLIT.split(query.strip()) if p.strip()]
    out: list[str] = []
    for part in parts:
        out.extend(c.strip(" ,") for c in _CLAUSE_SPLIT.split(part) if c and c.strip(" ,"))
    out = [p for p in out if len(p.split()) >= _MIN_WORDS]
    if len(out) < 2:
        return [query.strip()]
    return out[:max_parts]
