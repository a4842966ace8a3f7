"""What the stages share: the store, the encoders and the session timelines of one Retriever."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field

from mnemex.embed.dense import DenseEmbedder
from mnemex.embed.sparse import SparseEncoder
from mnemex.embed.vocabulary import Vocabulary
from mnemex.engine.retrieval.neighbours import TimelineCache
from mnemex.models import MemoryFilter
from mnemex.store.base import MemoryStore, VectorQuery


class TermCache:
    """Whether any memory under a filter holds a BM25 token (the vocabulary rule asks it for
    every query word), remembered while the store reports no write (`store.writes`) and for
    at most `ttl` seconds (a filter on validity depends on the clock). A store that does not
    count its writes (a shared server) is asked every time."""

    def __init__(self, ttl: float = 30.0, size: int = 20_000):
        self._lock = threading.Lock()
        self._seen: OrderedDict[tuple[int, str], bool] = OrderedDict()
        self._stamp: tuple[int, float] | None = None
        self._ttl, self._size = ttl, size

    def held(self, store: MemoryStore, token: int, flt: MemoryFilter, scope: str) -> bool:
        writes = getattr(store, "writes", None)
        if writes is None:
            return bool(store.query(VectorQuery.term(token, flt)))
        key, now = (token, scope), time.monotonic()
        with self._lock:
            if self._stamp is None or self._stamp[0] != writes or now - self._stamp[1] > self._ttl:
                self._seen.clear()
                self._stamp = (writes, now)
            if key in self._seen:
                return self._seen[key]
        answer = bool(store.query(VectorQuery.term(token, flt)))
        with self._lock:
            if self._stamp is not None and self._stamp[0] == writes == getattr(store, "writes", None):
                self._seen[key] = answer
                if len(self._seen) > self._size:
                    self._seen.popitem(last=False)
        return answer


@dataclass(frozen=True, slots=True)
class ReadContext:
    store: MemoryStore
    dense: DenseEmbedder
    sparse: SparseEncoder
    vocabulary: Vocabulary | None
    timelines: TimelineCache
    terms: TermCache = field(default_factory=TermCache)
