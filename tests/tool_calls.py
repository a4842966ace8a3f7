"""Helpers shared by the tests that drive mnemex through an MCP client."""

from __future__ import annotations

from typing import Any


async def call_ok(client: Any, name: str, args: dict[str, Any]) -> dict[str, Any]:
    """Call a tool, fail the test on a tool error, return its structured content."""
    result = await client.call_tool(name, args)
    assert not result.is_error, result.content[0].text
    return result.structured_content
