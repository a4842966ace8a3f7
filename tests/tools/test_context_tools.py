"""What the strategies offer over the real SDK client: the `memory_context` prompt and resource,
search over past sessions, the caller's project from the client's roots, and lean tool output
(one compact text, short ids the other tools accept, a relevance floor)."""

from __future__ import annotations

import json

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS, ListRootsResult, Root

from mnemex.capture.hook import handle
from mnemex.capture.ingest import Ingester
from mnemex.capture.settings import HookSettings
from tests.capture.helpers import PROJECT as SHOP
from tests.capture.helpers import SESSION_FLOW, payload
from tests.helpers import call_ok

pytestmark = pytest.mark.anyio
MODES = ["auto", "legacy"]

FACTS = ["We deploy the API with ArgoCD from the main branch, never by hand.",
         "Integration tests need `docker compose up db` first, or they hang on connect.",
         "The user prefers tabs over spaces in Go code."]


async def _fill(c) -> list[str]:
    return [(await call_ok(c, "memorize", {"content": f}))["id"] for f in FACTS]


def _roots(path: str):
    async def list_roots(_context):
        return ListRootsResult(roots=[Root(uri=f"file://{path}", name="shop")])
    return list_roots


@pytest.mark.parametrize("mode", MODES)
async def test_the_memory_context_prompt(server, mode):
    async with Client(server, mode=mode) as c:
        await _fill(c)
        [prompt] = (await c.list_prompts()).prompts
        assert prompt.name == "memory_context"
        got = await c.get_prompt("memory_context", {"task": "how do we deploy the API?", "budget": "300"})
        text = got.messages[0].content.text
        assert text.startswith('<mnemex-memory project="/work/proj">') and "ArgoCD" in text
        first = await c.get_prompt("memory_context", {"event": "session_start", "session_id": "s1"})
        assert "docker compose up db" in first.messages[0].content.text
        with pytest.raises(MCPError) as bad:
            await c.get_prompt("memory_context", {"budget": "a lot"})
        assert bad.value.error.code == INVALID_PARAMS and "budget" in bad.value.error.message


@pytest.mark.parametrize("mode", MODES)
async def test_the_memory_context_resource(server, mode):
    async with Client(server, mode=mode) as c:
        await _fill(c)
        standing = (await c.read_resource("memory://context/project")).contents[0].text
        assert "What matters in this project:" in standing and "ArgoCD" in standing
        task = (await c.read_resource("memory://context/running%20the%20integration%20tests")).contents[0].text
        assert "Relevant to this task:" in task and "docker compose up db" in task


@pytest.mark.parametrize("mode", MODES)
async def test_tool_output_is_lean_and_short_ids_work(server, mode):
    async with Client(server, mode=mode) as c:
        ids = await _fill(c)
        found = await c.call_tool("search_memory", {"query": "how do we deploy the API?"})
        text = found.content[0].text
        assert not text.lstrip().startswith("{") and ids[0][:8] in text and ids[0] not in text
        assert "importance_channels" not in text and "kind_confidence" not in text
        recalled = await c.call_tool("recall_memory", {"ids": [ids[0][:8]]})
        assert "ArgoCD" in recalled.content[0].text and "importance_channels" not in recalled.content[0].text
        assert "importance_channels" not in json.dumps(recalled.structured_content)
        verbose = await call_ok(c, "recall_memory", {"ids": [ids[0][:8]], "verbose": True})
        assert "importance_channels" in verbose["memories"][0]["metadata"]
        forgot = await call_ok(c, "forget", {"id": ids[2][:8], "reason": "wrong"})
        assert forgot["id"] == ids[2]


@pytest.mark.parametrize("mode", MODES)
async def test_unrelated_hits_are_not_returned_as_results(server, mode):
    async with Client(server, mode=mode) as c:
        await _fill(c)
        none = await c.call_tool("search_memory", {"query": "sourdough starter hydration ratio"})
        assert none.structured_content["count"] == 0 and none.content[0].text.startswith("No relevant memories")
        everything = await call_ok(c, "search_memory", {"query": "sourdough starter hydration ratio",
                                                        "min_confidence": 0})
        assert everything["count"] >= 1


async def test_the_project_is_the_clients_first_root(server, engine):
    """Handshake-era sessions only: from protocol 2026-07-28 on a server cannot ask the client
    (no back-channel; roots are deprecated), and the relay's header or the server's project holds."""
    async with Client(server, mode="legacy", list_roots_callback=_roots("/home/dev/shop")) as c:
        made = await call_ok(c, "memorize", {"content": "Checkout totals always include VAT at the German rate."})
    assert engine.get(made["id"]).project == "/home/dev/shop"
    async with Client(server, mode="auto", list_roots_callback=_roots("/home/dev/shop")) as c:
        made = await call_ok(c, "memorize", {"content": "Invoices are numbered per calendar year, never reused."})
    assert engine.get(made["id"]).project == "/work/proj"


async def test_past_sessions_are_searchable_and_tool_events_stay_out_of_search(editing_server, engine, settings):
    hook = HookSettings(data_dir=settings.data_dir)
    for name in SESSION_FLOW:
        handle(payload(name), hook, None, {})
    Ingester.for_settings(engine, settings).run()
    async with Client(editing_server, mode="legacy", list_roots_callback=_roots(SHOP)) as c:
        past = await call_ok(c, "search_past_sessions", {"query": "checkout tests failing"})
        kinds = {r["kind"] for r in past["results"]}
        assert kinds <= {"tool_event", "episode", "procedure"} and "tool_event" in kinds
        plain = await call_ok(c, "search_memory", {"query": "pytest checkout tests failed", "min_confidence": 0})
        assert "tool_event" not in {r["kind"] for r in plain["results"]}
        assert {"procedure", "episode"} & {r["kind"] for r in plain["results"]}
        stats = await c.call_tool("memory_stats", {})
        use = {(t["tool"], t["command"]): t for t in stats.structured_content["tool_use"]}
        assert use[("Bash", "pytest tests/test_checkout.py")]["runs"] == 2
        assert "Bash `pytest tests/test_checkout.py`: 2 runs, 1 failed, 2.1 s" in stats.content[0].text
