"""What the injection strategy offers besides the core tools: the `memory_context` prompt (what the
hooks inject, and a slash command for any client), the `memory://context` resource, and the
search over past sessions of the self-editing strategy."""

from __future__ import annotations

from typing import Annotated
from urllib.parse import unquote

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.types import CallToolResult
from pydantic import Field

from mnemex import render
from mnemex.models import MemoryKind, ValidityMode
from mnemex.strategies import ContextRequest
from mnemex.tools.errors import mcp_errors
from mnemex.tools.memory_tools import hints, lean
from mnemex.tools.runtime import ToolRuntime
from mnemex.views import SearchResult, search_result

EVENTS = ("", "session_start", "prompt")
STANDING = ("project", "-", "")


def register_context_tools(server: MCPServer, rt: ToolRuntime) -> None:
    @server.prompt(name="memory_context", title="Memory context",
                   description="What long-term memory holds for a task (or, without one, for this project), "
                               "packed into a token budget: core memory blocks, pinned memories, then the most "
                               "relevant decisions, conventions and fixes.")
    async def memory_context(ctx: Context, task: str = "", budget: str = "", session_id: str = "",
                             event: str = "", source: str = "") -> str:
        """`event` is set by the Claude Code hooks: session_start or prompt (the strategy decides what they get)."""
        with mcp_errors():
            if event not in EVENTS:
                from mnemex.errors import InvalidInputError

                raise InvalidInputError(f"event must be one of session_start, prompt (or empty), not {event!r}")
            project = await rt.resolve_project(ctx)
            size = _budget(budget)
            if event == "session_start":
                packed = await rt.run(rt.session_context, project, session_id or None, size or None)
            elif event == "prompt":
                packed = await rt.run(rt.prompt_context, project, session_id or None, task, size or None)
            else:
                packed = await rt.run(rt.builder.build, ContextRequest(project, task, size or rt.injection.session_budget))
        return packed.text

    if rt.strategy.offers.context_resource:
        # a template: a static resource cannot know its caller (the SDK gives it no Context), and the
        # context belongs to the caller's project
        @server.resource("memory://context/{task}", name="memory_context", title="Memory context",
                         description="What memory holds for a task (its words, URL-encoded), packed into the "
                                     "session budget; memory://context/project is the project's standing "
                                     "context: core blocks, pinned memories, decisions, conventions and fixes.",
                         mime_type="text/plain")
        async def context_resource(task: str, ctx: Context) -> str:
            with mcp_errors():
                project = await rt.resolve_project(ctx)
                words = unquote(task).strip()
                words = "" if words.lower() in STANDING else words
                packed = await rt.run(rt.builder.build, ContextRequest(project, words, rt.injection.session_budget))
            return packed.text

    if rt.strategy.offers.session_search:
        @server.tool(title="Search past sessions", annotations=hints(read_only=True, destructive=False, idempotent=True))
        async def search_past_sessions(
            query: Annotated[str, Field(min_length=1, max_length=2_000, description="What happened: a command, an error, a file.")],
            ctx: Context,
            limit: Annotated[int, Field(ge=1, le=50)] = 10,
        ) -> Annotated[CallToolResult, SearchResult]:
            """Search what happened in earlier sessions — commands run and their errors, files edited, session episodes — to reuse a fix or see what was tried."""
            with mcp_errors():
                project = await rt.resolve_project(ctx)
                flt = rt.engine.default_filter(project=project, kinds=(MemoryKind.TOOL_EVENT, MemoryKind.EPISODE,
                                                                       MemoryKind.PROCEDURE),
                                               validity=ValidityMode.TIMELINE)
                ranked = await rt.run(rt.engine.search, query, filter=flt, limit=limit, client=rt.client_for(ctx))
            result = search_result(ranked)
            return lean(result, render.search_text(result.results))


def _budget(value: str) -> int:
    """A prompt argument (always a string) as a token budget; empty: the strategy's default."""
    from mnemex.errors import InvalidInputError

    text = (value or "").strip()
    if not text:
        return 0
    if not text.isdigit() or not 50 <= int(text) <= 20_000:
        raise InvalidInputError(f"budget must be a number of tokens between 50 and 20000, not {value!r}")
    return int(text)
