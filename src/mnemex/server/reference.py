"""The tools reference (docs/tools.md), generated from the tool contracts so it cannot drift.

`python -m mnemex.server.reference > docs/tools.md` writes it; a test checks the file in the
repository is what this prints. It lists every tool any strategy offers with its description,
parameters (type, limits, default, description), behaviour hints and the strategies that offer it,
read from the MCP server's own `tools/list` answer (no store or model is opened).
"""

from __future__ import annotations

import json
import sys
from typing import Any

import anyio

STRATEGIES = ("context", "tool_based", "self_editing")
HEADER = """\
# Tools reference

Generated from the tool contracts (`python -m mnemex.server.reference > docs/tools.md`); do not edit.
Every tool validates its arguments: a bad one is an MCP invalid-params error saying what to change.
An `id` is a full memory id or a unique prefix of one (6 characters or more). Which tools a client
sees depends on `retrieval.strategy` (see [configuration.md](configuration.md)); the strategies that
offer each tool are named under it.
"""


async def _tools(strategy: str) -> list[Any]:
    from mcp import Client

    from mnemex.server.app import build_server
    from mnemex.strategies import strategy_for
    from mnemex.tools.runtime import ToolRuntime

    server = build_server(ToolRuntime(None, strategy=strategy_for(strategy)))  # type: ignore[arg-type]
    async with Client(server) as client:
        return list((await client.list_tools()).tools)


def _type(schema: dict[str, Any], defs: dict[str, Any]) -> str:
    if "$ref" in schema:
        return _type(defs[schema["$ref"].rsplit("/", 1)[-1]], defs)
    if "anyOf" in schema:
        kinds = [_type(s, defs) for s in schema["anyOf"] if s.get("type") != "null"]
        return " or ".join(kinds) + (" or null" if any(s.get("type") == "null" for s in schema["anyOf"]) else "")
    if "enum" in schema:
        return " | ".join(f"`{v}`" for v in schema["enum"])  # (escaped for the table by _cell)
    if schema.get("type") == "array":
        return f"list of {_type(schema.get('items', {}), defs)}"
    kind = schema.get("type", "any") + (f" ({schema['format']})" if "format" in schema else "")
    limits = [f"{word} {schema[key]}" for key, word in (("minimum", "≥"), ("maximum", "≤"), ("minLength", "length ≥"),
                                                         ("maxLength", "length ≤"), ("maxItems", "items ≤"))
              if key in schema]
    return kind + (f" ({', '.join(limits)})" if limits else "")


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def render() -> str:
    offered: dict[str, list[str]] = {}
    tools: dict[str, Any] = {}
    for strategy in STRATEGIES:
        for tool in anyio.run(_tools, strategy):
            tools.setdefault(tool.name, tool)
            offered.setdefault(tool.name, []).append(strategy)
    lines = [HEADER]
    lines += ["| tool | what it does |", "|---|---|"]
    lines += [f"| [`{name}`](#{name}) | {_cell(tools[name].description.split(';')[0])} |" for name in sorted(tools)]
    for name in sorted(tools):
        tool = tools[name]
        schema = tool.input_schema or {}
        defs, props = schema.get("$defs", {}), schema.get("properties", {})
        required = set(schema.get("required", []))
        ann = tool.annotations
        hints = [h for h, on in (("read-only", ann and ann.read_only_hint), ("destructive", ann and ann.destructive_hint),
                                 ("idempotent", ann and ann.idempotent_hint)) if on]
        lines += ["", f"## {name}", "", f"**{tool.title or name}.** {tool.description}", "",
                  f"Offered by: {', '.join(offered[name])}. Behaviour: {', '.join(hints) or 'writes'}.", ""]
        if not props:
            lines.append("No parameters.")
            continue
        lines += ["| parameter | type | default | description |", "|---|---|---|---|"]
        for param, spec in props.items():
            default = "required" if param in required else f"`{json.dumps(spec.get('default'))}`"
            lines.append(f"| `{param}` | {_cell(_type(spec, defs))} | {default} | {_cell(spec.get('description', ''))} |")
    return "\n".join(lines).rstrip() + "\n"


if __name__ == "__main__":
    sys.stdout.write(render())
