"""Coding-agent retrieval benchmark: one project's memories, developer questions, expected hits.

    PYTHONPATH=. python benchmarks/coding.py [--data benchmarks/data/coding_bench.json] [--misses]
    PYTHONPATH=. python benchmarks/coding.py --ablation     # the LoCoMo ablation's variants, on this set

LoCoMo measures conversations; mnemex's users are coding agents. This file runs a second, very
different set through the same read path: decisions, conventions, paths, identifiers in every
case style, error messages, commands, superseded facts, time-bound questions and distractors
that share words with the right answer. The data (`benchmarks/data/coding_bench.json`) was
written without looking at the engine, and nothing is tuned on it: it is a check that what was
tuned on LoCoMo holds elsewhere.

Case file format (also used by tests/data/coding_cases.json):
  now, project, memories: [{key, kind, days_ago, session, order?, superseded_days_ago?, content}],
  cases: [{query, type?, expect: [key], absent?: [key]}]
On top of the written cases, `exact_name` cases are generated: each code name that occurs in
exactly one current memory is pasted alone as the query (it must come back first).
A memory with `superseded_days_ago` is stored superseded (valid until then), as the write path
would have left it. Each case is searched with `limit=10` at `now`; metrics per case type:
Recall@1/@3/@5 of the expected keys, MRR of the first one, and "stale" = share of cases where a
superseded memory listed in `absent` came back in the top 5.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
import uuid
from collections import defaultdict
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from mnemex.config.retrieval import RECIPES, RetrievalConfig
from mnemex.models import Memory, MemoryKind, MemoryStatus, Provenance, Scope

NAMESPACE = uuid.UUID("2f9c8c55-1d8e-4b8e-8f0f-6d6e656d6578")
DATA = Path(__file__).with_name("data") / "coding_bench.json"
KS = (1, 3, 5)


def case_id(key: str) -> str:
    """The memory id of a case-file key (uuid5, stable across runs)."""
    return str(uuid.uuid5(NAMESPACE, key))


def case_memories(data: dict[str, Any]) -> list[Memory]:
    """The case file's memories as mnemex memories, with their times and superseded status."""
    now = datetime.fromisoformat(data["now"])
    out = []
    for item in data["memories"]:
        created = now - timedelta(days=item["days_ago"]) + timedelta(seconds=item.get("order", 0))
        superseded = item.get("superseded_days_ago")
        out.append(Memory(
            id=case_id(item["key"]), content=item["content"], kind=MemoryKind(item["kind"]), scope=Scope.PROJECT,
            project=data["project"], provenance=Provenance(source="user", session_id=item["session"]),
            created_at=created, recorded_at=created, valid_from=created,
            status=MemoryStatus.SUPERSEDED if superseded is not None else MemoryStatus.ACTIVE,
            valid_until=now - timedelta(days=superseded) if superseded is not None else None,
        ))
    return out


_NAME = re.compile(r"(?<![A-Za-z0-9])[A-Za-z0-9]++(?:[_./-][A-Za-z0-9]++)+|\b[A-Za-z]*[a-z][A-Z][A-Za-z0-9]*\b")


def _code_like(name: str) -> bool:
    """snake_case, a path, a dotted or camelCase name, or a kebab name of 3+ parts or with a digit;
    not prose compounds ("follow-up", "e.g.") or numbers."""
    parts = re.split(r"[_./-]", name)
    if not any(sum(c.isalpha() for c in p) >= 2 for p in parts):
        return False
    if re.search(r"[_/]|[a-z][A-Z]", name) or re.search(r"[A-Za-z]\.[A-Za-z]", name):
        return True
    return len(parts) >= 3 or any(c.isdigit() for c in name)


