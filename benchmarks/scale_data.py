"""The synthetic coding memories of `benchmarks/scale.py` and their stores, built once per size.

A deterministic generator (seeded, templated, `GENERATOR_VERSION` bumped whenever its output
changes) writes coding-agent memories of several kinds across a few projects; each size's store is
built through the engine (`memorize_many`, ungated, batches of 256, then `optimize()`) into
~/.cache/mnemex-bench/g<version>-<size>/ (MNEMEX_BENCH_CACHE overrides), with the build's own
figures in build.json and the stored dense vectors in dense.npy (for the side-by-side baselines).
A run works on a copy, so the cached store stays as built.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np

from mnemex.config import Settings
from mnemex.engine.factory import build_engine
from mnemex.models import MemoryFilter, MemoryKind, NewMemory
from mnemex.store.edge_detached import copy_sparse

GENERATOR_VERSION = 1
#: Bumped when what the engine stores changes enough to move the figures (2: payloads leave out
#: fields at their default; 3: half-precision dense vectors; 4: the rarely filtered payload
#: indexes on disk): a cache of another layout is not reused. One of the layout before is rebuilt
#: from its points by compaction (`derive`), as `mnemex reindex` rebuilds a user's store; without
#: one, the store is built from the generator.
STORE_LAYOUT = 4
PROJECTS = ["/src/shop", "/src/billing", "/src/infra", "/src/mobile", "/src/datalake"]
SERVICES = ["the API server", "the billing worker", "the auth service", "the CI pipeline", "the web frontend",
            "the search indexer", "the mobile app", "the data importer", "the admin panel", "the cache layer",
            "the payment gateway", "the notification service", "the report builder", "the feature-flag service"]
FILES = ["src/api/routes.py", "src/billing/invoice.py", "app/models/user.rb", "cmd/server/main.go",
         "web/src/components/Cart.tsx", "infra/terraform/main.tf", "scripts/deploy.sh", "src/lib/cache.rs",
         "tests/test_orders.py", "config/settings.toml", "Makefile", "docker-compose.yml", ".github/workflows/ci.yml"]
TOOLS = ["ArgoCD", "Flux", "Celery", "RQ", "Sidekiq", "Temporal", "Airflow", "Dagster", "Nomad", "Helm",
         "pytest", "ruff", "mypy", "esbuild", "Vite", "Poetry", "uv", "Bazel", "Redis", "Postgres", "Kafka"]
WORDS = ["orders", "invoices", "users", "sessions", "payments", "reports", "events", "metrics", "uploads",
         "alerts", "emails", "tokens", "webhooks", "audits", "exports", "imports", "schedules", "quotas",
         "tenants", "plans", "refunds", "coupons", "carts", "shipments", "ledgers", "migrations"]
FUNCS = ["retry_with_backoff", "parse_invoice", "load_settings", "OrderRepository", "build_cart_total",
         "verify_webhook_signature", "TokenBucket", "sync_tenants", "render_report", "flush_metrics"]
TEMPLATES: dict[MemoryKind, list[str]] = {
    MemoryKind.FACT: [
        "{svc} listens on port {n}.", "{svc} reads its settings from config/{w}.toml.",
        "{svc} logs to /var/log/{w}.log and rotates daily.", "{svc} is owned by the {w} team.",
        "{svc} caches {w} lookups in {tool} for {m} minutes.", "`{func}` lives in {file}.",
        "{svc} needs Python 3.{m} or newer because of `{func}`."],
    MemoryKind.DECISION: [
        "We chose {tool} over {tool2} for {w} jobs in {svc} because retries are simpler.",
        "Decided to keep {w} in {tool} instead of {tool2} because {tool2} lost messages under load.",
        "{svc} moves to {tool} for {w} and the old {tool2} setup is retired next sprint."],
    MemoryKind.CONVENTION: [
        "Always run `make {w}` before pushing changes to {file}.",
        "Tests for {w} go in tests/test_{w}.py and use fixtures.",
        "Never call `{func}` from request handlers; queue a {tool} job instead.",
        "Name {w} migrations with a date prefix and keep them reversible."],
    MemoryKind.CORRECTION: [
        "`{func}` fails with error E{n} when the {w} queue is full, fixed by raising the {tool} prefetch to {m}.",
        "Fixed a crash of {svc} on empty {w} with a guard in {file} because `{func}` assumed a list.",
        "The flaky test in tests/test_{w}.py was a timezone bug in `{func}` fixed by using UTC."],
    MemoryKind.PROCEDURE: [
        "To deploy {svc} run `{tool} sync {w}`, wait for health checks, then bump the {w} version in {file}.",
        "To rebuild the {w} index stop {svc}, run `scripts/reindex.sh {w}`, then restart it.",
        "Release steps for {svc} are tag, run the {tool} pipeline and announce in the {w} channel."],
    MemoryKind.EPISODE: [
        "Debugged a {w} timeout in {svc} where `{func}` held a lock for {n} ms and split it.",
        "Upgraded {tool} to {m}.{n} for {svc} and the {w} tests passed after pinning deps.",
        "While pairing on {file} we renamed `{func}` helpers and removed dead {w} code."],
    MemoryKind.PREFERENCE: [
        "The user prefers small commits with messages that say why, especially for {w} changes.",
        "Prefer {tool} over {tool2} for new {w} tooling.", "Keep `{func}` pure because the user dislikes hidden I/O."],
}
QUERIES = ["which port does {svc} listen on", "how is {svc} deployed", "what breaks {func}", "where does {svc} log",
           "who owns {svc}", "what does {svc} use for {w} jobs", "error E{n} in {svc}", "how to rebuild the {w} index",
           "why {tool} for {w}", "where is {func} defined", "convention for {w} migrations", "{w} tests flaky"]
START = datetime(2026, 1, 5, tzinfo=timezone.utc)


def _fill(template: str, rng: random.Random) -> str:
    tool, tool2 = rng.sample(TOOLS, 2)
    return template.format(svc=rng.choice(SERVICES), w=rng.choice(WORDS), n=rng.randint(1000, 9999),
                           m=rng.randint(2, 13), tool=tool, tool2=tool2, func=rng.choice(FUNCS),
                           file=rng.choice(FILES))


def memories(n: int) -> list[NewMemory]:
    """`n` synthetic coding memories, the same for a given n and GENERATOR_VERSION."""
    rng = random.Random(1000 + GENERATOR_VERSION)
    kinds = list(TEMPLATES)
    out = []
    for i in range(n):
        kind = rng.choice(kinds)
        text = _fill(rng.choice(TEMPLATES[kind]), rng)
        text = text[0].upper() + text[1:]
        out.append(NewMemory(content=text, kind=kind, project=PROJECTS[i % len(PROJECTS)],
                             tags=(rng.choice(WORDS),), importance=0.5,
                             created_at=START + timedelta(minutes=7 * i)))
    return out


def queries(n: int, seed: int = 7) -> list[str]:
    """`n` distinct queries (so none finds its embedding cached by another)."""
    rng = random.Random(seed)
    out: dict[str, None] = {}
    while len(out) < n:
        out[_fill(rng.choice(QUERIES), rng)] = None
    return list(out)


def cache_root() -> Path:
    return Path(os.environ.get("MNEMEX_BENCH_CACHE", Path.home() / ".cache" / "mnemex-bench"))


def store_dir(size: int) -> Path:
    return cache_root() / f"g{GENERATOR_VERSION}s{STORE_LAYOUT}-{size}"


def settings_for(data_dir: Path) -> Settings:
    return Settings(data_dir=data_dir)


def build(size: int, embedder, *, log=print) -> dict:
    """The cached store of `size` memories (built now if missing); returns its build.json figures."""
    final = store_dir(size)
    if (final / "build.json").exists():
        return json.loads((final / "build.json").read_text())
    previous = cache_root() / f"g{GENERATOR_VERSION}s{STORE_LAYOUT - 1}-{size}"
    if (previous / "build.json").exists():
        return derive(size, previous, embedder, log=log)
    work = final.with_name(final.name + ".building")
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    engine = build_engine(settings_for(work / "data"), default_project=PROJECTS[0], embedder=embedder)
    try:
        items = memories(size)
        t0 = time.perf_counter()
        for start in range(0, size, 256):
            engine.memorize_many(items[start:start + 256], gated=False)
            if start and start % 5120 == 0:
                log(f"  built {start:,}/{size:,} ({start / (time.perf_counter() - t0):.0f}/s)")
        ingest_s = time.perf_counter() - t0
        t1 = time.perf_counter()
        engine.upkeep.optimize()
        optimize_s = time.perf_counter() - t1
        points = export_points(engine, work)
    finally:
        engine.close()
    figures = {"size": size, "points": points, "generator": GENERATOR_VERSION, "ingest_s": ingest_s,
               "docs_per_s": size / ingest_s,
               "optimize_s": optimize_s, "built_at": datetime.now(timezone.utc).isoformat(timespec="seconds")}
    (work / "build.json").write_text(json.dumps(figures, indent=1))
    shutil.rmtree(final, ignore_errors=True)
    work.rename(final)
    return figures


def derive(size: int, previous: Path, embedder, *, log=print) -> dict:
    """The cache of `size` in the current layout, from the cache of the layout before: its data
    dir copied, the store rebuilt from its own points (`rebuild_outdated`, what `mnemex reindex`
    ends with) and optimized. The same memories, payloads and journal; points.jsonl and dense.npy
    (the embedder's float32 vectors, for the baselines) are kept as they were."""
    final = store_dir(size)
    work = final.with_name(final.name + ".building")
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    working_copy(size, work, previous)
    for name in ("points.jsonl", "dense.npy"):
        shutil.copy2(previous / name, work / name)
    log(f"  deriving the {size:,} store from {previous.name}")
    engine = build_engine(settings_for(work / "data"), default_project=PROJECTS[0], embedder=embedder)
    try:
        t0 = time.perf_counter()
        rebuilt = engine.upkeep.rebuild_outdated()
        t1 = time.perf_counter()
        engine.upkeep.optimize()
        optimize_s = time.perf_counter() - t1
    finally:
        engine.close()
    figures = {**json.loads((previous / "build.json").read_text()), "derived_from": previous.name,
               "rebuilt": rebuilt, "rebuild_s": t1 - t0, "optimize_s": optimize_s,
               "built_at": datetime.now(timezone.utc).isoformat(timespec="seconds")}
    (work / "build.json").write_text(json.dumps(figures, indent=1))
    shutil.rmtree(final, ignore_errors=True)
    work.rename(final)
    return figures


def export_points(engine, dest: Path) -> int:
    """The stored points as the baselines need them: dense.npy (float32, one row a point) and
    points.jsonl (id, content, project, in the same order). Returns the number of points."""
    ids, rows = [], []
    offset = None
    with (dest / "points.jsonl").open("w") as out:
        while True:
            hits, offset = engine.store.scroll(MemoryFilter(), limit=1024, offset=offset, with_vectors=True)
            for hit in hits:
                ids.append(hit.id)
                rows.append(hit.dense)
                out.write(json.dumps({"id": hit.id, "content": hit.content, "project": hit.memory.project}) + "\n")
            if offset is None:
                break
    np.save(dest / "dense.npy", np.asarray(rows, dtype=np.float32))
    return len(ids)


def load_points(size: int) -> tuple[list[dict], np.ndarray]:
    root = store_dir(size)
    with (root / "points.jsonl").open() as f:
        points = [json.loads(line) for line in f]
    return points, np.load(root / "dense.npy")


def working_copy(size: int, dest: Path, source: Path | None = None) -> Path:
    """A copy of the cached store's data dir (or of `source`, another cache directory) under
    `dest`, for a run to use (and change) freely."""
    shutil.copytree((source or store_dir(size)) / "data", dest / "data", copy_function=copy_sparse)
    # written back now, as a store long on disk is: else the first flush of the copy pays for
    # writing back hundreds of MB of freshly copied pages (348 ms at 100k, 8 ms after a sync)
    os.sync()
    return dest / "data"
