"""BM25 sparse vectors (Qdrant Edge's built-in Bm25), aware of how developers write code.

The same encoder feeds both store backends, so a memory gets the same sparse
vector whether it lives in Qdrant Edge or on a Qdrant server (which applies IDF).
"""

from __future__ import annotations

import re

from qdrant_edge import Bm25, Bm25Config

from mnemex.models import SparseVec

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])|(?<=[A-Za-z])(?=\d)|(?<=\d)(?=[A-Za-z])")
# identifiers with an inner case change: parseConfig, HTTPServer, getHTTPResponse, Http2Server
_IDENT = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]*(?:[a-z0-9][A-Z]|[A-Z][A-Z][a-z])[A-Za-z0-9_]*\b")
# compound names joined by _ . / - : poll_carrier_status, services/common/db.py, api.v2.routes, ERR_SSL_X
# (anchored and possessive: linear time even on a 20,000-character run of letters)
_COMPOUND = re.compile(r"(?<![A-Za-z0-9])[A-Za-z0-9]++(?:[_./-][A-Za-z0-9]++)+")
_EXTENSION = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,4}$")


def _is_code_name(name: str) -> bool:
    """A compound that is a name, not prose: it has a part of 2+ letters (not `e.g.`, `v1.2.3`,
    `1.5`), and, when only hyphens join it, 3+ parts or a digit (`promote-prod-v2`, `RW-412`,
    not `follow-up`)."""
    parts = re.split(r"[_./-]", name)
    if not any(sum(c.isalpha() for c in part) >= 2 for part in parts):
        return False
    if re.search(r"[_./]", name):
        return True
    return len(parts) >= 3 or any(c.isdigit() for c in name)


def _joined(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9]", "", name).lower()


def code_names(text: str) -> tuple[list[str], list[str]]:
    """(parts, names) of the code names in `text`.

    parts: camelCase/PascalCase identifiers split into words (`parseConfig` → "parse Config";
    the tokenizer keeps them whole). names: one whole-name token per compound name
    (`poll_carrier_status` → `pollcarrierstatus`: snake_case, paths, dotted and kebab names are
    split on punctuation by the tokenizer, so without it an exact name would score no better than
    a memory that merely uses its words), plus, for a file name, the name without extension and
    path (`invoice_service.py` → `invoiceservice`, which `InvoiceService` also gives), plus the
    whole camelCase identifiers themselves. The same name in any case style meets on the same
    token. Names without a letter (dates, version numbers) are left alone.
    """
    parts, names = [], []
    for m in _IDENT.finditer(text):
        split = [p for p in _CAMEL.split(m.group(0).replace("_", " ")) if p.strip()]
        if len(split) > 1:
            parts.append(" ".join(split))
            if "_" not in m.group(0):
                names.append(m.group(0).lower())
    for m in _COMPOUND.finditer(text):
        name = m.group(0)
        if not _is_code_name(name):
            continue
        names.append(_joined(name))
        base = _EXTENSION.sub("", name.rsplit("/", 1)[-1])
        if base != name and re.search(r"[_.-]", base):
            names.append(_joined(base))
    return parts, names


def literal_code_names(text: str) -> list[str]:
    """The code names of `text` as written (the compound names `code_names` joins, and camelCase
    identifiers), in order of appearance: what the read path looks for verbatim in memories."""
    found = [(m.start(), m.group(0)) for m in _COMPOUND.finditer(text) if _is_code_name(m.group(0))]
    spans = [(s, s + len(name)) for s, name in found]
    for m in _IDENT.finditer(text):
        inside = any(a <= m.start() and m.end() <= b for a, b in spans)
        if not inside and len([p for p in _CAMEL.split(m.group(0).replace("_", " ")) if p.strip()]) > 1:
            found.append((m.start(), m.group(0)))
    return [name for _, name in sorted(found)]


def joined_name(name: str) -> str:
    """The whole-name token of a code name: letters and digits only, lower case
    (`poll_carrier_status`, `pollCarrierStatus` and `POLL-CARRIER-STATUS` all give `pollcarrierstatus`)."""
    return _joined(name)


_WORD = re.compile(r"[A-Za-z]{3,}")


def plain_words(text: str) -> list[str]:
    """The prose words of `text`, lower-cased, in order: runs of 3+ letters outside code names
    (a code name is matched exactly, never by meaning). Stop words are left to the caller."""
    prose = _IDENT.sub(" ", _COMPOUND.sub(lambda m: " " if _is_code_name(m.group(0)) else m.group(0), text))
    return [w.lower() for w in _WORD.findall(prose)]


def expand_code_tokens(text: str) -> str:
    """`text` plus the parts and whole-name tokens of its code names (see `code_names`); the
    camelCase whole names are already in the text."""
    return _expand(text)[0]


def _expand(text: str, code: tuple[list[str], list[str]] | None = None) -> tuple[str, list[str]]:
    """(expanded text, whole names): one pass over the code names (`code`, when the caller has
    already read them) for both uses."""
    parts, names = code if code is not None else code_names(text)
    words = set(re.findall(r"[a-z0-9]+", text.lower()))
    extra = parts + [n for n in dict.fromkeys(names) if n not in words]
    return (f"{text} {' '.join(extra)}" if extra else text), names


#: How much more a whole code name in the query counts than one of its words: matching
#: `poll_carrier_status` exactly is a phrase match, stronger evidence than "poll", "carrier", "status".
NAME_WEIGHT = 3.0


class SparseEncoder:
    def __init__(self, avg_len: float = 24.0):
        self._bm25 = Bm25(Bm25Config(avg_len=avg_len, language="english"))

    def embed_document(self, text: str) -> SparseVec:
        vec = self._bm25.embed_document(expand_code_tokens(text))
        return SparseVec(tuple(vec.indices), tuple(vec.values))

    def word_token(self, word: str) -> int | None:
        """The BM25 token of one word (its stem), or None for a stop word."""
        indices = self._bm25.embed_query(word).indices
        return int(indices[0]) if len(indices) == 1 else None

    def embed_query(self, text: str, code: tuple[list[str], list[str]] | None = None) -> SparseVec:
        """The BM25 query vector of `text`, its whole code names weighted NAME_WEIGHT; `code` is
        `code_names(text)` when the caller has already read it."""
        expanded, names = _expand(text, code)
        vec = self._bm25.embed_query(expanded)
        if not names:
            return SparseVec(tuple(vec.indices), tuple(vec.values))
        whole = set(self._bm25.embed_query(" ".join(names)).indices)
        return SparseVec(tuple(vec.indices),
                         tuple(v * NAME_WEIGHT if i in whole else v for i, v in zip(vec.indices, vec.values)))
