"""The daemon's half of capture: spooled hook events into the store, in batches, exactly once.

Each batch of the spool (`capture/spool.py`) is read whole; its tool uses become tool-event
memories of their session (one embedding batch), every event is logged in the journal with the
project's tool statistics, and a session that reached an end marker (PreCompact, Stop,
SessionEnd) is consolidated: its episode is written (or rewritten when the session did more) and
each fix it holds is memorized as a procedure. A session whose topic shifts (`lifecycle.episodes`)
makes one episode per topic. Only then is the batch deleted.

Exactly once: a tool event's memory id is derived from the event id, so a batch read again after
a crash finds its memories stored and stores none twice; the journal logs an event (and counts
it) only if its id is new; an episode or procedure is keyed by its session or its failure
(`capture_learnt`), so consolidating again rewrites instead of adding. A procedure is keyed by its command and the
files its fix touched: the same fix met in another session rewrites it (the newest error wins,
the old text stays in its history) rather than adding a twin.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Iterable, Sequence

from mnemex.capture.sessions import Procedure, episode_text, procedures
from mnemex.capture.settings import HookSettings
from mnemex.capture.spool import Spool
from mnemex.engine.lifecycle import shifts
from mnemex.errors import MnemexError, NotFoundError
from mnemex.models import Memory, MemoryChanges, MemoryKind, MemoryStatus, Provenance, Scope, utcnow
from mnemex.store.journal import CaptureEvent

log = logging.getLogger("mnemex.capture")

#: Namespace of the ids derived from capture (tool events, episodes): stable across versions.
NAMESPACE = uuid.UUID("6f0c3a53-95a4-4b8e-9a43-0b5d1f7c2e61")
KINDS = frozenset({"tool", "prompt", "start", "end"})
CLIENT = "claude-code"
#: Importance of what capture stores: a tool event is a record that decays fast unless recalled,
#: a failure a little less so; an episode summarises a session; a procedure is a fix to reuse.
IMPORTANCE = {"tool": 0.15, "failed": 0.3, "episode": 0.4, "procedure": 0.7}


def event_memory_id(event_id: str) -> str:
    return str(uuid.uuid5(NAMESPACE, "event:" + event_id))


@dataclass
class IngestReport:
    batches: int = 0
    events: int = 0
    stored: int = 0          # tool-event memories written
    repeated: int = 0        # events met again (a batch read a second time): skipped
    malformed: int = 0
    episodes: int = 0
    procedures: list[str] = field(default_factory=list)

    def add(self, other: "IngestReport") -> None:
        for name in ("batches", "events", "stored", "repeated", "malformed", "episodes"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.procedures += other.procedures


class Ingester:
    """Ingests one store's spool into its engine; one run at a time (a lock), safe to call from
    the daemon's upkeep loop and from a request that needs the session's events first."""

    def __init__(self, engine: Any, spool: Spool, *, clock=utcnow):  # type: ignore[no-untyped-def]
        self.engine = engine
        self.spool = spool
        self._clock = clock
        self._lock = threading.Lock()

    @classmethod
    def for_settings(cls, engine: Any, settings: Any) -> "Ingester":
        return cls(engine, Spool(HookSettings(data_dir=settings.data_dir).spool_dir))

    def pending(self) -> bool:
        return self.spool.pending()

    def run(self, *, wait: float = 0.0) -> IngestReport:
        """Ingest every waiting batch, oldest first. `wait`: how long to wait for a run already
        under way (0: return an empty report at once)."""
        report = IngestReport()
        got = self._lock.acquire(timeout=wait) if wait > 0 else self._lock.acquire(blocking=False)
        if not got:
            return report
        try:
            if self.engine.journal is None:
                return report
            for batch in self.spool.take():
                report.add(self.ingest(list(self.spool.read(batch))))
                report.batches += 1
                self.spool.done(batch)
        finally:
            self._lock.release()
        if report.events:
            log.info("capture: %d events (%d stored, %d seen before), %d episodes, %d procedures",
                     report.events, report.stored, report.repeated, report.episodes, len(report.procedures))
        return report

    # --------------------------------------------------------------- one batch
    def ingest(self, records: Iterable[dict[str, Any]]) -> IngestReport:
        report = IngestReport()
        events = []
        closed: list[str] = []  # sessions that ended (SessionEnd, not a turn's Stop): their working memory goes
        for record in records:
            event = _event(record)
            if event is None:
                report.malformed += 1
            else:
                events.append(event)
                if event.kind == "end" and record.get("event") == "SessionEnd" and event.session:
                    closed.append(event.session)
        report.events = len(events)
        journal = self.engine.journal
        known = journal.known_events([e.id for e in events])
        fresh: list[CaptureEvent] = []
        for e in events:  # once each: a use handed to the daemon may also have been spooled by its hook
            if e.id not in known:
                known.add(e.id)
                fresh.append(e)
        report.repeated = len(events) - len(fresh)
        report.stored = self._store_tool_events([e for e in fresh if e.kind == "tool"])
        journal.log_events(fresh)
        ended = dict.fromkeys((e.session, e.project) for e in fresh if e.kind == "end" and e.session)
        for session, project in ended:
            try:
                report.episodes += self._consolidate(session, project, report)
            except MnemexError as exc:  # a full disk, a locked store: the events are logged, try at the next end
                log.warning("capture: consolidating session %s failed: %s", session, exc)
        end_session = getattr(self.engine, "end_session", None)
        for session in dict.fromkeys(closed) if end_session is not None else ():
            end_session(session)
        return report

    def _store_tool_events(self, events: Sequence[CaptureEvent]) -> int:
        """Tool-event memories for these events, except those already stored (a batch read again)."""
        if not events:
            return 0
        ids = [event_memory_id(e.id) for e in events]
        have = {h.id for h in self.engine.store.retrieve(ids)}
        memories = [self._tool_memory(e, memory_id) for e, memory_id in zip(events, ids) if memory_id not in have]
        if memories:
            self.engine.import_memories(memories)
        return len(memories)

    def _tool_memory(self, e: CaptureEvent, memory_id: str) -> Memory:
        tags = ["captured", e.tool.lower()] + (["failed"] if e.failed else [])
        meta: dict[str, Any] = {"tool": e.tool, "event": e.id}
        for name in ("exit", "duration_ms"):
            if getattr(e, name) is not None:
                meta[name] = getattr(e, name)
        if e.key:
            meta["command"] = e.key
        return Memory(id=memory_id, content=e.text, kind=MemoryKind.TOOL_EVENT, scope=Scope.PROJECT, project=e.project,
                      tags=tuple(tags), importance=IMPORTANCE["failed" if e.failed else "tool"],
                      provenance=Provenance(source="hook", client=CLIENT, session_id=e.session, reference=e.ref or None),
                      created_at=e.at, recorded_at=self._clock(), valid_from=e.at, metadata=meta)

    # ---------------------------------------------------------- consolidation
    def _consolidate(self, session: str, project: str, report: IngestReport) -> int:
        events = self.engine.journal.session_events(session, project)
        for procedure in procedures(events):
            memory_id = self._learnt(procedure.source(project), procedure.text(project),
                                     lambda memory_id, text, p=procedure: self._procedure(memory_id, text, p, project,
                                                                                           session))
            if memory_id:
                report.procedures.append(memory_id)
        made = 0
        parts = self._episode_parts(events)
        for i, part in enumerate(parts):
            text = episode_text(part, project)
            if text is None:
                continue
            # the first part keeps the key a whole-session episode always had: a session that later
            # shifts topic rewrites its episode to the first part instead of leaving a twin
            source = f"episode:{project}\x00{session}" + (f"\x00{i}" if i else "")
            written = self._learnt(source, text, lambda memory_id, text, part=part, i=i: self._episode(
                memory_id, text, project, session, part, part_no=i + 1 if len(parts) > 1 else None))
            made += written is not None
        return made

    def _episode_parts(self, events: Sequence[CaptureEvent]) -> list[list[CaptureEvent]]:
        """The session's events cut where its topic shifts (`engine/lifecycle/shifts.py`): windows of
        the events' one-line texts, embedded in one batch; one part when shifts are off or too short."""
        config = getattr(getattr(self.engine, "lifecycle", None), "config", None)
        rule = getattr(config, "episodes", None)
        dense = getattr(self.engine, "dense", None)
        if rule is None or rule.shift_similarity <= 0 or dense is None:
            return [list(events)]
        told = [e for e in events if e.kind in ("tool", "prompt") and e.text.strip()]
        groups = shifts.windows(told, rule.window)[: rule.max_windows]
        if len(groups) < 2 * rule.min_windows:
            return [list(events)]
        vectors = dense.embed_documents(["\n".join(_line(e.text) for e in group) for group in groups])
        starts = shifts.boundaries(vectors, threshold=rule.shift_similarity, min_windows=rule.min_windows)
        first = {groups[i][0].id for i in starts}
        return shifts.split_at(list(events), [k for k, e in enumerate(events) if e.id in first])

    def _learnt(self, source: str, text: str, make) -> str | None:  # type: ignore[no-untyped-def]
        """Write what `source` (a session, a fix) taught as one memory: created the first time
        (`make(id, text)`), rewritten when the text changed (the session did more, the fix was met
        again with a newer error), left alone when the same. A memory the user forgot or purged
        stays gone. Returns the id written, or None."""
        journal = self.engine.journal
        digest = _digest(text)
        seen = journal.learnt(source)
        if seen is not None:
            memory_id, old = seen
            if old == digest:
                return None
            try:
                current = self.engine.get(memory_id)
            except NotFoundError:
                return None
            if current.status != MemoryStatus.ACTIVE or current.valid_until is not None:
                return None
            self.engine.update(memory_id, MemoryChanges(content=text), actor="hook", client=CLIENT)
        else:
            memory_id = str(uuid.uuid5(NAMESPACE, source))
            if not self.engine.store.retrieve([memory_id]):  # not written before a crash
                self.engine.import_memories([make(memory_id, text)])
        journal.mark_learnt(source, memory_id, digest)
        return memory_id

    def _procedure(self, memory_id: str, text: str, procedure: Procedure, project: str, session: str) -> Memory:
        at = procedure.success.at
        return Memory(id=memory_id, content=text, kind=MemoryKind.PROCEDURE, scope=Scope.PROJECT, project=project,
                      tags=("procedure", "captured"), importance=IMPORTANCE["procedure"],
                      provenance=Provenance(source="hook", client=CLIENT, session_id=session,
                                            reference=procedure.failure.ref or None),
                      created_at=at, recorded_at=self._clock(), valid_from=at,
                      metadata={"command": procedure.failure.key, "learnt_from": procedure.failure.id})

    def _episode(self, memory_id: str, text: str, project: str, session: str,
                 events: Sequence[CaptureEvent], *, part_no: int | None = None) -> Memory:
        files = sorted({f for e in events for f in e.files})[:50]
        meta: dict[str, Any] = {"session": session, "events": len(events), "files": files}
        if part_no is not None:
            meta["part"] = part_no  # one of the episodes a topic shift cut the session into
        return Memory(id=memory_id, content=text, kind=MemoryKind.EPISODE, scope=Scope.PROJECT, project=project,
                      tags=("episode", "captured"), importance=IMPORTANCE["episode"],
                      provenance=Provenance(source="hook", client=CLIENT, session_id=session),
                      created_at=events[0].at, recorded_at=self._clock(), valid_from=events[0].at,
                      metadata=meta)


