"""Token economy on LoCoMo: how much evidence the context strategy puts in front of the agent
within a token budget, beside what search_memory's top 5 / top 10 hold.

    PYTHONPATH=. python benchmarks/tokens.py [--data ../shared/bench/locomo/locomo-dev.json] [--budgets 200,500,800,2000]

Memories and questions come from the referee (`../shared/bench/locomo/locomo_recall.py`: its
`build_memories` and `normalize_evidence`, imported, not copied); every conversation is its own
store built by the LoCoMo adapter (`benchmarks.locomo.build_conversation`). For each question:

* search: `MemoryEngine.search(question, limit=10)` (the search_memory path): Recall@5 and
  Recall@10 (share of the evidence turns among the results), and the tokens (tiktoken
  cl100k) of the top 10 memories' text;
* search_memory as the agent sees it: the same 10 results less those under the tool's
  confidence floor (`injection.search_min_confidence`), rendered as the tool renders them
  (`render.search_text`: previews cut at the preview length) — Recall@5/@10 by id ("any"), at
  @10 also "whole" (the preview holds the whole turn), and the rendered text's tokens;
* context: the context strategy's packed output for the question as the task
  (`ContextBuilder.build`, the shipped `[injection]` settings, the `memory_context` prompt's
  path) at each budget: the share of evidence turns whose whole text is inside the output
  ("whole"), and the share whose id is in it at all, whole or as a one-line preview ("any").
  The output's own tokens (header and footer included) never exceed the budget.

Overall = every question with evidence (categories 1-5, as the referee's "overall").
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
REFEREE = ROOT.parent / "shared" / "bench" / "locomo" / "locomo_recall.py"
DEFAULT_DATA = REFEREE.with_name("locomo-dev.json")


def load_referee(path: Path) -> Any:
    if not path.exists():
        raise SystemExit(f"tokens benchmark: no referee at {path} (pass --referee)")
    spec = importlib.util.spec_from_file_location("locomo_recall", path)
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


def flat(text: str) -> str:
    return " ".join(text.split())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(DEFAULT_DATA))
    ap.add_argument("--referee", default=str(REFEREE))
    ap.add_argument("--budgets", default="200,500,800,2000")
    ap.add_argument("--json-out", default=None, help="per-question figures, for error analysis")
    ap.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                    help="override an [injection] setting, e.g. --set min_relevance=0 (ablations)")
    args = ap.parse_args(argv)
    budgets = [int(b) for b in args.budgets.split(",")]

    from benchmarks.locomo import build_conversation
    from mnemex.config.injection import InjectionSettings
    from mnemex import render
    from mnemex.engine.tokens import estimate_tokens
    from mnemex.views import search_result
    from mnemex.strategies.context import ContextBuilder, ContextRequest

    referee = load_referee(Path(args.referee))
    data = json.loads(Path(args.data).read_text())
    settings = InjectionSettings(**dict(item.split("=", 1) for item in args.set))
    rows: list[dict[str, Any]] = []
    started = time.perf_counter()
    for sample in data:
        memories = referee.build_memories(sample)
        valid = {m["id"] for m in memories}
        engine, back = build_conversation(memories)
        project = f"locomo/{memories[0]['conv']}" if memories else None
        text_of = {m["id"]: flat(m["text"]) for m in memories}  # what the adapter stored as content
        builder = ContextBuilder(engine, settings)
        for qa in sample["qa"]:
            gold, _bad = referee.normalize_evidence(qa.get("evidence", []), valid)
            if not gold:
                continue
            gold_set = set(gold)
            found = engine.search(qa["question"], limit=10)
            got = [back.get(r.memory.id, r.memory.id) for r in found]
            row: dict[str, Any] = {
                "conv": sample["sample_id"], "category": qa["category"], "question": qa["question"],
                "recall@5": len(gold_set & set(got[:5])) / len(gold_set),
                "recall@10": len(gold_set & set(got[:10])) / len(gold_set),
                "top10_tokens": sum(estimate_tokens(r.memory.content) for r in found[:10]),
            }
            kept = [r for r in found[:10] if r.confidence >= settings.search_min_confidence]
            shown = search_result(kept)
            tool_text = render.search_text(shown.results, hidden=len(found[:10]) - len(kept),
                                           floor=settings.search_min_confidence)
            ids = [back.get(h.id, h.id) for h in shown.results]
            whole_hits = {back.get(h.id, h.id) for h in shown.results if flat(h.preview) == text_of.get(back.get(h.id, h.id))}
            row["tool@5"] = len(gold_set & set(ids[:5])) / len(gold_set)
            row["tool@10"] = len(gold_set & set(ids)) / len(gold_set)
            row["tool_whole@10"] = len(gold_set & whole_hits) / len(gold_set)
            row["tool_tokens"] = estimate_tokens(tool_text)
            for budget in budgets:
                packed = builder.build(ContextRequest(project, task=qa["question"], budget=budget),
                                       with_blocks=False, with_pinned=False)
                assert packed.tokens <= budget, (budget, packed.tokens)
                inside = {back.get(i, i) for i in packed.ids}
                whole = {g for g in gold_set if g in inside and text_of[g] in packed.text}
                row[f"whole@{budget}"] = len(whole) / len(gold_set)
                row[f"any@{budget}"] = len(gold_set & inside) / len(gold_set)
                row[f"tokens@{budget}"] = packed.tokens
                row[f"count@{budget}"] = len(packed.ids)
            rows.append(row)
        engine.close()
        print(f"{sample['sample_id']}: {sum(r['conv'] == sample['sample_id'] for r in rows)} questions "
              f"({time.perf_counter() - started:.0f} s)", file=sys.stderr)

    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        groups["overall"].append(r)
        groups[f"category {r['category']}"].append(r)

    def mean(name: str, items: list[dict[str, Any]]) -> float:
        return 100 * statistics.fmean(r[name] for r in items)

    print(f"LoCoMo {Path(args.data).name}: {len(rows)} questions with evidence, "
          f"{len(data)} conversations, {time.perf_counter() - started:.0f} s")
    print("\n| questions | n | search R@5 | search R@10 | top-10 tokens (median) | search_memory R@5 | "
          "search_memory R@10 whole / any | its tokens (median) | "
          + " | ".join(f"context {b} whole / any" for b in budgets) + " |")
    print("|---|---|---|---|---|---|---|---|" + "---|" * len(budgets))
    for name in ["overall"] + sorted(k for k in groups if k != "overall"):
        items = groups[name]
        cells = " | ".join(f"{mean(f'whole@{b}', items):.1f} / {mean(f'any@{b}', items):.1f}" for b in budgets)
        print(f"| {name} | {len(items)} | {mean('recall@5', items):.1f} | {mean('recall@10', items):.1f} | "
              f"{statistics.median(r['top10_tokens'] for r in items):.0f} | {mean('tool@5', items):.1f} | "
              f"{mean('tool_whole@10', items):.1f} / {mean('tool@10', items):.1f} | "
              f"{statistics.median(r['tool_tokens'] for r in items):.0f} | {cells} |")
    items = groups["overall"]
    print("\n| budget | median tokens used | median memories packed | mean memories packed |")
    print("|---|---|---|---|")
    for b in budgets:
        print(f"| {b} | {statistics.median(r[f'tokens@{b}'] for r in items):.0f} | "
              f"{statistics.median(r[f'count@{b}'] for r in items):.0f} | "
              f"{statistics.fmean(r[f'count@{b}'] for r in items):.1f} |")
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
