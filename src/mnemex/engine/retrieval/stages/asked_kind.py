"""A question can ask for a kind of memory, and a memory of that kind answers it better than a fact
that shares its words.

* What was decided ("what did we decide about the cache?", "which database did we choose?"): the
  memories the observer classified as decisions get their relevance scaled by `decision_boost`.
  Valid facts about the same component otherwise outrank the decision on the shared name alone.
* What the rule is ("how should services log?", "what's our convention for branch names?", "are
  we allowed to push to main?"): conventions and preferences get `rule_boost`. A fact that names
  the same component ("orders-service is written in TypeScript") otherwise outranks the rule, whose
  wording rarely repeats the question's ("use structlog with bound request ids")."""

from __future__ import annotations

import re

from mnemex.config.retrieval import RetrievalConfig
from mnemex.engine.retrieval.candidates import Candidates
from mnemex.engine.retrieval.fusion import ranked
from mnemex.models import MemoryKind

_ASKS_DECISION = re.compile(r"\b(?:decide[ds]?|deciding|decisions?|agreed|agree on|chose|chosen|choose|"
                            r"settled on|went with|go with)\b", re.I)
# normative questions: what one should or may do, what the convention or style is (not "rules" or
# "policy": "the firewall rules", "the retention policy" are as often facts)
_ASKS_RULE = re.compile(r"\b(?:ought to|supposed to|(?:are|am|is) (?:we|I|it) allowed|allowed to|"
                        r"conventions?|guidelines?|style|best practices?|etiquette|"
                        r"preferred|prefer(?:s|ence)?|expected to)\b", re.I)
_SHOULD = re.compile(r"\bshould(?:n'?t)?\b", re.I)
# "whom should I ask", "where should the file go": a person, a place or a time, not a rule
_ASKS_OTHER = re.compile(r"^\W*(?:who|whom|whose|where|when|which|what time)\b", re.I)
_DECISION_KINDS = frozenset({MemoryKind.DECISION.value})
_RULE_KINDS = frozenset({MemoryKind.CONVENTION.value, MemoryKind.PREFERENCE.value})


def asks_for_decision(query: str) -> bool:
    return _ASKS_DECISION.search(query) is not None


def asks_for_rule(query: str) -> bool:
    if _ASKS_RULE.search(query):
        return True
    return _SHOULD.search(query) is not None and not _ASKS_OTHER.search(query)


def favour_asked(order: list[str], cands: Candidates, cfg: RetrievalConfig, query: str) -> list[str]:
    """`order` with the memories of the kind the question asks for (decisions: `decision_boost`;
    conventions and preferences: `rule_boost`) scaled up and re-ranked; unchanged when it asks for
    neither. A question asking for both favours both."""
    wanted: list[tuple[frozenset[str], float, str]] = []
    if cfg.decision_boost > 1.0 and asks_for_decision(query):
        wanted.append((_DECISION_KINDS, cfg.decision_boost, "a decision, asked for"))
    if cfg.rule_boost > 1.0 and asks_for_rule(query):
        wanted.append((_RULE_KINDS, cfg.rule_boost, "a rule, asked for"))
    changed = False
    for kinds, factor, why in wanted:
        for key in order:
            if cands[key].hit.kind in kinds:
                cands[key].relevance *= factor
                cands[key].why.append(why)
                changed = True
    return ranked({key: cands[key].relevance for key in order}) if changed else order
