"""The audit log: every write op (and, at higher levels, every read) with before/after payloads."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Iterator, Sequence

from mnemex.store.journal.database import Database, _dumps, _loads, _packed


@dataclass(frozen=True, slots=True)
class OpRecord:
    id: int
    ts: datetime
    op: str
    memory_id: str | None
    actor: str | None
    before: dict[str, Any] | None
    after: Any
    detail: dict[str, Any] | None
    purged: bool


class AuditLog(Database):
    """Audit rows; `level` (see `Database`) decides what is recorded."""

    def record_op(self, op: str, memory_id: str | None, actor: str | None = None,
                  before: dict[str, Any] | None = None, after: dict[str, Any] | None = None,
                  detail: dict[str, Any] | None = None) -> int | None:
        """Record a write op (create, update, forget, supersede, ...); returns its row id, or
        None when the audit level is off."""
        if self._rank < 1:
            return None
        with self._tx() as con:
            return self._insert_op(con, op, memory_id, actor, before, after, detail)

    def record_read(self, op: str, memory_ids: Sequence[str] = (), *, actor: str | None = None,
                    detail: dict[str, Any] | None = None, payloads: list[dict[str, Any]] | None = None) -> int | None:
        """Record a read (search, recall) and the ids it returned, at level reads or verbose;
        `payloads` (what was returned) are kept only at verbose. Returns the row id or None."""
        if self._rank < 2:
            return None
        detail = {**(detail or {}), "result_ids": list(memory_ids)}
        kept = payloads if self._rank >= 3 else None
        with self._tx() as con:
            op_id = self._insert_op(con, op, None, actor, None, kept, detail)
            con.executemany("INSERT INTO op_memories VALUES (?, ?)", [(op_id, m) for m in dict.fromkeys(memory_ids)])
            return op_id

    def _insert_op(self, con: sqlite3.Connection, op: str, memory_id: str | None, actor: str | None,
                   before: Any, after: Any, detail: Any) -> int:
        ts, epoch = self._now()
        cur = con.execute(
            "INSERT INTO ops (ts, ts_epoch, op, memory_id, actor, before, after, detail) VALUES (?,?,?,?,?,?,?,?)",
            (ts, epoch, op, memory_id, actor, _packed(before), _packed(after), _dumps(detail)))
        return int(cur.lastrowid)

    def count_ops(self, names: Sequence[str]) -> dict[str, int]:
        """How many audit rows each of the ops `names` has (0 for none)."""
        marks = ",".join("?" * len(names))
        rows = self._conn().execute(f"SELECT op, COUNT(*) FROM ops WHERE op IN ({marks}) GROUP BY op",
                                    tuple(names)).fetchall() if names else []
        found = dict(rows)
        return {name: int(found.get(name, 0)) for name in names}

    def last_op(self, name: str) -> OpRecord | None:
        """The newest audit row of the op `name`, or None."""
        rows = self._conn().execute("SELECT id FROM ops WHERE op = ? ORDER BY id DESC LIMIT 1", (name,)).fetchall()
        if not rows:
            return None
        row = self._conn().execute("SELECT * FROM ops WHERE id = ?", (rows[0][0],)).fetchone()
        return OpRecord(row[0], datetime.fromisoformat(row[1]), row[3], row[4], row[5], _loads(row[6]),
                        _loads(row[7]), _loads(row[8]), bool(row[9]))

    def ops(self, memory_id: str | None = None, since: datetime | None = None, limit: int = 100,
            op: str | None = None) -> list[OpRecord]:
        """Audit rows, newest first: all, or those about `memory_id` (its writes and the reads
        that returned it), optionally only from `since` on and only of one `op`."""
        where, args = [], []
        if op is not None:
            where.append("op = ?")
            args.append(op)
        if memory_id is not None:
            where.append("(memory_id = ? OR id IN (SELECT op_id FROM op_memories WHERE memory_id = ?))")
            args += [memory_id, memory_id]
        if since is not None:
            where.append("ts_epoch >= ?")
            args.append((since if since.tzinfo else since.replace(tzinfo=timezone.utc)).timestamp())
        sql = "SELECT * FROM ops" + (" WHERE " + " AND ".join(where) if where else "") + " ORDER BY id DESC LIMIT ?"
        rows = self._conn().execute(sql, (*args, int(limit))).fetchall()
        return [OpRecord(r[0], datetime.fromisoformat(r[1]), r[3], r[4], r[5], _loads(r[6]), _loads(r[7]),
                         _loads(r[8]), bool(r[9])) for r in rows]

    def ops_by_day(self, *, days: int = 90) -> list[tuple[str, str, int]]:
        """(UTC day, op, count) of the write ops of the last `days` days, oldest first (reads excluded)."""
        since = datetime.now(timezone.utc).timestamp() - days * 86400
        rows = self._conn().execute(
            "SELECT date(ts_epoch, 'unixepoch') AS day, op, COUNT(*) FROM ops WHERE ts_epoch >= ? "
            "AND op NOT IN ('search', 'recall') GROUP BY day, op ORDER BY day, op", (since,)).fetchall()
        return [(r[0], r[1], r[2]) for r in rows]

    # ------------------------------------------------------------ recovery
    _LAST_OPS = ("SELECT memory_id, MAX(id) AS id FROM ops WHERE memory_id IS NOT NULL AND after IS NOT NULL "
                 "AND purged = 0 GROUP BY memory_id")
    _GONE = "SELECT memory_id FROM ops WHERE op = 'purge' AND memory_id IS NOT NULL UNION SELECT memory_id FROM purges"

    def count_last_states(self) -> int:
        """How many memories `last_states` yields."""
        con = self._conn()
        from_ops = con.execute(f"SELECT COUNT(*) FROM ({self._LAST_OPS}) WHERE memory_id NOT IN ({self._GONE})")
        only_versions = con.execute(
            f"SELECT COUNT(DISTINCT memory_id) FROM versions WHERE purged = 0 AND memory_id NOT IN ({self._GONE}) "
            f"AND memory_id NOT IN (SELECT memory_id FROM ({self._LAST_OPS}))")
        return int(from_ops.fetchone()[0]) + int(only_versions.fetchone()[0])

    def last_states(self) -> Iterator[dict[str, Any]]:
        """The last state the journal holds of every memory it knows and that was not purged: the
        payload after its newest write op, or (for a memory written while the audit level was off)
        its newest content version. What a store lost can be rebuilt from these."""
        con = self._conn()
        rows = con.execute(f"SELECT o.after FROM ops o JOIN ({self._LAST_OPS}) last ON o.id = last.id "
                           f"WHERE o.memory_id NOT IN ({self._GONE}) ORDER BY o.id")
        while batch := rows.fetchmany(256):
            for (after,) in batch:
                yield _loads(after)
        rows = con.execute(
            f"SELECT v.payload FROM versions v WHERE v.purged = 0 AND v.memory_id NOT IN ({self._GONE}) "
            f"AND v.memory_id NOT IN (SELECT memory_id FROM ({self._LAST_OPS})) "
            "AND v.version = (SELECT MAX(version) FROM versions w WHERE w.memory_id = v.memory_id)")
        while batch := rows.fetchmany(256):
            for (payload,) in batch:
                yield _loads(payload)
