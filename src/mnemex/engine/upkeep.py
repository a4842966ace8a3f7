"""Keeping a store in shape: index optimization, rebuilding the search vectors after the
encoders change, learning the word vocabulary of a store written before it existed, and the
counts `memory_stats` reports. Nothing here changes what a memory says."""

from __future__ import annotations

import logging
import threading
from typing import Any, Callable, Iterator

from mnemex.embed.dense import DenseEmbedder
from mnemex.embed.vocabulary import Vocabulary
from mnemex.engine.write.path import WritePath, embedding_text
from mnemex.models import Memory, MemoryFilter, ValidityMode
from mnemex.store.base import PAYLOAD_VERSION, MemoryStore

log = logging.getLogger(__name__)


def all_memories(store: MemoryStore, flt: MemoryFilter, *, page: int = 256) -> Iterator[Memory]:
    """Every memory `flt` lets through, in store order, a page at a time."""
    offset: str | None = None
    while True:
        hits, offset = store.scroll(flt, limit=page, offset=offset)
        for hit in hits:
            yield hit.memory
        if offset is None:
            return


#: Below this many points an in-process optimize is quicker than the detached one's fixed cost
#: (a copy and a child process) and has nothing to index: segments that small are searched in full.
DETACH_FROM_POINTS = 1_000


