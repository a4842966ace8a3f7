"""The query, analysed once: what every stage of the read path reads.

`plan_query` reads the text a single time for each thing the stages need — its time window and
the words that leave the search text with it, its intent, its sub-queries, and for each text
that is searched its code names, plain words and whether it names code, and the names it
mentions (for the entity boost), and the terms it quotes or writes like code (to be found
verbatim). Stages never parse the query again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from mnemex.config.retrieval import Intent
from mnemex.embed.sparse import code_names, plain_words
from mnemex.engine.retrieval.query import (
    TimeWindow,
    asks_about_runs,
    classify_intent,
    decompose,
    parse_time_window,
    strip_time_expression,
)
from mnemex.engine.retrieval.query.exact import ExactTerm, exact_terms

_CAPITALISED = re.compile(r"\b[A-Z][\w'-]*[A-Za-z0-9]\b|\b[A-Z]\b")
# runs of word characters and . / - (anchored and possessive: linear time on any input); a run is an
# identifier when a separator sits inside it (paths, snake_case, dotted names)
_RUN = re.compile(r"(?<![\w./-])[\w./-]++")
_INNER_SEPARATOR = re.compile(r"\w[_./]+\w|_")
_CAMEL_WORD = re.compile(r"\b\w*[a-z][A-Z]\w*\b")
_ERROR_CODE = re.compile(r"\b[A-Z]{1,5}-?\d{2,}\b")
_NOT_ENTITIES = frozenset("""
i what which where when why who whom whose how is are was were do does did has have had can could should
would will might may must the a an and or but if then so in on at by for with from to of about
""".split())


def query_entities(query: str) -> frozenset[str]:
    """Lower-cased names and identifiers a query mentions: capitalised words (not question words),
    paths, snake/camelCase identifiers, error codes. Possessive 's is dropped."""
    found = set()
    for m in _CAPITALISED.finditer(query):
        word = re.sub(r"'s$", "", m.group(0)).lower()
        if word not in _NOT_ENTITIES and len(word) > 1:
            found.add(word)
    for token in _identifiers(query):
        token = token.strip("./-").lower()
        if len(token) > 1:
            found.add(token)
    return frozenset(found)


def _identifiers(query: str) -> list[str]:
    out = [m.group(0) for m in _RUN.finditer(query) if _INNER_SEPARATOR.search(m.group(0).strip("./-"))]
    out += [m.group(0) for m in _CAMEL_WORD.finditer(query)]
    out += [m.group(0) for m in _ERROR_CODE.finditer(query)]
    return out


@dataclass(frozen=True, slots=True)
class Terms:
    """One searched text as the stages use it."""

    text: str
    code: tuple[list[str], list[str]]
    """`code_names(text)`: (camelCase parts, whole-name tokens)."""
    words: tuple[str, ...]
    """Its plain prose words (`plain_words`), in order: what query expansion looks up."""
    names_code: bool
    """It names code (a path, a snake/camel/kebab-case identifier, an error code): a BM25 match on
    its words is evidence, whatever the embedding says."""


def terms_of(text: str) -> Terms:
    code = code_names(text)
    return Terms(text, code, tuple(plain_words(text)), bool(code[1]) or _ERROR_CODE.search(text) is not None)


@dataclass(frozen=True, slots=True)
class QueryPlan:
    """What the pipeline will run for one query."""

    text: str
    """What is searched: the query less its time expression's noise words."""
    intent: Intent
    window: TimeWindow | None
    subqueries: tuple[str, ...]
    terms: Terms
    """The terms of `text`."""
    subterms: tuple[Terms, ...]
    """The terms of each sub-query, when the question is compound (else empty)."""
    entities: frozenset[str]
    """Names and identifiers the query mentions."""
    exact: tuple[ExactTerm, ...] = ()
    """What the query quotes or writes like code, to be found verbatim (`query/exact.py`)."""
    about_runs: bool = False
    """It asks about runs (when a command last ran, whether it passed), not what is known."""

    @property
    def compound(self) -> bool:
        return len(self.subqueries) > 1


def plan_query(query: str, *, now: datetime, temporal: bool = True, decomposition: bool = True,
               max_subqueries: int = 4) -> QueryPlan:
    text = query.strip()
    window = parse_time_window(text, now) if temporal else None
    intent = classify_intent(text)
    if window is not None and window.noise:
        text = strip_time_expression(text, window)
    subs = tuple(decompose(text, max_subqueries)) if decomposition else (text,)
    return QueryPlan(text=text, intent=intent, window=window, subqueries=subs, terms=terms_of(text),
                     subterms=tuple(terms_of(s) for s in subs) if len(subs) > 1 else (),
                     entities=query_entities(text), exact=exact_terms(query),
                     about_runs=asks_about_runs(query))
