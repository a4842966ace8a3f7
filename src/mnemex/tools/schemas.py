"""Tool outputs: pydantic models, so clients get an outputSchema and structuredContent."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field

from mnemex.models import Memory, SearchHit, WriteAction


class MemorizeResult(BaseModel):
    action: WriteAction = Field(description="created, updated, reinforced, superseded or skipped.")
    id: str | None = Field(None, description="The memory that now holds the content.")
    affected_ids: list[str] = Field(default_factory=list, description="Other memories touched (superseded, merged).")
    reason: str = ""


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
