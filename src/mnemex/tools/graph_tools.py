"""Time, history and relation tools: progressive disclosure past the search index."""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.server import MCPServer
from pydantic import Field

from mnemex.models import Memory
from mnemex.tools.errors import mcp_errors
from mnemex.tools.memory_tools import MemoryId, hints
from mnemex.tools.runtime import ToolRuntime
from mnemex.views import (
    HistoryResult,
    LinkResult,
    RelatedResult,
    TimelineResult,
    entity_result,
    history_result,
    related_result,
    timeline_result,
)

RelationName = Literal["supersedes", "contradicts", "causes", "elaborates", "same_entity", "related_to"]


def register_graph_tools(server: MCPServer, rt: ToolRuntime) -> None:
    @server.tool(title="Memory timeline", annotations=hints(read_only=True, destructive=False, idempotent=True))
    async def memory_timeline(
        id: MemoryId,
        before: Annotated[int, Field(ge=0, le=20)] = 3,
        after: Annotated[int, Field(ge=0, le=20)] = 3,
        include_history: bool = False,
    ) -> TimelineResult:
        """Show what was recorded just before and after a memory, to see the context of a search hit without loading everything."""
        with mcp_errors():
            earlier, anchor, later = await rt.run(rt.engine.explore.timeline, id, before=before, after=after,
                                                  include_history=include_history)
        return timeline_result(earlier, anchor, later)

    @server.tool(title="Memory history", annotations=hints(read_only=True, destructive=False, idempotent=True))
    async def memory_history(id: MemoryId) -> HistoryResult:
        """Show a memory's earlier versions, the chain of memories it superseded or was superseded by, and its audit trail."""
        with mcp_errors():
            h = await rt.run(rt.engine.explore.history, id)
        return history_result(h)

    @server.tool(title="Link memories", annotations=hints(read_only=False, destructive=False, idempotent=True))
    async def link_memories(src: MemoryId, dst: MemoryId, relation: RelationName) -> LinkResult:
        """Record that one memory causes, elaborates, contradicts, supersedes or relates to another, so later searches can follow the link."""
        with mcp_errors():
            await rt.run(rt.engine.explore.link, src, dst, relation)
        return LinkResult(src=src, dst=dst, relation=relation)

    @server.tool(title="Related memories", annotations=hints(read_only=True, destructive=False, idempotent=True))
    async def related_memories(
        id: Annotated[MemoryId | None, Field(description="Start from this memory, or")] = None,
        entity: Annotated[str | None, Field(min_length=1, max_length=200,
                                            description="list everything about a file, module, tool or service.")] = None,
        max_hops: Annotated[int, Field(ge=1, le=5)] = 2,
        relations: Annotated[list[RelationName], Field(description="Only follow these relation types.")] = [],
    ) -> RelatedResult:
        """Follow the relations of a memory (causes, supersedes, elaborates, related) or gather every memory about one entity."""
        if (id is None) == (entity is None):
            from mcp.shared.exceptions import MCPError
            from mcp.types import INVALID_PARAMS

            raise MCPError(code=INVALID_PARAMS, message="give exactly one of id or entity")
        with mcp_errors():
            if entity is not None:
                found: list[Memory] = await rt.run(rt.engine.explore.about_entity, entity)
                return entity_result(found)
            walk = await rt.run(rt.engine.explore.related, id, max_hops=max_hops, types=relations or None)
        return related_result(walk)
