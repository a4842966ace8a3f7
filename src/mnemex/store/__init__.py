"""mnemex.store: the vector store behind the engine.

`open_store` picks the backend: embedded Qdrant Edge (`EdgeStore`) when no url is
configured, a Qdrant server (`RemoteStore`) otherwise. `RemoteStore` is imported only
when used, because importing qdrant_client takes about a second.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from mnemex.store.base import DENSE_VECTOR, SPARSE_VECTOR, Hit, MemoryStore, StoredPoint, VectorQuery
from mnemex.store.edge import EdgeStore

if TYPE_CHECKING:
    from mnemex.store.remote import RemoteStore

__all__ = [
    "DENSE_VECTOR", "SPARSE_VECTOR", "EdgeStore", "Hit", "MemoryStore", "RemoteStore", "StoredPoint",
    "VectorQuery", "open_store",
]


def open_store(*, url: str | None, api_key: str | None, path: Path | str, collection: str,
               dim: int, linked: bool = False) -> MemoryStore:
    """The store for these settings: `EdgeStore` at `path` when `url` is None, else the
    `RemoteStore` collection `collection` at `url`. Raises StoreLockedError when another
    process owns the embedded store. `linked`: see `EdgeStore`."""
    if url is None:
        return EdgeStore(Path(path), dim=dim, linked=linked)
    from mnemex.store.remote import RemoteStore

    return RemoteStore(url, api_key, collection, dim)


def __getattr__(name: str) -> Any:
    if name == "RemoteStore":
        from mnemex.store.remote import RemoteStore

        return RemoteStore
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
