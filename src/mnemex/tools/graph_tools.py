"""Time, history and relation tools: progressive disclosure past the search index."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.types import CallToolResult
from pydantic import Field

from mnemex import render
from mnemex.engine.explore import MAX_LISTED
from mnemex.models import Memory, MemoryFilter, MemoryKind, Scope, ValidityMode
from mnemex.tools.errors import mcp_errors
from mnemex.tools.memory_tools import MemoryId, hints, lean
from mnemex.tools.runtime import ToolRuntime
from mnemex.views import (
    HistoryResult,
    LinkResult,
    RelatedResult,
    SearchResult,
    TimelineResult,
    entity_result,
    history_result,
    memory_hit,
    related_result,
    timeline_result,
)

RelationName = Literal["supersedes", "contradicts", "causes", "elaborates", "same_entity", "related_to"]


def register_graph_tools(server: MCPServer, rt: ToolRuntime) -> None:
    @server.tool(title="List memories", annotations=hints(read_only=True, destructive=False, idempotent=True))
    async def list_memories(
        ctx: Context,
        limit: Annotated[int, Field(ge=1, le=MAX_LISTED)] = 20,
        kinds: Annotated[list[MemoryKind], Field(description="Only these kinds; empty = all.")] = [],
        tags: Annotated[list[str], Field(description="Only memories with any of these tags.")] = [],
        scopes: Annotated[list[Scope], Field(description="Only these scopes; empty = all.")] = [],
        pinned: Annotated[bool | None, Field(description="Only pinned (true) or only unpinned (false) memories.")] = None,
        include_history: Annotated[bool, Field(description="Also superseded and forgotten memories.")] = False,
        after: Annotated[datetime | None, Field(description="Only memories created after this time.")] = None,
        before: Annotated[datetime | None, Field(description="Only memories created before this time.")] = None,
        include_dormant: Annotated[bool, Field(description=(
            "Also dormant memories (long unused and judged unhelpful); recalling one reactivates it."))] = False,
    ) -> Annotated[CallToolResult, SearchResult]:
        """List the most recent memories, newest first, without a query (filters by kind, tag, scope, pinned, time); use to see what was stored lately."""
        flt = MemoryFilter(scopes=tuple(scopes), project=await rt.resolve_project(ctx), kinds=tuple(kinds),
                           tags=tuple(tags), pinned=pinned, created_after=after, created_before=before,
                           validity=ValidityMode.TIMELINE if include_history else ValidityMode.CURRENT,
                           dormant=None if include_dormant else False)
        with mcp_errors():
            memories = await rt.run(rt.engine.explore.recent, flt, limit=limit)
        hits = [memory_hit(m) for m in memories]
        result = SearchResult(results=hits, count=len(hits), hint="Use recall_memory with ids for full entries.")
        return lean(result, render.lines(render.hit_line(h, with_score=False) for h in hits) or "No memories.")

    @server.tool(title="Memory timeline", annotations=hints(read_only=True, destructive=False, idempotent=True))
    async def memory_timeline(
        id: MemoryId,
        before: Annotated[int, Field(ge=0, le=20)] = 3,
        after: Annotated[int, Field(ge=0, le=20)] = 3,
        include_history: bool = False,
    ) -> Annotated[CallToolResult, TimelineResult]:
        """Show what was recorded just before and after a memory, to see the context of a search hit without loading everything."""
        with mcp_errors():
            earlier, anchor, later = await rt.run(rt.engine.explore.timeline, id, before=before, after=after,
                                                  include_history=include_history)
        result = timeline_result(earlier, anchor, later)
        text = render.lines([*(render.hit_line(h, with_score=False) for h in result.earlier),
                             ">> " + render.hit_line(result.anchor, with_score=False),
                             *(render.hit_line(h, with_score=False) for h in result.later)])
        return lean(result, text)

    @server.tool(title="Memory history", annotations=hints(read_only=True, destructive=False, idempotent=True))
    async def memory_history(id: MemoryId) -> Annotated[CallToolResult, HistoryResult]:
        """Show a memory's earlier versions, the chain of memories it superseded or was superseded by, and its audit trail."""
        with mcp_errors():
            h = await rt.run(rt.engine.explore.history, id)
        result = history_result(h)
        text = render.lines([
            f"{render.short(result.id)}: {len(result.versions)} version(s)",
            *(f"  v{v.version} {v.at.date().isoformat()} ({v.reason or '-'}): {' '.join(v.content.split())}"
              for v in result.versions),
            "supersede chain, oldest first:" if len(result.chain) > 1 else "",
            *(("  " + render.hit_line(c, with_score=False)) for c in result.chain if len(result.chain) > 1),
            "audit, newest first:",
            *(f"  {o.at.isoformat(timespec='seconds')} {o.op} by {o.actor or '-'}" for o in result.audit[:20]),
        ])
        return lean(result, "\n".join(line for line in text.split("\n") if line))

    @server.tool(title="Link memories", annotations=hints(read_only=False, destructive=False, idempotent=True))
    async def link_memories(src: MemoryId, dst: MemoryId, relation: RelationName) -> Annotated[CallToolResult, LinkResult]:
        """Record that one memory causes, elaborates, contradicts, supersedes or relates to another, so later searches can follow the link."""
        with mcp_errors():
            await rt.run(rt.engine.explore.link, src, dst, relation)
            full_src, full_dst = rt.engine.resolve(src) or src, rt.engine.resolve(dst) or dst
        return lean(LinkResult(src=full_src, dst=full_dst, relation=relation),
                    f"linked {render.short(full_src)} {relation} {render.short(full_dst)}")

    @server.tool(title="Related memories", annotations=hints(read_only=True, destructive=False, idempotent=True))
    async def related_memories(
        id: Annotated[MemoryId | None, Field(description="Start from this memory, or")] = None,
        entity: Annotated[str | None, Field(min_length=1, max_length=200,
                                            description="list everything about a file, module, tool or service.")] = None,
        max_hops: Annotated[int, Field(ge=1, le=5)] = 2,
        relations: Annotated[list[RelationName], Field(description="Only follow these relation types.")] = [],
    ) -> Annotated[CallToolResult, RelatedResult]:
        """Follow the relations of a memory (causes, supersedes, elaborates, related) or gather every memory about one entity."""
        if (id is None) == (entity is None):
            from mcp.shared.exceptions import MCPError
            from mcp.types import INVALID_PARAMS

            raise MCPError(code=INVALID_PARAMS, message="give exactly one of id or entity")
        with mcp_errors():
            if entity is not None:
                found: list[Memory] = await rt.run(rt.engine.explore.about_entity, entity)
                result = entity_result(found)
            else:
                walk = await rt.run(rt.engine.explore.related, id, max_hops=max_hops, types=relations or None)
                result = related_result(walk)
        text = render.lines([f"{r.relation} ({r.hops} hop{'s' if r.hops > 1 else ''}): "
                             + render.hit_line(r.memory, with_score=False) for r in result.results])
        return lean(result, text or "No related memories.")
