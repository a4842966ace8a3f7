"""Build the MCP server around an engine: the core tools, the memory:// resource, and what the
injection strategy offers (its instructions, prompt, resources and tools)."""

from __future__ import annotations

import json

from mcp.server import MCPServer

from mnemex import __version__
from mnemex.tools.block_tools import register_block_tools
from mnemex.tools.context_tools import register_context_tools
from mnemex.tools.errors import mcp_errors
from mnemex.tools.graph_tools import register_graph_tools
from mnemex.tools.lifecycle_tools import register_lifecycle_tools
from mnemex.tools.memory_tools import register_memory_tools
from mnemex.tools.runtime import ToolRuntime

def build_server(runtime: ToolRuntime) -> MCPServer:
    server = MCPServer("mnemex", title="mnemex memory", version=__version__,
                       instructions=runtime.strategy.instructions())
    register_memory_tools(server, runtime)
    register_graph_tools(server, runtime)
    register_lifecycle_tools(server, runtime)
    register_context_tools(server, runtime)
    if runtime.strategy.offers.block_tools:
        register_block_tools(server, runtime)

    @server.resource("memory://{id}", name="memory", title="Memory entry",
                     description="One memory, full entry as JSON.", mime_type="application/json")
    async def memory_resource(id: str) -> str:
        with mcp_errors():
            memory = (await runtime.run(runtime.engine.recall, [id], touch=False))[0]
        return json.dumps(memory.model_dump(mode="json"), ensure_ascii=False, indent=1)

    return server
