"""What the stages share: the store, the encoders and the session timelines of one Retriever."""

from __future__ import annotations

from dataclasses import dataclass

from mnemex.embed.dense import DenseEmbedder
from mnemex.embed.sparse import SparseEncoder
from mnemex.embed.vocabulary import Vocabulary
from mnemex.engine.retrieval.neighbours import TimelineCache
from mnemex.store.base import MemoryStore


@dataclass(frozen=True, slots=True)
class ReadContext:
    store: MemoryStore
    dense: DenseEmbedder
    sparse: SparseEncoder
    vocabulary: Vocabulary | None
    timelines: TimelineCache
