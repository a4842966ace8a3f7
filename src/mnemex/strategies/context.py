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

from mnemex import render
from mnemex.config.dream import HotTierConfig
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
    note: str = ""  # what the read path marked: possibly outdated by a newer memory, or a later one may say otherwise


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
        (unless `standing` is False) — packed into `req.budget` tokens (the whole output, its
        header, titles and footer included)."""
        s = self.settings
        if req.task and is_trivial(req.task):
            return Packed("")
        header = self._header(req.project)
        used = estimate_tokens(header) + estimate_tokens(FOOTER)
        blocks = ""
        reasons: dict[str, int] = {}
        if with_blocks and self.blocks is not None:
            blocks = (self.blocks(req.project) or "").strip()
            if blocks and used + estimate_tokens(blocks) <= req.budget:
                used += estimate_tokens(blocks)
            else:
                blocks = ""
        pinned = self._pinned(req) if with_pinned else []
        ranked = self._candidates(req) if (req.task or standing) else []
        items = self._rank([pinned, ranked], fusion)
        # each section: its title, then (line, memory id, whole) in the order packed
        sections: dict[str, list[tuple[str, str, bool]]] = {
            "Pinned:": [], "Often used here:": [],
            "Relevant to this task:" if req.task else "What matters in this project:": [], "Latest sessions here:": []}
        pinned_title, hot_title, rest_title, recent_title = sections
        seen: set[str] = set(req.exclude)
        left = 0

        def fits(line: str, title: str) -> bool:
            nonlocal used, left
            cost = estimate_tokens(line) + 1 + (0 if sections[title] else estimate_tokens(title) + 2)
            if used + cost > req.budget:
                reasons["budget"] = reasons.get("budget", 0) + 1
                left += 1
                return False  # greedy: a shorter one further down may still fit
            used += cost
            return True

        pinned_ids = {p.memory.id for p in pinned}
        if standing and not req.task:  # the hot tier: a few lines, within its own small budget
            hot_used = 0
            for m in self._hot(req, seen | pinned_ids):
                line = self._format(m, False)
                cost = estimate_tokens(line) + 1
                if hot_used + cost > self._hot_config().inject_tokens or not fits(line, hot_title):
                    break
                hot_used += cost
                seen.add(m.id)
                sections[hot_title].append((line, m.id, False))
        for item in items:
            m = item.memory
            if m.id in seen:
                continue
            seen.add(m.id)
            why = self._excluded(item, pinned_ids=pinned_ids)
            if why:
                reasons[why] = reasons.get(why, 0) + 1
                left += 1
                continue
            whole = m.pinned or (item.confidence if item.confidence is not None else m.importance) >= s.full_text_at
            line = self._format(m, whole, task=req.task, note=item.note)
            title = pinned_title if m.pinned else rest_title
            if fits(line, title):
                sections[title].append((line, m.id, whole))
        if not req.task and standing:
            for m in self._recent_sessions(req, seen):
                line = self._format(m, False, limit=2 * s.line_chars)
                if fits(line, recent_title):
                    sections[recent_title].append((line, m.id, False))
        text = self._assemble(header, blocks, sections)
        while text and estimate_tokens(text) > req.budget:  # joins may tokenize a little longer
            last = next((t for t in (recent_title, rest_title, hot_title, pinned_title) if sections[t]), None)
            if last is None:
                break
            sections[last].pop()
            reasons["budget"] = reasons.get("budget", 0) + 1
            left += 1
            text = self._assemble(header, blocks, sections)
        if left:
            log.debug("context left out %d memories: %s", left, reasons)
        if not text:
            return Packed("", (), (), 0, left, reasons)
        packed = [entry for lines in sections.values() for entry in lines]
        return Packed(text, tuple(i for _, i, _ in packed), tuple(i for _, i, whole in packed if whole),
                      estimate_tokens(text), left, reasons)

    @staticmethod
    def _assemble(header: str, blocks: str, sections: dict[str, list[tuple[str, str, bool]]]) -> str:
        parts = ([blocks] if blocks else []) + [title + "\n" + "\n".join(line for line, _, _ in lines)
                                                for title, lines in sections.items() if lines]
        return header + "\n" + "\n\n".join(parts) + "\n" + FOOTER if parts else ""

    def for_session(self, session_id: str | None, req: ContextRequest, **options) -> Packed:
        """`build`, leaving out what this session already received, and remembering what it gets."""
        if session_id:
            req = ContextRequest(req.project, req.task, req.budget, req.exclude | self.sessions.seen(session_id))
        packed = self.build(req, **options)
        if session_id:
            self.sessions.add(session_id, packed.ids)
        self.engine.injected(packed.ids)
        return packed

    # ------------------------------------------------------------- candidates
    def _candidates(self, req: ContextRequest) -> list[_Item]:
        s = self.settings
        base = self.engine.default_filter(project=req.project)
        if req.task:
            found = self.engine.search(req.task, filter=base, limit=min(s.candidates, self.engine.limits.max_results),
                                       offered_by=None)  # what is injected is counted in `for_session`
            top = max((r.score for r in found), default=0.0) or 1.0
            return [_Item(r.memory, r.score / top, r.confidence, note=_note(r)) for r in found]
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

    def _hot_config(self) -> HotTierConfig:
        return self.engine.lifecycle.config.hot

    def _hot(self, req: ContextRequest, seen: set[str]) -> list[Memory]:
        """The hot tier's memories for this project (and the other scopes), not already given."""
        cap = self._hot_config().inject
        if not cap:
            return []
        hot = [m for m in self.engine.hot_memories() if m.id not in seen and not m.metadata.get("no_inject")
               and (m.scope != Scope.PROJECT or m.project == req.project)]
        return hot[:cap]

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

    def _format(self, m: Memory, whole: bool, limit: int | None = None, task: str = "", note: str = "") -> str:
        day = m.created_at.date().isoformat()
        scope = "" if m.scope == Scope.PROJECT else f" · {m.scope.value}"
        tag = f"[{m.kind.value} · {day}{scope} · {short_id(m.id)}{' · ' + note if note else ''}]"
        text = " ".join(m.content.split())
        if not whole:
            text = excerpt(text, limit or self.settings.line_chars, task)
        return f"- {tag} {text}"


