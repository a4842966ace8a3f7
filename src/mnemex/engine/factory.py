"""Composition of an engine from settings: the one place that turns config into parts."""

from __future__ import annotations

import logging
import os
import tempfile
from datetime import datetime
from pathlib import Path
from typing import Callable

from mnemex.config import Settings
from mnemex.embed.dense import FastEmbedder, embedder_for
from mnemex.embed.sparse import SparseEncoder
from mnemex.embed.vocabulary import Vocabulary
from mnemex.engine.service import MemoryEngine
from mnemex.models import utcnow
from mnemex.private import cannot_write, private_dir, private_umask, tighten
from mnemex.store import open_store
from mnemex.store.base import MemoryStore
from mnemex.store.journal import Journal

log = logging.getLogger(__name__)


def build_embedder(settings: Settings) -> FastEmbedder:
    return embedder_for(settings)


def _require_writable(data_dir: Path) -> None:
    """StoreUnavailableError naming the cause when mnemex cannot write in its data dir (read-only
    mount, another owner, missing parent): better said at open than as an engine failure mid-write."""
    try:
        private_dir(data_dir)
        fd, probe = tempfile.mkstemp(dir=data_dir, prefix=".write-probe-")
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise cannot_write(data_dir, exc) from None


def build_engine(settings: Settings, *, default_project: str | None = None,
                 embedder: FastEmbedder | None = None, clock: Callable[[], datetime] = utcnow,
                 store: MemoryStore | None = None, vocabulary: Vocabulary | None = None,
                 linked_store: bool = False) -> MemoryEngine:
    """The engine on the configured store, on `clock` (a replay or a benchmark fixes it). The data
    dir is owner-only: created so under a private umask, and tightened when an older or looser one
    is opened. `store` and `vocabulary`: opened already (a daemon's successor loads them before it
    takes over); they are the engine's from here, closed with it or on failure. `linked_store`: an
    embedded store is opened as a link to its generation directory (a daemon that hands it over)."""
    private_umask()
    _require_writable(settings.data_dir)
    fixed = tighten(settings.data_dir)
    if fixed:
        log.warning("made %d files and folders in %s private to their owner", len(fixed), settings.data_dir)
    dense = embedder or build_embedder(settings)
    if store is None:
        store = open_store(url=settings.store.url, api_key=settings.store.api_key, path=settings.store_dir,
                           collection=settings.store.collection, dim=dense.identity.dim, linked=linked_store)
    journal = None
    try:
        journal = Journal(settings.journal_path, level=settings.audit.level)
        sparse = SparseEncoder(settings.store.bm25_avg_len)
        if vocabulary is None:
            vocabulary = Vocabulary(dense, sparse, settings.vocabulary_path)
        if hasattr(store, "serve_copy_from"):  # the embedded store
            setattr(store, "serve_copy_from", settings.store.serve_copy_from)
        engine = MemoryEngine(store=store, dense=dense, sparse=sparse, journal=journal, limits=settings.limits,
                              optimize_every=settings.store.optimize_every, default_project=default_project,
                              vocabulary=vocabulary, data_dir=settings.data_dir, gate=settings.gate,
                              observer=settings.observer, retrieval=settings.retrieval, redaction=settings.redaction,
                              blocks=settings.blocks, lifecycle=settings.lifecycle, clock=clock)
        engine.upkeep.detach_from = settings.store.detach_from
        return engine
    except BaseException:
        store.close()
        for part in (journal, vocabulary):
            if part is not None:
                part.close()
        raise
