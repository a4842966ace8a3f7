"""The SQLite files mnemex keeps beside the store (the journal, the vocabulary) when one is found
damaged: it is set aside under a new name, never deleted, and the store opens on a fresh file.

SQLite in WAL mode survives a killed process; what it does not survive is a file cut short or
overwritten by something else (a full disk during a copy, a bad sync, a stray write). Then every
open failed with "database disk image is malformed" and nothing served at all, though the
memories themselves (in the vector store) were intact. Now the damaged file, with its WAL and
shared-memory files, is renamed `<name>.damaged-<UTC time>`; what can still be read of it is
copied into the fresh file (`salvage`); a derived file (the vocabulary) is simply rebuilt.
"""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path

#: What SQLite says of a file it cannot read as a database.
_DAMAGE = ("malformed", "not a database", "file is encrypted", "disk image")
#: Suffix of a damaged file set aside.
DAMAGED = ".damaged-"


def is_damage(exc: BaseException) -> bool:
    """Is `exc` SQLite saying the file is no sound database (not: locked, read-only, full)?"""
    return isinstance(exc, sqlite3.DatabaseError) and any(m in str(exc).lower() for m in _DAMAGE)


def problems(con: sqlite3.Connection, limit: int = 5) -> list[str]:
    """What `PRAGMA quick_check` finds wrong with the database of `con` (it reads the whole file):
    [] when it is sound, else at most `limit` findings (or the error that stopped the check)."""
    try:
        rows = [" ".join(str(r[0]).split()) for r in con.execute(f"PRAGMA quick_check({int(limit)})")]
    except sqlite3.DatabaseError as exc:
        if not is_damage(exc):
            raise
        return [str(exc)]
    return [] if rows == ["ok"] else rows


def file_problems(path: Path) -> list[str]:
    """`problems` of the database file at `path`, opened read-only (nothing is written to it)."""
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.DatabaseError as exc:
        if not is_damage(exc):
            raise
        return [str(exc)]
    try:
        return problems(con)
    finally:
        con.close()


def set_aside(path: Path, now: datetime | None = None) -> Path:
    """Rename `path` (and its -wal and -shm files) to `<name>.damaged-<UTC time>`; the new path."""
    stamp = (now or datetime.now(timezone.utc)).strftime("%Y%m%dT%H%M%S%fZ")
    aside = path.with_name(f"{path.name}{DAMAGED}{stamp}")
    for suffix in ("-wal", "-shm", ""):
        part = path.with_name(path.name + suffix)
        if part.exists():
            part.rename(aside.with_name(aside.name + suffix))
    return aside


def set_aside_files(root: Path) -> list[Path]:
    """The damaged files set aside in the data dir `root` (not their -wal and -shm companions), and
    the damaged stores set aside in its `store` folder."""
    found = [*root.glob(f"*{DAMAGED}*"), *(root / "store").glob(f"*{DAMAGED}*")]
    return sorted(p for p in found if not p.name.endswith(("-wal", "-shm")))


def salvage(damaged: Path, into: sqlite3.Connection, tables: Sequence[str]) -> dict[str, int]:
    """Copy what can still be read of `tables` in the damaged database `damaged` into the same
    tables of `into` (rows whose key is already there are kept as they are); {table: rows copied}.
    Read from a copy, so the damaged file stays as it was found. A table is read in rowid order
    until the first unreadable page."""
    copied: dict[str, int] = {}
    with tempfile.TemporaryDirectory(prefix="mnemex-salvage-") as tmp:
        work = Path(tmp) / "damaged.sqlite3"
        for suffix in ("", "-wal"):
            part = damaged.with_name(damaged.name + suffix)
            if part.exists():
                shutil.copyfile(part, work.with_name(work.name + suffix))
        try:
            src = sqlite3.connect(work)
        except sqlite3.DatabaseError:
            return copied
        try:
            for table in tables:
                copied[table] = _copy_table(src, into, table)
        finally:
            src.close()
    return copied


def _copy_table(src: sqlite3.Connection, into: sqlite3.Connection, table: str) -> int:
    try:
        columns = [row[1] for row in into.execute(f"PRAGMA table_info({table})")]
        have = {row[1] for row in src.execute(f"PRAGMA table_info({table})")}
    except sqlite3.DatabaseError:
        return 0
    columns = [c for c in columns if c in have]
    if not columns:
        return 0
    names = ", ".join(columns)
    insert = f"INSERT OR IGNORE INTO {table} ({names}) VALUES ({', '.join('?' * len(columns))})"
    n = 0
    try:
        cursor = src.execute(f"SELECT {names} FROM {table} ORDER BY rowid")
        while rows := cursor.fetchmany(500):
            into.executemany(insert, rows)
            n += len(rows)
    except sqlite3.DatabaseError:
        pass  # the rest of this table is unreadable
    return n
