"""Purge: removing a memory's content from the whole journal while keeping the op rows, as an
operation that is recorded before it starts so a crash cannot leave it half done."""

from __future__ import annotations

import sqlite3
from typing import Any, Sequence

from mnemex.store.journal.audit import AuditLog
from mnemex.store.journal.database import TOMBSTONE, _dumps, _loads, _packed


class Purges(AuditLog):
    def begin_purge(self, memory_id: str, actor: str | None = None) -> None:
        """Record that `memory_id` is being purged, before anything is removed: until `purge`
        completes, `pending_purges` names it, so an interrupted purge is finished on the next open."""
        ts, _ = self._now()
        with self._tx() as con:
            con.execute("INSERT OR IGNORE INTO purges (memory_id, requested_at, actor) VALUES (?, ?, ?)",
                        (memory_id, ts, actor))

    def pending_purges(self) -> list[tuple[str, str | None]]:
        """(memory id, actor) of every purge begun and not completed, oldest first."""
        rows = self._conn().execute("SELECT memory_id, actor FROM purges ORDER BY requested_at, memory_id")
        return [(r[0], r[1]) for r in rows.fetchall()]

    def knows(self, memory_id: str) -> bool:
        """Does the journal hold anything about `memory_id` (a version or an op of its own)?"""
        con = self._conn()
        return bool(con.execute("SELECT 1 FROM versions WHERE memory_id = ? LIMIT 1", (memory_id,)).fetchone()
                    or con.execute("SELECT 1 FROM ops WHERE memory_id = ? LIMIT 1", (memory_id,)).fetchone())

    def purge(self, memory_id: str, actor: str | None = None) -> dict[str, int]:
        """Remove a memory's content from the journal: versions and its ops keep their rows
        (marked purged, content replaced by a tombstone), reads forget what they returned of
        it, its entity index rows and relation details go, and so do the texts of searches that
        returned it or that quoted its content (the verbose audit level keeps queries). Completes
        a `begin_purge`. Records a `purge` op (at any audit level but off) and returns counts of
        what was scrubbed."""
        tomb = _dumps({"id": memory_id, "purged": True})
        with self._tx() as con:
            texts = [r[0] for r in con.execute("SELECT content FROM versions WHERE memory_id = ? AND purged = 0",
                                               (memory_id,))]
            versions = con.execute("UPDATE versions SET content = ?, payload = ?, purged = 1 WHERE memory_id = ?",
                                   (TOMBSTONE, tomb, memory_id)).rowcount
            own = con.execute("UPDATE ops SET before = NULL, after = CASE WHEN after IS NULL THEN NULL ELSE ? END, "
                              "detail = NULL, purged = 1 WHERE memory_id = ?", (tomb, memory_id)).rowcount
            # Other rows that carry it: reads that returned it, ops of other memories (a merge,
            # a supersede) whose payloads embed it. LIKE finds candidates (a packed payload lists
            # the ids it carries in plain text before its deflated bytes), _scrub is exact.
            pattern = f"%{memory_id}%"
            others = con.execute(
                "SELECT id, before, after, detail FROM ops WHERE (memory_id IS NULL OR memory_id != ?) AND "
                "(id IN (SELECT op_id FROM op_memories WHERE memory_id = ?) OR CAST(before AS TEXT) LIKE ? "
                "OR CAST(after AS TEXT) LIKE ? "
                "OR detail LIKE ?)", (memory_id, memory_id, pattern, pattern, pattern)).fetchall()
            for op_id, before, after, detail in others:
                con.execute("UPDATE ops SET before = ?, after = ?, detail = ? WHERE id = ?",
                            (_packed(_scrub(_loads(before), memory_id)), _packed(_scrub(_loads(after), memory_id)),
                             _dumps(_scrub(_loads(detail), memory_id)), op_id))
            queries = self._scrub_queries(con, memory_id, texts)
            con.execute("DELETE FROM entity_index WHERE memory_id = ?", (memory_id,))
            con.execute("UPDATE relations SET detail = NULL WHERE src = ? OR dst = ?", (memory_id, memory_id))
            captured = con.execute("UPDATE capture_events SET text = ?, ref = '', error = '', files = '', key = '' "
                                   "WHERE memory_id = ?", (TOMBSTONE, memory_id)).rowcount
            con.execute("DELETE FROM purges WHERE memory_id = ?", (memory_id,))
            counts = {"versions": versions, "ops": own, "other_ops": len(others), "queries": queries}
            if captured:
                counts["captured"] = captured
            if self._rank >= 1:
                self._insert_op(con, "purge", memory_id, actor, None, None, counts)
        # Fold the WAL back so the old page images holding the content are gone from disk too.
        self._conn().execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return counts

    def _scrub_queries(self, con: sqlite3.Connection, memory_id: str, texts: Sequence[str]) -> int:
        """Blank the query of every read that returned `memory_id` or whose query quotes a part
        of its content (`texts`, its versions); returns how many were blanked."""
        returned = {r[0] for r in con.execute("SELECT op_id FROM op_memories WHERE memory_id = ?", (memory_id,))}
        contents = [_fold(t) for t in texts if t and t != TOMBSTONE]
        count = 0
        for op_id, detail in con.execute("SELECT id, detail FROM ops WHERE detail LIKE ?", ('%"query":%',)).fetchall():
            data = _loads(detail)
            query = data.get("query") if isinstance(data, dict) else None
            if not isinstance(query, str) or query == TOMBSTONE:
                continue
            if op_id in returned or any(_quotes(_fold(query), c) for c in contents):
                con.execute("UPDATE ops SET detail = ? WHERE id = ?", (_dumps({**data, "query": TOMBSTONE}), op_id))
                count += 1
        return count


def _scrub(value: Any, memory_id: str) -> Any:
    """`value` with every object carrying `"id": memory_id` replaced by a tombstone."""
    if isinstance(value, dict):
        if value.get("id") == memory_id:
            return {"id": memory_id, "purged": True}
        return {k: _scrub(v, memory_id) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrub(v, memory_id) for v in value]
    return value


def _fold(text: str) -> str:
    return " ".join(text.casefold().split())


#: A query shares this many consecutive characters with purged content: it quoted the content.
QUOTE_CHARS = 16


def _quotes(query: str, content: str) -> bool:
    """Does the (folded) query quote the content, or the content the query? Either holds the
    whole of the shorter one, or they share a run of QUOTE_CHARS characters."""
    if not query or not content:
        return False
    if query in content or content in query:
        return True
    if min(len(query), len(content)) < QUOTE_CHARS:
        return False
    shingles = {query[i:i + QUOTE_CHARS] for i in range(len(query) - QUOTE_CHARS + 1)}
    return any(content[i:i + QUOTE_CHARS] in shingles for i in range(len(content) - QUOTE_CHARS + 1))
