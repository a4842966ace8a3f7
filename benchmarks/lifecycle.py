"""What the lifecycle changes in the read path, and what it costs.

    PYTHONPATH=src:. python benchmarks/lifecycle.py            # coding sets: default vs decayed importance
    PYTHONPATH=src:. python benchmarks/lifecycle.py --cost     # recall and search time, 500 memories
    PYTHONPATH=src:. python benchmarks/lifecycle.py --dream    # coding sets before/after a dream; its pause of searches

Every benchmark import is never recalled nor judged, so the utility and strength terms of the
composite score are 0 there; the coding-set comparison shows the one lifecycle signal that can
move them, importance after its half-life decay (`retrieval.weights.importance_decay`), on one
store per set. `--dream` runs a dream cycle at each coding set's `now` and compares the set before
and after it (a theme memory answers for the memories it superseded), then times a dream over a
store of near-duplicates, expired plans and chatter while another thread searches, and reports the
longest search during it. `--cost` times recalls (one payload write each, now with the lifecycle state) and
searches on a fresh store; run it with another version's `src` on the path to compare.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import statistics
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


def dream_on_coding_sets() -> None:
    from datetime import datetime

    for path in SETS:
        data = json.loads(Path(path).read_text())
        with tempfile.TemporaryDirectory(prefix="mnemex-dream-") as tmp:
            engine = build(data, Path(tmp))
            try:
                cases = list(data["cases"]) + exact_name_cases(data)
                before = evaluate(engine, data, DEFAULT, cases)
                report = engine.dream(now=datetime.fromisoformat(data["now"]))
                aliases = {m.id: m.metadata["theme_of"] for m in engine.export() if m.metadata.get("theme_of")}
                after = evaluate(_ThemeAware(engine, aliases), data, DEFAULT, cases)
            finally:
                engine.close()
        print(f"{path}: dream {report.elapsed_seconds:.2f} s, {report.themes} themes ({report.merged} merged), "
              f"dormant {report.forgotten}, {report.rehearsed} rehearsed, {report.flashbulbs} flashbulbs\n"
              f"{table({'before dream': before, 'after dream': after})}\n")


class _ThemeAware:
    """The engine, with each theme memory in results followed by the members it superseded (so a
    case expecting a member finds it where the theme ranks)."""

    def __init__(self, engine, aliases):  # type: ignore[no-untyped-def]
        self._engine, self._aliases = engine, aliases

    def search(self, query, **options):  # type: ignore[no-untyped-def]
        out = []
        for r in self._engine.search(query, **options):
            out.append(r)
            for member in self._aliases.get(r.memory.id, ()):
                out.append(dataclasses.replace(r, memory=self._engine.get(member)))
        return out


def dream_pause(n: int = 3000) -> None:
    """A dream over `n` memories (a third near-duplicate triples, expired plans, chatter) while
    another thread searches without pause: the longest search during the dream vs before it."""
    import threading

    from mnemex.config import Settings
    from mnemex.engine.factory import build_engine
    from mnemex.models import Memory, MemoryKind, utcnow

    rng = random.Random(11)
    with tempfile.TemporaryDirectory(prefix="mnemex-dream-") as tmp:
        engine = build_engine(Settings(data_dir=Path(tmp)), default_project="/p")
        try:
            now = utcnow()
            memories = []
            for i in range(n):
                age = timedelta(days=rng.randint(10, 300))
                if i % 3 == 0:
                    base = i - i % 9
                    text = [f"Service svc{base} of team {base % 17} listens on port {8000 + base} behind gateway {base % 5}",
                            f"svc{base} (team {base % 17}) listens on port {8000 + base}, behind gateway {base % 5}",
                            f"The port of service svc{base} of team {base % 17} is {8000 + base}, behind gateway {base % 5}"][(i // 3) % 3]
                    kind, until = MemoryKind.FACT, None
                elif i % 3 == 1:
                    text, kind, until = f"We plan to upgrade library lib{i} to version {i % 7 + 2} by Friday", MemoryKind.PLAN, now - timedelta(days=rng.randint(1, 30))
                else:
                    text, kind, until = f"Chatter {i}: the build on branch feature-{i} took {i % 13 + 2} minutes today", MemoryKind.NOTE, None
                memories.append(Memory(id=str(uuid.uuid4()), project="/p", content=text, kind=kind, recorded_at=now - age,
                                       created_at=now - age, valid_from=now - age, valid_until=until))
            engine.import_memories(memories)
            engine.upkeep.optimize()
            engine.upkeep.flush_pending()  # as the daemon does when no call comes, before it dreams
            queries = [f"which port does service svc{i - i % 9} use?" for i in range(0, n, 3)]

            def searches(stop: threading.Event, times: list[float], asked: list[int]) -> None:
                i = 0
                while not stop.is_set():
                    t = time.perf_counter()
                    engine.search(queries[i % len(queries)], limit=10)
                    times.append(time.perf_counter() - t)
                    asked.append(i % len(queries))
                    i += 1

            baseline: list[float] = []
            base_q: list[int] = []
            stop = threading.Event()
            worker = threading.Thread(target=searches, args=(stop, baseline, base_q))
            worker.start()
            time.sleep(5)
            stop.set()
            worker.join()
            during: list[float] = []
            during_q: list[int] = []
            stop = threading.Event()
            worker = threading.Thread(target=searches, args=(stop, during, during_q))
            worker.start()
            report = engine.dream(now=now, limit=100_000)
            stop.set()
            worker.join()
        finally:
            engine.close()
    # the wait the dream added to a call: its latency less the same query's latency alone (the
    # queries the loop alone reached)
    alone_of: dict[int, list[float]] = {}
    for q, lat in zip(base_q, baseline):
        alone_of.setdefault(q, []).append(lat)
    added = [lat - statistics.median(alone_of[q]) for q, lat in zip(during_q, during) if q in alone_of]
    baseline.sort()
    during.sort()
    print(f"{n} memories: dream {report.elapsed_seconds:.1f} s ({report.compared} compared, {report.themes} themes, "
          f"{report.merged} merged, dormant {report.forgotten}, {report.rehearsed} rehearsed)")
    print(f"search alone: p50 {1000 * baseline[len(baseline) // 2]:.1f} ms, max {1000 * baseline[-1]:.1f} ms "
          f"({len(baseline)} searches); during the dream: p50 {1000 * during[len(during) // 2]:.1f} ms, "
          f"max {1000 * during[-1]:.1f} ms ({len(during)} searches); longest wait added to a call "
          f"{1000 * max(added, default=0.0):.1f} ms (over the {len(added)} calls whose query also ran alone)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cost", action="store_true", help="time recalls and searches instead")
    ap.add_argument("--dream", action="store_true", help="the coding sets before and after a dream, and its pause of searches")
    args = ap.parse_args(argv)
    if args.dream:
        dream_on_coding_sets()
        dream_pause()
    else:
        cost() if args.cost else coding_sets()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