class Upkeep:
    def __init__(self, *, store: MemoryStore, dense: DenseEmbedder, vocabulary: Vocabulary, writer: WritePath,
                 lock: threading.RLock, optimize_every: int):
        self._store = store
        self._dense = dense
        self._vocabulary = vocabulary
        self._writer = writer
        self._lock = lock
        self._optimize_every = optimize_every
        self.writes_since_optimize = 0
        self.detach_from: int | None = None  #: DETACH_FROM_POINTS for this store (`store.detach_from`)
        self._closing = threading.Event()
        self._vocabulary_build: threading.Thread | None = None
        self._payload_upgrade: threading.Thread | None = None

    # ------------------------------------------------------------- optimize
    def count_writes(self, n: int) -> None:
        self.writes_since_optimize += n

    def needs_optimize(self) -> bool:
        every = self._optimize_every
        return bool(every) and self.writes_since_optimize >= every

    def optimize(self, *, detached: bool = False) -> None:
        """Build the indexes. In-process this holds the store (and Edge holds the GIL): run it
        when idle. `detached` (the daemon's way): a store that can, once it holds DETACH_FROM_POINTS,
        optimizes a copy in a child process, and the copy is swapped in when the store closes
        (`EdgeStore.optimize_detached(swap=False)`): no call waits for it — unless a burst of writes
        (`edge.SWAP_AT_ONCE_FROM` points) left so much unindexed that it should be swapped in
        before: `swap_due`, then `swap_waiting` when idle."""
        run_detached = getattr(self._store, "optimize_detached", None) if detached else None
        detach_from = self.detach_from if self.detach_from is not None else DETACH_FROM_POINTS
        if run_detached is not None and self._store.count(MemoryFilter()) >= detach_from:
            writes = self.writes_since_optimize
            if run_detached(swap=False):
                self.writes_since_optimize = max(0, self.writes_since_optimize - writes)
            return
        with self._lock:
            self._store.optimize()
            self.writes_since_optimize = 0

    def flush_due(self) -> bool:
        """Points were written since the store last flushed (an embedded store; a server flushes
        by itself)."""
        return bool(getattr(self._store, "unflushed", 0))

    def flush_pending(self) -> int:
        """Flush what was written since the last flush (`EdgeStore.flush_pending`; run it when idle)."""
        flush = getattr(self._store, "flush_pending", None)
        return int(flush()) if flush is not None else 0

    def swap_due(self) -> bool:
        """An optimized copy waits while a burst of writes slows searches (`EdgeStore.swap_due`)."""
        return bool(getattr(self._store, "swap_due", False))

    def swap_waiting(self) -> bool:
        """Swap the waiting optimized copy in now (calls wait for its load: run it when idle)."""
        swap = getattr(self._store, "swap_waiting", None)
        return bool(swap()) if swap is not None else False

    # -------------------------------------------------------------- reindex
    def reindex(self, *, dense: bool = False, batch: int = 256,
                progress: Callable[[int, int], None] | None = None) -> int:
        """Rebuild every memory's BM25 vector (and its embedding with `dense=True`) with the current
        encoders, e.g. after an upgrade that changed how code names are tokenized. Memories,
        history and the journal are untouched. `progress(done, total)` is called per batch."""
        self.wait_vocabulary()
        with self._lock:
            every = MemoryFilter(validity=ValidityMode.TIMELINE)
            total = self._store.count(every)
            self._vocabulary.clear()  # relearnt from every memory below
            done = 0
            chunk: list[Memory] = []
            for memory in list(all_memories(self._store, every)):
                chunk.append(memory)
                if len(chunk) >= batch:
                    self._writer.reindex(chunk, dense=dense)
                    done += len(chunk)
                    chunk = []
                    if progress is not None:
                        progress(done, total)
            if chunk:
                self._writer.reindex(chunk, dense=dense)
                done += len(chunk)
                if progress is not None:
                    progress(done, total)
            self._vocabulary.mark_complete()
            self.count_writes(done)
        return done

    def rebuild_outdated(self) -> bool:
        """Rebuild the store when it keeps its data in an older format than a new store would
        (an embedded store made before half-precision vectors); True when it did."""
        with self._lock:
            return self._store.rebuild_outdated()

    # ----------------------------------------------------------- vocabulary
    def start_vocabulary_build(self) -> None:
        """Learn the words of a store written before the vocabulary existed (or by another model)
        in the background; searches expand with what is known meanwhile."""
        if self._vocabulary.complete:
            return
        if self._store.count(MemoryFilter(validity=ValidityMode.TIMELINE)) == 0:
            self._vocabulary.mark_complete()
            return
        self._vocabulary_build = threading.Thread(target=self._build_vocabulary_quietly,
                                                  name="mnemex-vocabulary", daemon=True)
        self._vocabulary_build.start()

    def build_vocabulary(self, *, batch: int = 256) -> int:
        """Learn the words of every stored memory (query expansion, `embed/vocabulary.py`);
        returns how many were new. Runs by itself when an engine opens a store whose vocabulary
        was never built."""
        added = 0
        offset: str | None = None
        flt = MemoryFilter(validity=ValidityMode.TIMELINE)
        while not self._closing.is_set():
            page, offset = self._store.scroll(flt, limit=batch, offset=offset)
            added += self._vocabulary.add(embedding_text(h.memory) for h in page)
            if offset is None:
                self._vocabulary.mark_complete()
                break
        return added

    def wait_vocabulary(self, timeout: float | None = None) -> bool:
        """Wait for a background vocabulary build, if one runs; True when none is left running."""
        thread = self._vocabulary_build
        if thread is not None:
            thread.join(timeout)
            return not thread.is_alive()
        return True

    def _build_vocabulary_quietly(self) -> None:
        try:
            added = self.build_vocabulary()
            log.info("vocabulary built: %d words", added)
        except Exception as exc:  # a store closed under it, a model failure: expansion just stays partial
            if not self._closing.is_set():
                log.warning("vocabulary build stopped: %s", exc)

    # ------------------------------------------------------- payload layout
    def start_payload_upgrade(self) -> None:
        """A store written under an older payload layout gets the derived fields it lacks (pinned
        memories findable by filter), in the background; searches work meanwhile."""
        identity = self._store.read_identity() or {}
        if int(identity.get("payload", 1)) >= PAYLOAD_VERSION:
            return
        self._payload_upgrade = threading.Thread(target=self._upgrade_quietly, name="mnemex-payload", daemon=True)
        self._payload_upgrade.start()

    def upgrade_payloads(self, *, page: int = 256) -> int:
        """Rewrite the payload of every memory the new layout changes; returns how many."""
        changed = 0
        offset: str | None = None
        flt = MemoryFilter(validity=ValidityMode.TIMELINE)
        while not self._closing.is_set():
            hits, offset = self._store.scroll(flt, limit=page, offset=offset)
            with self._lock:
                for hit in hits:
                    if hit.memory.pinned or hit.memory.immutable:
                        self._store.save(hit.memory)
                        changed += 1
            if offset is None:
                with self._lock:
                    self._store.write_identity({**(self._store.read_identity() or {}), "payload": PAYLOAD_VERSION})
                break
        return changed

    def _upgrade_quietly(self) -> None:
        try:
            log.info("payload layout upgraded: %d memories rewritten", self.upgrade_payloads())
        except Exception as exc:  # a store closed under it: done next time
            if not self._closing.is_set():
                log.warning("payload upgrade stopped: %s", exc)

    # ---------------------------------------------------------------- stats
    def stats(self) -> dict[str, Any]:
        total = self._store.count(MemoryFilter(validity=ValidityMode.TIMELINE))
        current = self._store.count(MemoryFilter())
        return {
            "memories_total": total,
            "memories_current": current,
            "memories_invalidated": total - current,
            "embedding_model": self._dense.identity.model,
            "embedding_dim": self._dense.identity.dim,
            "model_loaded": getattr(self._dense, "loaded", True),
            "writes_since_optimize": self.writes_since_optimize,
            "writes_unflushed": int(getattr(self._store, "unflushed", 0)),
            "vocabulary_words": len(self._vocabulary),
            "vocabulary_complete": self._vocabulary.complete,
        }

    def stop(self) -> None:
        """Stop background work (before the store closes)."""
        self._closing.set()
        self.wait_vocabulary(timeout=30)
        if self._payload_upgrade is not None:
            self._payload_upgrade.join(30)
