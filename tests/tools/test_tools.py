"""Every core tool through the SDK's in-process client, in both protocol modes, on the real stack."""

from __future__ import annotations

import json

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS

from tests.helpers import call_ok as _call

pytestmark = pytest.mark.anyio
MODES = ["auto", "legacy"]




async def _count(client) -> int:
    return (await _call(client, "memory_stats", {}))["memories_total"]


@pytest.mark.parametrize("mode", MODES)
async def test_memorize_search_recall_update_forget(server, mode):
    async with Client(server, mode=mode) as c:
        made = await _call(c, "memorize", {"content": "We deploy the API with ArgoCD from the main branch",
                                           "kind": "decision", "tags": ["deploy"]})
        assert made["action"] == "created" and made["id"]
        await _call(c, "memorize", {"content": "The user prefers tabs over spaces in Go code", "kind": "preference"})
        found = await _call(c, "search_memory", {"query": "how do we deploy the API?"})
        assert found["count"] >= 1
        top = found["results"][0]
        assert top["id"] == made["id"]
        assert top["kind"] == "decision" and top["tokens"] > 0 and top["why"]
        full = await _call(c, "recall_memory", {"ids": [made["id"]]})
        mem = full["memories"][0]
        assert "deploy" in mem["content"] and "ArgoCD" in mem["content"] and mem["tags"] == ["deploy"]
        assert mem["project"] == "/work/proj"
        upd = await _call(c, "update_memory", {"id": made["id"], "content": "We deploy the API with Flux from main"})
        assert upd["memory"]["content"] == "We deploy the API with Flux from main"
        found = await _call(c, "search_memory", {"query": "Flux deploy"})
        assert found["results"][0]["id"] == made["id"]
        gone = await _call(c, "forget", {"id": made["id"], "reason": "moved to a new platform"})
        assert gone["action"] == "invalidated" and gone["valid_until"]
        found = await _call(c, "search_memory", {"query": "Flux deploy"})
        assert made["id"] not in [h["id"] for h in found["results"]]
        history = await _call(c, "search_memory", {"query": "Flux deploy", "include_history": True})
        assert made["id"] in [h["id"] for h in history["results"]]
        assert await _count(c) == 2  # forget invalidates; nothing is deleted


async def test_a_filter_with_a_lone_surrogate_is_answered_not_crashed(server):
    """A lone surrogate is valid JSON but no stored text (the write path stores U+FFFD): a filter
    holding one matches nothing and breaks nothing."""
    async with Client(server) as c:
        made = await _call(c, "memorize", {"content": "Integration tests need the compose stack up", "tags": ["ci"]})
        assert (await _call(c, "search_memory", {"query": "compose stack", "tags": ["ci\ud800"]}))["count"] == 0
        found = await _call(c, "search_memory", {"query": "compose stack", "tags": ["ci", "\udfff"]})
        assert [h["id"] for h in found["results"]] == [made["id"]]


@pytest.mark.parametrize("mode", MODES)
async def test_purge_removes_the_memory(server, mode):
    async with Client(server, mode=mode) as c:
        made = await _call(c, "memorize", {"content": "temporary note about the staging password rotation"})
        out = await _call(c, "forget", {"id": made["id"], "purge": True})
        assert out["action"] == "purged"
        with pytest.raises(MCPError) as err:
            await c.call_tool("recall_memory", {"ids": [made["id"]]})
        assert err.value.error.code == INVALID_PARAMS


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("args", [
    {"content": ""},
    {"content": "   "},
    {"content": "x" * 20_001},
    {"content": 42},
    {"content": "ok", "kind": "not-a-kind"},
    {"content": "ok", "importance": 3},
    {"content": "ok", "tags": "not-a-list"},
])
async def test_memorize_rejects_bad_input_and_loses_nothing(server, mode, args):
    async with Client(server, mode=mode) as c:
        await _call(c, "memorize", {"content": "The CI runs on two cores"})
        try:
            result = await c.call_tool("memorize", args)
        except MCPError as exc:  # our own validation: invalid params
            assert exc.error.code == INVALID_PARAMS
            assert exc.error.message
        else:  # schema validation by the SDK: a tool error the model can read
            assert result.is_error
            assert "validation error" in result.content[0].text or "content" in result.content[0].text
        assert await _count(c) == 1


@pytest.mark.parametrize("mode", MODES)
async def test_unknown_ids_and_bad_queries_are_invalid_params(server, mode):
    async with Client(server, mode=mode) as c:
        for name, args, needle in [
            ("recall_memory", {"ids": ["00000000-0000-4000-8000-000000000000"]}, "no memory with id"),
            ("recall_memory", {"ids": ["not-an-id"]}, "no memory with id"),
            ("update_memory", {"id": "00000000-0000-4000-8000-000000000000", "content": "x"}, "no memory with id"),
            ("forget", {"id": "00000000-0000-4000-8000-000000000000"}, "no memory with id"),
            ("search_memory", {"query": "   "}, "query is empty"),
        ]:
            with pytest.raises(MCPError) as err:
                await c.call_tool(name, args)
            assert err.value.error.code == INVALID_PARAMS, name
            assert needle in err.value.error.message
        result = await c.call_tool("search_memory", {"query": "x", "limit": 0})
        assert result.is_error
        result = await c.call_tool("recall_memory", {"ids": []})
        assert result.is_error


