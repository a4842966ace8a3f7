"""Query understanding, one parser a module: trivial-message gate, intent, time expressions,
template HyDE, decomposition. `engine/retrieval/plan.py` puts them together into one plan."""

from mnemex.engine.retrieval.query.decompose import decompose
from mnemex.engine.retrieval.query.expand import hypothetical_documents, question_core
from mnemex.engine.retrieval.query.intent import Intent, asks_about_runs, classify_intent
from mnemex.engine.retrieval.query.temporal import TimeWindow, parse_time_window, strip_time_expression
from mnemex.engine.retrieval.query.trivial import is_trivial

__all__ = [
    "Intent", "TimeWindow", "asks_about_runs", "classify_intent", "decompose", "hypothetical_documents", "is_trivial",
    "parse_time_window", "question_core", "strip_time_expression",
]
