"""BM25 sparse vectors (Qdrant Edge's built-in Bm25), aware of how developers write code.

The same encoder feeds both store backends, so a memory gets the same sparse
vector whether it lives in Qdrant Edge or on a Qdrant server (which applies IDF).
"""

from __future__ import annotations

import re

from qdrant_edge import Bm25, Bm25Config

from mnemex.store.base import SparseVec

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*[a-z][A-Z][A-Za-z0-9_]*")


def expand_code_tokens(text: str) -> str:
    """Append the parts of camelCase identifiers so `parseConfig` also matches `parse config`.

    snake_case, paths and dotted names are already split on punctuation by the BM25 tokenizer.
    """
    extra = [" ".join(_CAMEL.split(m.group(0))) for m in _IDENT.finditer(text)]
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