def _line(text: str, most: int = 200) -> str:
    line = " ".join(text.split())
    return line[:most]


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def _event(record: dict[str, Any]) -> CaptureEvent | None:
    """A spooled record as a journal event; None when it is not one (a corrupt or foreign line)."""
    try:
        kind = record.get("kind")
        event_id = record.get("id")
        if kind not in KINDS or not isinstance(event_id, str) or not 8 <= len(event_id) <= 64:
            return None
        at = datetime.fromisoformat(str(record["at"]))
        if at.tzinfo is None:
            at = at.replace(tzinfo=timezone.utc)
        project = str(record.get("project") or "")
        if not project:
            return None
        text = str(record.get("text") or "")
        if kind == "tool" and not text.strip():
            return None
        files = record.get("files") if isinstance(record.get("files"), list) else []
        exit_code = record.get("exit")
        duration = record.get("duration_ms")
        return CaptureEvent(
            id=event_id, session=str(record.get("session") or "")[:200], project=project, at=at, kind=kind,
            tool=str(record.get("tool") or "")[:100], key=str(record.get("key") or "")[:300],
            ref=str(record.get("ref") or "")[:1000], text=text[:20_000], error=str(record.get("error") or "")[:4000],
            failed=bool(record.get("failed")), exit=exit_code if isinstance(exit_code, int) else None,
            duration_ms=duration if isinstance(duration, int) and duration >= 0 else None,
            files=tuple(str(f)[:500] for f in files[:50]),
            memory_id=event_memory_id(event_id) if kind == "tool" else None)
    except (KeyError, TypeError, ValueError):
        return None
