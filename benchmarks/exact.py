"""Exact-term benchmark: does a question quoting one rare term find the one memory holding it?

    PYTHONPATH=. python benchmarks/exact.py [--data benchmarks/data/exact_terms.json] [--misses]

Developers paste error codes (`ERR-PAY-4021`, `E0502`, `40P01`), quoted error phrases, flags,
paths, environment variables, config keys and identifiers into their questions. The data
(`benchmarks/data/exact_terms.json`, format in `exact_terms.md`) was written blind to the read
path: four projects' memories, look-alikes that share the question's common words, near-miss
codes and many routine tool-run records (the same build succeeding again and again).

Every memory is memorized in time order through `MemoryEngine.memorize` (its kind, project and
`created_at`; the write path may split or merge knowledge). Each question is searched in its
project (`limit=10`, at the data's `now`); a returned memory is a hit when it holds the answer's
write (`benchmarks.updates.holding`) and contains the term. Per recipe: Recall@1/@5, MRR, and
"tool above" = share of questions where a tool-run record ranks above the first hit (or is
returned while the answer is not). Plain BM25 (`bm25_only`) is the floor the default must reach.
The `command` questions (marked `"blind": false`) were added after the read path was read; they
are reported apart.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import defaultdict
from datetime import datetime
from pathlib import Path
from typing import Any

from benchmarks.updates import _time, build, holding
from mnemex.config.gate import DEFAULT_GATE
from mnemex.config.retrieval import RECIPES, RetrievalConfig
from mnemex.models import MemoryKind, MemoryStatus, NewMemory, Provenance

DATA = Path(__file__).with_name("data") / "exact_terms.json"


def write_all(engine: Any, data: dict[str, Any], *, gated: bool = True) -> dict[str, set[str]]:
    """Memorize every memory in time order (`gated=False`: stored as formed, no prediction-error
    gate); the ids holding each key."""
    holders: dict[str, set[str]] = {}
    for item in sorted(data["memories"], key=lambda m: (m["at"], m["key"])):
        at = _time(item["at"])
        # one session per project and day: tool runs and notes of a day sit together, as captured
        session = f"{item['project'].rsplit('/', 1)[-1]}-{at:%Y-%m-%d}"
        new = NewMemory(content=item["content"], kind=MemoryKind(item["kind"]), project=item["project"],
                        created_at=at, provenance=Provenance(source="benchmark", session_id=session))
        holders[item["key"]] = holding(engine.memorize_many([new], gated=gated)[0])
    return holders


def lost_at_write(engine: Any, data: dict[str, Any], holders: dict[str, set[str]]) -> list[str]:
    """Answers no current memory holds any more with their term (the write gate superseded the
    memory, or the part of it, that held it): no read path can find them, whatever the recipe."""
    held = {m.id: m for m in engine.recall(sorted(set().union(*holders.values())), touch=False)}
    return sorted({q["answer"] for q in data["questions"]
                   if not any(i in held and held[i].status == MemoryStatus.ACTIVE
                              and q["term"].lower() in held[i].content.lower() for i in holders[q["answer"]])})


def evaluate(engine: Any, data: dict[str, Any], holders: dict[str, set[str]],
             config: RetrievalConfig | None = None) -> dict[str, Any]:
    """Search every question; per-question records and per-type averages."""
    now = _time(data["now"])
    options = {"config": config} if config is not None else {}
    records, latencies = [], []
    for q in data["questions"]:
        flt = engine.default_filter(project=q["project"])
        t0 = time.perf_counter()
        got = engine.search(q["question"], filter=flt, limit=10, now=now, **options)
        latencies.append(time.perf_counter() - t0)
        answer, term = holders[q["answer"]], q["term"].lower()
        first = next((i for i, r in enumerate(got) if r.memory.id in answer and term in r.memory.content.lower()), None)
        tools = [i for i, r in enumerate(got) if r.memory.kind == MemoryKind.TOOL_EVENT]
        records.append({
            "id": q["id"], "type": q["type"], "question": q["question"], "first": first,
            "r1": first == 0, "r5": first is not None and first < 5,
            "mrr": 0.0 if first is None else 1.0 / (first + 1),
            "tool_above": bool(tools) and (first is None or tools[0] < first),
            "top": [(r.memory.kind, r.memory.content[:80]) for r in got[:3]],
        })
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for q, rec in zip(data["questions"], records):
        groups[rec["type"]].append(rec)
        groups["overall" if q.get("blind", True) else "added"].append(rec)
    summary = {name: {"n": len(rows), **{m: sum(r[m] for r in rows) / len(rows)
                                         for m in ("r1", "r5", "mrr", "tool_above")}}
               for name, rows in groups.items()}
    latencies.sort()
    return {"summary": summary, "records": records, "p50_ms": 1000 * latencies[len(latencies) // 2]}


def table(results: dict[str, dict[str, Any]]) -> str:
    """Markdown: per recipe R@1, R@5, MRR, tool above — the blind questions, then those added
    later (if any); then R@5 per question type."""
    lines = ["| recipe | questions | R@1 | R@5 | MRR | tool run above answer | p50 ms |", "|---|---|---|---|---|---|---|"]
    for group, label in (("overall", "blind"), ("added", "added later")):
        for name, res in results.items():
            o = res["summary"].get(group)
            if o:
                lines.append(f"| {name} | {label} ({o['n']}) | {100 * o['r1']:.1f} | {100 * o['r5']:.1f} | "
                             f"{100 * o['mrr']:.1f} | {100 * o['tool_above']:.1f} | {res['p50_ms']:.1f} |")
    types = sorted(t for t in next(iter(results.values()))["summary"] if t not in ("overall", "added"))
    first = next(iter(results.values()))["summary"]
    lines += ["", "| R@5 by type | " + " | ".join(f"{t} ({first[t]['n']})" for t in types) + " |",
              "|---|" + "---|" * len(types)]
    for name, res in results.items():
        lines.append(f"| {name} | " + " | ".join(f"{100 * res['summary'][t]['r5']:.0f}" for t in types) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(DATA))
    ap.add_argument("--recipes", default="default,bm25_only", help=f"comma list of {', '.join(RECIPES)}")
    ap.add_argument("--misses", action="store_true", help="list the first recipe's questions missed in the top 5")
    ap.add_argument("--ungated", action="store_true",
                    help="store every memory as formed, without the write gate (isolates the read path)")
    a = ap.parse_args(argv)
    data = json.loads(Path(a.data).read_text())
    recipes = a.recipes.split(",")
    unknown = [r for r in recipes if r not in RECIPES]
    if unknown:
        print(f"exact.py: unknown recipe {unknown[0]!r}; choose from {', '.join(RECIPES)}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="mnemex-exact-") as tmp:
        engine = build(Path(tmp), DEFAULT_GATE)
        try:
            t0 = time.perf_counter()
            holders = write_all(engine, data, gated=not a.ungated)
            seconds = time.perf_counter() - t0
            lost = lost_at_write(engine, data, holders)
            results = {name: evaluate(engine, data, holders, RECIPES[name]) for name in recipes}
        finally:
            engine.close()
    tools = sum(m["kind"] == "tool_event" for m in data["memories"])
    print(f"{len(data['memories'])} memories ({tools} tool runs), {len(data['questions'])} questions ({a.data}); "
          f"written in {seconds:.0f} s{' without the gate' if a.ungated else ''}; "
          f"answers the write gate superseded (no recipe can find them): {len(lost)} {lost}\n")
    print(table(results))
    if a.misses:
        res = next(iter(results.values()))
        print(f"\nmisses of {recipes[0]} (answer not in the top 5; rank of the answer, top 3):")
        for rec in res["records"]:
            if not rec["r5"] or rec["tool_above"]:
                print(f"- {rec['id']} [{rec['type']}] {rec['question']!r}: rank {rec['first']}"
                      f"{' (tool run above)' if rec['tool_above'] else ''}")
                for kind, text in rec["top"]:
                    print(f"    {kind}: {text}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
