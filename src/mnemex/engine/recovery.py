"""Rebuilding a damaged embedded store from the journal (`mnemex recover`).

The journal holds, for every memory, the payload after each write (and each content version):
everything the store holds but the vectors. When the store's files are damaged (a segment
overwritten, an id tracker cut short: Qdrant Edge then fails to read payloads, or loads fewer
points than were stored, without a word), the store directory is set aside under a new name
(never deleted) and a fresh store is filled with the last state of every memory the journal
knows and that was not purged, embedded again. Reads and access counts recorded only in the
store since a memory's last write are what is lost.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from pydantic import ValidationError

from mnemex.config import Settings
from mnemex.errors import InvalidInputError
from mnemex.models import Memory
from mnemex.sqlite_files import DAMAGED
from mnemex.store.journal import Journal

log = logging.getLogger(__name__)

#: Memories embedded and stored per batch.
BATCH = 256


@dataclass(frozen=True)
class Rebuilt:
    restored: int
    unreadable: int  # journal rows that were no memory payload (skipped)
    set_aside: Path | None
    audit_off: bool


def set_aside_store(path: Path, now: datetime | None = None) -> Path | None:
    """Move the store directory at `path` (the directory a link names, when it is one) to
    `<name>.damaged-<UTC time>` beside it; the new path, or None when there was no store."""
    if not path.exists() and not path.is_symlink():
        return None
    stamp = (now or datetime.now(timezone.utc)).strftime("%Y%m%dT%H%M%S%fZ")
    aside = path.with_name(f"{path.name}{DAMAGED}{stamp}")
    real = path.resolve()
    real.rename(aside)  # a generation dir moves out of the `<name>.gen-*` the next open would clear
    if path.is_symlink():
        path.unlink()
    return aside


def rebuild_from_journal(settings: Settings, *, progress: Callable[[int, int], None] | None = None,
                         dry_run: bool = False) -> Rebuilt:
    """Set the embedded store aside and fill a fresh one from the journal (see the module). The
    caller holds the store's owner lock. `dry_run`: count, change nothing."""
    from mnemex.engine.factory import build_engine

    if settings.store.url:
        raise InvalidInputError("recover rebuilds an embedded store; a Qdrant server keeps its own data "
                                "(restore it from a snapshot there)")
    if not settings.journal_path.exists():
        raise InvalidInputError(f"there is no journal at {settings.journal_path} to rebuild from; nothing was changed")
    journal = Journal(settings.journal_path, level="off")
    try:
        total = journal.count_last_states()
        audit_off = settings.audit.level == "off"
        if total == 0:
            raise InvalidInputError(f"the journal {settings.journal_path} holds no memory to rebuild from; "
                                    "nothing was changed")
        if dry_run:
            return Rebuilt(total, 0, None, audit_off)
        aside = set_aside_store(settings.store_dir)
        log.warning("the store %s was set aside as %s; rebuilding %d memories from the journal",
                    settings.store_dir, aside, total)
        engine = build_engine(settings)
        restored = unreadable = 0
        try:
            batch: list[Memory] = []
            for payload in journal.last_states():
                try:
                    batch.append(Memory.model_validate(payload))
                except (ValidationError, TypeError, ValueError):
                    unreadable += 1
                    continue
                if len(batch) >= BATCH:
                    restored += engine.import_memories(batch)
                    batch = []
                    if progress is not None:
                        progress(restored, total)
            if batch:
                restored += engine.import_memories(batch)
            if progress is not None:
                progress(restored, total)
        finally:
            engine.close()
        return Rebuilt(restored, unreadable, aside, audit_off)
    finally:
        journal.close()
