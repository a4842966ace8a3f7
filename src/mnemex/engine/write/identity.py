"""The store's embedding identity: recorded once, checked on every open, so vectors of two
models are never mixed in one store."""

from __future__ import annotations

from mnemex.embed.dense import EmbeddingIdentity
from mnemex.errors import ModelMismatchError
from mnemex.store.base import PAYLOAD_VERSION, MemoryStore


def check_identity(store: MemoryStore, identity: EmbeddingIdentity) -> None:
    """Record the model identity (and the payload layout) in a new store; refuse a store made
    by another model."""
    stored = store.read_identity()
    if stored is None:
        store.write_identity({**identity.as_dict(), "payload": PAYLOAD_VERSION})
        return
    have = EmbeddingIdentity.from_dict(stored)
    if (have.model, have.dim) != (identity.model, identity.dim):
        raise ModelMismatchError(
            f"this store was embedded with {have.model} ({have.dim}-d) but embedding.model is "
            f"{identity.model} ({identity.dim}-d): set embedding.model back to {have.model}, "
            "or use another data_dir/collection for the new model"
        )
