"""Can anything learned from the gate's own evidence tell a real update from a look-alike at write time?

    PYTHONPATH=.:src python benchmarks/separability.py [--data A.json B.json ...] [--no-embedding]

Issue 12 asks for write-time supersede recall >= 0.8 at precision >= 0.95 with the deterministic,
offline default. The rules (`engine/statements`) reach 81 % on the first update set and 29-50 % on
the blind ones. This asks whether a better combination of the same evidence could do it, or whether
the evidence itself does not separate the two:

1. Every update set is written through `MemoryEngine.memorize` in time order (as
   `benchmarks/updates.py` does), and each (new statement, stored neighbour) pair the gate compares
   is recorded with what the rules read of it: cosine, rank, shared subject both ways, change cue,
   values and names changed, left-behind names, negation flip, conflict, switch-off, the verdict.
   With the embedding (default) each pair also gets MiniLM's |a - b| and a * b (the usual
   sentence-pair features).
2. A pair is positive when the neighbour holds an earlier statement of the same update item.
3. A logistic regression (numpy, L2, standardised features) is trained on all sets but one and
   tested on the one left out: for each new statement its best-scoring neighbour is superseded
   when the score clears the threshold. Recall is over the set's update steps, precision over
   every supersede it would make (look-alikes and distractors alike).

The row "best recall at held-out precision >= 95 %" chooses the threshold on the held-out set
itself: a bound no real threshold reaches. Results: `benchmarks/RESULTS.md`.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks import updates  # noqa: E402

SETS = [ROOT / "benchmarks" / "data" / f"updates_bench{s}.json" for s in ("", "_2", "_3", "_4", "_5")]
RELATIONS = ("replaces", "may_replace", "restates", "none")


current: dict[str, Any] = {}


@contextmanager
def recording(rows: list[dict[str, Any]]):
    """Record every pair the write gate compares (the engine's own `decide`, unchanged)."""
    import mnemex.engine.write.path as path
    from mnemex.engine.statements import compare, conflict, evidence, read
    from mnemex.engine.statements.compare import aboutness, switched_off

    decide = path.decide

    def recorded(new_text, kind, importance, neighbours, config, *, entities=(), lexical=frozenset()):
        new = read(new_text, tuple(entities))
        ranked = sorted(neighbours, key=lambda ms: -ms[1])
        best = ranked[0][1] if ranked else 0.0
        for rank, (m, sim) in enumerate(ranked):
            old = read(m.content, tuple(m.entities))
            e = evidence(old, new)
            rows.append({"new": new_text, "old": m.content, "old_id": m.id, "event": current.get("event"), "features": [
                sim, min(rank, 10) / 10, best - sim, m.id in lexical, e.subject, e.reverse, bool(e.left_hit),
                e.typed_change, e.swapped, min(len(e.came_names), 4) / 4, min(len(e.came_values), 4) / 4,
                min(len(e.gone_values), 4) / 4, min(len(e.extra), 10) / 10, min(len(e.missing), 10) / 10,
                e.negation_flip, bool(e.named_again), e.same_shape, new.change, bool(conflict(old, new)),
                bool(switched_off(old, new)), new.restating, new.additive, bool(new.left_spans),
                aboutness(e.subject, sim), *(str(compare(old, new, sim).relation) == r for r in RELATIONS)]})
        return decide(new_text, kind, importance, neighbours, config, entities=entities, lexical=lexical)

    path.decide = recorded
    try:
        yield
    finally:
        path.decide = decide


def pairs(data_file: Path) -> tuple[list[dict[str, Any]], int]:
    """The compared pairs of one set, labelled, and the number of its update steps."""
    from mnemex.config.gate import DEFAULT_GATE

    data = json.loads(data_file.read_text())
    updates.seed_ids(7)
    rows: list[dict[str, Any]] = []
    step_of = {(item["id"], st["text"]): step for item in data["updates"] + data["separate"]
               for step, st in enumerate(item["statements"])}
    with tempfile.TemporaryDirectory() as tmp, recording(rows):
        engine = updates.build(Path(tmp), DEFAULT_GATE)
        memorize = engine.memorize

        def tracked(new):  # which statement of which item is being written (ids, not texts: the
            item = new.provenance.session_id  # write path may reword "we" and redact)
            current["event"] = (item, step_of.get((item, new.content)))
            return memorize(new)

        engine.memorize = tracked
        try:
            run = updates.write_all(engine, data)
        finally:
            engine.close()
    owner = {mid: key for key, ids in run.holders.items() for mid in ids}
    steps = sum(len(u["statements"]) - 1 for u in data["updates"])
    for r in rows:
        item, step = r["event"] or (None, None)
        old_item, old_step = owner.get(r["old_id"], (None, None))
        r["step"] = (item, step)
        r["label"] = bool(item and item.startswith("u") and step is not None and old_item == item
                          and old_step is not None and old_step < step)
    return rows, steps


def with_embedding(sets: list[list[dict[str, Any]]]) -> None:
    from mnemex.config import Settings
    from mnemex.embed.dense import embedder_for

    texts = sorted({t for rows in sets for r in rows for t in (r["new"], r["old"])})
    vectors = dict(zip(texts, np.asarray(embedder_for(Settings()).embed_documents(texts), dtype=np.float32)))
    for rows in sets:
        for r in rows:
            a, b = vectors[r["new"]], vectors[r["old"]]
            r["features"] = list(r["features"]) + list(np.abs(a - b)) + list(a * b)


def fit(x: np.ndarray, y: np.ndarray, l2: float = 1e-3, steps: int = 600, rate: float = 0.5):
    """Logistic regression by full-batch gradient descent on standardised features; a scorer."""
    mean, std = x.mean(0), x.std(0) + 1e-6
    z = (x - mean) / std
    w, b = np.zeros(z.shape[1]), 0.0
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(z @ w + b)))
        g = p - y
        w -= rate * (z.T @ g / len(y) + l2 * w)
        b -= rate * g.mean()
    return lambda xs: 1 / (1 + np.exp(-(((xs - mean) / std) @ w + b)))


