"""What the viewer page asks of the engine, as plain JSON values (no HTTP here).

Reads go through the engine's own read path (`engine.search`, as search_memory, with why each
hit matched), `explore` (recent, timeline, history, related) and the journal (sessions, audit
counts). Writes go through the engine's write path — `update`, `forget`, `recall` for a dormant
memory — so each lands in the audit log with actor `viewer`; nothing here writes to the store.
Bad input raises InvalidInputError with a one-line message the page shows as is.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from datetime import datetime, timedelta, timezone
from typing import Any, Mapping

from mnemex.engine.upkeep import all_memories
from mnemex.errors import InvalidInputError, NotFoundError
from mnemex.models import Memory, MemoryChanges, MemoryFilter, MemoryKind, MemoryStatus, Scope, ValidityMode
from mnemex.views import history_result, memory_hit, ranked_hit, related_result, timeline_result

ACTOR = "viewer"
CLIENT = "mnemex-viewer"
STATUSES = ("current", "dormant", "all", "superseded", "invalidated")
#: What a search looks in unless a kind is chosen: as search_memory, all but captured tool events.
SEARCHED_KINDS = tuple(k for k in MemoryKind if k != MemoryKind.TOOL_EVENT)
MAX_LIMIT = 200
STATS_DAYS = 90


def _one(params: Mapping[str, Any], key: str) -> str:
    value = params.get(key)
    return str(value).strip() if value is not None else ""


def _many(params: Any, key: str) -> list[str]:
    values = params.getlist(key) if hasattr(params, "getlist") else [params.get(key)] if params.get(key) else []
    return [v for raw in values for v in str(raw).split(",") if v.strip()]


def _choices(values: list[str], allowed: type, name: str) -> tuple[Any, ...]:
    try:
        return tuple(allowed(v.strip()) for v in values)
    except ValueError:
        raise InvalidInputError(f"unknown {name} {values!r}: give one of {', '.join(a.value for a in allowed)}") from None


def _moment(text: str, name: str) -> datetime | None:
    if not text:
        return None
    try:
        value = datetime.fromisoformat(text)
    except ValueError:
        raise InvalidInputError(f"{name} {text!r} is no date: give e.g. 2026-05-01 or 2026-05-01T14:00") from None
    return value if value.tzinfo else value.replace(tzinfo=timezone.utc)


def _limit(params: Mapping[str, Any], default: int, most: int) -> int:
    text = _one(params, "limit") or str(default)
    if not text.isdigit() or not 1 <= int(text) <= most:
        raise InvalidInputError(f"limit {text!r} is out of range: give 1 to {most}")
    return int(text)


def memory_row(m: Memory, entry_tier: str, *, hit: Any = None) -> dict[str, Any]:
    """A memory as a list row: the index entry (with why it matched, for a search) plus its state."""
    row = (hit if hit is not None else memory_hit(m)).model_dump(mode="json")
    row.update(project=m.project, tags=list(m.tags), pinned=m.pinned, immutable=m.immutable, status=m.status.value,
               tier=m.lifecycle.tier or entry_tier, dormant=m.lifecycle.dormant, importance=m.importance,
               valid_until=m.valid_until.isoformat() if m.valid_until else None)
    return row


def _day_range(days: list[str]) -> list[str]:
    """Every day from the first one given to today (UTC), so the charts keep the gaps."""
    if not days:
        return []
    first = datetime.fromisoformat(min(days)).date()
    today = datetime.now(timezone.utc).date()
    return [(first + timedelta(days=i)).isoformat() for i in range((today - first).days + 1)]


class ViewerApi:
    """The viewer's reads and writes over one engine (blocking: call from a worker thread)."""

    def __init__(self, engine: Any):
        self.engine = engine
        self._projects: tuple[int, list[str]] = (-1, [])  # (memories stored, their projects): a scan is slow

    @property
    def entry_tier(self) -> str:
        return self.engine.lifecycle.config.entry

    @property
    def journal(self) -> Any:
        if self.engine.journal is None:
            raise InvalidInputError("this store runs without a journal: history, sessions and audit are unavailable")
        return self.engine.journal

    # ------------------------------------------------------------------ reads
    def overview(self) -> dict[str, Any]:
        """What the filters offer: projects, kinds, scopes, tiers, statuses."""
        stats = self.engine.upkeep.stats()
        if self._projects[0] != stats["memories_total"]:  # rescanned only when the count moved
            everything = MemoryFilter(validity=ValidityMode.TIMELINE)
            self._projects = (stats["memories_total"], sorted({m.project for m in all_memories(
                self.engine.store, everything) if m.project}))
        return {"projects": self._projects[1], "kinds": [k.value for k in MemoryKind],
                "scopes": [s.value for s in Scope], "tiers": list(self.engine.lifecycle.config.tier_table),
                "statuses": list(STATUSES), **stats}

    def _filter(self, params: Mapping[str, Any], *, searching: bool) -> tuple[MemoryFilter, str, set[str]]:
        status = _one(params, "status") or "current"
        if status not in STATUSES:
            raise InvalidInputError(f"unknown status {status!r}: give one of {', '.join(STATUSES)}")
        kinds = _choices(_many(params, "kind"), MemoryKind, "kind")
        pinned = {"": None, "yes": True, "no": False}.get(_one(params, "pinned"))
        if _one(params, "pinned") not in ("", "yes", "no"):
            raise InvalidInputError("pinned must be yes, no or empty")
        flt = MemoryFilter(
            project=_one(params, "project") or None, kinds=kinds or (SEARCHED_KINDS if searching else ()),
            scopes=_choices(_many(params, "scope"), Scope, "scope"), tags=tuple(_many(params, "tag")),
            created_after=_moment(_one(params, "since"), "since"), created_before=_moment(_one(params, "until"), "until"),
            pinned=pinned, validity=ValidityMode.CURRENT if status in ("current", "dormant") else ValidityMode.TIMELINE,
            dormant={"current": False, "dormant": True}.get(status))
        tiers = set(_many(params, "tier"))
        unknown = tiers - set(self.engine.lifecycle.config.tier_table)
        if unknown:
            raise InvalidInputError(f"unknown tier {sorted(unknown)!r}: give one of "
                                    f"{', '.join(self.engine.lifecycle.config.tier_table)}")
        return flt, status, tiers

    def _keep(self, m: Memory, status: str, tiers: set[str]) -> bool:
        if tiers and (m.lifecycle.tier or self.entry_tier) not in tiers:
            return False
        if status == "superseded":
            return m.status == MemoryStatus.SUPERSEDED
        if status == "invalidated":
            return m.status == MemoryStatus.FORGOTTEN
        return True

    def search(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """With `q`: the engine's search (why each hit matched); without: the newest memories. Both
        take the filters project, kind, scope, tag, tier, since, until, pinned, status."""
        query = _one(params, "q")
        flt, status, tiers = self._filter(params, searching=bool(query))
        limit = _limit(params, 50 if query else 100, MAX_LIMIT if not query else self.engine.limits.max_results)
        narrowed = bool(tiers) or status in ("superseded", "invalidated")
        if query:
            ranked = self.engine.search(query, filter=flt, limit=limit, client=CLIENT, dormant=flt.dormant)
            rows = [memory_row(r.memory, self.entry_tier, hit=ranked_hit(r)) for r in ranked
                    if self._keep(r.memory, status, tiers)]
        else:
            found = self.engine.explore.recent(flt, limit=MAX_LIMIT if narrowed else limit)
            rows = [memory_row(m, self.entry_tier) for m in found if self._keep(m, status, tiers)][:limit]
        return {"results": rows, "count": len(rows), "query": query}

    def memory(self, memory_id: str) -> dict[str, Any]:
        """One memory in full (no recall: looking does not strengthen it)."""
        m = self.engine.get(memory_id)
        return {**m.model_dump(mode="json"), "tier": m.lifecycle.tier or self.entry_tier}

    def history(self, memory_id: str) -> dict[str, Any]:
        """Content versions, the supersede chain (with each link's status) and the audit trail."""
        raw = self.engine.explore.history(memory_id)
        out = history_result(raw).model_dump(mode="json")
        for row, m in zip(out["chain"], raw["chain"]):
            row.update(status=m.status.value, valid_until=m.valid_until.isoformat() if m.valid_until else None)
        for row, op in zip(out["audit"], raw["ops"]):
            row["detail"] = op.detail
        return out

    def related(self, memory_id: str) -> dict[str, Any]:
        """Memories reachable over relations (2 hops) as a graph: nodes and typed edges."""
        center = self.engine.get(memory_id)
        walk = self.engine.explore.related(center.id, max_hops=2)
        result = related_result(walk).model_dump(mode="json")
        nodes = {center.id: {**memory_hit(center).model_dump(mode="json"), "hops": 0}}
        for (m, hops, _path, _relation), row in zip(walk, result["results"]):
            nodes.setdefault(m.id, {**row["memory"], "hops": hops})
        edges = {(r.src, r.dst, r.type.value) for node in nodes for r in self.journal.relations(node)
                 if r.src in nodes and r.dst in nodes}  # as recorded: src -> dst, among the shown nodes
        return {"center": center.id, "nodes": list(nodes.values()),
                "edges": [{"src": a, "dst": b, "type": t} for a, b, t in sorted(edges)]}

    def timeline(self, memory_id: str) -> dict[str, Any]:
        return timeline_result(*self.engine.explore.timeline(memory_id, before=5, after=5)).model_dump(mode="json")

    def blocks(self, params: Mapping[str, Any]) -> dict[str, Any]:
        blocks = self.engine.blocks.list(_one(params, "project") or None)
        return {"blocks": [b.model_dump(mode="json") for b in blocks]}

    def sessions(self, params: Mapping[str, Any]) -> dict[str, Any]:
        rows = self.journal.sessions(_one(params, "project") or None, limit=_limit(params, 50, MAX_LIMIT))
        return {"sessions": [{"session": s.session, "project": s.project, "started": s.started.isoformat(),
                              "ended": s.ended.isoformat(), "events": s.events, "tool_uses": s.tool_uses,
                              "failures": s.failures, "prompts": s.prompts} for s in rows]}

    def session(self, session: str, params: Mapping[str, Any]) -> dict[str, Any]:
        project = _one(params, "project")
        if not project:
            raise InvalidInputError("project is missing: a session is shown within one project")
        events = self.journal.session_events(session, project)
        return {"session": session, "project": project, "events": [
            {"at": e.at.isoformat(), "kind": e.kind, "tool": e.tool, "text": e.text, "ref": e.ref,
             "failed": e.failed, "duration_ms": e.duration_ms, "memory_id": e.memory_id} for e in events]}

    def stats(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """Memories created per day by kind and by (current) tier, write ops per day from the
        audit log, capture volume per day; the last STATS_DAYS days."""
        project = _one(params, "project") or None
        since = datetime.now(timezone.utc) - timedelta(days=STATS_DAYS)
        by_kind: dict[str, Counter] = defaultdict(Counter)
        by_tier: dict[str, Counter] = defaultdict(Counter)
        totals: Counter = Counter()
        for m in all_memories(self.engine.store, MemoryFilter(project=project, validity=ValidityMode.TIMELINE)):
            totals[m.status.value] += 1
            totals["dormant"] += m.lifecycle.dormant
            totals["pinned"] += m.pinned
            if m.created_at >= since:
                day = m.created_at.astimezone(timezone.utc).date().isoformat()
                by_kind[day][m.kind.value] += 1
                by_tier[day][m.lifecycle.tier or self.entry_tier] += 1
        ops: dict[str, Counter] = defaultdict(Counter)
        capture: list[dict[str, Any]] = []
        if self.engine.journal is not None:
            for day, op, count in self.journal.ops_by_day(days=STATS_DAYS):
                ops[day][op] += count
            capture = [{"day": d, "events": n, "failures": f}
                       for d, n, f in self.journal.capture_by_day(project, days=STATS_DAYS)]
        days = _day_range([*by_kind, *ops, *(c["day"] for c in capture)])
        series = lambda table: [{"day": d, **table.get(d, {})} for d in days]  # noqa: E731
        captured = {c["day"]: {"ok": c["events"] - c["failures"], "failed": c["failures"]} for c in capture}
        return {"project": project, "days": STATS_DAYS, "totals": dict(totals), "by_kind": series(by_kind),
                "by_tier": series(by_tier), "write_ops": series(ops), "capture": series(captured),
                "dreams": self._dreams(since), "lifecycle": self.engine.lifecycle_stats(),
                "note": "write ops include `skip` (a statement not stored: another memory already says it)"}

    def _dreams(self, since: datetime) -> list[dict[str, Any]]:
        """What each dream cycle in the window did (its audit row's report), newest first."""
        if self.engine.journal is None:
            return []
        return [{"at": op.ts.isoformat(), **(op.detail or {})} for op in self.journal.ops(since=since, limit=100, op="dream")]

    # ----------------------------------------------------------------- writes
    def edit(self, memory_id: str, body: Mapping[str, Any]) -> dict[str, Any]:
        """Change content, kind, tags or importance (the old text stays in the history)."""
        fields: dict[str, Any] = {}
        if "content" in body:
            content = str(body["content"] or "").strip()
            if not content:
                raise InvalidInputError("content is empty: write what the memory should say, or forget it")
            fields["content"] = content
        if body.get("kind"):
            fields["kind"] = _choices([str(body["kind"])], MemoryKind, "kind")[0]
        if "tags" in body:
            tags = body["tags"] if isinstance(body["tags"], list) else str(body["tags"] or "").split(",")
            fields["tags"] = tuple(t.strip() for t in tags if str(t).strip())
        if body.get("importance") not in (None, ""):
            try:
                fields["importance"] = float(body["importance"])
            except (TypeError, ValueError):
                fields["importance"] = -1.0
            if not 0.0 <= fields["importance"] <= 1.0:
                raise InvalidInputError(f"importance {body['importance']!r} is out of range: give 0 to 1, e.g. 0.8")
        if not fields:
            raise InvalidInputError("nothing to change: give content, kind, tags or importance")
        return self._changed(memory_id, MemoryChanges(**fields))

    def pin(self, memory_id: str, pinned: bool) -> dict[str, Any]:
        return self._changed(memory_id, MemoryChanges(pinned=pinned))

    def _changed(self, memory_id: str, changes: MemoryChanges) -> dict[str, Any]:
        m = self.engine.update(memory_id, changes, actor=ACTOR, client=CLIENT)
        return {"action": "updated", "memory": memory_row(m, self.entry_tier)}

    def forget(self, memory_id: str, body: Mapping[str, Any]) -> dict[str, Any]:
        """Invalidate: hidden from search, kept in the timeline and history."""
        m = self.engine.forget(memory_id, reason=str(body.get("reason") or "")[:500], actor=ACTOR, client=CLIENT)
        assert m is not None
        return {"action": "invalidated", "memory": memory_row(m, self.entry_tier)}

    def restore(self, memory_id: str) -> dict[str, Any]:
        """Bring a dormant memory back to a searchable tier (the engine's reactivation, audited)."""
        m = self.engine.get(memory_id)
        if not m.lifecycle.dormant:
            raise InvalidInputError(f"memory {m.id[:8]} is not dormant: only dormant memories are restored")
        (after,) = self.engine.recall([m.id], touch=True, client=CLIENT)
        return {"action": "restored", "memory": memory_row(after, self.entry_tier)}

    def purge(self, memory_id: str, body: Mapping[str, Any]) -> dict[str, Any]:
        """Erase a memory everywhere; `confirm` must repeat its id (or its first 8 characters)."""
        canonical = self.engine.resolve(memory_id)
        if canonical is None:
            raise NotFoundError(memory_id)
        confirm = str(body.get("confirm") or "").strip().lower()
        if len(confirm) < 8 or not canonical.startswith(confirm):
            raise InvalidInputError(f"purge not confirmed: send confirm={canonical[:8]!r} (the id's first 8 characters)")
        self.engine.forget(canonical, purge=True, actor=ACTOR, client=CLIENT)
        return {"action": "purged", "id": canonical}
