"""Template HyDE: hypothetical answer phrasings of a question, by intent, with no LLM.

A question ("when did we move to Postgres?") is embedded far from the statement that
answers it ("we moved to Postgres last week"). Rewriting it into 2-3 declarative
templates and averaging their embeddings with the query's moves the vector toward
answers while the query itself still dominates.
"""

from __future__ import annotations

import re

from mnemex.engine.retrieval.query.intent import Intent

_LEAD = re.compile(
    r"^\s*(?:(?:so|and|but|hey|please|ok|okay),?\s+)?"
    r"(?:what|which|where|when|why|who|whom|whose|how(?:\s+(?:many|much|long|often|come))?)?\s*"
    r"(?:kind|type|sort)?\s*(?:of\s+)?"
    r"(?:(?:is|are|was|were|do|does|did|has|have|had|can|could|should|would|will|might)\s+)?",
    re.I,
)
_TAIL = re.compile(r"[\s?.!]+$")

_TEMPLATES: dict[Intent, tuple[str, ...]] = {
    Intent.TEMPORAL: ("{core} on that day", "I remember when {core}"),
    Intent.HYPOTHETICAL: ("{core}", "I think {core}"),
    Intent.CAUSAL: ("{core} because", "the reason {core} is"),
    Intent.PROCEDURAL: ("to {core}, run", "the steps to {core} are"),
    Intent.PREFERENCE: ("I prefer {core}", "my favorite {core}"),
    Intent.ENTITY: ("{core} is", "about {core}"),
    Intent.FACTUAL: ("{core}", "I {core}"),
    Intent.GENERAL: ("{core}",),
}


def question_core(query: str) -> str:
    """The query without its leading question words and trailing punctuation."""
    core = _TAIL.sub("", _LEAD.sub("", query, count=1)).strip()
    return core or query.strip()


def hypothetical_documents(query: str, intent: Intent, max_variants: int = 2) -> list[str]:
    """Up to `max_variants` declarative phrasings of `query` for its intent (never the query itself)."""
    core = question_core(query)
    if core.lower() == query.strip().lower().rstrip("?.! "):
        variants = [t.format(core=core) for t in _TEMPLATES[intent] if t != "{core}"]
    else:
        variants = [t.format(core=core) for t in _TEMPLATES[intent]]
    seen: set[str] = {query.strip().lower()}
    out: list[str] = []
    for v in variants:
        key = v.strip().lower()
        if key not in seen:
            seen.add(key)
            out.append(v.strip())
    return out[:max_variants]