def _note(r) -> str:
    """The read path's mark on a result, as the model reads it beside the memory."""
    return (render.marks(r.outdated_by, r.said_otherwise_by) or [""])[0]  # the stronger one


_SENTENCE = re.compile(r"(?<=[.!?;])\s+")
_TERM = re.compile(r"[a-z0-9][a-z0-9_.-]*[a-z0-9]|[a-z0-9]", re.I)
#: Words too common to say which part of a memory a task is about.
_COMMON = frozenset("the a an and or of to in on at for with is are was were be been it this that what which who "
                    "how when where why did does do has have had can could would should will i you we they he she "
                    "my your our their his her its from by as about into".split())
#: A text at most this much longer than the line is shown whole: cutting it would save little.
WHOLE_SLACK = 1.5


def excerpt(text: str, limit: int, task: str = "") -> str:
    """One line of at most about `limit` characters: the whole text when it is barely longer,
    else the sentences that share most words with `task` (the start without a task), with "…"
    where text was cut."""
    if len(text) <= limit * WHOLE_SLACK:
        return text
    terms = {w.lower() for w in _TERM.findall(task)} - _COMMON
    sentences = _SENTENCE.split(text)
    if not terms or len(sentences) == 1:
        return text[: limit - 1] + "…"
    scores = [len(terms & {w.lower() for w in _TERM.findall(x)}) for x in sentences]
    best = max(range(len(sentences)), key=lambda i: (scores[i], -i))
    if scores[best] == 0:
        return text[: limit - 1] + "…"
    lo = hi = best
    size = len(sentences[best])
    while True:  # widen around the best sentence, the better neighbour first, while it fits
        options = [i for i in (lo - 1, hi + 1) if 0 <= i < len(sentences) and size + 1 + len(sentences[i]) <= limit]
        if not options:
            break
        pick = max(options, key=lambda i: (scores[i], -abs(i - best)))
        size += 1 + len(sentences[pick])
        lo, hi = min(lo, pick), max(hi, pick)
    body = " ".join(sentences[lo:hi + 1])
    if len(body) > limit:
        body = body[: limit - 1] + "…"
    return ("… " if lo > 0 else "") + body + (" …" if hi < len(sentences) - 1 and not body.endswith("…") else "")


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

