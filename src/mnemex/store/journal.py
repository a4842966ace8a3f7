"""The journal: one SQLite file (WAL) beside the vector store holding what vectors cannot.

* audit: every write op (and, at higher levels, every read) with before/after payloads;
* history: each content version of a memory, oldest first;
* relations: a typed, weighted graph between memories, with BFS traversal and pruning that
  never drops the structural types (supersedes, contradicts, causes);
* entity index: which memories mention an entity (entity hubs);
* purge: removing a memory's content from all of the above while keeping the op rows.

Each thread gets its own connection (SQLite connections are not meant to be shared); WAL lets
readers run beside the single writer, and `busy_timeout` makes concurrent writers wait for
each other instead of failing.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections import deque
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from enum import StrEnum
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence

from mnemex.errors import InvalidInputError, StorageFullError
from mnemex.models import utcnow

SCHEMA_VERSION = 3
TOMBSTONE = "[purged]"
AUDIT_LEVELS = ("off", "writes", "reads", "verbose")

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
}


class RelationType(StrEnum):
    SUPERSEDES = "supersedes"
    CONTRADICTS = "contradicts"
    CAUSES = "causes"
    ELABORATES = "elaborates"
    SAME_ENTITY = "same_entity"
    RELATED_TO = "related_to"


#: Structural relations: pruning never removes them.
PROTECTED_RELATIONS = frozenset({RelationType.SUPERSEDES, RelationType.CONTRADICTS, RelationType.CAUSES})
#: Prunable relations, least valuable first (pruned first).
_PRUNE_ORDER = {RelationType.RELATED_TO: 0, RelationType.SAME_ENTITY: 1, RelationType.ELABORATES: 2}


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


@dataclass(frozen=True, slots=True)
class VersionRecord:
    memory_id: str
    version: int
    ts: datetime
    content: str
    payload: dict[str, Any]
    reason: str | None
    purged: bool


@dataclass(frozen=True, slots=True)
class Relation:
    src: str
    dst: str
    type: RelationType
    weight: float
    detail: dict[str, Any] | None
    created_at: datetime


def _dumps(value: Any) -> str | None:
    return None if value is None else json.dumps(value, sort_keys=True, default=_json_default)


def _json_default(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    return str(value)


def _loads(value: str | None) -> Any:
    return None if value is None else json.loads(value)


class Journal:
    """The SQLite journal at `path` (created with its schema on open).

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
        self._closed = False
        self.path.parent.mkdir(parents=True, exist_ok=True)
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

    # ------------------------------------------------------------------ audit
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
            (ts, epoch, op, memory_id, actor, _dumps(before), _dumps(after), _dumps(detail)))
        return int(cur.lastrowid)

    def ops(self, memory_id: str | None = None, since: datetime | None = None, limit: int = 100) -> list[OpRecord]:
        """Audit rows, newest first: all, or those about `memory_id` (its writes and the reads
        that returned it), optionally only from `since` on."""
        where, args = [], []
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

    # ---------------------------------------------------------------- history
    def add_version(self, memory_id: str, content: str, payload: dict[str, Any], reason: str | None = None) -> int:
        """Append a content version of a memory; returns its number (1 for the first)."""
        ts, _ = self._now()
        with self._tx() as con:
            (last,) = con.execute("SELECT COALESCE(MAX(version), 0) FROM versions WHERE memory_id = ?",
                                  (memory_id,)).fetchone()
            con.execute("INSERT INTO versions (memory_id, version, ts, content, payload, reason) VALUES (?,?,?,?,?,?)",
                        (memory_id, last + 1, ts, content, _dumps(payload), reason))
            return last + 1

    def versions(self, memory_id: str) -> list[VersionRecord]:
        """Every version of a memory, oldest first."""
        rows = self._conn().execute("SELECT * FROM versions WHERE memory_id = ? ORDER BY version", (memory_id,))
        return [VersionRecord(r[0], r[1], datetime.fromisoformat(r[2]), r[3], _loads(r[4]), r[5], bool(r[6]))
                for r in rows.fetchall()]

    # --------------------------------------------------------------- relations
    def add_relation(self, src: str, dst: str, type: RelationType | str, weight: float = 1.0,
                     detail: dict[str, Any] | None = None) -> Relation:
        """Link `src` to `dst`. One edge per (src, dst, type): adding it again updates its
        weight and detail instead of duplicating it."""
        rtype = _relation_type(type)
        if src == dst:
            raise InvalidInputError("a memory cannot be related to itself")
        if not 0.0 <= weight <= 1.0:
            raise InvalidInputError(f"relation weight must be between 0 and 1, not {weight}")
        ts, _ = self._now()
        with self._tx() as con:
            con.execute("INSERT INTO relations VALUES (?,?,?,?,?,?) ON CONFLICT (src, dst, type) DO UPDATE "
                        "SET weight = excluded.weight, detail = excluded.detail",
                        (src, dst, rtype.value, weight, _dumps(detail), ts))
            row = con.execute("SELECT * FROM relations WHERE src = ? AND dst = ? AND type = ?",
                              (src, dst, rtype.value)).fetchone()
        return _relation(row)

    def relations(self, memory_id: str, types: Iterable[RelationType | str] | None = None,
                  direction: str = "both") -> list[Relation]:
        """Edges touching a memory: `out` (it is src), `in` (it is dst) or `both`; strongest first."""
        if direction not in ("out", "in", "both"):
            raise InvalidInputError(f"direction must be out, in or both, not {direction!r}")
        ends = {"out": "src = ?", "in": "dst = ?", "both": "(src = ? OR dst = ?)"}[direction]
        args: list[Any] = [memory_id] * (2 if direction == "both" else 1)
        sql = f"SELECT * FROM relations WHERE {ends}"
        if types is not None:
            names = [_relation_type(t).value for t in types]
            sql += f" AND type IN ({','.join('?' * len(names))})"
            args += names
        rows = self._conn().execute(sql + " ORDER BY weight DESC, src, dst, type", args).fetchall()
        return [_relation(r) for r in rows]

    def traverse(self, start_id: str, max_hops: int = 2, types: Iterable[RelationType | str] | None = None,
                 direction: str = "both") -> list[tuple[str, int, tuple[str, ...]]]:
        """Breadth-first walk from `start_id`: each reachable memory once, as (id, hops, path)
        where path runs from start_id to id; nearest first, then strongest edge first."""
        wanted = None if types is None else [_relation_type(t) for t in types]
        seen = {start_id}
        found: list[tuple[str, int, tuple[str, ...]]] = []
        queue: deque[tuple[str, tuple[str, ...]]] = deque([(start_id, (start_id,))])
        while queue:
            node, path = queue.popleft()
            if len(path) - 1 >= max_hops:
                continue
            for rel in self.relations(node, wanted, direction):
                other = rel.dst if rel.src == node else rel.src
                if other in seen:
                    continue
                seen.add(other)
                found.append((other, len(path), (*path, other)))
                queue.append((other, (*path, other)))
        return found

    def prune_relations(self, memory_id: str, cap: int) -> int:
        """Keep at most `cap` relations touching `memory_id`, dropping the least valuable
        prunable ones first (related_to, then same_entity, then elaborates; weakest, then
        oldest). supersedes, contradicts and causes are never removed, even over the cap.
        Returns how many edges were removed."""
        rels = self.relations(memory_id)
        excess = len(rels) - max(cap, 0)
        prunable = sorted((r for r in rels if r.type not in PROTECTED_RELATIONS),
                          key=lambda r: (_PRUNE_ORDER[r.type], r.weight, r.created_at))
        doomed = prunable[:max(excess, 0)]
        if doomed:
            with self._tx() as con:
                con.executemany("DELETE FROM relations WHERE src = ? AND dst = ? AND type = ?",
                                [(r.src, r.dst, r.type.value) for r in doomed])
        return len(doomed)

    # ------------------------------------------------------------ entity index
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

    # ------------------------------------------------------------------- purge
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
            # a supersede) whose payloads embed it. LIKE finds candidates, _scrub is exact.
            pattern = f"%{memory_id}%"
            others = con.execute(
                "SELECT id, before, after, detail FROM ops WHERE (memory_id IS NULL OR memory_id != ?) AND "
                "(id IN (SELECT op_id FROM op_memories WHERE memory_id = ?) OR before LIKE ? OR after LIKE ? "
                "OR detail LIKE ?)", (memory_id, memory_id, pattern, pattern, pattern)).fetchall()
            for op_id, *fields in others:
                con.execute("UPDATE ops SET before = ?, after = ?, detail = ? WHERE id = ?",
                            (*(_dumps(_scrub(_loads(f), memory_id)) for f in fields), op_id))
            queries = self._scrub_queries(con, memory_id, texts)
            con.execute("DELETE FROM entity_index WHERE memory_id = ?", (memory_id,))
            con.execute("UPDATE relations SET detail = NULL WHERE src = ? OR dst = ?", (memory_id, memory_id))
            con.execute("DELETE FROM purges WHERE memory_id = ?", (memory_id,))
            counts = {"versions": versions, "ops": own, "other_ops": len(others), "queries": queries}
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


def _untyped(entity: str) -> str:
    """"file:src/a.py" -> "src/a.py"; entities without a lower-case type prefix stay as they are."""
    prefix, sep, rest = entity.partition(":")
    return rest if sep and len(prefix) >= 3 and prefix.isalpha() and prefix.islower() else entity


def _relation_type(value: RelationType | str) -> RelationType:
    try:
        return RelationType(value)
    except ValueError:
        names = ", ".join(t.value for t in RelationType)
        raise InvalidInputError(f"unknown relation type {value!r}: use one of {names}") from None


def _relation(row: tuple) -> Relation:
    return Relation(row[0], row[1], RelationType(row[2]), row[3], _loads(row[4]), datetime.fromisoformat(row[5]))
