"""LoCoMo dev with and without the lifecycle, question by question, in one process (issue 13).

    PYTHONPATH=.:src python benchmarks/locomo_dream.py [--data PATH]

Runs the referee's `evaluate` twice over the same data: `locomo.make_search_day_after` (the store
the day after the last session, no lifecycle) and `locomo.make_search_dream` (the same store after
a dream and a sweep), and prints both summaries and every question whose recall@5, recall@10 or
MRR moved. The two stores are built separately, and two builds of the same store can rank a few
questions differently, so a handful of moved questions is the build, not the dream: the same
command moved 0 and then 5 questions in two runs on the same code (benchmarks/RESULTS.md).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

REFEREE = Path(__file__).resolve().parents[2] / "shared" / "bench" / "locomo"
METRICS = ("recall@5", "recall@10", "mrr")


def moved(without: list[dict[str, Any]], with_: list[dict[str, Any]]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """The questions (by conversation and text) whose metrics differ between the two runs."""
    after = {(r["conv"], r["question"]): r for r in with_}
    out = []
    for r in without:
        other = after.get((r["conv"], r["question"]))
        if other is None or any(abs(r[m] - other[m]) > 1e-9 for m in METRICS):
            out.append((r, other or {}))
    return out


def summary(rows: list[dict[str, Any]]) -> str:
    n = max(1, len(rows))
    return " / ".join(f"{100 * sum(r[m] for r in rows) / n:.1f}" for m in METRICS)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=REFEREE / "locomo-dev.json")
    args = ap.parse_args(argv)
    if not args.data.is_file():
        print(f"error: no LoCoMo data at {args.data} (pass --data)", file=sys.stderr)
        return 2
    sys.path.insert(0, str(REFEREE))
    import locomo_recall  # the referee

    from benchmarks import locomo

    data = json.loads(args.data.read_text())
    runs = {name: locomo_recall.evaluate(data, factory, verbose=False)["per_question"]
            for name, factory in (("without", locomo.make_search_day_after), ("dream", locomo.make_search_dream))}
    print(f"{len(runs['without'])} questions; recall@5 / recall@10 / MRR")
    print(f"  the day after, no lifecycle : {summary(runs['without'])}")
    print(f"  the day after, dream + sweep: {summary(runs['dream'])}")
    changed = moved(runs["without"], runs["dream"])
    print(f"questions the dream moved: {len(changed)}")
    for before, after in changed:
        print(f"  {before['conv']} {before['question']!r}: " + ", ".join(
            f"{m} {before[m]:.2f} -> {after.get(m, float('nan')):.2f}" for m in METRICS))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
