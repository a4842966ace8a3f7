"""Intent router: a keyword classifier that picks retrieval weights and limits per intent.

Heuristic and offline by design (the seed's LLM classifier is optional, never required).
"""

from __future__ import annotations

import re

from mnemex.config.retrieval import Intent


_RULES: tuple[tuple[Intent, re.Pattern[str]], ...] = (
    (Intent.TEMPORAL, re.compile(
        r"^\s*when\b|\bwhat (?:time|date|day|year|month)\b|\bhow long (?:ago|since|before|after)\b|"
        r"\bsince when\b|\b(?:first|last) time\b|\bhow (?:often|recently)\b", re.I)),
    # "would X ...", "what might ...", "is it likely ...": answered by inference from what is known
    # about X, rarely by the question's own words
    (Intent.HYPOTHETICAL, re.compile(
        r"^\s*(?:would|might|could)\b(?!\s+(?:you|we|i)\b)|\b(?:likely|probably|might)\b", re.I)),
    (Intent.CAUSAL, re.compile(
        r"^\s*why\b|\bwhat (?:caused|causes|made)\b|\breason(?:s)? (?:for|why)\b|\bhow come\b|\broot cause\b", re.I)),
    (Intent.PROCEDURAL, re.compile(
        r"\bhow (?:do|did|can|could|should|to) (?:i|we|you)?\b|\bhow to\b|\bsteps? (?:to|for)\b|"
        r"\bwhat (?:command|commands|flag|flags)\b|\bcommand (?:to|for)\b|\bprocedure\b|\bworkflow\b", re.I)),
    (Intent.PREFERENCE, re.compile(
        r"\bprefer(?:s|red|ence|ences)?\b|\bfavou?rite\b|\b(?:like|likes|enjoy|enjoys|love|loves|hate|hates|dislike|dislikes)\b|"
        r"\bconvention(?:s)?\b|\bstyle\b", re.I)),
    (Intent.ENTITY, re.compile(
        r"^\s*(?:who (?:is|are|was|were)|tell me about|what do (?:you|we) know about)\b", re.I)),
    (Intent.FACTUAL, re.compile(
        r"^\s*(?:what|which|where|who|whom|whose|how many|how much|is|are|was|were|does|do|did|has|have|can)\b", re.I)),
)


# a question about runs themselves: when something last ran, whether it passed, how long it took
_ABOUT_RUNS = re.compile(
    r"\b(?:ran|re-?ran|(?:the|last|latest|recent|previous|earlier|nightly|failed|failing|successful|"
    r"green|red|flaky|all|many|few|our|those|these|\d+) runs|runs (?:of|were|are|have|had|did)"
    r"|executed|run history|last (?:run|build|deploy|test run)|what happened when"
    r"|how long did|did (?:the |it |we |i |you |my |our )?[\w-]*\s?(?:pass|fail|succeed|finish|break|run)"
    r"|which commands?|(?:which|what|last) commits?\b(?! messages?\b)|committed)\b", re.I)


def asks_about_runs(query: str) -> bool:
    """Does the question ask about runs (of a command, a build, a test) rather than what is known?"""
    return _ABOUT_RUNS.search(query) is not None


def classify_intent(query: str) -> Intent:
    """The first matching intent in priority order; GENERAL when nothing matches."""
    for intent, pattern in _RULES:
        if pattern.search(query):
            return intent
    return Intent.GENERAL
