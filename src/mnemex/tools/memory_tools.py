"""The core memory tools. Thin: validate, call the engine in a thread, shape the result."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, Field

from mnemex import render
from mnemex.config import MAX_CONTENT_CHARS, MAX_RESULTS
from mnemex.errors import NotFoundError
from mnemex.models import (
    MemoryChanges,
    MemoryFilter,
    MemoryKind,
    NewMemory,
    Provenance,
    Scope,
    ValidityMode,
)
from mnemex.tools.errors import mcp_errors
from mnemex.tools.runtime import ToolRuntime
from mnemex.views import (
    ForgetResult,
    MemorizeResult,
    RateResult,
    RecallResult,
    SearchResult,
    StatsResult,
    stats_result,
    UpdateResult,
    search_result,
)

Content = Annotated[str, Field(min_length=1, max_length=MAX_CONTENT_CHARS, description="The fact, decision, preference or note, self-contained.")]
MemoryId = Annotated[str, Field(min_length=1, max_length=64, description="A memory id from search_memory.")]
Tags = Annotated[list[Annotated[str, Field(min_length=1, max_length=64)]], Field(max_length=32, description="Short labels.")]


def hints(*, read_only: bool, destructive: bool, idempotent: bool) -> ToolAnnotations:
    return ToolAnnotations(read_only_hint=read_only, destructive_hint=destructive,
                           idempotent_hint=idempotent, open_world_hint=False)


def lean(result: BaseModel, text: str) -> CallToolResult:
    """A tool result the model reads as compact text, with the same data structured for programs."""
    return CallToolResult(content=[TextContent(type="text", text=text)],
                          structured_content=result.model_dump(mode="json", by_alias=True))


def _resolved(rt: ToolRuntime, value: str) -> str:
    """The full id a caller means (an id or a unique prefix); invalid-params when it names nothing."""
    found = rt.engine.resolve(value)
    if found is None:
        raise NotFoundError(value)
    return found


#: What search_memory looks in unless told: every kind but the captured tool events, which would
#: crowd out knowledge (they have their own search, and live in episodes and procedures).
SEARCHED_KINDS = tuple(k for k in MemoryKind if k != MemoryKind.TOOL_EVENT)


def register_memory_tools(server: MCPServer, rt: ToolRuntime) -> None:
    @server.tool(title="Memorize", annotations=hints(read_only=False, destructive=False, idempotent=False))
    async def memorize(
        content: Content,
        ctx: Context,
        kind: Annotated[MemoryKind | None, Field(description="Leave empty to classify automatically.")] = None,
        scope: Annotated[Scope, Field(description="project (default), global, session or agent.")] = Scope.PROJECT,
        tags: Tags = [],
        importance: Annotated[float | None, Field(ge=0, le=1, description="0..1; empty = estimated.")] = None,
        pinned: Annotated[bool, Field(description="Pinned memories are never forgotten.")] = False,
        immutable: Annotated[bool, Field(description="Immutable memories are never edited, merged or superseded.")] = False,
        supersedes: Annotated[list[MemoryId], Field(max_length=20, description=(
            "Ids of memories this statement replaces (a changed value, a renamed thing, a retired way of working); "
            "memorize lists candidates when it is unsure."))] = [],
    ) -> Annotated[CallToolResult, MemorizeResult]:
        """Save a durable fact, decision, convention, preference or lesson that cannot be inferred from the code; use when you learn something worth knowing in a later session. When it replaces what a memory says, pass that memory's id in supersedes."""
        project = await rt.resolve_project(ctx)
        with mcp_errors():
            replaced = tuple([await rt.run(_resolved, rt, i) for i in supersedes])
            new = NewMemory(content=content, kind=kind, scope=scope, project=project, tags=tuple(tags),
                            importance=importance, pinned=pinned, immutable=immutable, supersedes=replaced,
                            provenance=Provenance(source="agent", client=rt.client_for(ctx)))
            out = await rt.run(rt.engine.memorize, new, project=project)
        return lean(MemorizeResult.of(out), render.outcome_text(out))

    @server.tool(title="Search memory", annotations=hints(read_only=True, destructive=False, idempotent=True))
    async def search_memory(
        query: Annotated[str, Field(min_length=1, max_length=2_000, description="What you want to know, in words or identifiers.")],
        ctx: Context,
        limit: Annotated[int, Field(ge=1, le=MAX_RESULTS)] = 10,
        kinds: Annotated[list[MemoryKind], Field(description=(
            "Only these kinds; empty = all but tool_event (the captured commands, reads and edits)."))] = [],
        tags: Annotated[list[str], Field(description="Only memories with any of these tags.")] = [],
        scopes: Annotated[list[Scope], Field(description="Only these scopes; empty = all.")] = [],
        include_history: Annotated[bool, Field(description="Also superseded and forgotten memories.")] = False,
        after: Annotated[datetime | None, Field(description="Only memories created after this time.")] = None,
        before: Annotated[datetime | None, Field(description="Only memories created before this time.")] = None,
        as_of: Annotated[datetime | None, Field(description="Answer as the memory stood at this time (point-in-time).")] = None,
        with_context: Annotated[bool, Field(description="Also return the neighbours in time (same session) of the top hits.")] = False,
        min_confidence: Annotated[float | None, Field(ge=0, le=1, description=(
            "Leave out hits less likely than this to answer (default: the server's floor; 0 = show all)."))] = None,
        include_dormant: Annotated[bool, Field(description=(
            "Also dormant memories (long unused and judged unhelpful); recalling one reactivates it."))] = False,
    ) -> Annotated[CallToolResult, SearchResult]:
        """Search long-term memory before starting a task or when a past decision, convention, fix or preference may matter; returns compact previews with ids."""
        flt = MemoryFilter(
            scopes=tuple(scopes), project=await rt.resolve_project(ctx), kinds=tuple(kinds) or SEARCHED_KINDS,
            tags=tuple(tags), created_after=after, created_before=before,
            validity=(ValidityMode.AS_OF if as_of else ValidityMode.TIMELINE if include_history
                      else ValidityMode.CURRENT),
            as_of=as_of,
        )
        with mcp_errors():
            ranked = await rt.run(rt.engine.search, query, filter=flt, limit=limit, client=rt.client_for(ctx),
                                  neighbours=True if with_context else None,
                                  dormant=None if include_dormant else False)
        floor = rt.injection.search_min_confidence if min_confidence is None else min_confidence
        kept = [r for r in ranked if r.confidence >= floor or r.context_of]
        result = search_result(kept)
        return lean(result, render.search_text(result.results, hidden=len(ranked) - len(kept), floor=floor))

    @server.tool(title="Recall memory", annotations=hints(read_only=True, destructive=False, idempotent=True))
    async def recall_memory(
        ids: Annotated[list[MemoryId], Field(min_length=1, max_length=MAX_RESULTS, description="Ids from search_memory.")],
        ctx: Context,
        verbose: Annotated[bool, Field(description="Also the write path's internal fields (importance channels, ...).")] = False,
    ) -> Annotated[CallToolResult, RecallResult]:
        """Fetch the full entries (content, validity, tags, provenance) of memories found with search_memory."""
        with mcp_errors():
            memories = await rt.run(rt.engine.recall, list(dict.fromkeys(ids)), client=rt.client_for(ctx))
        shown = memories if verbose else [m.model_copy(update={"metadata": render.public_metadata(m.metadata)})
                                          for m in memories]
        return lean(RecallResult(memories=shown), render.memories_text(memories, verbose=verbose))

    @server.tool(title="Rate memory", annotations=hints(read_only=False, destructive=False, idempotent=False))
    async def rate_memory(
        id: MemoryId,
        verdict: Annotated[Literal["helped", "misled", "outdated"], Field(description=(
            "helped: it was right and useful for the task; misled: it was wrong or led you astray; outdated: it "
            "was true once and no longer holds (rated misled and invalidated: hidden from search, kept in its history)."))],
        ctx: Context,
    ) -> Annotated[CallToolResult, RateResult]:
        """Say whether a memory you used helped, misled you or is outdated; helpful memories rank higher, misleading ones sink and may go dormant, outdated ones are invalidated."""
        with mcp_errors():
            memory = await rt.run(rt.engine.rate, id, helped=verdict == "helped", client=rt.client_for(ctx))
            if verdict == "outdated":  # through the write path, as forget does: kept in the timeline
                memory = await rt.run(rt.engine.forget, memory.id, reason="rated outdated", client=rt.client_for(ctx))
        result = RateResult.of(memory, verdict)
        gone = ", invalidated (kept in its history)" if verdict == "outdated" else ""
        return lean(result, f"rated {render.short(memory.id)} {verdict}: utility {result.utility:.2f} "
                            f"({result.helped} helped, {result.misled} misled){gone}")

    @server.tool(title="Update memory", annotations=hints(read_only=False, destructive=False, idempotent=True))
    async def update_memory(
        id: MemoryId,
        ctx: Context,
        content: Annotated[str | None, Field(min_length=1, max_length=MAX_CONTENT_CHARS)] = None,
        kind: MemoryKind | None = None,
        tags: Tags | None = None,
        importance: Annotated[float | None, Field(ge=0, le=1)] = None,
        pinned: bool | None = None,
    ) -> Annotated[CallToolResult, UpdateResult]:
        """Correct or refine an existing memory in place (the old text stays in its history); use when a stored memory is wrong or incomplete."""
        changes = MemoryChanges(content=content, kind=kind, tags=tuple(tags) if tags is not None else None,
                                importance=importance, pinned=pinned)
        with mcp_errors():
            memory = await rt.run(rt.engine.update, id, changes, client=rt.client_for(ctx))
        shown = memory.model_copy(update={"metadata": render.public_metadata(memory.metadata)})
        return lean(UpdateResult(memory=shown), "updated " + render.memory_text(memory))

    @server.tool(title="Forget", annotations=hints(read_only=False, destructive=True, idempotent=True))
    async def forget(
        id: MemoryId,
        ctx: Context,
        reason: Annotated[str, Field(max_length=500, description="Why it no longer holds.")] = "",
        purge: Annotated[bool, Field(description="Remove the content everywhere instead of invalidating; irreversible.")] = False,
    ) -> Annotated[CallToolResult, ForgetResult]:
        """Mark a memory as no longer valid (kept in history, hidden from search); purge=true erases it everywhere, for leaked secrets."""
        with mcp_errors():
            canonical = await rt.run(rt.engine.resolve, id) or id  # before a purge removes what a prefix finds
            after = await rt.run(rt.engine.forget, id, purge=purge, reason=reason, client=rt.client_for(ctx))
        if after is None:
            return lean(ForgetResult(id=canonical, action="purged"),
                        f"purged {render.short(canonical)}: removed from the store, the journal and the word list")
        return lean(ForgetResult(id=after.id, action="invalidated", valid_until=after.valid_until),
                    f"invalidated {render.short(after.id)}: hidden from search, kept in its history "
                    f"(valid until {after.valid_until.isoformat() if after.valid_until else '-'})")

    @server.tool(title="Memory stats", annotations=hints(read_only=True, destructive=False, idempotent=True))
    async def memory_stats(ctx: Context) -> Annotated[CallToolResult, StatsResult]:
        """Counts of stored memories (per kind, scope and tier, with what the last dream did), the embedding model, and this project's captured tool use."""
        with mcp_errors():
            result = await rt.run(stats_result, rt.engine, await rt.resolve_project(ctx))
        return lean(result, render.stats_text(result))
