"""Supersedes in progress: recorded before the newer memory is stored and cleared once every
older one is marked superseded by it, so that a crash between the two steps (the newer statement
stored, the older ones still current beside it) is finished on the next open."""

from __future__ import annotations

import json
from typing import Sequence

from mnemex.store.journal.database import Database


class PendingSupersedes(Database):
    def begin_supersede(self, new_id: str, target_ids: Sequence[str]) -> None:
        """Record that `new_id` is about to replace `target_ids` (kept until `end_supersede`)."""
        ts, _ = self._now()
        with self._tx() as con:
            con.execute("INSERT OR REPLACE INTO pending_supersedes (new_id, targets, requested_at) VALUES (?, ?, ?)",
                        (new_id, json.dumps(list(target_ids)), ts))

    def end_supersede(self, new_id: str) -> None:
        with self._tx() as con:
            con.execute("DELETE FROM pending_supersedes WHERE new_id = ?", (new_id,))

    def pending_supersedes(self) -> list[tuple[str, tuple[str, ...]]]:
        """(newer id, the ids it replaces) of every supersede begun and not ended, oldest first."""
        rows = self._conn().execute("SELECT new_id, targets FROM pending_supersedes ORDER BY requested_at, new_id")
        return [(r[0], tuple(json.loads(r[1]))) for r in rows.fetchall()]
