"""BM25 sparse vectors (Qdrant Edge's built-in Bm25), aware of how developers write code.

The same encoder feeds both store backends, so a memory gets the same sparse
vector whether it lives in Qdrant Edge or on a Qdrant server (which applies IDF).
"""

from __future__ import annotations

import re

from qdrant_edge import Bm25, Bm25Config

from mnemex.store.base import SparseVec

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])|(?<=[A-Za-z])(?=\d)|(?<=\d)(?=[A-Za-z])")
# identifiers with an inner case change: parseConfig, HTTPServer, getHTTPResponse, Http2Server
_IDENT = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]*(?:[a-z0-9][A-Z]|[A-Z][A-Z][a-z])[A-Za-z0-9_]*\b")


def expand_code_tokens(text: str) -> str:
    """Append the parts of camelCase/PascalCase identifiers so `parseConfig` also matches
    `parse config` and `HTTPServer` matches `http server`.

    snake_case, kebab-case, paths, dotted names and error codes (E1101, ERR_SSL_PROTOCOL) are
    already split on punctuation by the BM25 tokenizer, so they need nothing here.
    """
    extra = []
    for m in _IDENT.finditer(text):
        parts = [p for p in _CAMEL.split(m.group(0).replace("_", " ")) if p.strip()]
        if len(parts) > 1:
            extra.append(" ".join(parts))
    return f"{text} {' '.join(extra)}" if extra else text


class SparseEncoder:
    def __init__(self, avg_len: float = 24.0):
        self._bm25 = Bm25(Bm25Config(avg_len=avg_len, language="english"))

    def embed_document(self, text: str) -> SparseVec:
        vec = self._bm25.embed_document(expand_code_tokens(text))
        return SparseVec(tuple(vec.indices), tuple(vec.values))

    def embed_query(self, text: str) -> SparseVec:
        vec = self._bm25.embed_query(expand_code_tokens(text))
        return SparseVec(tuple(vec.indices), tuple(vec.values))
