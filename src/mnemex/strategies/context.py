"""The packed context: what the context strategy puts in front of the agent (seed 002).

Pre-retrieve through the engine's one read path (for a task or prompt; without one, the
project's standing knowledge), rank (relevance and recency combined linearly, or RRF across the
lists), drop what falls under the minimum relevance, keep only what reading the code would not
tell (no tool-run records, no statements that merely describe code layout, nothing flagged
`no_inject`), gate by confidence (high: the full text with its kind, date and id; middle: one
line; low: left out and counted), always put the core blocks and pinned memories first, and
pack greedily to a token budget counted with tiktoken, between clear delimiters.
"""

from __future__ import annotations

import logging
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Callable, Iterable, Sequence

from mnemex.config.injection import InjectionSettings
from mnemex.engine.retrieval.fusion import rrf
from mnemex.engine.retrieval.query import is_trivial
from mnemex.engine.service import MemoryEngine
from mnemex.engine.tokens import estimate_tokens
from mnemex.models import Memory, MemoryFilter, MemoryKind, Scope, utcnow

log = logging.getLogger(__name__)

#: What a project's standing context draws from: knowledge the code does not show.
KNOWLEDGE = (MemoryKind.DECISION, MemoryKind.CONVENTION, MemoryKind.PREFERENCE, MemoryKind.CORRECTION,
             MemoryKind.PROCEDURE, MemoryKind.PLAN, MemoryKind.FACT, MemoryKind.NOTE)
#: Statements that only say what the code says (where a symbol lives, what a file holds).
INFERABLE = re.compile(
    r"^\s*(?:the\s+)?(?:file|function|class|method|module|package|directory|folder)\s+`?[\w./-]+`?\s+"
    r"(?:is|are)\s+(?:defined|declared|located|implemented|found)\s+in\b"
    r"|^\s*`?[\w./-]+\.\w{1,5}`?\s+(?:contains|defines|exports|imports)\b"
    r"|^\s*(?:read|opened|viewed)\s+`?[\w./-]+`?\s*$", re.I)
SHORT_ID = 8


def short_id(memory_id: str) -> str:
    return memory_id[:SHORT_ID]


@dataclass(frozen=True, slots=True)
class ContextRequest:
    project: str | None
    task: str = ""
    budget: int = 800
    exclude: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class Packed:
    """The context text and what went into it."""

    text: str
    ids: tuple[str, ...] = ()
    full: tuple[str, ...] = ()
    tokens: int = 0
    left_out: int = 0
    reasons: dict[str, int] = field(default_factory=dict)


@dataclass(slots=True)
class _Item:
    memory: Memory
    relevance: float          # for ranking: the read path's score over the best one (or importance)
    confidence: float | None  # absolute, 0..1: how likely it answers the task (None without a task)
    score: float = 0.0


