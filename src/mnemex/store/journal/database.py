"""The journal's database: one SQLite file (WAL), its schema and migrations, one connection per
thread, and the write transaction every part of the journal uses.

Each thread gets its own connection (SQLite connections are not meant to be shared); WAL lets
readers run beside the single writer; this process's writers take turns on a lock, and
`busy_timeout` makes writers of other processes wait for each other instead of failing.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterator

from mnemex.errors import InvalidInputError, StorageFullError
from mnemex.sqlite_files import is_damage, problems, salvage, set_aside
from mnemex.models import utcnow
from mnemex.store.journal.packing import pack, unpack

log = logging.getLogger(__name__)

TOMBSTONE = "[purged]"
AUDIT_LEVELS = ("off", "writes", "reads", "verbose")

SCHEMA_VERSION = 6

_SCHEMA = """
CREATE TABLE IF NOT EXISTS schema_version (
    version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS ops (
    id INTEGER PRIMARY KEY AUTOINCREMENT, ts TEXT NOT NULL, ts_epoch REAL NOT NULL, op TEXT NOT NULL,
    memory_id TEXT, actor TEXT, before TEXT, after TEXT, detail TEXT, purged INTEGER NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS ops_memory ON ops (memory_id, id);
CREATE INDEX IF NOT EXISTS ops_time ON ops (ts_epoch);
CREATE TABLE IF NOT EXISTS op_memories (op_id INTEGER NOT NULL, memory_id TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS op_memories_memory ON op_memories (memory_id);
CREATE TABLE IF NOT EXISTS versions (
    memory_id TEXT NOT NULL, version INTEGER NOT NULL, ts TEXT NOT NULL, content TEXT NOT NULL,
    payload TEXT NOT NULL, reason TEXT, purged INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (memory_id, version));
CREATE TABLE IF NOT EXISTS relations (
    src TEXT NOT NULL, dst TEXT NOT NULL, type TEXT NOT NULL, weight REAL NOT NULL, detail TEXT,
    created_at TEXT NOT NULL, PRIMARY KEY (src, dst, type));
CREATE INDEX IF NOT EXISTS relations_dst ON relations (dst);
CREATE TABLE IF NOT EXISTS entity_index (
    entity TEXT NOT NULL COLLATE NOCASE, memory_id TEXT NOT NULL, PRIMARY KEY (entity, memory_id));
CREATE INDEX IF NOT EXISTS entity_index_memory ON entity_index (memory_id);
CREATE TABLE IF NOT EXISTS purges (
    memory_id TEXT PRIMARY KEY, requested_at TEXT NOT NULL, actor TEXT);
"""
# Version 2: entity_index.name, the entity without its type ("file:a.py" -> "a.py"), so a hub
# can be asked for "a.py" without knowing the type.
_MIGRATIONS = {
    2: ("entity names without type", (
        "ALTER TABLE entity_index ADD COLUMN name TEXT COLLATE NOCASE",
        "UPDATE entity_index SET name = CASE WHEN entity GLOB '[a-z][a-z][a-z]*:*' "
        "THEN substr(entity, instr(entity, ':') + 1) ELSE entity END",
        "CREATE INDEX IF NOT EXISTS entity_index_name ON entity_index (name)")),
    # Version 3: purges in progress, so a purge cut short by a crash is finished on the next open.
    3: ("purges in progress", (
        "CREATE TABLE IF NOT EXISTS purges (memory_id TEXT PRIMARY KEY, requested_at TEXT NOT NULL, actor TEXT)",)),
    # Version 4: core memory blocks (project "" = global) and every version of each.
    4: ("core memory blocks", (
        "CREATE TABLE IF NOT EXISTS blocks (project TEXT NOT NULL, label TEXT NOT NULL, value TEXT NOT NULL, "
        "char_limit INTEGER NOT NULL, description TEXT NOT NULL, version INTEGER NOT NULL, "
        "updated_at TEXT NOT NULL, PRIMARY KEY (project, label))",
        "CREATE TABLE IF NOT EXISTS block_versions (project TEXT NOT NULL, label TEXT NOT NULL, "
        "version INTEGER NOT NULL, value TEXT NOT NULL, char_limit INTEGER NOT NULL, op TEXT NOT NULL, "
        "actor TEXT, ts TEXT NOT NULL, PRIMARY KEY (project, label, version))")),
    # Version 5: the session log of captured tool use (once per event id) and per-project tool statistics.
    5: ("captured tool use", (
        "CREATE TABLE IF NOT EXISTS capture_events (id TEXT PRIMARY KEY, session TEXT NOT NULL, project TEXT NOT NULL, "
        "at TEXT NOT NULL, at_epoch REAL NOT NULL, kind TEXT NOT NULL, tool TEXT NOT NULL, key TEXT NOT NULL, "
        "ref TEXT NOT NULL, text TEXT NOT NULL, error TEXT NOT NULL, failed INTEGER NOT NULL, exit INTEGER, "
        "duration_ms INTEGER, files TEXT NOT NULL, memory_id TEXT)",
        "CREATE INDEX IF NOT EXISTS capture_session ON capture_events (session, project, at_epoch)",
        "CREATE INDEX IF NOT EXISTS capture_memory ON capture_events (memory_id)",
        "CREATE INDEX IF NOT EXISTS capture_tool ON capture_events (project, tool, key, at_epoch)",
        "CREATE TABLE IF NOT EXISTS tool_stats (project TEXT NOT NULL, tool TEXT NOT NULL, key TEXT NOT NULL, "
        "runs INTEGER NOT NULL, failures INTEGER NOT NULL, timed INTEGER NOT NULL, total_ms INTEGER NOT NULL, "
        "last_at TEXT NOT NULL, PRIMARY KEY (project, tool, key))",
        "CREATE TABLE IF NOT EXISTS capture_learnt (source TEXT PRIMARY KEY, memory_id TEXT NOT NULL, "
        "digest TEXT NOT NULL, at TEXT NOT NULL)")),
    # Version 6: supersedes in progress, so a newer statement stored just before a crash still
    # replaces what it said it replaces (never left current beside it).
    6: ("supersedes in progress", (
        "CREATE TABLE IF NOT EXISTS pending_supersedes (new_id TEXT PRIMARY KEY, targets TEXT NOT NULL, "
        "requested_at TEXT NOT NULL)",)),
}


def _dumps(value: Any) -> str | None:
    return None if value is None else json.dumps(value, sort_keys=True, default=_json_default)


def _json_default(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    return str(value)


def _packed(value: Any) -> str | bytes | None:
    """A memory payload as the journal stores it (`packing.py`: long ones deflated)."""
    return pack(_dumps(value), value)


def _loads(value: str | bytes | None) -> Any:
    return None if value is None else json.loads(unpack(value))


class Database:
    """The SQLite journal file at `path` (created with its schema on open).

    `level` filters the audit log: off records nothing, writes records write ops, reads also
    records searches and recalls, verbose also keeps the payloads returned by reads.
    """

    def __init__(self, path: Path | str, *, level: str = "writes", busy_timeout_ms: int = 10_000,
                 clock: Callable[[], datetime] = utcnow):
        if level not in AUDIT_LEVELS:
            raise InvalidInputError(f"audit level must be one of {', '.join(AUDIT_LEVELS)}, not {level!r}")
        self.path = Path(path)
        self.level = level
        self._rank = AUDIT_LEVELS.index(level)
        self._busy_ms = busy_timeout_ms
        self._clock = clock
        self._local = threading.local()
        self._all: list[sqlite3.Connection] = []
        self._guard = threading.Lock()
        # this process's writers queue here, woken in turn, instead of on SQLite's busy handler, which
        # sleeps 1, 2, 5, 10 ... 100 ms between tries: a search recording its read behind a dream's
        # write slept up to 100 ms more than the write took. busy_timeout still orders other processes.
        self._writer = threading.RLock()
        self._closed = False
        #: (where a damaged journal was set aside, {table: rows salvaged from it}) when this open found one
        self.recovered: tuple[Path, dict[str, int]] | None = None
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._prepare()
        except sqlite3.DatabaseError as exc:
            if not is_damage(exc):
                raise
            self._recover(exc)

    def _prepare(self) -> None:
        self._conn().executescript(_SCHEMA)  # idempotent DDL, so concurrent openers are fine
        with self._tx() as con:
            con.execute("INSERT OR IGNORE INTO schema_version VALUES (?, ?, ?)",
                        (1, "audit, versions, relations, entity index", self._now()[0]))
            have = con.execute("SELECT MAX(version) FROM schema_version").fetchone()[0]
            for version in range(have + 1, SCHEMA_VERSION + 1):
                description, statements = _MIGRATIONS[version]
                for sql in statements:
                    con.execute(sql)
                con.execute("INSERT INTO schema_version VALUES (?, ?, ?)", (version, description, self._now()[0]))

    def check(self) -> list[str]:
        """What `PRAGMA quick_check` finds wrong (it reads the whole file, so only `mnemex doctor`
        asks); when anything, the file is set aside and a fresh one started, as at open (`recovered`)."""
        found = problems(self._conn())
        if found:
            self._recover(sqlite3.DatabaseError(found[0]))
        return found

    def _recover(self, exc: sqlite3.DatabaseError) -> None:
        """The journal file is damaged: set it aside (never deleted), start a fresh one and copy into
        it what can still be read (audit rows, versions, relations, blocks, purges in progress ...).
        The memories themselves live in the store and are not touched."""
        with self._guard:
            for con in self._all:
                con.close()
            self._all.clear()
        self._local = threading.local()
        aside = set_aside(self.path)
        self._prepare()
        with self._tx() as con:
            tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                                "AND name NOT IN ('schema_version', 'sqlite_sequence')")]
            counts = salvage(aside, con, tables)
        self.recovered = (aside, counts)
        log.warning("the journal %s is damaged (%s): set aside as %s and a fresh one started with the %d rows "
                    "still readable (%s); the memories in the store are intact. Audit history, versions, relations "
                    "or core memory blocks beyond those rows are only in the set-aside file", self.path, exc,
                    aside.name, sum(counts.values()),
                    ", ".join(f"{t} {n}" for t, n in counts.items() if n) or "none")

    # ------------------------------------------------------------ connections
    def _conn(self) -> sqlite3.Connection:
        if self._closed:
            raise InvalidInputError("the journal is closed")
        con = getattr(self._local, "con", None)
        if con is None:
            # check_same_thread=False only so close() may close every thread's connection;
            # each connection is still used by the one thread that opened it.
            con = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            con.execute(f"PRAGMA busy_timeout = {int(self._busy_ms)}")
            con.execute("PRAGMA journal_mode = WAL")
            con.execute("PRAGMA synchronous = NORMAL")
            con.execute("PRAGMA secure_delete = ON")  # purged content must not linger in free pages
            self._local.con = con
            with self._guard:
                self._all.append(con)
        return con

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        """One write transaction; IMMEDIATE takes the write lock up front so concurrent writers
        queue on busy_timeout instead of failing on a lock upgrade."""
        con = self._conn()
        try:
            with self._writer:
                con.execute("BEGIN IMMEDIATE")
                try:
                    yield con
                except BaseException:
                    con.execute("ROLLBACK")
                    raise
                con.execute("COMMIT")
        except sqlite3.OperationalError as exc:
            if "full" in str(exc) or "readonly" in str(exc).replace("-", ""):
                raise StorageFullError(f"the journal {self.path} cannot be written ({exc}): free disk space "
                                       "or make the data dir writable; this write was not recorded") from exc
            raise

    def _now(self) -> tuple[str, float]:
        now = self._clock()
        if now.tzinfo is None:
            now = now.replace(tzinfo=timezone.utc)
        return now.isoformat(), now.timestamp()

    def journal_mode(self) -> str:
        return self._conn().execute("PRAGMA journal_mode").fetchone()[0]

    def schema_version(self) -> int:
        return self._conn().execute("SELECT MAX(version) FROM schema_version").fetchone()[0]

    def close(self) -> None:
        """Close every thread's connection; the journal cannot be used afterwards."""
        with self._guard:
            self._closed = True
            for con in self._all:
                try:
                    con.close()
                except sqlite3.Error:  # pragma: no cover - closing is best effort
                    pass
            self._all.clear()
