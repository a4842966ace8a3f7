"""Eight MCP clients over stdio at once, as eight editor windows would be: they start together
with no daemon running, write and search concurrently through their own relays, and nothing
is lost; one daemon serves them all; every memory names the client that wrote it."""

from __future__ import annotations

import sys
import time

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.types import Implementation

from tests.reliability.harness import live_store

pytestmark = pytest.mark.slow

CLIENTS = 8
PER_CLIENT = 10
TOPICS = ("billing", "search", "auth", "mobile", "ledger", "export", "gateway", "scheduler")
DETAILS = ("owns the retry queue", "pins its runtime to an LTS release", "writes audit events to Kafka",
           "is deployed by a Helm chart in the platform repo", "keeps feature flags in LaunchDarkly",
           "must be restarted after a schema migration", "logs as JSON through structlog",
           "exposes Prometheus metrics on port 9102", "stores uploads in the cold bucket",
           "runs its integration tests against a compose stack")


def test_eight_stdio_clients_at_once_lose_nothing(tmp_path) -> None:
    store = live_store(tmp_path)
    params = StdioServerParameters(command=sys.executable, args=["-m", "mnemex.cli", "serve"],
                                   env=store.env, cwd=store.project)
    outcomes: dict[str, list[dict]] = {}
    found: dict[str, int] = {}

    async def client(n: int) -> None:
        name = f"editor-{n}"
        outcomes[name] = []
        mode = "legacy" if n % 2 else "auto"
        async with Client(params, mode=mode, client_info=Implementation(name=name, version="1.0")) as c:
            for i, detail in enumerate(DETAILS[:PER_CLIENT]):
                fact = f"The {TOPICS[n]} service of team {name} {detail} (note {n}-{i})"
                # episodes are stored as given (no gate): each write must be its own memory
                result = await c.call_tool("memorize", {"content": fact, "kind": "episode"})
                assert not result.is_error, result
                outcomes[name].append(result.structured_content)
            hits = await c.call_tool("search_memory", {"query": f"{TOPICS[n]} service retry queue", "limit": 20})
            found[name] = sum(TOPICS[n] in h["preview"] for h in hits.structured_content["results"])

    async def all_clients() -> None:
        async with anyio.create_task_group() as tg:
            for n in range(CLIENTS):
                tg.start_soon(client, n)

    started = time.monotonic()
    anyio.run(all_clients)
    print(f"\n{CLIENTS} stdio clients x {PER_CLIENT} memorize: {time.monotonic() - started:.1f} s")
    try:
        ids = {o["id"] for outs in outcomes.values() for o in outs}
        assert len(ids) == CLIENTS * PER_CLIENT, "every write is its own memory"
        assert all(o["action"] == "created" for outs in outcomes.values() for o in outs)
        assert all(found[name] >= 1 for name in outcomes), found
        store.start()  # finds the daemon the clients started: exactly one owns the store
        owner = store.files.owner()
        assert owner and owner["role"] == "daemon"
        assert store.call("memory_stats")["memories_current"] == CLIENTS * PER_CLIENT
        for name, outs in outcomes.items():
            memories = store.call("recall_memory", {"ids": [o["id"] for o in outs]})["memories"]
            assert {m["provenance"]["client"] for m in memories} == {name}
            assert all(f"team {name} " in m["content"] for m in memories)
    finally:
        store.stop()