class ContextBuilder:
    """Builds packed context for one engine. `blocks` renders the core memory blocks of a project
    (the self-editing blocks), or None when there are none."""

    def __init__(self, engine: MemoryEngine, settings: InjectionSettings,
                 blocks: Callable[[str | None], str] | None = None, clock: Callable[[], datetime] = utcnow):
        self.engine = engine
        self.settings = settings
        self.blocks = blocks
        self.clock = clock
        self.sessions = SessionLog()

    # ----------------------------------------------------------------- build
    def build(self, req: ContextRequest, *, with_blocks: bool = True, with_pinned: bool = True,
              standing: bool = True, fusion: str = "linear") -> Packed:
        """The context for `req`: core blocks and pinned memories first (when asked), then the
        memories relevant to the task — or, without a task, the project's standing knowledge
        (unless `standing` is False) — packed into `req.budget` tokens."""
        s = self.settings
        if req.task and is_trivial(req.task):
            return Packed("")
        header = self._header(req.project)
        used = estimate_tokens(header) + estimate_tokens(FOOTER)
        sections: list[str] = []
        ids: list[str] = []
        full: list[str] = []
        reasons: dict[str, int] = {}
        if with_blocks and self.blocks is not None:
            blocks = (self.blocks(req.project) or "").strip()
            if blocks and used + estimate_tokens(blocks) <= req.budget:
                sections.append(blocks)
                used += estimate_tokens(blocks)
        pinned = self._pinned(req) if with_pinned else []
        lists = [pinned]
        ranked = self._candidates(req) if (req.task or standing) else []
        lists.append(ranked)
        items = self._rank(lists, fusion)
        lines_pinned: list[str] = []
        lines_rest: list[str] = []
        seen: set[str] = set(req.exclude)
        left = 0
        for item in items:
            m = item.memory
            if m.id in seen:
                continue
            seen.add(m.id)
            why = self._excluded(item, pinned_ids={p.memory.id for p in pinned})
            if why:
                reasons[why] = reasons.get(why, 0) + 1
                left += 1
                continue
            whole = m.pinned or (item.confidence if item.confidence is not None else m.importance) >= s.full_text_at
            line = self._format(m, whole)
            cost = estimate_tokens(line) + 1
            if used + cost > req.budget:
                reasons["budget"] = reasons.get("budget", 0) + 1
                left += 1
                continue  # greedy: a shorter one further down may still fit
            used += cost
            (lines_pinned if m.pinned else lines_rest).append(line)
            ids.append(m.id)
            if whole:
                full.append(m.id)
        if lines_pinned:
            sections.append("Pinned:\n" + "\n".join(lines_pinned))
        if lines_rest:
            sections.append(("Relevant to this task:\n" if req.task else "What matters in this project:\n")
                            + "\n".join(lines_rest))
        if not req.task and standing:
            recent: list[str] = []
            for m in self._recent_sessions(req, seen):
                line = self._format(m, False, limit=2 * s.line_chars)
                cost = estimate_tokens(line) + 1
                if used + cost > req.budget:
                    reasons["budget"] = reasons.get("budget", 0) + 1
                    left += 1
                    continue
                used += cost
                recent.append(line)
                ids.append(m.id)
            if recent:
                sections.append("Latest sessions here:\n" + "\n".join(recent))
        if left:
            log.debug("context left out %d memories: %s", left, reasons)
        if not sections:
            return Packed("", (), (), 0, left, reasons)
        text = header + "\n" + "\n\n".join(sections) + "\n" + FOOTER
        return Packed(text, tuple(ids), tuple(full), estimate_tokens(text), left, reasons)

    def for_session(self, session_id: str | None, req: ContextRequest, **options) -> Packed:
        """`build`, leaving out what this session already received, and remembering what it gets."""
        if session_id:
            req = ContextRequest(req.project, req.task, req.budget, req.exclude | self.sessions.seen(session_id))
        packed = self.build(req, **options)
        if session_id:
            self.sessions.add(session_id, packed.ids)
        return packed

    # ------------------------------------------------------------- candidates
    def _candidates(self, req: ContextRequest) -> list[_Item]:
        s = self.settings
        base = self.engine.default_filter(project=req.project)
        if req.task:
            found = self.engine.search(req.task, filter=base, limit=min(s.candidates, self.engine.limits.max_results))
            top = max((r.score for r in found), default=0.0) or 1.0
            return [_Item(r.memory, r.score / top, r.confidence) for r in found]
        # No task: the project's standing knowledge, newest first, weighed by importance.
        hits = self.engine.store.ordered(base.model_copy(update={"kinds": KNOWLEDGE}), by="created_at",
                                         descending=True, limit=max(s.candidates * 3, 60))
        return [_Item(h.memory, h.memory.importance, None) for h in hits]

    def _recent_sessions(self, req: ContextRequest, seen: set[str]) -> list[Memory]:
        """The project's latest episodes (captured sessions), newest first."""
        if not self.settings.recent_sessions or not req.project:
            return []
        flt = self.engine.default_filter(project=req.project, kinds=(MemoryKind.EPISODE,))
        hits = self.engine.store.ordered(flt, by="created_at", descending=True,
                                         limit=self.settings.recent_sessions + len(seen))
        return [h.memory for h in hits if h.memory.id not in seen and not h.memory.metadata.get("no_inject")
                ][: self.settings.recent_sessions]

    def _pinned(self, req: ContextRequest) -> list[_Item]:
        flt = MemoryFilter(project=req.project, pinned=True)
        hits, _ = self.engine.store.scroll(flt, limit=50)
        return [_Item(h.memory, 1.0, 1.0) for h in hits]

    def _rank(self, lists: Sequence[Sequence[_Item]], fusion: str) -> list[_Item]:
        """One ranking: linear (relevance and recency) or RRF across the lists."""
        s = self.settings
        now = self.clock()
        pool: dict[str, _Item] = {}
        for items in lists:
            for item in items:
                if item.memory.id not in pool or item.relevance > pool[item.memory.id].relevance:
                    pool[item.memory.id] = item
        if fusion == "rrf":
            fused = rrf([[i.memory.id for i in items] for items in lists if items])
            for key, item in pool.items():
                item.score = fused.get(key, 0.0)
        else:
            for item in pool.values():
                item.score = (1 - s.recency_weight) * item.relevance + s.recency_weight * self._recency(item.memory, now)
        return sorted(pool.values(), key=lambda i: (not i.memory.pinned, -i.score))

    def _recency(self, memory: Memory, now: datetime) -> float:
        when = memory.updated_at or memory.created_at
        if when.tzinfo is None:
            when = when.replace(tzinfo=timezone.utc)
        age_days = max((now - when).total_seconds(), 0.0) / 86_400
        return 0.5 ** (age_days / self.settings.recency_half_life_days)

    def _excluded(self, item: _Item, *, pinned_ids: set[str]) -> str | None:
        """Why a candidate stays out, or None."""
        m = item.memory
        if m.metadata.get("no_inject"):
            return "no_inject"
        if m.kind.value in self.settings.skip_kinds:
            return "kind"
        if m.id in pinned_ids or m.pinned:
            return None
        if INFERABLE.search(m.content):
            return "inferable"
        if item.confidence is not None and item.confidence < self.settings.min_relevance:
            return "relevance"  # under the floor: logged, not shown
        return None

    # ----------------------------------------------------------------- format
    def _header(self, project: str | None) -> str:
        where = f' project="{project}"' if project else ""
        return (f"<mnemex-memory{where}>\nFrom your long-term memory of earlier sessions (newer statements win; "
                f"recall_memory takes the ids).")

    def _format(self, m: Memory, whole: bool, limit: int | None = None) -> str:
        day = m.created_at.date().isoformat()
        scope = "" if m.scope == Scope.PROJECT else f" · {m.scope.value}"
        tag = f"[{m.kind.value} · {day}{scope} · {short_id(m.id)}]"
        text = " ".join(m.content.split())
        if not whole:
            limit = limit or self.settings.line_chars
            text = text if len(text) <= limit else text[: limit - 1] + "…"
        return f"- {tag} {text}"


FOOTER = "</mnemex-memory>"


class SessionLog:
    """Which memories each session has already been given (the daemon's lifetime, last 512 sessions)."""

    def __init__(self, sessions: int = 512):
        self._lock = threading.Lock()
        self._seen: OrderedDict[str, set[str]] = OrderedDict()
        self._max = sessions

    def seen(self, session_id: str) -> frozenset[str]:
        with self._lock:
            return frozenset(self._seen.get(session_id, ()))

    def add(self, session_id: str, ids: Iterable[str]) -> None:
        with self._lock:
            self._seen.setdefault(session_id, set()).update(ids)
            self._seen.move_to_end(session_id)
            while len(self._seen) > self._max:
                self._seen.popitem(last=False)

