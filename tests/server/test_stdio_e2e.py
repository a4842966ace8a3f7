"""End to end: real MCP clients start `python -m mnemex.cli serve` on stdio, which relays to one
shared daemon per store. Measures the time from process start to the `initialize` reply."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from mnemex.config import Settings
from mnemex.server import daemon_client
from mnemex.server.runfiles import RunFiles

pytestmark = pytest.mark.slow

FACTS = [
    "The payments API rejects refunds older than ninety days with error code R42.",
    "Frontend components live in packages/ui and are written in TypeScript with Svelte.",
    "Nightly backups of Postgres are uploaded to the cold-storage bucket in Frankfurt.",
    "Alice prefers squash merges and short imperative commit subjects.",
    "The CI runner image pins Node 20 because the PDF renderer breaks on Node 22.",
    "Feature flags are stored in LaunchDarkly, never in environment variables.",
    "The mobile app caches map tiles for offline hiking routes up to 2 GB.",
    "Kafka topic names follow the pattern domain.entity.event in lowercase.",
    "Use pnpm, not npm or yarn, for every JavaScript workspace in this monorepo.",
    "The legacy SOAP gateway times out after 28 seconds, so batch calls in groups of ten.",
    "Grafana dashboards are provisioned from JSON files in ops/dashboards.",
    "The recommendation model is retrained every Sunday on a GPU spot instance.",
    "Translations are managed in Crowdin and synced by a weekly bot pull request.",
    "Customer emails must never be logged; the logger masks anything that looks like an address.",
    "Integration tests need the fake SMTP server started with make mailhog.",
    "The warehouse scanner firmware only accepts Code 128 barcodes.",
    "Bob owns the billing reconciliation job and wants pings before schema changes.",
    "Rust crates in tools/ are built with the stable toolchain and clippy pedantic.",
    "The search index is rebuilt from scratch when the synonym dictionary changes.",
    "Docker images are scanned with Trivy and high-severity findings block the release.",
    "Our GraphQL schema forbids nullable list items to keep the iOS client simple.",
    "The robot arm calibration script must run before each shift in the Lyon plant.",
    "Terraform state lives in an encrypted S3 bucket with DynamoDB locking.",
    "Carol asked that release notes mention every breaking config key explicitly.",
    "The chess engine evaluates positions with a neural network distilled from self-play.",
    "Secrets rotate every thirty days through Vault's database engine.",
    "Video uploads are transcoded to AV1 with a fallback to H.264 for old browsers.",
    "Python services use structlog with JSON output in production.",
    "The HR portal is a vendor product; we may only change its theme, not its code.",
    "Sensor readings from the greenhouse arrive over MQTT every fifteen seconds.",
    "Pull requests need two approvals when they touch the authentication module.",
    "The data lake partitions parquet files by ingestion date, not event date.",
    "Dark mode colours come from the design tokens package, never hard-coded hex values.",
    "The telescope scheduler avoids targets below twenty degrees of altitude.",
    "Load tests run with k6 against the staging cluster on Thursday evenings.",
    "Invoices are rendered to PDF by WeasyPrint from Jinja templates.",
    "The Bluetooth pairing flow on Android needs location permission before scanning.",
    "The OpenSearch cluster runs three dedicated master nodes in separate zones.",
    "Weekend on-call engineers get a day off in lieu the following week.",
    "The genome pipeline aligns reads with BWA-MEM2 and calls variants with DeepVariant.",
]


@pytest.fixture
def store(tmp_path: Path):
    """An isolated store: MNEMEX_DATA_DIR in tmp, an empty config file, a git repo to work in."""
    config = tmp_path / "empty.toml"
    config.write_text("")
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    env = {"MNEMEX_DATA_DIR": str(tmp_path / "data"), "MNEMEX_CONFIG": str(config),
           "PYTHONPATH": os.environ.get("PYTHONPATH", "")}
    settings = Settings(data_dir=tmp_path / "data")
    yield env, project, settings
    daemon_client.stop_daemon(settings, timeout=10)


def serve_params(env: dict[str, str], cwd: Path) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=["-m", "mnemex.cli", "serve"], env=env, cwd=cwd)


def time_to_replies(env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """Seconds from starting `mnemex serve` to its `initialize` reply and to the first
    `tools/list` reply (which needs the daemon), over raw pipes without the SDK."""
    init = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "timer", "version": "0"}}}
    started = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "mnemex.cli", "serve"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, env={**os.environ, **env}, cwd=cwd)
    proc.stdin.write((json.dumps(init) + "\n").encode())
    proc.stdin.flush()
    reply = json.loads(proc.stdout.readline())
    to_init = time.monotonic() - started
    proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n'
                     b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}\n')
    proc.stdin.flush()
    tools = json.loads(proc.stdout.readline())
    to_tools = time.monotonic() - started
    proc.stdin.close()
    proc.wait(20)
    assert reply["result"]["serverInfo"]["name"] == "mnemex" and tools["result"]["tools"]
    return to_init, to_tools


def test_one_client_lists_tools_memorizes_and_searches(store) -> None:
    env, project, settings = store
    cold = time_to_replies(env, project)  # no daemon yet: the relay starts one
    warm = time_to_replies(env, project)
    print(f"\ntime to initialize reply: cold daemon {cold[0] * 1000:.0f} ms, warm {warm[0] * 1000:.0f} ms; "
          f"to first tools/list: cold {cold[1] * 1000:.0f} ms, warm {warm[1] * 1000:.0f} ms")
    assert cold[0] < 2.0 and warm[0] < 2.0

    async def session(mode: str) -> None:
        async with Client(serve_params(env, project), mode=mode) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            assert {"memorize", "search_memory", "recall_memory"} <= names
            fact = FACTS[0] if mode == "legacy" else FACTS[1]
            out = await client.call_tool("memorize", {"content": fact})
            assert out.structured_content["action"] == "created"
            found = await client.call_tool("search_memory", {"query": fact.split(",")[0]})
            ids = [h["id"] for h in found.structured_content["results"]]
            assert out.structured_content["id"] in ids

    anyio.run(session, "legacy")  # initialize handshake (what Claude Desktop, Cursor, VS Code send)
    anyio.run(session, "auto")    # server/discover probe, then stateless 2026-07-28 requests


def test_two_clients_write_concurrently_and_nothing_is_lost(store) -> None:
    env, project, settings = store
    halves = [FACTS[:20], FACTS[20:]]
    outcomes: list[dict] = []

    async def writer(facts: list[str], mode: str) -> None:
        async with Client(serve_params(env, project), mode=mode) as client:
            async def one(fact: str) -> None:
                result = await client.call_tool("memorize", {"content": fact, "tags": ["e2e"]})
                outcomes.append(result.structured_content)

            async with anyio.create_task_group() as tg:
                for fact in facts:
                    tg.start_soon(one, fact)

    async def both() -> None:
        async with anyio.create_task_group() as tg:  # two clients, two relays, one daemon
            tg.start_soon(writer, halves[0], "legacy")
            tg.start_soon(writer, halves[1], "auto")

    started = time.monotonic()
    anyio.run(both)
    print(f"\n40 concurrent memorize calls through two relays: {time.monotonic() - started:.1f} s")
    assert len(outcomes) == 40
    # A fact holding two claims is stored as two atomic memories (reported in `also`).
    parts = [o for out in outcomes for o in (out, *out["also"])]
    assert {o["action"] for o in parts} == {"created"}, outcomes
    created = {o["id"] for o in parts}
    assert len(created) == len(parts) >= 40

    async def count() -> None:
        async with Client(serve_params(env, project), mode="legacy") as client:
            stats = (await client.call_tool("memory_stats", {})).structured_content
            assert stats["memories_current"] == len(created)
            hits = await client.call_tool("search_memory", {"query": "master nodes of the OpenSearch cluster"})
            assert any("OpenSearch" in h["preview"] for h in hits.structured_content["results"])

    anyio.run(count)
    owner = RunFiles.for_settings(settings).owner()
    assert owner and owner["role"] == "daemon"


def test_two_clients_racing_on_the_same_fact_make_one_memory(store) -> None:
    env, project, _ = store
    fact = "The search service must be restarted after every synonym file change."
    outcomes: list[dict] = []

    async def writer(mode: str) -> None:
        async with Client(serve_params(env, project), mode=mode) as client:
            result = await client.call_tool("memorize", {"content": fact})
            outcomes.append(result.structured_content)

    async def both() -> None:
        async with anyio.create_task_group() as tg:
            tg.start_soon(writer, "legacy")
            tg.start_soon(writer, "auto")

    anyio.run(both)
    assert sorted(o["action"] for o in outcomes) == ["created", "reinforced"], outcomes
    assert outcomes[0]["id"] == outcomes[1]["id"]
