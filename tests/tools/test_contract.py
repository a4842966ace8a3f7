"""Pins the public tool surface: names, parameters, annotations, output schemas.

A change here is a change for every agent that uses mnemex: update the test on purpose.
"""

from __future__ import annotations

import pytest
from mcp import Client

from mnemex.server.app import build_server
from mnemex.strategies import strategy_for
from mnemex.tools.runtime import ToolRuntime

pytestmark = pytest.mark.anyio

EXPECTED = {
    # name: (required params, optional params, read_only, destructive, idempotent)
    "memorize": ({"content"}, {"kind", "scope", "tags", "importance", "pinned", "immutable", "supersedes"},
                 False, False, False),
    "search_memory": ({"query"}, {"limit", "kinds", "tags", "scopes", "include_history", "after", "before", "as_of",
                       "with_context", "min_confidence", "include_dormant"},
                      True, False, True),
    "recall_memory": ({"ids"}, {"verbose"}, True, False, True),
    "rate_memory": ({"id", "verdict"}, set(), False, False, False),
    "update_memory": ({"id"}, {"content", "kind", "tags", "importance", "pinned"}, False, False, True),
    "forget": ({"id"}, {"reason", "purge"}, False, True, True),
    "memory_stats": (set(), set(), True, False, True),
    "dream": (set(), {"limit"}, False, False, False),
    "consolidate_memories": (set(), {"ids", "summary", "limit"}, False, False, False),
    "memory_timeline": ({"id"}, {"before", "after", "include_history"}, True, False, True),
    "memory_history": ({"id"}, set(), True, False, True),
    "list_memories": (set(), {"limit", "kinds", "tags", "scopes", "pinned", "include_history", "after", "before", "include_dormant"},
                      True, False, True),
    "link_memories": ({"src", "dst", "relation"}, set(), False, False, True),
    "related_memories": (set(), {"id", "entity", "max_hops", "relations"}, True, False, True),
    "memory_blocks": (set(), set(), True, False, True),
    "memory_block_append": ({"label", "text"}, set(), False, False, False),
    "memory_block_replace": ({"label", "old", "new"}, set(), False, False, False),
    "memory_block_rewrite": ({"label", "value"}, {"description", "limit"}, False, True, True),
    "search_past_sessions": ({"query"}, {"limit"}, True, False, True),
}
CORE = {"memorize", "search_memory", "recall_memory", "rate_memory", "update_memory", "forget", "memory_stats", "memory_timeline",
        "memory_history", "link_memories", "related_memories", "list_memories", "dream", "consolidate_memories"}
#: what each injection strategy offers on top of the core tools
OFFERED = {"context": CORE, "tool_based": CORE,
           "self_editing": CORE | {"memory_blocks", "memory_block_append", "memory_block_replace",
                                   "memory_block_rewrite", "search_past_sessions"}}
TEMPLATES = {"context": {"memory://{id}", "memory://context/{task}"}, "tool_based": {"memory://{id}"},
             "self_editing": {"memory://{id}", "memory://blocks/{label}"}}


@pytest.mark.parametrize("strategy", sorted(OFFERED))
async def test_tool_contract(engine, strategy):
    server = build_server(ToolRuntime(engine, strategy=strategy_for(strategy)))
    async with Client(server) as c:
        tools = {t.name: t for t in (await c.list_tools()).tools}
        templates = {t.uri_template for t in (await c.list_resource_templates()).resource_templates}
        prompts = {p.name: {a.name for a in p.arguments or []} for p in (await c.list_prompts()).prompts}
        instructions = c.instructions
    assert set(tools) == OFFERED[strategy]
    assert templates == TEMPLATES[strategy]
    assert prompts == {"memory_context": {"task", "budget", "session_id", "event", "source"}}
    assert instructions == strategy_for(strategy).instructions()
    for name in OFFERED[strategy]:
        required, optional, ro, destructive, idempotent = EXPECTED[name]
        tool = tools[name]
        props = set(tool.input_schema.get("properties", {}))
        assert set(tool.input_schema.get("required", [])) == required, name
        assert props == required | optional, name
        ann = tool.annotations
        assert (ann.read_only_hint, ann.destructive_hint, ann.idempotent_hint, ann.open_world_hint) == (
            ro, destructive, idempotent, False), name
        assert tool.title, name
        assert tool.description and tool.description.count(".") <= 2 and len(tool.description) < 240, name
        assert tool.output_schema and tool.output_schema.get("type") == "object", name
