"""Core memory blocks: the current text of each block, keyed by (project, label), and every
version of it. The engine decides what a block may hold (`engine/blocks.py`); the journal keeps
what it is given, one version per change, and never purges it with a memory."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Sequence

from mnemex.errors import InvalidInputError
from mnemex.store.journal.audit import AuditLog


@dataclass(frozen=True, slots=True)
class BlockRecord:
    """A block as it stands: `project` is "" for a global block."""

    project: str
    label: str
    value: str
    char_limit: int
    description: str
    version: int
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class BlockVersion:
    """One change of a block: its value after the change, the op (append, replace, rewrite) and who made it."""

    project: str
    label: str
    version: int
    value: str
    char_limit: int
    op: str
    actor: str | None
    ts: datetime


class CoreBlocks(AuditLog):
    def blocks(self, projects: Sequence[str]) -> list[BlockRecord]:
        """The stored blocks of these project keys ("" = global), by project then label."""
        keys = list(dict.fromkeys(projects))
        if not keys:
            return []
        rows = self._conn().execute(
            "SELECT project, label, value, char_limit, description, version, updated_at FROM blocks "
            f"WHERE project IN ({','.join('?' * len(keys))}) ORDER BY project, label", keys).fetchall()
        return [_record(r) for r in rows]

    def block(self, project: str, label: str) -> BlockRecord | None:
        """The stored block, or None when it was never written."""
        row = self._conn().execute(
            "SELECT project, label, value, char_limit, description, version, updated_at FROM blocks "
            "WHERE project = ? AND label = ?", (project, label)).fetchone()
        return _record(row) if row else None

    def write_block(self, project: str, label: str, value: str, *, char_limit: int, description: str, op: str,
                    actor: str | None = None, expected_version: int) -> BlockRecord:
        """Set a block's value (creating it) as version `expected_version + 1`, record the version
        and, at audit level writes or above, an op naming the block. `expected_version` is the
        version the caller read (0: never written); InvalidInputError if the block changed since."""
        ts, _ = self._now()
        with self._tx() as con:
            row = con.execute("SELECT version FROM blocks WHERE project = ? AND label = ?", (project, label)).fetchone()
            current = row[0] if row else 0
            if current != expected_version:
                raise InvalidInputError(f"block {label!r} changed while it was being edited (version {current}, "
                                        f"not {expected_version}): view it again and repeat the edit")
            version = current + 1
            con.execute(
                "INSERT INTO blocks (project, label, value, char_limit, description, version, updated_at) "
                "VALUES (?,?,?,?,?,?,?) ON CONFLICT (project, label) DO UPDATE SET value = excluded.value, "
                "char_limit = excluded.char_limit, description = excluded.description, "
                "version = excluded.version, updated_at = excluded.updated_at",
                (project, label, value, char_limit, description, version, ts))
            con.execute("INSERT INTO block_versions (project, label, version, value, char_limit, op, actor, ts) "
                        "VALUES (?,?,?,?,?,?,?,?)", (project, label, version, value, char_limit, op, actor, ts))
            if self._rank >= 1:  # the value is in block_versions; the audit row names the change
                self._insert_op(con, f"block_{op}", None, actor, None, None,
                                {"block": label, "project": project, "version": version, "chars": len(value)})
        return BlockRecord(project, label, value, char_limit, description, version, datetime.fromisoformat(ts))

    def block_versions(self, project: str, label: str) -> list[BlockVersion]:
        """Every version of a block, oldest first."""
        rows = self._conn().execute(
            "SELECT project, label, version, value, char_limit, op, actor, ts FROM block_versions "
            "WHERE project = ? AND label = ? ORDER BY version", (project, label)).fetchall()
        return [BlockVersion(r[0], r[1], r[2], r[3], r[4], r[5], r[6], datetime.fromisoformat(r[7])) for r in rows]


def _record(row: tuple) -> BlockRecord:
    return BlockRecord(row[0], row[1], row[2], row[3], row[4], row[5], datetime.fromisoformat(row[6]))