def exact_name_cases(data: dict[str, Any]) -> list[dict[str, Any]]:
    """Generated cases: every code name (see `_code_like`, 5+ characters) that only one current
    memory mentions, in any case style, pasted alone as the query. An agent does this all the time
    ("where is poll_carrier_status") and expects that memory first."""
    def joined(name: str) -> str:
        return re.sub(r"[^a-z0-9]", "", name.lower())

    spelled: dict[str, str] = {}
    holders: dict[str, set[str]] = defaultdict(set)
    for item in data["memories"]:
        if item.get("superseded_days_ago") is not None:
            continue
        for name in _NAME.findall(item["content"]):
            name = name.strip("./-")
            if len(name) >= 5 and _code_like(name):
                spelled.setdefault(joined(name), name)
                holders[joined(name)].add(item["key"])
    # a name is unique when no other current memory mentions it in any spelling
    for item in data["memories"]:
        if item.get("superseded_days_ago") is None:
            text = joined(item["content"])
            for key in holders:
                if key in text:
                    holders[key].add(item["key"])
    return [{"query": spelled[key], "type": "exact_name", "expect": sorted(keys)}
            for key, keys in sorted(holders.items()) if len(keys) == 1]


def evaluate(engine: Any, data: dict[str, Any], config: RetrievalConfig | None = None,
             cases: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """Run every case (default: the file's) through `engine.search`; per-case records and per-type averages."""
    now = datetime.fromisoformat(data["now"])
    names = {case_id(m["key"]): m["key"] for m in data["memories"]}
    options = {"config": config} if config is not None else {}
    records, latencies = [], []
    for case in data["cases"] if cases is None else cases:
        t0 = time.perf_counter()
        got = [names.get(r.memory.id, r.memory.id) for r in engine.search(case["query"], limit=10, now=now, **options)]
        latencies.append(time.perf_counter() - t0)
        expect = case["expect"]
        if not expect:
            raise ValueError(f"case {case['query']!r} expects nothing: give at least one key")
        rec: dict[str, Any] = {"query": case["query"], "type": case.get("type", "case"), "expect": expect, "got": got}
        for k in KS:
            rec[f"recall@{k}"] = len(set(expect) & set(got[:k])) / len(expect)
        first = next((i for i, key in enumerate(got) if key in expect), None)
        rec["mrr"] = 0.0 if first is None else 1.0 / (first + 1)
        rec["stale"] = float(any(key in got[:5] for key in case.get("absent", [])))
        records.append(rec)
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for rec in records:
        groups[rec["type"]].append(rec)
        if rec["type"] != "exact_name":  # generated cases are reported on their own
            groups["overall"].append(rec)
    metrics = [f"recall@{k}" for k in KS] + ["mrr", "stale"]
    summary = {name: {"n": len(rows), **{m: sum(r[m] for r in rows) / len(rows) for m in metrics}}
               for name, rows in groups.items()}
    latencies.sort()
    return {"summary": summary, "records": records,
            "p50_ms": 1000 * latencies[len(latencies) // 2],
            "p95_ms": 1000 * latencies[min(len(latencies) - 1, int(0.95 * (len(latencies) - 1)))]}


def build(data: dict[str, Any], data_dir: Path):
    """A fresh engine on an embedded store in `data_dir`, holding the case file's memories."""
    from mnemex.config import Settings
    from mnemex.engine.factory import build_engine

    engine = build_engine(Settings(data_dir=data_dir), default_project=data["project"])
    engine.import_memories(case_memories(data))
    return engine


def table(results: dict[str, dict[str, Any]]) -> str:
    """Markdown: one row per recipe; per type Recall@3 (exact_name: Recall@1), then overall
    (written cases only) R@1/R@3/R@5, MRR, stale."""
    types = sorted({t for res in results.values() for t in res["summary"] if t != "overall"})
    head = ("| recipe | " + " | ".join(f"{t} R@1" if t == "exact_name" else f"{t} R@3" for t in types)
            + " | overall R@1 | R@3 | R@5 | MRR | stale | p50 ms | p95 ms |")
    rows = [head, "|" + "---|" * (head.count("|") - 1)]
    for name, res in results.items():
        s = res["summary"]
        cells = [f"{100 * s[t]['recall@1' if t == 'exact_name' else 'recall@3']:.0f}" if t in s else "–" for t in types]
        o = s["overall"]
        rows.append(f"| {name} | " + " | ".join(cells)
                    + f" | {100 * o['recall@1']:.1f} | {100 * o['recall@3']:.1f} | {100 * o['recall@5']:.1f}"
                    + f" | {100 * o['mrr']:.1f} | {100 * o['stale']:.1f} | {res['p50_ms']:.1f} | {res['p95_ms']:.1f} |")
    counts = ", ".join(f"{t} {results[next(iter(results))]['summary'][t]['n']}" for t in types)
    return "\n".join(rows) + f"\n\ncases per type: {counts}"


#: Case types whose question quotes an exact term (an error message, a code name, a pasted name):
#: on these the read path must do at least as well as plain BM25 (issue 12).
EXACT_TYPES = ("error", "identifier", "exact_name")


def by_type(results: dict[str, dict[str, Any]], floor: str = "bm25_only") -> str:
    """Markdown: one row per case type, R@1 and R@5 per recipe, and whether the first recipe's R@5
    reaches `floor`'s; then the exact-term types together."""
    names = list(results)
    first = results[names[0]]["summary"]
    types = sorted(t for t in first if t != "overall")
    head = "| type | n | " + " | ".join(f"{n} R@1 | {n} R@5" for n in names) + f" | {names[0]} R@5 ≥ {floor} |"
    rows = [head, "|" + "---|" * (head.count("|") - 1)]

    def row(label: str, n: int, cells: dict[str, tuple[float, float]]) -> str:
        ok = "–" if floor not in cells else ("yes" if cells[names[0]][1] >= cells[floor][1] - 1e-9 else "**no**")
        return (f"| {label} | {n} | " + " | ".join(f"{100 * cells[m][0]:.1f} | {100 * cells[m][1]:.1f}" for m in names)
                + f" | {ok} |")

    for t in types:
        rows.append(row(t, first[t]["n"], {m: (results[m]["summary"][t]["recall@1"], results[m]["summary"][t]["recall@5"])
                                           for m in names}))
    exact = [t for t in EXACT_TYPES if t in first]
    if exact:
        def pooled(m: str, metric: str) -> float:
            recs = [r for r in results[m]["records"] if r["type"] in exact]
            return sum(r[metric] for r in recs) / len(recs)
        n = sum(first[t]["n"] for t in exact)
        rows.append(row("**" + "+".join(exact) + "**", n, {m: (pooled(m, "recall@1"), pooled(m, "recall@5")) for m in names}))
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(DATA))
    ap.add_argument("--recipes", default="default,plain_rrf,bm25_only,dense_only,fast",
                    help=f"comma list of {', '.join(RECIPES)}")
    ap.add_argument("--misses", action="store_true", help="list the first recipe's cases that miss in the top 3")
    ap.add_argument("--ablation", action="store_true",
                    help="run the variants of benchmarks/ablation.py instead of the recipes")
    ap.add_argument("--no-exact-names", action="store_true",
                    help="skip the generated exact_name cases (each unique code name pasted alone as the query)")
    ap.add_argument("--coactivation-boost", type=float, default=None, metavar="X",
                    help="set retrieval.coactivation_boost to X in every recipe run (the cases hold no recall history)")
    a = ap.parse_args(argv)
    data = json.loads(Path(a.data).read_text())
    unknown = [r for r in a.recipes.split(",") if r not in RECIPES]
    if unknown:
        print(f"coding.py: unknown recipe {unknown[0]!r}; choose from {', '.join(RECIPES)}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="mnemex-coding-") as tmp:
        engine = build(data, Path(tmp))
        try:
            cases = list(data["cases"]) + ([] if a.no_exact_names else exact_name_cases(data))
            if a.ablation:
                from benchmarks.ablation import variants

                chosen = variants()
            else:
                chosen = [(name, RECIPES[name]) for name in a.recipes.split(",")]
            if a.coactivation_boost is not None:
                chosen = [(name, config.model_copy(update={"coactivation_boost": a.coactivation_boost}))
                          for name, config in chosen]
            results = {name: evaluate(engine, data, config, cases) for name, config in chosen}
        finally:
            engine.close()
    print(f"{len(data['memories'])} memories, {len(data['cases'])} written cases + "
          f"{len(cases) - len(data['cases'])} generated exact_name cases ({a.data})\n")
    print(table(results))
    print("\nper case type (the exact-term types must reach bm25_only's R@5):\n")
    print(by_type(results))
    if a.misses:
        first = next(iter(results.values()))
        print("\nmisses (expected not in the top 3):")
        for rec in first["records"]:
            if rec["recall@3"] < 1.0:
                print(f"- [{rec['type']}] {rec['query']!r}: expected {rec['expect']}, got {rec['got'][:3]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
