"""The single write path: validate, (later: redact, observe, gate), embed, store, journal.

Every write of every entry point (tools, CLI, hooks, import, benchmark) goes through
`WritePath`, under the engine's write lock, so decisions are never raced.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any, Callable, Sequence

from mnemex.embed.dense import DenseEmbedder
from mnemex.embed.sparse import SparseEncoder
from mnemex.errors import InvalidInputError
from mnemex.models import Memory, MemoryKind, NewMemory, Scope, WriteAction, WriteOutcome
from mnemex.store.base import MemoryStore, PointRecord
from mnemex.store.payload import memory_to_payload


def validate_content(content: str, max_chars: int) -> str:
    """The content to store, stripped; InvalidInputError if empty or too long."""
    if not isinstance(content, str):
        raise InvalidInputError("content must be a string")
    text = content.strip()
    if not text:
        raise InvalidInputError("content is empty: give the fact, decision or note to remember")
    if len(text) > max_chars:
        raise InvalidInputError(
            f"content is {len(text)} characters, over the limit of {max_chars}: "
            "split it into smaller memories or raise limits.max_content_chars"
        )
    return text


def embedding_text(memory: Memory) -> str:
    """What the vectors are made of: the content, plus tags so they are findable."""
    if memory.tags:
        return f"{memory.content}\n[tags: {', '.join(memory.tags)}]"
    return memory.content


class WritePath:
    def __init__(self, *, store: MemoryStore, dense: DenseEmbedder, sparse: SparseEncoder,
                 max_content_chars: int, clock: Callable[[], datetime],
                 on_write: Callable[[str, Memory | None, Memory], None] | None = None):
        self._store = store
        self._dense = dense
        self._sparse = sparse
        self._max_chars = max_content_chars
        self._clock = clock
        self._on_write = on_write

    def build(self, new: NewMemory, *, default_project: str | None) -> Memory:
        """A complete Memory from a request: validated content, times, project key."""
        content = validate_content(new.content, self._max_chars)
        now = self._clock()
        created = new.created_at or now
        project = new.project or (default_project if new.scope == Scope.PROJECT else None)
        if new.scope == Scope.PROJECT and not project:
            raise InvalidInputError(
                "scope 'project' needs a project: run inside a git repository, pass project=..., "
                "or use scope 'global'"
            )
        tags = tuple(dict.fromkeys(t.strip() for t in new.tags if t and t.strip()))
        return Memory(
            id=str(uuid.uuid4()),
            content=content,
            kind=new.kind or MemoryKind.FACT,
            scope=new.scope,
            project=project if new.scope == Scope.PROJECT else new.project,
            tags=tags,
            provenance=new.provenance,
            confidence=new.confidence,
            importance=new.importance if new.importance is not None else 0.5,
            pinned=new.pinned,
            immutable=new.immutable,
            created_at=created,
            recorded_at=now,
            valid_from=new.valid_from or created,
            valid_until=new.valid_until,
            metadata=dict(new.metadata),
        )

    def store_new(self, memories: Sequence[Memory]) -> list[WriteOutcome]:
        """Embed and upsert already-built memories in one batch."""
        if not memories:
            return []
        texts = [embedding_text(m) for m in memories]
        vectors = self._dense.embed_documents(texts)
        points = [
            PointRecord(id=m.id, dense=v, sparse=self._sparse.embed_document(t), payload=memory_to_payload(m))
            for m, v, t in zip(memories, vectors, texts)
        ]
        self._store.upsert(points)
        for m in memories:
            self._notify("create", None, m)
        return [WriteOutcome(action=WriteAction.CREATED, id=m.id, reason="new memory") for m in memories]

    def replace(self, before: Memory, after: Memory, *, op: str, reembed: bool) -> None:
        """Write a new version of an existing memory (same id)."""
        if reembed:
            text = embedding_text(after)
            point = PointRecord(id=after.id, dense=self._dense.embed_documents([text])[0],
                                sparse=self._sparse.embed_document(text), payload=memory_to_payload(after))
            self._store.upsert([point])
        else:
            self._store.set_payload(after.id, memory_to_payload(after))
        self._notify(op, before, after)

    def _notify(self, op: str, before: Memory | None, after: Memory) -> None:
        if self._on_write is not None:
            self._on_write(op, before, after)


def changes_dict(**fields: Any) -> dict[str, Any]:
    return {k: v for k, v in fields.items() if v is not None}
