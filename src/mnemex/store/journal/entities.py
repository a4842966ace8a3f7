"""The entity index: which memories mention an entity (entity hubs)."""

from __future__ import annotations

from typing import Iterable

from mnemex.store.journal.database import Database


class EntityIndex(Database):
    def index_entities(self, memory_id: str, entities: Iterable[str]) -> None:
        """Set the entities a memory mentions (replacing what was indexed for it before)."""
        names = sorted({e.strip() for e in entities if e and e.strip()}, key=str.lower)
        with self._tx() as con:
            con.execute("DELETE FROM entity_index WHERE memory_id = ?", (memory_id,))
            con.executemany("INSERT OR IGNORE INTO entity_index (entity, memory_id, name) VALUES (?, ?, ?)",
                            [(n, memory_id, _untyped(n)) for n in names])

    def entity_hub(self, entity: str) -> list[str]:
        """Ids of the memories that mention `entity` (case-insensitive), sorted. A typed key
        ("service:redis") matches exactly; an untyped name ("redis") matches it under any type."""
        key = entity.strip()
        rows = self._conn().execute("SELECT DISTINCT memory_id FROM entity_index WHERE entity = ? OR name = ? "
                                    "ORDER BY memory_id", (key, key)).fetchall()
        return [r[0] for r in rows]


def _untyped(entity: str) -> str:
    """"file:src/a.py" -> "src/a.py"; entities without a lower-case type prefix stay as they are."""
    prefix, sep, rest = entity.partition(":")
    return rest if sep and len(prefix) >= 3 and prefix.isalpha() and prefix.islower() else entity
