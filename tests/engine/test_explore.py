"""History, audit, relations and progressive disclosure through the real tools."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from mnemex.models import MemoryKind, NewMemory
from tests.helpers import call_ok as _call

pytestmark = pytest.mark.anyio




async def test_every_write_is_audited_and_versions_kept(server, engine):
    async with Client(server) as c:
        a = await _call(c, "memorize", {"content": "The API server listens on port 8080"})
        await _call(c, "memorize", {"content": "The API server listens on port 8080."})  # reinforce
        await _call(c, "update_memory", {"id": a["id"], "content": "The API server listens on port 8081"})
        b = await _call(c, "memorize", {"content": "The API server listens on port 9090"})  # supersede
        await _call(c, "forget", {"id": b["id"], "reason": "API retired"})
        hist = await _call(c, "memory_history", {"id": a["id"]})
    assert [v["content"] for v in hist["versions"]] == [
        "The API server listens on port 8080", "The API server listens on port 8081"]
    assert [h["id"] for h in hist["chain"]] == [a["id"], b["id"]]
    ops_a = [o["op"] for o in hist["audit"]]
    assert {"create", "reinforce", "update", "supersede"} <= set(ops_a)
    ops_b = [o.op for o in engine.journal.ops(memory_id=b["id"])]
    assert "create" in ops_b and "forget" in ops_b
    for op in engine.journal.ops(memory_id=a["id"]):
        if op.op in ("update", "supersede"):
            assert op.before is not None and op.after is not None


async def test_supersede_is_a_relation_and_links_are_traversable(server, engine):
    async with Client(server) as c:
        old = await _call(c, "memorize", {"content": "The build uses Node 18"})
        new = await _call(c, "memorize", {"content": "The build uses Node 20"})
        assert new["action"] == "superseded"
        cause = await _call(c, "memorize", {"content": "Flaky test_payments was caused by a shared Redis DB",
                                            "kind": "fact"})
        fix = await _call(c, "memorize", {"content": "Give every pytest worker its own Redis database index",
                                          "kind": "procedure"})
        await _call(c, "link_memories", {"src": cause["id"], "dst": fix["id"], "relation": "causes"})
        await _call(c, "link_memories", {"src": fix["id"], "dst": new["id"], "relation": "related_to"})
        walk = await _call(c, "related_memories", {"id": cause["id"], "max_hops": 2})
        hops = {r["memory"]["id"]: (r["hops"], r["relation"]) for r in walk["results"]}
        assert hops[fix["id"]] == (1, "causes") and hops[new["id"]] == (2, "related_to")
        only_causes = await _call(c, "related_memories", {"id": cause["id"], "relations": ["causes"], "max_hops": 3})
        assert [r["memory"]["id"] for r in only_causes["results"]] == [fix["id"]]
        sup = await _call(c, "related_memories", {"id": new["id"], "relations": ["supersedes"], "max_hops": 1})
        assert [r["memory"]["id"] for r in sup["results"]] == [old["id"]]
        with pytest.raises(MCPError) as err:
            await c.call_tool("related_memories", {})
        assert "exactly one of id or entity" in err.value.error.message
        with pytest.raises(MCPError):
            await c.call_tool("link_memories", {"src": cause["id"], "dst": "00000000-0000-4000-8000-000000000000",
                                                "relation": "causes"})


async def test_entity_hub_lists_everything_about_an_entity(server, engine):
    async with Client(server) as c:
        a = await _call(c, "memorize", {"content": "src/billing/invoice.py computes VAT per line item"})
        b = await _call(c, "memorize", {"content": "Never call the tax API from src/billing/invoice.py in tests"})
        await _call(c, "memorize", {"content": "The user prefers short commit messages"})
    about = engine.explore.about_entity("src/billing/invoice.py")
    assert {m.id for m in about} == {a["id"], b["id"]}


async def test_progressive_disclosure_index_timeline_full(server, engine):
    t0 = datetime(2026, 5, 1, tzinfo=timezone.utc)
    outs = engine.memorize_many([
        NewMemory(content=text, kind=MemoryKind.EPISODE, created_at=t0 + timedelta(minutes=i))
        for i, text in enumerate([
            "Started the migration of the orders table to Postgres 16",
            "Migration failed: ERROR 42P07 relation orders_tmp already exists",
            "Dropped orders_tmp and re-ran the migration",
            "Migration finished; row counts match",
        ])])
    async with Client(server) as c:
        index = await _call(c, "search_memory", {"query": "42P07 orders_tmp already exists", "limit": 3})
        top = index["results"][0]
        assert top["id"] == outs[1].id and top["tokens"] > 0 and len(top["preview"]) <= 200
        tl = await _call(c, "memory_timeline", {"id": top["id"], "before": 1, "after": 2})
        assert [m["id"] for m in tl["earlier"]] == [outs[0].id]
        assert [m["id"] for m in tl["later"]] == [outs[2].id, outs[3].id]
        full = await _call(c, "recall_memory", {"ids": [outs[2].id]})
        assert full["memories"][0]["content"] == "Dropped orders_tmp and re-ran the migration"


async def test_point_in_time_search_through_the_tool(server, engine):
    async with Client(server) as c:
        old = await _call(c, "memorize", {"content": "The staging database host is db1.internal"})
        mid = datetime.now(timezone.utc)
        new = await _call(c, "memorize", {"content": "The staging database host is db2.internal"})
        assert new["action"] == "superseded"
        now_hits = await _call(c, "search_memory", {"query": "staging database host"})
        assert [h["id"] for h in now_hits["results"]] == [new["id"]]
        then = await _call(c, "search_memory", {"query": "staging database host", "as_of": mid.isoformat()})
        assert [h["id"] for h in then["results"]] == [old["id"]]


async def test_search_with_context_returns_neighbours_in_time(server, engine):
    t0 = datetime(2026, 6, 1, tzinfo=timezone.utc)
    from mnemex.models import Provenance

    outs = engine.memorize_many([
        NewMemory(content=text, kind=MemoryKind.EPISODE, created_at=t0 + timedelta(seconds=i),
                  provenance=Provenance(session_id="s-42"))
        for i, text in enumerate([
            "Which flag makes pytest stop at the first failure?",
            "Use -x, or --maxfail=1",
            "Thanks, that saved a lot of time",
        ])])
    async with Client(server) as c:
        plain = await _call(c, "search_memory", {"query": "pytest flag to stop at the first failure", "limit": 1})
        ctx = await _call(c, "search_memory", {"query": "pytest flag to stop at the first failure", "limit": 1,
                                               "with_context": True})
    assert len(plain["results"]) == 1
    ids = [h["id"] for h in ctx["results"]]
    assert ids[0] == plain["results"][0]["id"]
    neighbours = [h for h in ctx["results"] if h["context_of"]]
    assert neighbours and all(h["context_of"] == ids[0] for h in neighbours)
    assert {h["id"] for h in neighbours} <= {o.id for o in outs}


@pytest.mark.parametrize("level,expect_write,expect_read", [
    ("off", False, False), ("writes", True, False), ("reads", True, True), ("verbose", True, True)])
def test_audit_levels(settings, embedder, level, expect_write, expect_read):
    from mnemex.config import AuditSettings
    from mnemex.engine.factory import build_engine

    eng = build_engine(settings.model_copy(update={"audit": AuditSettings(level=level)}),
                       default_project="/work/proj", embedder=embedder)
    try:
        made = eng.memorize(NewMemory(content="Release tags follow the vYYYY.MM.N pattern"))
        eng.search("release tag pattern")
        eng.recall([made.id])
        ops = [o.op for o in eng.journal.ops()]
        assert ("create" in ops) == expect_write
        assert ("search" in ops and "recall" in ops) == expect_read
        if level == "verbose":
            search = next(o for o in eng.journal.ops() if o.op == "search")
            assert search.detail["query"] == "release tag pattern" and made.id in search.detail["result_ids"]
            assert search.after[0]["id"] == made.id  # verbose keeps what the read returned
    finally:
        eng.close()
