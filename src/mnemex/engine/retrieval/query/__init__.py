"""Query understanding: gate, intent, time expressions, template HyDE, decomposition."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from mnemex.engine.retrieval.query.decompose import decompose
from mnemex.engine.retrieval.query.expand import hypothetical_documents, question_core
from mnemex.engine.retrieval.query.gate import is_trivial
from mnemex.engine.retrieval.query.intent import Intent, classify_intent
from mnemex.engine.retrieval.query.temporal import TimeWindow, parse_time_window, strip_time_expression


@dataclass(frozen=True, slots=True)
class QueryPlan:
    """What the pipeline will run for one query."""

    text: str                      # what is searched: the query less its time expression's noise words
    intent: Intent
    window: TimeWindow | None
    subqueries: tuple[str, ...]


def plan_query(query: str, *, now: datetime, temporal: bool = True, decomposition: bool = True,
               max_subqueries: int = 4) -> QueryPlan:
    text = query.strip()
    window = parse_time_window(text, now) if temporal else None
    intent = classify_intent(text)
    if window is not None and window.noise:
        text = strip_time_expression(text, window)
    subs = tuple(decompose(text, max_subqueries)) if decomposition else (text,)
    return QueryPlan(text=text, intent=intent, window=window, subqueries=subs)


__all__ = [
    "Intent", "QueryPlan", "TimeWindow", "classify_intent", "decompose", "hypothetical_documents",
    "is_trivial", "parse_time_window", "plan_query", "question_core", "strip_time_expression",
]
