"""Build the MCP server around an engine: tools, the memory:// resource, instructions."""

from __future__ import annotations

import json

from mcp.server import MCPServer

from mnemex import __version__
from mnemex.tools.block_tools import register_block_tools
from mnemex.tools.errors import mcp_errors
from mnemex.tools.graph_tools import register_graph_tools
from mnemex.tools.memory_tools import register_memory_tools
from mnemex.tools.runtime import ToolRuntime

INSTRUCTIONS = (
    "mnemex is your long-term memory across sessions. Before a task, search_memory for decisions, "
    "conventions, preferences and past fixes that may apply; recall_memory for full entries. When you "
    "learn something durable that the code does not show (a decision and why, a convention, a user "
    "preference, a gotcha, what failed and what fixed it), memorize it as one self-contained statement. "
    "Correct stale memories with update_memory; forget ones that no longer hold."
)


def build_server(runtime: ToolRuntime) -> MCPServer:
    server = MCPServer("mnemex", title="mnemex memory", version=__version__, instructions=INSTRUCTIONS)
    register_memory_tools(server, runtime)
    register_graph_tools(server, runtime)
    register_block_tools(server, runtime)

    @server.resource("memory://{id}", name="memory", title="Memory entry",
                     description="One memory, full entry as JSON.", mime_type="application/json")
    async def memory_resource(id: str) -> str:
        with mcp_errors():
            memory = (await runtime.run(runtime.engine.recall, [id], touch=False))[0]
        return json.dumps(memory.model_dump(mode="json"), ensure_ascii=False, indent=1)

    return server
