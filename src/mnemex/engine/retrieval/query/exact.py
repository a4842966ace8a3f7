"""Exact terms: what a query quotes or writes like code, to be found verbatim.

Developers paste error codes (`ERR-PAY-4021`, `E0502`, `40P01`), flags (`--skip-fraud-scoring`,
`-PskipContract`), paths, environment variables, config keys, identifiers, exit codes and
quoted error messages into their questions. Such a term means that string, not its meaning:
the memory holding it verbatim is the answer, whatever the embedding thinks of the rest.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from mnemex.embed.sparse import joined_name, literal_code_names

# a quoted stretch: "…", “…”, `…`, or '…' not inside a word ("what's" is no quote)
_QUOTED = re.compile(r"\"([^\"\n]{2,200})\"|“([^”\n]{2,200})”|`([^`\n]{2,200})`"
                     r"|(?<![A-Za-z0-9])'([^'\n]{2,200})'(?![A-Za-z0-9])")
_RUN = re.compile(r"\S+")
_EDGE = "\"'`“”‘’()[]{}<>,;:!?."
# a flag: -x is too short to mean anything; --name, -Dname, -PskipContract are flags
_FLAG = re.compile(r"^--?[A-Za-z][A-Za-z0-9_.-]*[A-Za-z0-9]$")
# letters and digits in one word: E0502, 40P01, P2002, x509, TS2345
_MIXED = re.compile(r"^(?=[A-Za-z]*\d)(?=\d*[A-Za-z])[A-Za-z0-9]{3,}$")
# a quantity is no code: 3rd, 10am, 64GB; nor a plural acronym: URLs, APIs
_QUANTITY = re.compile(r"^\d+[A-Za-z]+$|^[A-Z]{2,}s$")
# a number of 3+ digits that is not a year: exit code 137, error 1023, port 9187
_NUMBER = re.compile(r"^\d{3,}$")
_YEAR = re.compile(r"^(?:19|20)\d\d$")
# a name led by two or more capitals then a word: FPort, JUnit, GLib, OAuth (not URLs, IDEs)
_CAPS_LED = re.compile(r"^[A-Z]{2,}[a-z]{2,}[A-Za-z0-9]*$")
# names joined by a separator the BM25 side does not split on as a code name (AIRFLOW__CORE__X, a::b)
_SEPARATED = re.compile(r"[A-Za-z0-9](?:__|::|/)[A-Za-z0-9(]")


@dataclass(frozen=True, slots=True)
class ExactTerm:
    """One term to find verbatim: `text` as the query writes it; `phrase` when it was quoted."""

    text: str
    phrase: bool = False

    @property
    def key(self) -> str:
        """What is looked for: lower case, runs of white space as one space."""
        return " ".join(self.text.lower().split())


def exact_terms(query: str) -> tuple[ExactTerm, ...]:
    """The query's quoted stretches and the words it writes like code (code names, paths, flags,
    codes of letters and digits, names led by capitals such as FPort, numbers of 3+ digits but not
    years), each once, in order."""
    found: dict[str, ExactTerm] = {}
    for m in _QUOTED.finditer(query):
        text = next(g for g in m.groups() if g is not None).strip().strip(".,;:!?")
        if len(text) >= 2:
            found.setdefault(text.lower(), ExactTerm(text, phrase=True))
    for m in _RUN.finditer(query):
        word = _strip(m.group(0))
        if word and _code_like(word):
            found.setdefault(word.lower(), ExactTerm(word))
    return tuple(found.values())


def _strip(word: str) -> str:
    # a trailing "." or ":" ends the sentence; a leading "." is part of a dotfile (.saltmarsh/x)
    word = word.rstrip(_EDGE)
    return word.lstrip(_EDGE.replace(".", "").replace("(", "")) if not word.startswith("-") else word


def _code_like(word: str) -> bool:
    if _QUANTITY.match(word):
        return False
    if _FLAG.match(word):
        return True
    if _MIXED.match(word) or _CAPS_LED.match(word) or (_NUMBER.match(word) and not _YEAR.match(word)):
        return True
    return bool(_SEPARATED.search(word)) or bool(literal_code_names(word))


def holds(term: ExactTerm, content: str) -> bool:
    """Does `content` hold the term verbatim (case aside; a code name also in another case style:
    `poll_carrier_status` is held by a memory that writes `pollCarrierStatus`)?"""
    return _holds(term.key, term.phrase, content)


def _holds(key: str, phrase: bool, content: str) -> bool:
    text, joined = _spellings(content)
    if key in text and _bounded(key).search(text):
        return True
    if phrase:
        return False
    whole = joined_name(key)
    # the joined spelling must occur before the code names are read out (most candidates fail here)
    return (len(whole) >= 5 and whole in joined
            and any(joined_name(n) == whole for n in literal_code_names(content)))


@lru_cache(maxsize=4096)
def _spellings(content: str) -> tuple[str, str]:
    """(lower case with single spaces, letters and digits only): the same memories come back
    query after query."""
    return " ".join(content.lower().split()), joined_name(content)


def _bounded(key: str) -> re.Pattern[str]:
    # not inside a longer word or number: 137 is not held by 1370 or 137.5, E0502 not by E05021
    head = r"(?<![a-z0-9])" if key[:1].isalnum() else ""
    tail = r"(?![a-z0-9]|[.,]\d)" if key[-1:].isalnum() else ""
    return re.compile(head + re.escape(key) + tail)