@pytest.mark.parametrize("mode", MODES)
async def test_update_without_changes_and_pinned_forget(server, mode):
    async with Client(server, mode=mode) as c:
        made = await _call(c, "memorize", {"content": "Never force-push to main", "kind": "convention", "pinned": True})
        with pytest.raises(MCPError) as err:
            await c.call_tool("update_memory", {"id": made["id"]})
        assert "nothing to update" in err.value.error.message
        with pytest.raises(MCPError) as err:
            await c.call_tool("forget", {"id": made["id"]})
        assert "pinned" in err.value.error.message
        found = await _call(c, "search_memory", {"query": "force push main"})
        assert found["results"][0]["id"] == made["id"]


@pytest.mark.parametrize("mode", MODES)
async def test_memory_resource_template(server, mode):
    async with Client(server, mode=mode) as c:
        made = await _call(c, "memorize", {"content": "Postgres runs on port 5433 in docker-compose"})
        templates = await c.list_resource_templates()
        assert "memory://{id}" in [t.uri_template for t in templates.resource_templates]  # the rest: test_contract
        res = await c.read_resource(f"memory://{made['id']}")
        data = json.loads(res.contents[0].text)
        assert data["id"] == made["id"] and data["content"].startswith("Postgres runs on port 5433")


@pytest.mark.parametrize("mode", MODES)
async def test_every_write_names_its_client_and_project(server, engine, mode):
    from mcp.types import Implementation

    async with Client(server, mode=mode, client_info=Implementation(name="cursor", version="1.2")) as c:
        made = await _call(c, "memorize", {"content": "Database migrations run before the API deploys"})
        await _call(c, "update_memory", {"id": made["id"], "content": "Database migrations run before every deploy"})
        await _call(c, "search_memory", {"query": "when do migrations run"})
        await _call(c, "forget", {"id": made["id"], "reason": "moved to the release checklist"})
    memory = engine.get(made["id"])
    assert memory.provenance.client == "cursor"
    ops = {o.op: o for o in engine.journal.ops(memory_id=made["id"])}
    for op in ("create", "update", "forget"):
        assert ops[op].detail == {"client": "cursor", "project": "/work/proj"}, (op, ops[op].detail)
    assert ops["create"].actor == "agent"


async def test_list_memories_filters_newest_first_and_prefixes_work_in_every_tool(server, engine):
    from mnemex.models import Memory

    engine.import_memories([  # two ids sharing their first 6 characters
        Memory(id="c0ffee10-2222-4222-8222-222222222221", content="Redis keys expire after 24 hours",
               kind="fact", project="/work/proj", tags=("cache",)),
        Memory(id="c0ffee20-2222-4222-8222-222222222222", content="Cache warmup runs after each deploy",
               kind="procedure", project="/work/proj")])
    async with Client(server) as c:
        made = await _call(c, "memorize", {"content": "We chose Postgres advisory locks for the job queue",
                                           "kind": "decision", "pinned": True})
        listed = await _call(c, "list_memories", {})
        assert [h["id"] for h in listed["results"]][0] == made["id"] and listed["count"] == 3  # newest first
        assert [h["id"] for h in (await _call(c, "list_memories", {"kinds": ["fact"]}))["results"]] == \
            ["c0ffee10-2222-4222-8222-222222222221"]
        assert [h["id"] for h in (await _call(c, "list_memories", {"pinned": True}))["results"]] == [made["id"]]
        assert (await _call(c, "list_memories", {"tags": ["cache"], "limit": 1}))["count"] == 1
        bad = await c.call_tool("list_memories", {"limit": 0})  # the SDK's schema check: a tool error
        assert bad.is_error and "limit" in bad.content[0].text

        short = "c0ffee1"
        assert (await _call(c, "memory_history", {"id": short}))["id"].startswith("c0ffee10")
        assert (await _call(c, "update_memory", {"id": short, "pinned": True}))["memory"]["pinned"] is True
        linked = await _call(c, "link_memories", {"src": "c0ffee2", "dst": made["id"][:8], "relation": "causes"})
        assert linked["src"].startswith("c0ffee20") and linked["dst"] == made["id"]
        related = await _call(c, "related_memories", {"id": "c0ffee20"})
        assert related["results"][0]["memory"]["id"] == made["id"]
        for tool, args in [("recall_memory", {"ids": ["c0ffee"]}), ("forget", {"id": "c0ffee"}),
                           ("memory_timeline", {"id": "c0ffee"})]:
            with pytest.raises(MCPError) as ambiguous:
                await c.call_tool(tool, args)
            assert ambiguous.value.error.code == INVALID_PARAMS
            assert "matches 2 memories (c0ffee10-222…, c0ffee20-222…)" in ambiguous.value.error.message


@pytest.mark.parametrize("mode", MODES)
async def test_the_agent_says_what_a_plain_new_value_replaces_and_one_copy_is_kept(server, mode):
    """The flow the server's instructions teach: memorize a new value said plainly; memorize offers
    the older statement (id and preview); the agent memorizes it again with supersedes; the search
    then holds one current statement and the older one only in the history."""
    async with Client(server, mode=mode) as c:
        old = await _call(c, "memorize", {"content": "The documentation site is built with Docusaurus."})
        text = "The documentation site is generated with MkDocs Material."
        new = await _call(c, "memorize", {"content": text})
        assert new["action"] == "created"
        assert [x["id"] for x in new["candidates"]] == [old["id"]] and new["candidates"][0]["preview"]
        again = await _call(c, "memorize", {"content": text, "supersedes": [old["id"]]})
        assert again["action"] == "superseded" and again["id"] == new["id"] and again["affected_ids"] == [old["id"]]
        found = await _call(c, "search_memory", {"query": "What builds the documentation site?"})
        assert [h["id"] for h in found["results"]] == [new["id"]]
        history = await _call(c, "search_memory", {"query": "What builds the documentation site?", "include_history": True})
        assert {h["id"] for h in history["results"]} == {old["id"], new["id"]}
        assert await _count(c) == 2
