"""Tool outputs: pydantic models, so clients get an outputSchema and structuredContent."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field

from mnemex.models import Memory, SearchHit, WriteAction, WriteOutcome


class MemorizeResult(BaseModel):
    action: WriteAction = Field(description="created, updated, reinforced, superseded or skipped.")
    id: str | None = Field(None, description="The memory that now holds the content.")
    affected_ids: list[str] = Field(default_factory=list, description="Other memories touched (superseded, merged).")
    reason: str = ""
    also: list["MemorizeResult"] = Field(default_factory=list,
                                         description="When the content held several claims: what happened to the others.")

    @classmethod
    def of(cls, out: WriteOutcome) -> "MemorizeResult":
        return cls(action=out.action, id=out.id, affected_ids=list(out.affected_ids), reason=out.reason,
                   also=[cls.of(o) for o in out.also])


class SearchResult(BaseModel):
    results: list[SearchHit]
    count: int
    hint: str = Field("", description="What to do next, e.g. recall_memory for full entries.")


class RecallResult(BaseModel):
    memories: list[Memory]


class UpdateResult(BaseModel):
    memory: Memory


class ForgetResult(BaseModel):
    id: str
    action: str = Field(description="invalidated (kept in the timeline) or purged (removed everywhere).")
    valid_until: datetime | None = None


class StatsResult(BaseModel):
    memories_total: int
    memories_current: int
    memories_invalidated: int
    embedding_model: str
    embedding_dim: int
    model_loaded: bool
    writes_since_optimize: int
    vocabulary_words: int = 0
    vocabulary_complete: bool = True


class Version(BaseModel):
    version: int
    at: datetime
    content: str
    reason: str | None = None


class AuditEntry(BaseModel):
    at: datetime
    op: str
    actor: str | None = None


class HistoryResult(BaseModel):
    id: str
    versions: list[Version] = Field(description="Content versions of this memory, oldest first.")
    chain: list[SearchHit] = Field(description="The supersede chain this memory is in, oldest first.")
    audit: list[AuditEntry] = Field(description="Writes and reads that touched it, newest first.")


class RelatedHit(BaseModel):
    memory: SearchHit
    hops: int
    relation: str = Field(description="Type of the last edge on the path.")
    path: list[str]


class RelatedResult(BaseModel):
    results: list[RelatedHit]
    count: int


class LinkResult(BaseModel):
    src: str
    dst: str
    relation: str


class TimelineResult(BaseModel):
    anchor: SearchHit
    earlier: list[SearchHit] = Field(description="Memories just before the anchor, oldest first.")
    later: list[SearchHit] = Field(description="Memories just after the anchor, oldest first.")
