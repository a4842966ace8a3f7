"""Purge: remove a memory and its content everywhere, as a journaled operation.

The journal records the intent before anything is removed; then the point is deleted, the store
compacted (so the deleted bytes leave the disk), the vocabulary words that only this memory held
— in any of its versions — pruned, and the journal scrubbed, which also clears the intent. Every
step is idempotent, so a purge cut short by a crash is simply run again (`resume`) before the
store serves anything.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from mnemex.embed.vocabulary import Vocabulary
from mnemex.engine.write.path import embedding_text
from mnemex.errors import NotFoundError
from mnemex.models import Memory, MemoryFilter, ValidityMode
from mnemex.sqlite_files import set_aside_files
from mnemex.store.base import MemoryStore, VectorQuery

log = logging.getLogger(__name__)


class Purger:
    def __init__(self, store: MemoryStore, vocabulary: Vocabulary, journal: Any = None):
        self._store = store
        self._vocabulary = vocabulary
        self._journal = journal

    def purge(self, memory_id: str | None, *, asked: str, actor: str) -> None:
        """Purge the memory with the canonical id `memory_id` (None: `asked` is no id at all).
        A memory the store no longer holds but the journal still knows (a purge interrupted
        before purges were journaled) is purged from the journal; NotFoundError names `asked`
        when neither holds it."""
        present = bool(memory_id) and bool(self._store.retrieve([memory_id]))
        if not present and not (memory_id and self._journal is not None and self._journal.knows(memory_id)):
            raise NotFoundError(asked)
        if self._journal is not None:
            self._journal.begin_purge(memory_id, actor)
        self.finish(memory_id, actor)

    def finish(self, memory_id: str, actor: str | None) -> None:
        texts = [embedding_text(h.memory) for h in self._store.retrieve([memory_id])]
        if self._journal is not None:  # earlier wordings (an update, a merge) taught words too
            texts += [embedding_text(Memory.model_validate(v.payload)) for v in self._journal.versions(memory_id)
                      if not v.purged]
        self._store.delete([memory_id])
        self._store.compact()
        self._vocabulary.prune(texts, self._token_in_use)
        if self._journal is not None:
            self._journal.purge(memory_id, actor=actor)
            aside = set_aside_files(Path(self._journal.path).parent)
            if aside:  # a damaged file cannot be scrubbed; only its owner can decide to delete it
                log.warning("purged %s, but %d damaged file(s) set aside earlier may still hold its text (%s): "
                            "delete them once nothing in them is missed", memory_id, len(aside),
                            ", ".join(p.name for p in aside))

    def resume(self) -> list[str]:
        """Finish every purge a crash interrupted; their ids."""
        if self._journal is None:
            return []
        done = []
        for memory_id, actor in self._journal.pending_purges():
            log.warning("finishing the purge of %s interrupted by a crash", memory_id)
            self.finish(memory_id, actor)
            done.append(memory_id)
        return done

    def _token_in_use(self, token: int) -> bool:
        return bool(self._store.query(VectorQuery.term(token, MemoryFilter(validity=ValidityMode.TIMELINE))))
