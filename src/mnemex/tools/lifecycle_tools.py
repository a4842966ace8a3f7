"""The lifecycle's maintenance tools: run a dream cycle, and agent-driven consolidation (the agent
is handed clusters of near-duplicates and gives back one statement for each)."""

from __future__ import annotations

from typing import Annotated

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.types import CallToolResult
from pydantic import Field

from mnemex import render
from mnemex.config import MAX_CONTENT_CHARS
from mnemex.errors import InvalidInputError
from mnemex.tools.errors import mcp_errors
from mnemex.tools.memory_tools import MemoryId, hints, lean
from mnemex.tools.runtime import ToolRuntime
from mnemex.views import ConsolidateResult, DreamResult


def register_lifecycle_tools(server: MCPServer, rt: ToolRuntime) -> None:
    @server.tool(title="Dream", annotations=hints(read_only=False, destructive=False, idempotent=False))
    async def dream(
        ctx: Context,
        limit: Annotated[int | None, Field(ge=1, le=10_000, description="Most memories to change in this run (default lifecycle.dream.max_changes).")] = None,
    ) -> Annotated[CallToolResult, DreamResult]:
        """Run the memory's maintenance cycle now (merge duplicates, send stale memories dormant, never delete); the server also runs it when idle."""
        with mcp_errors():
            report = await rt.run(rt.engine.dream, limit=limit)
        result = DreamResult.of(report)
        forgotten = ", ".join(f"{k} {v}" for k, v in result.forgotten.items() if v) or "none"
        return lean(result, f"dreamt over {result.scanned} memories in {result.elapsed_seconds:.1f} s: "
                            f"{result.themes} themes merged {result.merged}, dormant: {forgotten}, "
                            f"{result.rehearsed} rehearsed, {result.flashbulbs} flashbulbs, {result.captured} captured, "
                            f"{result.summaries} category summaries, {result.schematic} schematic concepts"
                            + (f", {result.deferred} left for the next run" if result.deferred else ""))

    @server.tool(title="Consolidate memories", annotations=hints(read_only=False, destructive=False, idempotent=False))
    async def consolidate_memories(
        ctx: Context,
        ids: Annotated[list[MemoryId] | None, Field(min_length=2, max_length=50, description="The memories to replace (a cluster's ids); omit to list clusters.")] = None,
        summary: Annotated[str | None, Field(min_length=1, max_length=MAX_CONTENT_CHARS, description="One self-contained statement holding everything they say.")] = None,
        limit: Annotated[int, Field(ge=1, le=50, description="Most clusters to list.")] = 10,
    ) -> Annotated[CallToolResult, ConsolidateResult]:
        """Without arguments, list clusters of near-duplicate memories; with ids and a summary, replace them by that one statement (they stay in history)."""
        with mcp_errors():
            if ids is None and summary is None:
                groups = await rt.run(rt.engine.memory_clusters, project=await rt.resolve_project(ctx), limit=limit)
                result = ConsolidateResult.of_clusters(groups)
                lines = [f"{i + 1}. {c.kind}: " + "; ".join(f"[{render.short(m)}] {p}" for m, p in zip(c.ids, c.previews))
                         for i, c in enumerate(result.clusters)]
                return lean(result, "\n".join(lines + [result.hint]) if lines else "no clusters of near-duplicates")
            if ids is None or summary is None:
                raise InvalidInputError("pass both ids and summary to consolidate, or neither to list clusters")
            theme = await rt.run(rt.engine.consolidate, ids, summary, client=rt.client_for(ctx))
        result = ConsolidateResult(id=theme.id, superseded=list(theme.supersedes))
        return lean(result, f"consolidated {len(result.superseded)} memories into {render.short(theme.id)}")
