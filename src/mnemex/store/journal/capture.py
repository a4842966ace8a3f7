"""The session log of captured tool use: every event the Claude Code hooks spooled, once (its id
is the key), with per-project tool statistics kept in the same transaction — so an event
ingested twice (a daemon killed mid-batch reads its batch again) is neither logged nor
counted twice. Sessions are consolidated from here into episodes and procedures."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Sequence

from mnemex.store.journal.audit import AuditLog


@dataclass(frozen=True, slots=True)
class CaptureEvent:
    """One spooled event: a tool use (`kind` tool), a prompt, or a session boundary (start, end)."""

    id: str
    session: str
    project: str
    at: datetime
    kind: str
    tool: str = ""
    key: str = ""                  # what identifies a command across runs (`pytest tests`)
    ref: str = ""                  # the file read or edited, the command run
    text: str = ""                 # the event told in a line (redacted)
    error: str = ""                # a failed command's error tail
    failed: bool = False
    exit: int | None = None
    duration_ms: int | None = None
    files: tuple[str, ...] = ()
    memory_id: str | None = None   # the tool-event memory that holds it


@dataclass(frozen=True, slots=True)
class SessionSummary:
    """One captured session in one project: when it ran and how much it did."""

    session: str
    project: str
    started: datetime
    ended: datetime
    events: int
    tool_uses: int
    failures: int
    prompts: int


@dataclass(frozen=True, slots=True)
class ToolStat:
    """How a tool (a command, for Bash) has fared in a project."""

    project: str
    tool: str
    key: str
    runs: int
    failures: int
    timed: int
    total_ms: int
    last_at: datetime
    durations: tuple[int, ...] = field(default=())  # recent durations, for a typical (median) time

    @property
    def typical_ms(self) -> int | None:
        if self.durations:
            ordered = sorted(self.durations)
            return ordered[len(ordered) // 2]
        return self.total_ms // self.timed if self.timed else None


_COLUMNS = "id, session, project, at, kind, tool, key, ref, text, error, failed, exit, duration_ms, files, memory_id"


class CaptureLog(AuditLog):
    def known_events(self, ids: Sequence[str]) -> set[str]:
        """Which of these event ids are logged already."""
        found: set[str] = set()
        con = self._conn()
        unique = list(dict.fromkeys(ids))
        for start in range(0, len(unique), 500):
            chunk = unique[start:start + 500]
            rows = con.execute(f"SELECT id FROM capture_events WHERE id IN ({','.join('?' * len(chunk))})", chunk)
            found.update(r[0] for r in rows)
        return found

    def log_events(self, events: Sequence[CaptureEvent]) -> list[str]:
        """Log events not logged yet and count each new tool use in its project's statistics, in
        one transaction; returns the ids that were new."""
        new: list[str] = []
        with self._tx() as con:
            for e in events:
                cur = con.execute(
                    f"INSERT OR IGNORE INTO capture_events ({_COLUMNS}, at_epoch) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                    (e.id, e.session, e.project, e.at.isoformat(), e.kind, e.tool, e.key, e.ref, e.text, e.error,
                     int(e.failed), e.exit, e.duration_ms, "\n".join(e.files), e.memory_id, e.at.timestamp()))
                if not cur.rowcount:
                    continue
                new.append(e.id)
                if e.kind == "tool" and e.tool:
                    timed = e.duration_ms is not None
                    con.execute(
                        "INSERT INTO tool_stats (project, tool, key, runs, failures, timed, total_ms, last_at) "
                        "VALUES (?,?,?,1,?,?,?,?) ON CONFLICT (project, tool, key) DO UPDATE SET "
                        "runs = runs + 1, failures = failures + excluded.failures, timed = timed + excluded.timed, "
                        "total_ms = total_ms + excluded.total_ms, last_at = MAX(last_at, excluded.last_at)",
                        (e.project, e.tool, e.key, int(e.failed), int(timed), e.duration_ms or 0, e.at.isoformat()))
        return new

    def session_events(self, session: str, project: str) -> list[CaptureEvent]:
        """A session's events in one project, in the order they happened."""
        rows = self._conn().execute(
            f"SELECT {_COLUMNS} FROM capture_events WHERE session = ? AND project = ? ORDER BY at_epoch, rowid",
            (session, project)).fetchall()
        return [_event(r) for r in rows]

    def sessions(self, project: str | None = None, *, limit: int = 50) -> list[SessionSummary]:
        """The captured sessions, most recent first: all projects when `project` is None."""
        where, args = ("WHERE project = ?", [project]) if project else ("", [])
        rows = self._conn().execute(
            "SELECT session, project, MIN(at_epoch), MAX(at_epoch), COUNT(*), SUM(kind = 'tool'), SUM(failed), "
            f"SUM(kind = 'prompt') FROM capture_events {where} GROUP BY session, project "
            "ORDER BY MAX(at_epoch) DESC LIMIT ?", [*args, int(limit)]).fetchall()
        return [SessionSummary(r[0], r[1], datetime.fromtimestamp(r[2], timezone.utc),
                               datetime.fromtimestamp(r[3], timezone.utc), r[4], r[5] or 0, r[6] or 0, r[7] or 0)
                for r in rows]

    def capture_by_day(self, project: str | None = None, *, days: int = 90) -> list[tuple[str, int, int]]:
        """(UTC day, events, failed tool uses) of the last `days` days of capture, oldest first."""
        since = datetime.now(timezone.utc).timestamp() - days * 86400
        where, args = ("AND project = ?", [project]) if project else ("", [])
        rows = self._conn().execute(
            "SELECT date(at_epoch, 'unixepoch') AS day, COUNT(*), SUM(failed) FROM capture_events "
            f"WHERE at_epoch >= ? {where} GROUP BY day ORDER BY day", [since, *args]).fetchall()
        return [(r[0], r[1], r[2] or 0) for r in rows]

    def tool_stats(self, project: str | None = None, *, limit: int = 50) -> list[ToolStat]:
        """Per-tool statistics (Bash: per command), most used first; all projects when None."""
        where, args = ("WHERE project = ?", [project]) if project else ("", [])
        con = self._conn()
        rows = con.execute(f"SELECT project, tool, key, runs, failures, timed, total_ms, last_at FROM tool_stats "
                           f"{where} ORDER BY runs DESC, tool, key LIMIT ?", [*args, limit]).fetchall()
        out = []
        for r in rows:
            durations = tuple(d[0] for d in con.execute(
                "SELECT duration_ms FROM capture_events WHERE project = ? AND tool = ? AND key = ? AND "
                "duration_ms IS NOT NULL ORDER BY at_epoch DESC LIMIT 50", (r[0], r[1], r[2])))
            out.append(ToolStat(r[0], r[1], r[2], r[3], r[4], r[5], r[6], datetime.fromisoformat(r[7]), durations))
        return out

    def learnt(self, source: str) -> tuple[str, str] | None:
        """(memory id, digest of its text) of what was learnt from `source` (a session's episode,
        a failure's procedure), or None."""
        row = self._conn().execute("SELECT memory_id, digest FROM capture_learnt WHERE source = ?", (source,)).fetchone()
        return (row[0], row[1]) if row else None

    def mark_learnt(self, source: str, memory_id: str, digest: str) -> None:
        ts, _ = self._now()
        with self._tx() as con:
            con.execute("INSERT INTO capture_learnt (source, memory_id, digest, at) VALUES (?,?,?,?) ON CONFLICT "
                        "(source) DO UPDATE SET memory_id = excluded.memory_id, digest = excluded.digest, at = excluded.at",
                        (source, memory_id, digest, ts))


def _event(r: tuple) -> CaptureEvent:
    return CaptureEvent(id=r[0], session=r[1], project=r[2], at=datetime.fromisoformat(r[3]), kind=r[4], tool=r[5],
                        key=r[6], ref=r[7], text=r[8], error=r[9], failed=bool(r[10]), exit=r[11], duration_ms=r[12],
                        files=tuple(f for f in (r[13] or "").split("\n") if f), memory_id=r[14])
