"""Ablation of the read path on LoCoMo dev: the default recipe, then each stage switched off
(or an optional stage switched on), all scored by the referee's `evaluate()`.

    PYTHONPATH=. python benchmarks/ablation.py [--data ../shared/bench/locomo/locomo-dev.json]
    PYTHONPATH=. python benchmarks/ablation.py --only 0,6 --per-conversation

Each conversation is indexed once (through the same engine API as `benchmarks/locomo.py`) and
every variant runs `MemoryEngine.search(..., config=variant)` on those stores, so the variants
differ only in the read path. Prints a markdown table (Recall@5 / Recall@10 per category, MRR,
latency). `--per-conversation` prints, instead, Recall@10 per conversation (all questions, and
open-domain alone) for each variant: a gain that comes from one conversation only is a gain
fitted to a few questions, not one that will hold on conversations the pipeline has never seen.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path
from typing import Any

from benchmarks.locomo import build_conversation, searcher
from mnemex.config.retrieval import (
    BM25_ONLY,
    DEFAULT,
    DENSE_ONLY,
    PLAIN_RRF,
    SEED_ROUTER,
    RetrievalConfig,
)

REFEREE = Path(__file__).resolve().parents[2] / "shared" / "bench" / "locomo" / "locomo_recall.py"
CATS = (("4", "single-hop"), ("1", "multi-hop"), ("2", "temporal"), ("3", "open-domain"), ("5", "adversarial"))


def variants() -> list[tuple[str, RetrievalConfig]]:
    d = DEFAULT
    w = d.weights
    return [
        ("default", d),
        ("- neighbour propagation", d.model_copy(update={"propagation": False})),
        ("- question→answer adjacency (uniform 0.3/0.2)", d.model_copy(update={"answer_weight": 0.3, "follow_weight": 0.3})),
        ("- composite re-score", d.model_copy(update={"composite": False})),
        ("- entity boost", d.model_copy(update={"weights": w.model_copy(update={"entity": 0.0})})),
        ("- activation/importance/utility", d.model_copy(update={"weights": w.model_copy(update={"activation": 0.0, "importance": 0.0, "utility": 0.0})})),
        ("- intent routing (hypothetical → dense 0.7)", d.model_copy(update={"intent_routing": False})),
        ("- temporal parsing", d.model_copy(update={"temporal": False})),
        ("- lexical agreement rule (unrelated best BM25 match → dense 0.8)", d.model_copy(update={"agreement_floor": 0.0})),
        ("- vocabulary rule (< 80 % of query words in memory → dense 0.8)", d.model_copy(update={"vocabulary_floor": 0.0})),
        ("- query expansion (nearest memory words)", d.model_copy(update={"expansion": False})),
        ("expansion floor 0.7, 2 words", d.model_copy(update={"expansion_floor": 0.7, "expansion_terms": 2})),
        ("+ decomposition (sub-queries fused by RRF)", d.model_copy(update={"decomposition": True})),
        ("- exact-term floor (rare exact term holders at least at their BM25 rank)", d.model_copy(update={"exact_floor": False})),
        ("- exact-term anchor (a rare exact term held keeps BM25's weight)", d.model_copy(update={"exact_anchor": False})),
        ("+ vocabulary rule weighs words by IDF", d.model_copy(update={"vocabulary_idf": True})),
        ("+ any word held by 1-3 memories anchors (not only exact terms)", d.model_copy(update={"anchor_max_df": 3})),
        ("score fusion → weighted RRF", d.model_copy(update={"fusion": "rrf", "dense_weight": 1.0, "sparse_weight": 1.0})),
        ("+ dedupe (cos > 0.97)", d.model_copy(update={"dedupe_above": 0.97})),
        ("+ MMR λ=0.7", d.model_copy(update={"mmr": True})),
        ("+ template HyDE", d.model_copy(update={"hyde": True})),
        ("+ seed intent router", SEED_ROUTER),
        ("+ context neighbours (context_of)", d.model_copy(update={"context_neighbours": True})),
        ("candidates 100 (not 50)", d.model_copy(update={"candidates": 100})),
        ("plain RRF (dense + BM25, K=60)", PLAIN_RRF),
        ("BM25 only (Qdrant Edge Bm25)", BM25_ONLY),
        ("dense only (MiniLM)", DENSE_ONLY),
    ]


def load_referee(path: Path) -> Any:
    spec = importlib.util.spec_from_file_location("locomo_recall", path)
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--referee", default=str(REFEREE))
    ap.add_argument("--data", default=None, help="default: locomo-dev.json beside the referee")
    ap.add_argument("--only", default=None, help="comma list of variant numbers (0 = default)")
    ap.add_argument("--per-conversation", action="store_true",
                    help="Recall@10 per conversation (all / open-domain) instead of per category")
    a = ap.parse_args(argv)
    referee = load_referee(Path(a.referee))
    import json

    data = json.load(open(a.data or Path(a.referee).with_name("locomo-dev.json")))
    stores: dict[str, Any] = {}

    def factory_for(config: RetrievalConfig):
        def factory(memories: list[dict]):
            conv = memories[0]["conv"]
            if conv not in stores:
                stores[conv] = build_conversation(memories)
            engine, back = stores[conv]
            return searcher(engine, back, config)
        return factory

    chosen = variants()
    if a.only:
        keep = {int(x) for x in a.only.split(",")}
        chosen = [v for i, v in enumerate(chosen) if i in keep]
    if a.per_conversation:
        print(per_conversation_table(referee, data, chosen, factory_for))
        return
    header = ("| variant | " + " | ".join(f"{name} R@5/R@10" for _, name in CATS)
              + " | overall R@5 | overall R@10 | MRR | p50 ms | p95 ms |")
    rows = [header, "|" + "---|" * (header.count("|") - 1)]
    for name, config in chosen:
        res = referee.evaluate(data, factory_for(config), ks=(5, 10), verbose=False)
        s, t = res["summary"], res["timing"]
        cells = [f"{100 * s[c]['recall@5']:.1f} / {100 * s[c]['recall@10']:.1f}" for c, _ in CATS]
        row = (f"| {name} | " + " | ".join(cells) + f" | {100 * s['overall']['recall@5']:.1f} | "
               f"{100 * s['overall']['recall@10']:.1f} | {100 * s['overall']['mrr']:.1f} | "
               f"{t['query_ms_p50']:.1f} | {t['query_ms_p95']:.1f} |")
        rows.append(row)
        print(row, file=sys.stderr, flush=True)
    print("\n".join(rows))


def per_conversation_table(referee: Any, data: list, chosen: list[tuple[str, RetrievalConfig]],
                           factory_for: Any) -> str:
    """Markdown: one row per variant, one column per conversation, cells 'all / open-domain' R@10."""
    convs = [sample["sample_id"] for sample in data]
    rows = ["| variant | " + " | ".join(convs) + " |", "|" + "---|" * (len(convs) + 1)]
    for name, config in chosen:
        res = referee.evaluate(data, factory_for(config), ks=(10,), verbose=False)
        cells = []
        for conv in convs:
            mine = [q for q in res["per_question"] if q["conv"] == conv]
            od = [q["recall@10"] for q in mine if q["category"] == 3]
            every = [q["recall@10"] for q in mine]
            cell = f"{100 * sum(every) / len(every):.1f}" if every else "–"
            cells.append(cell + (f" / {100 * sum(od) / len(od):.1f}" if od else " / –"))
        rows.append(f"| {name} | " + " | ".join(cells) + " |")
        print(rows[-1], file=sys.stderr, flush=True)
    return "\n".join(rows)


if __name__ == "__main__":
    main()