def best_pairs(score, rows: list[dict[str, Any]]) -> list[tuple[float, dict[str, Any]]]:
    """Each new statement's best-scoring neighbour, best first: what the model would supersede."""
    p = score(np.asarray([r["features"] for r in rows], dtype=np.float64))
    best: dict[tuple, tuple[float, dict[str, Any]]] = {}
    for r, pr in zip(rows, p):
        key = (r["step"], r["new"])
        if key not in best or pr > best[key][0]:
            best[key] = (float(pr), r)
    return sorted(best.values(), key=lambda b: -b[0])


def scores(ranked: list[tuple[float, dict[str, Any]]], steps: int, threshold: float) -> tuple[float, float]:
    """(recall over the update steps, precision over the supersedes made) at `threshold`."""
    made = [r for pr, r in ranked if pr >= threshold]
    right = {r["step"] for r in made if r["label"]}
    return len(right) / steps, (len(right) / len(made) if made else 1.0)


def bound(ranked: list[tuple[float, dict[str, Any]]], steps: int, precision: float = 0.95) -> float:
    """The best recall any threshold gives at `precision` or more, chosen on these very pairs."""
    right: set = set()
    made, best = 0, 0.0
    for _, r in ranked:
        made += 1
        if r["label"]:
            right.add(r["step"])
        if len(right) / made >= precision:
            best = max(best, len(right) / steps)
    return best


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", nargs="+", default=[str(s) for s in SETS])
    ap.add_argument("--no-embedding", action="store_true", help="the rules' evidence alone")
    args = ap.parse_args(argv)
    files = [Path(f) for f in args.data]
    if len(files) < 2:
        ap.error("at least two sets: one is left out in turn")
    found = [pairs(f) for f in files]
    sets, steps = [rows for rows, _ in found], [n for _, n in found]
    if not args.no_embedding:
        with_embedding(sets)
    for i, f in enumerate(files):
        print(f"{f.name}: {len(sets[i])} compared pairs, {sum(r['label'] for r in sets[i])} of them an update "
              f"and its earlier statement; {steps[i]} update steps")
    print("\n| held out | recall / precision at 0.5 | at 0.7 | at 0.9 | best recall at held-out precision >= 95 % |")
    print("|---|---|---|---|---|")
    for i, f in enumerate(files):
        train = [r for j, rows in enumerate(sets) if j != i for r in rows]
        score = fit(np.asarray([r["features"] for r in train], dtype=np.float64),
                    np.asarray([float(r["label"]) for r in train]))
        ranked = best_pairs(score, sets[i])
        cells = []
        for t in (0.5, 0.7, 0.9):
            rc, pc = scores(ranked, steps[i], t)
            cells.append(f"{100 * rc:.1f} / {100 * pc:.1f}")
        print(f"| {f.stem} | {' | '.join(cells)} | {100 * bound(ranked, steps[i]):.1f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
