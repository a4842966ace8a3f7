"""Content history: each content version of a memory, oldest first."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from mnemex.store.journal.database import Database, _loads, _packed


@dataclass(frozen=True, slots=True)
class VersionRecord:
    memory_id: str
    version: int
    ts: datetime
    content: str
    payload: dict[str, Any]
    reason: str | None
    purged: bool


class VersionHistory(Database):
    def add_version(self, memory_id: str, content: str, payload: dict[str, Any], reason: str | None = None) -> int:
        """Append a content version of a memory; returns its number (1 for the first)."""
        ts, _ = self._now()
        with self._tx() as con:
            (last,) = con.execute("SELECT COALESCE(MAX(version), 0) FROM versions WHERE memory_id = ?",
                                  (memory_id,)).fetchone()
            con.execute("INSERT INTO versions (memory_id, version, ts, content, payload, reason) VALUES (?,?,?,?,?,?)",
                        (memory_id, last + 1, ts, content, _packed(payload), reason))
            return last + 1

    def versions(self, memory_id: str) -> list[VersionRecord]:
        """Every version of a memory, oldest first."""
        rows = self._conn().execute("SELECT * FROM versions WHERE memory_id = ? ORDER BY version", (memory_id,))
        return [VersionRecord(r[0], r[1], datetime.fromisoformat(r[2]), r[3], _loads(r[4]), r[5], bool(r[6]))
                for r in rows.fetchall()]


    def ids_with_prefix(self, prefix: str, limit: int = 5) -> list[str]:
        """Ids of memories with a (not purged) version whose id starts with `prefix`."""
        rows = self._conn().execute(
            "SELECT DISTINCT memory_id FROM versions WHERE memory_id >= ? AND memory_id < ? AND purged = 0 "
            "ORDER BY memory_id LIMIT ?", (prefix, prefix + "~", int(limit)))
        return [r[0] for r in rows.fetchall()]
