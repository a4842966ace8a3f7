"""Core memory block tools (MemGPT/Letta style): the agent views and edits the short blocks that
are always in its context. Thin: validate, call `engine.blocks` in a thread, shape the result."""

from __future__ import annotations

from typing import Annotated

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from pydantic import BaseModel, Field

from mnemex.config.blocks import MAX_BLOCK_CHARS
from mnemex.engine.blocks import LABEL, MAX_DESCRIPTION_CHARS, MemoryBlock
from mnemex.tools.errors import mcp_errors
from mnemex.tools.memory_tools import hints
from mnemex.tools.runtime import ToolRuntime

Label = Annotated[str, Field(pattern=LABEL.pattern, description="user, project, persona, or a block you created.")]


class BlocksResult(BaseModel):
    blocks: list[MemoryBlock] = Field(description="Every block you have here, the defaults first; each with its size and limit.")


class BlockResult(BaseModel):
    block: MemoryBlock = Field(description="The block after the change.")


def register_block_tools(server: MCPServer, rt: ToolRuntime) -> None:
    @server.tool(title="Memory blocks", annotations=hints(read_only=True, destructive=False, idempotent=True))
    async def memory_blocks(ctx: Context) -> BlocksResult:
        """Show your core memory blocks (user, project, persona and those you created) with their text, size and limit; use before editing one."""
        with mcp_errors():
            found = await rt.run(rt.engine.blocks.list, await rt.resolve_project(ctx))
        return BlocksResult(blocks=found)

    @server.tool(title="Append to memory block", annotations=hints(read_only=False, destructive=False, idempotent=False))
    async def memory_block_append(
        label: Label,
        text: Annotated[str, Field(min_length=1, max_length=MAX_BLOCK_CHARS, description="The line to add.")],
        ctx: Context,
    ) -> BlockResult:
        """Add a line to a core memory block: facts about the user go in user, this project's durable context in project, how you should behave in persona."""
        with mcp_errors():
            block = await rt.run(rt.engine.blocks.append, label, text, await rt.resolve_project(ctx), rt.client_for(ctx))
        return BlockResult(block=block)

    @server.tool(title="Replace in memory block", annotations=hints(read_only=False, destructive=False, idempotent=False))
    async def memory_block_replace(
        label: Label,
        old: Annotated[str, Field(min_length=1, max_length=MAX_BLOCK_CHARS,
                                  description="The exact text to change, as memory_blocks shows it; it must occur once.")],
        new: Annotated[str, Field(max_length=MAX_BLOCK_CHARS, description="What replaces it; empty deletes it.")],
        ctx: Context,
    ) -> BlockResult:
        """Change one exact passage of a core memory block, to correct, update or shorten what it says (an empty new text deletes the passage)."""
        with mcp_errors():
            block = await rt.run(rt.engine.blocks.replace, label, old, new, await rt.resolve_project(ctx), rt.client_for(ctx))
        return BlockResult(block=block)

    @server.tool(title="Rewrite memory block", annotations=hints(read_only=False, destructive=True, idempotent=True))
    async def memory_block_rewrite(
        label: Label,
        value: Annotated[str, Field(max_length=MAX_BLOCK_CHARS,
                                    description="The block's whole new text; empty removes a block you created.")],
        ctx: Context,
        description: Annotated[str | None, Field(max_length=MAX_DESCRIPTION_CHARS,
                                                 description="What a block you create is for.")] = None,
        limit: Annotated[int | None, Field(ge=100, le=MAX_BLOCK_CHARS,
                                           description="Characters a block you create may hold.")] = None,
    ) -> BlockResult:
        """Replace the whole text of a core memory block to reorganise or condense it, or create a block of your own for this project under a new label."""
        with mcp_errors():
            block = await rt.run(rt.engine.blocks.rewrite, label, value, await rt.resolve_project(ctx), rt.client_for(ctx),
                                 limit=limit, description=description)
        return BlockResult(block=block)

    @server.resource("memory://blocks/{label}", name="memory_block", title="Core memory block",
                     description="The text of one core memory block (user, project, persona or one the agent "
                                 "created), in the caller's project.", mime_type="text/plain")
    async def memory_block_resource(label: str, ctx: Context) -> str:
        with mcp_errors():
            block = await rt.run(rt.engine.blocks.get, label, await rt.resolve_project(ctx))
        return block.value
