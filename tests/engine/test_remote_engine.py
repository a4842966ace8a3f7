"""The whole stack (tools -> engine -> store) on the remote backend, against qdrant-client's
in-process mode: same behaviour as the embedded default."""

from __future__ import annotations

import pytest
from mcp import Client

from mnemex.embed.sparse import SparseEncoder
from mnemex.engine.service import MemoryEngine
from mnemex.server.app import build_server
from mnemex.store.remote import RemoteStore
from mnemex.tools.runtime import ToolRuntime
from tests.helpers import call_ok as _call

pytestmark = pytest.mark.anyio


@pytest.fixture
def remote_engine(embedder):
    store = RemoteStore(":memory:", None, "mnemex_test", 384)
    engine = MemoryEngine(store=store, dense=embedder, sparse=SparseEncoder(), default_project="/work/proj")
    yield engine
    engine.close()


async def test_tools_on_remote_backend(remote_engine):
    server = build_server(ToolRuntime(remote_engine, default_project="/work/proj"))
    async with Client(server) as c:
        a = await _call(c, "memorize", {"content": "The API server listens on port 8080", "kind": "fact"})
        b = await _call(c, "memorize", {"content": "We deploy with ArgoCD from the main branch", "kind": "decision"})
        again = await _call(c, "memorize", {"content": "The API server listens on port 8080."})
        assert again["action"] == "reinforced" and again["id"] == a["id"]
        newer = await _call(c, "memorize", {"content": "The API server listens on port 9090"})
        assert newer["action"] == "superseded" and newer["affected_ids"] == [a["id"]]
        found = await _call(c, "search_memory", {"query": "which port does the API listen on"})
        ids = [h["id"] for h in found["results"]]
        assert ids[0] == newer["id"] and a["id"] not in ids
        found = await _call(c, "search_memory", {"query": "how do we deploy", "kinds": ["decision"]})
        assert [h["id"] for h in found["results"]] == [b["id"]]
        gone = await _call(c, "forget", {"id": b["id"]})
        assert gone["action"] == "invalidated"
        stats = await _call(c, "memory_stats", {})
        assert stats["memories_total"] == 3 and stats["memories_current"] == 1


async def test_a_dream_on_the_remote_backend_merges_near_duplicates(remote_engine):
    import uuid

    from mnemex.models import Memory

    texts = ("The staging database is reset every Sunday night by the reset-staging cron job.",
             "Every Sunday night the reset-staging cron job resets the staging database.",
             "The reset-staging cron job wipes the staging database each Sunday night; back up fixtures first.")
    ids = [str(uuid.uuid4()) for _ in texts]
    remote_engine.import_memories([Memory(id=i, content=t, project="/work/proj") for i, t in zip(ids, texts)])
    report = remote_engine.dream()
    assert (report.themes, report.merged) == (1, 3)
    assert all(remote_engine.get(i).superseded_by for i in ids)
