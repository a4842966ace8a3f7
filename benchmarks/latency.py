"""Speed of the real stack: write throughput and search latency at several store sizes.

    python benchmarks/latency.py --sizes 1000,10000 --queries 200

Builds a fresh embedded store per size from synthetic coding-agent memories (templated,
seeded, so every run is the same), then times `MemoryEngine.search` (the search_memory
path, query embedding included; each query is new, so the embedding cache does not help)
and single gated `memorize` calls. Searches are timed twice: right after the bulk write, with
the new points still in unoptimized segments, and after `optimize()`, the state the daemon
brings a store to in its idle time (every `store.optimize_every` writes). Results go to
stdout as a markdown table.
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import tempfile
import time
from pathlib import Path

from mnemex.config import Settings
from mnemex.engine.factory import build_embedder, build_engine
from mnemex.models import MemoryKind, NewMemory

SUBJECTS = ["the API server", "the billing worker", "the auth service", "the CI pipeline", "the web frontend",
            "the search indexer", "the mobile app", "the data importer", "the admin panel", "the cache layer"]
FACTS = ["listens on port {n}", "is deployed with {tool} from the {branch} branch", "needs Python 3.{m} or newer",
         "reads its settings from config/{word}.toml", "logs to /var/log/{word}.log",
         "fails with error E{n} when the {word} queue is full", "is owned by the {word} team",
         "uses {tool} for background jobs", "must pass `make {word}` before merging",
         "caches {word} lookups for {m} minutes"]
TOOLS = ["ArgoCD", "Flux", "Celery", "RQ", "Sidekiq", "Temporal", "Airflow", "Dagster", "Nomad", "Helm"]
WORDS = ["orders", "invoices", "users", "sessions", "payments", "reports", "events", "metrics", "uploads", "alerts",
         "emails", "tokens", "webhooks", "audits", "exports", "imports", "schedules", "quotas", "tenants", "plans"]
QUERIES = ["which port does {s} listen on", "how is {s} deployed", "what breaks {s}", "where does {s} log",
           "who owns {s}", "what does {s} use for background jobs", "{word} error in {s}"]


def synthetic(n: int, rng: random.Random) -> list[str]:
    out = []
    for i in range(n):
        fact = rng.choice(FACTS).format(n=rng.randint(1000, 9999), tool=rng.choice(TOOLS), m=rng.randint(8, 13),
                                        branch=rng.choice(["main", "release", "develop"]), word=rng.choice(WORDS))
        out.append(f"{rng.choice(SUBJECTS).capitalize()} {fact} (note {i}).")
    return out


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(p * (len(values) - 1)))]


def run(size: int, queries: int, embedder, rng: random.Random) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=Path(tmp))
        engine = build_engine(settings, default_project="/bench", embedder=embedder)
        try:
            texts = synthetic(size, rng)
            t0 = time.perf_counter()
            for start in range(0, size, 256):
                engine.memorize_many([NewMemory(content=t, kind=MemoryKind.EPISODE)
                                      for t in texts[start:start + 256]], gated=False)
            index_s = time.perf_counter() - t0
            qs = [rng.choice(QUERIES).format(s=rng.choice(SUBJECTS), word=rng.choice(WORDS)) + f" #{i}"
                  for i in range(queries)]
            engine.search("warm up", limit=10)
            raw = timed_searches(engine, qs)
            t1 = time.perf_counter()
            engine.upkeep.optimize()
            optimize_s = time.perf_counter() - t1
            lat = timed_searches(engine, [q + " again" for q in qs])
            writes = []
            for i in range(min(50, queries)):
                t1 = time.perf_counter()
                engine.memorize(NewMemory(content=f"{rng.choice(SUBJECTS)} now {rng.choice(FACTS)} v{i}".format(
                    n=i, tool="Helm", m=i % 5 + 8, branch="main", word=rng.choice(WORDS))))
                writes.append((time.perf_counter() - t1) * 1000)
        finally:
            engine.close()
    return {"size": size, "index_s": index_s, "rate": size / index_s, "optimize_s": optimize_s,
            "raw50": statistics.median(raw), "raw95": pct(raw, 0.95),
            "p50": statistics.median(lat), "p95": pct(lat, 0.95), "w50": statistics.median(writes),
            "w95": pct(writes, 0.95)}


def timed_searches(engine, queries: list[str]) -> list[float]:
    lat = []
    for q in queries:
        t1 = time.perf_counter()
        engine.search(q, limit=10)
        lat.append((time.perf_counter() - t1) * 1000)
    return lat


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="1000,10000")
    ap.add_argument("--queries", type=int, default=200)
    args = ap.parse_args()
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as cache:
        embedder = build_embedder(Settings(data_dir=Path(cache)))
        embedder.load()
        rows = [run(int(s), args.queries, embedder, rng) for s in args.sizes.split(",")]
    print(f"machine: {platform.machine()}, {platform.python_implementation()} {platform.python_version()}, "
          f"{__import__('os').cpu_count()} cores")
    print("| memories | index (s) | memories/s | search p50 / p95 before optimize (ms) | optimize (s) "
          "| search p50 (ms) | search p95 (ms) | memorize p50 (ms) | memorize p95 (ms) |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['size']:,} | {r['index_s']:.1f} | {r['rate']:.0f} | {r['raw50']:.2f} / {r['raw95']:.2f} "
              f"| {r['optimize_s']:.1f} | {r['p50']:.2f} | {r['p95']:.2f} | {r['w50']:.2f} | {r['w95']:.2f} |")


if __name__ == "__main__":
    main()
