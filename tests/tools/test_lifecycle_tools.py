"""rate_memory, the dormant filter of search_memory and list_memories, dream and consolidate_memories
through the SDK's in-process client."""

from __future__ import annotations

import uuid

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS

from mnemex.models import Memory
from tests.helpers import call_ok as _call

pytestmark = pytest.mark.anyio


async def test_rate_memory_moves_utility_and_counts_verdicts(server, engine):
    async with Client(server) as c:
        made = await _call(c, "memorize", {"content": "Integration tests need the compose stack up", "kind": "fact"})
        out = await _call(c, "rate_memory", {"id": made["id"][:8], "verdict": "helped"})
        assert out == {"id": made["id"], "verdict": "helped", "utility": 0.55, "helped": 1, "misled": 0, "tier": None}
        out = await _call(c, "rate_memory", {"id": made["id"], "verdict": "misled"})
        assert (out["utility"], out["helped"], out["misled"]) == (0.495, 1, 1)
    ops = [o for o in engine.journal.ops(memory_id=made["id"]) if o.op == "feedback"]
    assert [o.detail["reason"] for o in ops] == ["misled", "helped"]


async def test_rate_memory_outdated_invalidates_through_the_write_path(server, engine):
    async with Client(server) as c:
        made = await _call(c, "memorize", {"content": "Nightly builds run on the Jenkins box", "kind": "fact"})
        out = await _call(c, "rate_memory", {"id": made["id"], "verdict": "outdated"})
        assert (out["verdict"], out["misled"], out["helped"]) == ("outdated", 1, 0) and out["utility"] < 0.5
        found = await _call(c, "search_memory", {"query": "where do nightly builds run", "min_confidence": 0})
        assert made["id"] not in [h["id"] for h in found["results"]]  # hidden from search ...
    assert engine.get(made["id"]).valid_until is not None  # ... and kept, invalidated
    assert [o.op for o in engine.journal.ops(memory_id=made["id"])][:2] == ["forget", "feedback"]


@pytest.mark.parametrize("args", [
    {"id": "00000000-0000-0000-0000-000000000000", "verdict": "helped"},
    {"id": "not-an-id", "verdict": "misled"},
])
async def test_rate_memory_of_an_unknown_memory_is_invalid_params(server, args):
    async with Client(server) as c:
        with pytest.raises(MCPError) as err:
            await c.call_tool("rate_memory", args)
        assert err.value.error.code == INVALID_PARAMS


@pytest.mark.parametrize("verdict", ["great", "", None, 1])
async def test_rate_memory_rejects_a_verdict_other_than_helped_or_misled(server, engine, verdict):
    async with Client(server) as c:
        made = await _call(c, "memorize", {"content": "The CI runs on two cores", "kind": "fact"})
        try:
            result = await c.call_tool("rate_memory", {"id": made["id"], "verdict": verdict})
        except MCPError as exc:
            assert exc.error.code == INVALID_PARAMS
        else:  # schema validation by the SDK: a tool error the model can read
            assert result.is_error and "verdict" in result.content[0].text
    assert engine.get(made["id"]).lifecycle.utility_at is None  # nothing changed


async def test_search_memory_finds_dormant_memories_only_when_asked(server, engine):
    async with Client(server) as c:
        made = await _call(c, "memorize", {"content": "The staging database is reset every Sunday night", "kind": "note"})
        for _ in range(9):
            await _call(c, "rate_memory", {"id": made["id"], "verdict": "misled"})
        stale = engine.get(made["id"])
        engine.store.save(stale.model_copy(update={"lifecycle": stale.lifecycle.model_copy(
            update={"tier": "dormant", "dormant": True})}))  # as the sweep leaves it (tested in tests/engine)
        query = {"query": "when is the staging database reset?", "min_confidence": 0}
        assert (await _call(c, "search_memory", query))["count"] == 0
        found = await _call(c, "search_memory", {**query, "include_dormant": True})
        assert [h["id"] for h in found["results"]] == [made["id"]]
        assert (await _call(c, "list_memories", {}))["count"] == 0  # list_memories leaves it out too
        listed = await _call(c, "list_memories", {"include_dormant": True})
        assert [h["id"] for h in listed["results"]] == [made["id"]]
        await _call(c, "recall_memory", {"ids": [made["id"]]})  # explicit access reactivates it
        assert [h["id"] for h in (await _call(c, "search_memory", query))["results"]] == [made["id"]]


DUPLICATES = ("The staging database is reset every Sunday night by the reset-staging cron job.",
              "Every Sunday night the reset-staging cron job resets the staging database.",
              "The reset-staging cron job wipes the staging database each Sunday night; back up fixtures first.")


async def test_dream_runs_the_cycle_and_reports_each_step(server, engine):
    async with Client(server) as c:
        for text in DUPLICATES:
            await _call(c, "memorize", {"content": text, "kind": "note"})
        listed = await _call(c, "list_memories", {})
        assert len(listed["results"]) >= 1
        out = await _call(c, "dream", {"limit": 50})
        assert out["scanned"] == engine.store.count(engine.default_filter())
        assert set(out["forgotten"]) == {"contradiction", "foresight", "records", "repeats", "utility_floor", "redundancy",
                                         "capacity"}
        assert out["elapsed_seconds"] >= 0 and out["deferred"] == 0
        stats = await _call(c, "memory_stats", {})
        assert stats["lifecycle"]["last_dream"]["scanned"] == out["scanned"]
        try:
            result = await c.call_tool("dream", {"limit": 0})
        except MCPError as exc:
            assert exc.error.code == INVALID_PARAMS
        else:  # schema validation by the SDK: a tool error the model can read
            assert result.is_error and "limit" in result.content[0].text


async def test_consolidate_memories_hands_out_clusters_and_takes_back_a_summary(server, engine):
    ids = []
    for text in DUPLICATES:
        memory = Memory(id=str(uuid.uuid4()), content=text, kind="fact", project="/work/proj")
        engine.import_memories([memory])  # as given: the gate would merge some at write time
        ids.append(memory.id)
    async with Client(server) as c:
        listed = await _call(c, "consolidate_memories", {})
        assert [sorted(cl["ids"]) for cl in listed["clusters"]] == [sorted(ids)] and listed["hint"]
        made = await _call(c, "consolidate_memories", {
            "ids": [i[:8] for i in ids], "summary": "The reset-staging cron job resets the staging database every "
                                                   "Sunday night; back up fixtures first."})
        assert sorted(made["superseded"]) == sorted(ids)
        assert all(engine.get(i).superseded_by == made["id"] for i in ids)
        assert (await _call(c, "consolidate_memories", {}))["clusters"] == []
        for bad in ({"ids": ids}, {"summary": "x"}, {"ids": [made["id"], made["id"]], "summary": "x"}, {"ids": ids, "summary": "x"}):
            with pytest.raises(MCPError) as err:  # half a request; one memory twice; members no longer current
                await c.call_tool("consolidate_memories", bad)
            assert err.value.error.code == INVALID_PARAMS and err.value.error.message.strip()
