"""One error root for mnemex; every layer raises a specific subclass.

The MCP layer maps `InvalidInputError` and `NotFoundError` to invalid-params,
everything else to an internal error with the message kept.
"""

from __future__ import annotations


class MnemexError(Exception):
    """Root of every error mnemex raises on purpose."""


class ConfigError(MnemexError):
    """The configuration is invalid; the message names the key."""


class InvalidInputError(MnemexError):
    """A caller passed a value mnemex cannot accept (empty, too long, malformed)."""


class NotFoundError(MnemexError):
    """A memory id that does not exist in this store."""

    def __init__(self, memory_id: str):
        super().__init__(f"no memory with id {memory_id!r}: use an id, or a unique prefix of 6+ characters, "
                         "from a search or a list")
        self.memory_id = memory_id


class ImmutableMemoryError(InvalidInputError):
    """An edit or merge was attempted on a memory marked immutable."""


class ModelMismatchError(MnemexError):
    """The store's vectors were made by another embedding model than the configured one."""


class StoreLockedError(MnemexError):
    """Another process owns this embedded store."""


class EmbeddingModelError(MnemexError):
    """The embedding model cannot be loaded (missing file, bad checksum)."""


class StoreUnavailableError(MnemexError):
    """The store cannot be opened for writing (read-only data dir, wrong owner); nothing was changed."""


class StorageFullError(MnemexError):
    """The disk holding the store is (nearly) full: the write was refused before anything changed."""


class DaemonError(MnemexError):
    """The per-store daemon could not be reached or started."""
