"""The memory model shared by every layer: plain pydantic values, no behaviour."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timezone
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


class MemoryKind(StrEnum):
    FACT = "fact"
    DECISION = "decision"
    PREFERENCE = "preference"
    CONVENTION = "convention"
    CORRECTION = "correction"
    PROCEDURE = "procedure"
    EPISODE = "episode"
    TOOL_EVENT = "tool_event"
    ENTITY = "entity"
    PLAN = "plan"
    NOTE = "note"


#: Records of what happened (a session's episodes, captured tool runs), as opposed to knowledge:
#: never gated, consolidated or promoted as knowledge, and the first to leave the active set.
RECORD_KINDS = frozenset({MemoryKind.EPISODE, MemoryKind.TOOL_EVENT})
#: Metadata key of a digest: a category summary the dream wrote (its value is the category key;
#: `engine/lifecycle/summaries.py`). A digest repeats its members' first lines, so it is found by
#: meaning only: it has no BM25 vector, and would otherwise take the lexical candidates' places
#: from the members it lists.
SUMMARY_OF = "summary_of"
#: The observer's flag (in `metadata["flags"]`) for a line of conversation that carries no
#: knowledge ("ok, thanks", "let me check the logs first"; `engine/write/observe/chatter.py`).
CHATTER = "chatter"


def flagged_chatter(metadata: dict[str, Any]) -> bool:
    """Do a memory's metadata carry the observer's chatter flag?"""
    flags = metadata.get("flags")
    return isinstance(flags, list) and CHATTER in flags


class Scope(StrEnum):
    PROJECT = "project"
    GLOBAL = "global"
    SESSION = "session"
    AGENT = "agent"


class MemoryStatus(StrEnum):
    ACTIVE = "active"
    SUPERSEDED = "superseded"
    FORGOTTEN = "forgotten"


class Provenance(BaseModel):
    """Where a memory came from."""

    model_config = ConfigDict(frozen=True)

    source: str = Field("agent", description="Who wrote it: agent, user, cli, hook, import, benchmark.")
    client: str | None = Field(None, description="The MCP client or tool that wrote it, if known.")
    session_id: str | None = Field(None, description="Conversation or session the memory came from.")
    speaker: str | None = Field(None, description="Who said it, for conversational memories.")
    reference: str | None = Field(None, description="File path, URL or command the memory is about.")


class Lifecycle(BaseModel):
    """What use and feedback taught about a memory (`engine/lifecycle/`): its tier, its storage
    strength (grows with each recall, never decays), its utility (feedback) and surprise."""

    model_config = ConfigDict(frozen=True)

    tier: str | None = Field(None, description="The tier the sweep placed it in; None = never placed (the entry tier).")
    dormant: bool = Field(False, description="In a tier left out of default search (reactivated when recalled).")
    tier_since: datetime | None = Field(None, description="When it entered its tier.")
    storage: float = Field(1.0, ge=1.0, description="Storage strength: 1 never recalled; each recall adds to it.")
    utility: float = Field(0.5, ge=0.0, le=1.0, description="How useful it proved (feedback EMA); 0.5 = no evidence.")
    utility_at: datetime | None = Field(None, description="When feedback last set the utility (it drifts back to 0.5 after).")
    helped: int = Field(0, ge=0, description="Feedback: times it helped.")
    misled: int = Field(0, ge=0, description="Feedback: times it misled.")
    surprise: float = Field(0.0, ge=0.0, le=1.0, description="How much more it helped than was expected of it (EMA).")
    recent_accesses: tuple[datetime, ...] = Field((), description="The latest recall times, oldest first (access windows).")


class Memory(BaseModel):
    """A stored memory with its full metadata."""

    model_config = ConfigDict(frozen=True)

    id: str
    content: str
    kind: MemoryKind = MemoryKind.FACT
    scope: Scope = Scope.PROJECT
    project: str | None = Field(None, description="Project key (git root path) for project scope.")
    tags: tuple[str, ...] = ()
    provenance: Provenance = Provenance()
    confidence: float = Field(1.0, ge=0.0, le=1.0, description="How much the source is trusted.")
    importance: float = Field(0.5, ge=0.0, le=1.0)
    pinned: bool = False
    immutable: bool = False
    status: MemoryStatus = MemoryStatus.ACTIVE
    created_at: datetime = Field(default_factory=utcnow, description="When the event or fact happened / was said.")
    recorded_at: datetime = Field(default_factory=utcnow, description="When mnemex stored it (transaction time).")
    valid_from: datetime = Field(default_factory=utcnow, description="From when the fact holds.")
    valid_until: datetime | None = Field(None, description="When the fact stopped holding; None while current.")
    updated_at: datetime | None = None
    access_count: int = 0
    last_accessed_at: datetime | None = None
    supersedes: tuple[str, ...] = ()
    superseded_by: str | None = None
    entities: tuple[str, ...] = ()
    metadata: dict[str, Any] = Field(default_factory=dict)
    lifecycle: Lifecycle = Lifecycle()

    @property
    def is_chatter(self) -> bool:
        """The observer flagged it as chatter (a line of conversation that carries no knowledge)."""
        return flagged_chatter(self.metadata)

    def is_current(self, at: datetime | None = None) -> bool:
        at = at or utcnow()
        return (
            self.status != MemoryStatus.FORGOTTEN
            and self.valid_from <= at
            and (self.valid_until is None or self.valid_until > at)
        )


class ValidityMode(StrEnum):
    CURRENT = "current"
    TIMELINE = "timeline"
    AS_OF = "as_of"


class MemoryFilter(BaseModel):
    """Which memories a query may see. Store backends translate it to their own filters."""

    model_config = ConfigDict(frozen=True)

    scopes: tuple[Scope, ...] = ()
    project: str | None = None
    kinds: tuple[MemoryKind, ...] = ()
    tags: tuple[str, ...] = ()
    session_id: str | None = None
    created_after: datetime | None = None
    created_before: datetime | None = None
    validity: ValidityMode = ValidityMode.CURRENT
    as_of: datetime | None = None
    ids: tuple[str, ...] = ()
    pinned: bool | None = Field(None, description="Only pinned (True) or only unpinned (False) memories.")
    dormant: bool | None = Field(None, description=(
        "Only dormant (True) or only non-dormant (False) memories; None = both. Search leaves dormant ones out "
        "unless asked (`MemoryEngine.search(dormant=...)`)."))
    history: bool = Field(False, description=(
        "Only what default retrieval no longer sees and that is not forgotten: superseded memories and dormant "
        "ones (the read path looks there for the current successor of a changed fact); `validity` and `dormant` "
        "are then ignored."))

    @field_validator("tags", "ids", mode="after")
    @classmethod
    def _storable_strings(cls, values: tuple[str, ...]) -> tuple[str, ...]:
        # a lone surrogate is valid JSON but no text a store can match (stored text holds U+FFFD)
        return tuple(_storable(v) for v in values)

    @field_validator("project", "session_id", mode="after")
    @classmethod
    def _storable_string(cls, value: str | None) -> str | None:
        return None if value is None else _storable(value)


_SURROGATE = re.compile("[\ud800-\udfff]")


def _storable(text: str) -> str:
    return _SURROGATE.sub("\ufffd", text)  # as the write path stores it (engine/write/redact/clean.py)


class WriteAction(StrEnum):
    CREATED = "created"
    UPDATED = "updated"
    REINFORCED = "reinforced"
    SUPERSEDED = "superseded"
    SKIPPED = "skipped"


class ReplaceCandidate(BaseModel):
    """A stored memory a new statement may replace: the gate was not sure, the caller can say so."""

    model_config = ConfigDict(frozen=True)

    id: str
    preview: str = Field(description="The memory's content on one line, cut to about 120 characters.")
    reason: str = Field("", description="Why the gate thinks it may be replaced (a changed value, a cue).")


class WriteOutcome(BaseModel):
    """What the write path did with one piece of content."""

    model_config = ConfigDict(frozen=True)

    action: WriteAction
    id: str | None = Field(None, description="The memory that now holds the content.")
    affected_ids: tuple[str, ...] = Field((), description="Other memories touched (superseded, merged).")
    reason: str = ""
    candidates: tuple[ReplaceCandidate, ...] = Field((), description=(
        "Existing memories the new statement may replace, when the gate was not sure: if it does, write it again "
        "with supersedes=[their ids] (or correct them with update/forget)."))
    also: tuple["WriteOutcome", ...] = Field((), description="Outcomes of the content's further atomic claims.")


class SearchHit(BaseModel):
    """One compact search result."""

    model_config = ConfigDict(frozen=True)

    id: str
    preview: str
    kind: MemoryKind
    scope: Scope
    created_at: datetime
    score: float
    confidence: float = Field(description="0..1: how likely this hit answers the query.")
    why: str = Field(description="Which signals matched: dense, bm25, entity, recency...")
    tokens: int = Field(description="Token estimate of the full content.")
    context_of: str | None = Field(None, description="Set when this hit is a neighbour in time of another hit.")
    outdated_by: str | None = Field(None, description=(
        "Set when a newer memory about the same subject says otherwise: this one is possibly outdated; that id "
        "holds the newer statement."))
    said_otherwise_by: str | None = Field(None, description=(
        "Set when a later memory, also in these results, about much the same thing gives another value and "
        "the search could not tell whether it replaces this one: read both, the later one holds if it is "
        "about the same thing."))


class NewMemory(BaseModel):
    """What a caller asks to remember; the write path decides what is stored."""

    model_config = ConfigDict(frozen=True)

    content: str
    kind: MemoryKind | None = Field(None, description="None lets the write path classify it.")
    scope: Scope = Scope.PROJECT
    project: str | None = None
    tags: tuple[str, ...] = ()
    provenance: Provenance = Provenance()
    confidence: float = Field(1.0, ge=0.0, le=1.0)
    importance: float | None = Field(None, ge=0.0, le=1.0, description="None lets the write path estimate it.")
    pinned: bool = False
    immutable: bool = False
    created_at: datetime | None = Field(None, description="When it happened; default now.")
    valid_from: datetime | None = None
    valid_until: datetime | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    supersedes: tuple[str, ...] = Field((), description=(
        "Ids of current memories this statement replaces, as the caller judges: they are marked superseded by it "
        "(pinned and immutable ones are kept, linked as contradicted). The statement is then stored whole, not "
        "split into claims."))


@dataclass(frozen=True, slots=True)
class SparseVec:
    """A BM25 vector: token ids and their weights. The encoders make it, the store keeps it."""

    indices: tuple[int, ...]
    values: tuple[float, ...]


class MemoryChanges(BaseModel):
    """A partial edit of a memory; None leaves a field as it is."""

    model_config = ConfigDict(frozen=True)

    content: str | None = None
    kind: MemoryKind | None = None
    tags: tuple[str, ...] | None = None
    importance: float | None = Field(None, ge=0.0, le=1.0)
    confidence: float | None = Field(None, ge=0.0, le=1.0)
    pinned: bool | None = None
    metadata: dict[str, Any] | None = None
