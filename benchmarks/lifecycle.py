"""What the lifecycle changes in the read path, and what it costs.

    PYTHONPATH=src:. python benchmarks/lifecycle.py            # coding sets: default vs decayed importance
    PYTHONPATH=src:. python benchmarks/lifecycle.py --cost     # recall and search time, 500 memories

Every benchmark import is never recalled nor judged, so the utility and strength terms of the
composite score are 0 there; the coding-set comparison shows the one lifecycle signal that can
move them, importance after its half-life decay (`retrieval.weights.importance_decay`), on one
store per set. `--cost` times recalls (one payload write each, now with the lifecycle state) and
searches on a fresh store; run it with another version's `src` on the path to compare.
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
import uuid
from datetime import timedelta
from pathlib import Path

from benchmarks.coding import build, evaluate, exact_name_cases, table
from mnemex.config.retrieval import DEFAULT

SETS = ("benchmarks/data/coding_bench.json", "benchmarks/data/coding_bench_2.json")


def coding_sets() -> None:
    decayed = DEFAULT.model_copy(update={"weights": DEFAULT.weights.model_copy(update={"importance_decay": True})})
    for path in SETS:
        data = json.loads(Path(path).read_text())
        with tempfile.TemporaryDirectory(prefix="mnemex-lifecycle-") as tmp:
            engine = build(data, Path(tmp))
            try:
                cases = list(data["cases"]) + exact_name_cases(data)
                results = {"default": evaluate(engine, data, DEFAULT, cases),
                           "decayed importance": evaluate(engine, data, decayed, cases)}
            finally:
                engine.close()
        print(f"{path}\n{table(results)}\n")


def cost(n: int = 500, recalls: int = 300, searches: int = 100) -> None:
    from mnemex.config import Settings
    from mnemex.engine.factory import build_engine
    from mnemex.models import Memory, utcnow

    rng = random.Random(7)
    with tempfile.TemporaryDirectory(prefix="mnemex-lifecycle-") as tmp:
        engine = build_engine(Settings(data_dir=Path(tmp)), default_project="/p")
        try:
            now = utcnow()
            memories = [Memory(id=str(uuid.uuid4()), project="/p", recorded_at=now,
                               content=f"Service {i} of team {i % 17} listens on port {8000 + i} behind gateway {i % 5}",
                               created_at=now - timedelta(days=i % 90), valid_from=now - timedelta(days=i % 90))
                        for i in range(n)]
            engine.import_memories(memories)
            engine.upkeep.optimize()
            ids = [m.id for m in memories]
            recall_times, search_times = [], []
            for _ in range(recalls):
                t = time.perf_counter()
                engine.recall([rng.choice(ids)])
                recall_times.append(time.perf_counter() - t)
            for i in range(searches):
                t = time.perf_counter()
                engine.search(f"which port does service {i} of team {i % 17} use?", limit=10)
                search_times.append(time.perf_counter() - t)
        finally:
            engine.close()
    recall_times.sort()
    search_times.sort()
    print(f"recall p50 {1000 * recall_times[len(recall_times) // 2]:.2f} ms, "
          f"p95 {1000 * recall_times[int(0.95 * (len(recall_times) - 1))]:.2f} ms; "
          f"search p50 {1000 * search_times[len(search_times) // 2]:.1f} ms, "
          f"p95 {1000 * search_times[int(0.95 * (len(search_times) - 1))]:.1f} ms")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cost", action="store_true", help="time recalls and searches instead")
    args = ap.parse_args(argv)
    cost() if args.cost else coding_sets()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
