"""Knowledge-update benchmark: does mnemex keep today's answer first, and keep look-alikes apart?

    PYTHONPATH=. python benchmarks/updates.py [--data benchmarks/data/updates_bench.json] [--misses]
    PYTHONPATH=. python benchmarks/updates.py --gate seed        # the first gate (SEED_GATE), to compare

The data (`benchmarks/data/updates_bench.json`, format in `updates_bench.md`) was written blind to
the engine: projects' histories where a later statement replaces an earlier one (renames, tools
replaced, ports moved, workflows switched off and replaced, numbers and policies changed), pairs
that only look alike (elaborations, siblings, a second setting, another component or environment,
compound statements, restatements) and ordinary distractors (routine tool runs among them).

Every statement is memorized in time order through `MemoryEngine.memorize` (its project, `created_at`
from the data; distractors with their kind, the rest classified by the engine). Then:

* write time — an update step is *caught* when the later statement's outcome superseded a memory
  holding the earlier one (chains: each step). Precision counts against it every supersede of
  anything else, and every look-alike pair whose later statement superseded, merged into or was
  skipped as a duplicate of the earlier one (a restatement may reinforce it), and every part of a
  compound statement that was skipped or folded into its sibling;
* read time — each update question is searched (`limit=10`, at the data's `now`, the item's
  project): Recall@1/@5 of the current answer (a returned memory holding it), and *stale above
  current*: a memory holding only an earlier statement ranks above the first one holding the
  current answer (or the current answer is not returned at all while a stale one is). Look-alike
  questions: Recall@5 of their answer.

`--informed` runs the same with a perfectly informed agent: each replacing statement is memorized
with `supersedes=[the ids holding the statement before it]` — an upper bound, reported apart.
`--judging` runs it with an agent that only judges what `memorize` offers, as the server tells it
to: when the candidates of a write hold the statement it replaces, it memorizes the statement again
with `supersedes=[those ids]` (it judges perfectly, but sees nothing memorize did not offer).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from mnemex.config.gate import DEFAULT_GATE, SEED_GATE, GateConfig
from mnemex.config.retrieval import RECIPES, RetrievalConfig
from mnemex.models import MemoryKind, NewMemory, Provenance, ValidityMode, WriteAction, WriteOutcome

DATA = Path(__file__).with_name("data") / "updates_bench.json"


def seed_ids(seed: int) -> None:
    """Memory ids from a seeded generator: ids break ties between equal scores (in the store's
    results and in the fusion), so with random ids two runs of the same code differed by a
    question or so on the read side. Benchmark only: the engine's ids stay random."""
    rng = random.Random(seed)
    uuid.uuid4 = lambda: uuid.UUID(int=rng.getrandbits(128), version=4)  # type: ignore[assignment]
GATES = {"default": DEFAULT_GATE, "seed": SEED_GATE}


@dataclass(frozen=True)
class Event:
    at: datetime
    project: str
    text: str
    kind: str | None  # distractors carry their kind; the rest are classified by the engine
    item: str  # "u001", "s004" or "d17"
    step: int  # the statement's position in its item


@dataclass
class Run:
    outcomes: dict[tuple[str, int], WriteOutcome] = field(default_factory=dict)
    holders: dict[tuple[str, int], set[str]] = field(default_factory=dict)
    seconds: float = 0.0


def events(data: dict[str, Any]) -> list[Event]:
    out = []
    for item in data["updates"] + data["separate"]:
        for step, st in enumerate(item["statements"]):
            out.append(Event(_time(st["at"]), item["project"], st["text"], None, item["id"], step))
    for n, d in enumerate(data["distractors"]):
        out.append(Event(_time(d["at"]), d["project"], d["text"], d["kind"], f"d{n}", 0))
    return sorted(out, key=lambda e: (e.at, e.item, e.step))


def _time(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def parts(out: WriteOutcome) -> list[WriteOutcome]:
    return [out, *out.also]


def holding(out: WriteOutcome) -> set[str]:
    """The memories that hold a statement after its write: what it created, merged into,
    reinforced or was skipped as a duplicate of."""
    ids: set[str] = set()
    for part in parts(out):
        if part.action == WriteAction.SKIPPED:
            ids.update(part.affected_ids)
        elif part.id:
            ids.add(part.id)
    return ids


def build(data_dir: Path, gate: GateConfig):
    from mnemex.config import Settings
    from mnemex.engine.factory import build_engine

    return build_engine(Settings(data_dir=data_dir, gate=gate), default_project=None)


def write_all(engine: Any, data: dict[str, Any], *, informed: bool = False, judging: bool = False) -> Run:
    run = Run()
    updates = {u["id"] for u in data["updates"]}
    t0 = time.perf_counter()
    for ev in events(data):
        supersedes: tuple[str, ...] = ()
        if informed and ev.item in updates and ev.step > 0:
            supersedes = tuple(sorted(_current(engine, run.holders[(ev.item, ev.step - 1)])))
        new = NewMemory(content=ev.text, project=ev.project, created_at=ev.at, supersedes=supersedes,
                        kind=MemoryKind(ev.kind) if ev.kind else None,
                        provenance=Provenance(source="benchmark", session_id=ev.item))
        out = engine.memorize(new)
        held = holding(out)
        if judging and ev.item in updates and ev.step > 0:
            offered = {c.id for p in parts(out) for c in p.candidates}
            replaced = sorted(offered & _current(engine, run.holders[(ev.item, ev.step - 1)]))
            if replaced:  # the agent says what the statement replaces, as the server asks it to
                out = engine.memorize(new.model_copy(update={"supersedes": tuple(replaced)}))
                held |= holding(out)
        run.outcomes[(ev.item, ev.step)] = out
        run.holders[(ev.item, ev.step)] = held
    run.seconds = time.perf_counter() - t0
    return run


def _current(engine: Any, ids: set[str]) -> set[str]:
    return {m.id for m in engine.recall(sorted(ids), touch=False) if m.status == "active"}


def write_scores(data: dict[str, Any], run: Run) -> dict[str, Any]:
    """Supersede recall and precision at write time, with the cases behind them."""
    caught, missed, wrong, damaged, offered = [], [], [], [], []
    earlier: dict[tuple[str, int], set[str]] = {}
    for item in data["updates"] + data["separate"]:
        seen: set[str] = set()
        for step in range(len(item["statements"])):
            earlier[(item["id"], step)] = set(seen)
            seen |= run.holders[(item["id"], step)]
    for u in data["updates"]:
        for step in range(1, len(u["statements"])):
            before = run.holders[(u["id"], step - 1)]
            out = run.outcomes[(u["id"], step)]
            hit = any(p.action == WriteAction.SUPERSEDED and set(p.affected_ids) & before for p in parts(out))
            (caught if hit else missed).append((u["id"], step, u["kind"], out))
            if not hit and any(c.id in before for p in parts(out) for c in p.candidates):
                offered.append((u["id"], step))
    owner = {mid: key for key, ids in run.holders.items() for mid in ids}
    for (item, step), out in run.outcomes.items():
        allowed = earlier.get((item, step), set()) if item.startswith("u") else set()
        for p in parts(out):
            if p.action == WriteAction.SUPERSEDED and set(p.affected_ids) - allowed:
                replaced = sorted(owner.get(m, ("?", 0)) for m in set(p.affected_ids) - allowed)
                wrong.append((item, step, out, replaced))
    writes = len(run.outcomes)
    offers = sum(len(p.candidates) for out in run.outcomes.values() for p in parts(out))
    right_offers = sum(c.id in run.holders[(u["id"], step - 1)] for u in data["updates"]
                       for step in range(1, len(u["statements"]))
                       for p in parts(run.outcomes[(u["id"], step)]) for c in p.candidates)
    lookalikes = [s for s in data["separate"] if len(s["statements"]) > 1 and s["kind"] != "restatement"]
    lookalikes_offered = sum(any(c.id in run.holders[(s["id"], 0)] for p in parts(run.outcomes[(s["id"], 1)])
                                 for c in p.candidates) for s in lookalikes)
    by_id = {s["id"]: s for s in data["separate"]}
    for sid, s in by_id.items():
        if s["kind"] == "compound" or len(s["statements"]) == 1:
            out = run.outcomes[(sid, 0)]
            own = {p.id for p in parts(out) if p.action == WriteAction.CREATED}
            if any(p.action == WriteAction.SKIPPED or (p.action != WriteAction.CREATED and p.id in own)
                   for p in parts(out)):
                damaged.append((sid, 0, s["kind"], out))
            continue
        first = run.holders[(sid, 0)]
        out = run.outcomes[(sid, 1)]
        for p in parts(out):
            if p.action == WriteAction.SUPERSEDED and set(p.affected_ids) & first:
                continue  # counted among the wrong supersedes
            if (p.action == WriteAction.UPDATED and p.id in first) or (
                    p.action == WriteAction.SKIPPED and set(p.affected_ids) & first) or (
                    p.action == WriteAction.REINFORCED and p.id in first and s["kind"] != "restatement"):
                damaged.append((sid, 1, s["kind"], out))
                break
    steps = len(caught) + len(missed)
    false = len(wrong) + len(damaged)
    return {"steps": steps, "caught": len(caught), "recall": len(caught) / steps if steps else 0.0,
            "wrong_supersedes": len(wrong), "lookalikes_damaged": len(damaged),
            "precision": len(caught) / (len(caught) + false) if caught or false else 1.0,
            "missed": missed, "wrong": wrong, "damaged": damaged, "offered": len(offered),
            "writes": writes, "offers": offers, "right_offers": right_offers,
            "lookalikes": len(lookalikes), "lookalikes_offered": lookalikes_offered,
            "recall_by_kind": _by_kind(caught, missed)}


def _by_kind(caught: list, missed: list) -> dict[str, str]:
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for _, _, kind, _ in caught:
        counts[kind][0] += 1
        counts[kind][1] += 1
    for _, _, kind, _ in missed:
        counts[kind][1] += 1
    return {k: f"{c}/{n}" for k, (c, n) in sorted(counts.items())}


def read_scores(engine: Any, data: dict[str, Any], run: Run, config: RetrievalConfig | None = None,
                timeline: bool = False) -> dict[str, Any]:
    """Recall of the current answer and stale-above-current for the update questions; Recall@5
    of the look-alike questions."""
    now = _time(data["now"])
    options = {"config": config} if config is not None else {}
    recs, stale_cases, marked = [], [], 0
    for u in data["updates"]:
        flt = engine.default_filter(project=u["project"],
                                    **({"validity": ValidityMode.TIMELINE} if timeline else {}))
        got = engine.search(u["question"], filter=flt, limit=10, now=now, **options)
        answer = u["current_answer"].lower()
        old = set().union(*(run.holders[(u["id"], k)] for k in range(len(u["statements"]) - 1)))
        current = [i for i, r in enumerate(got) if answer in r.memory.content.lower()]
        stale = [i for i, r in enumerate(got) if r.memory.id in old and answer not in r.memory.content.lower()]
        first_current = current[0] if current else None
        above = bool(stale) and (first_current is None or stale[0] < first_current)
        marked += sum(1 for i in stale if got[i].outdated_by)
        # the reader is told: the stale one above is marked outdated by, or said otherwise by, the current one
        told = above and first_current is not None and got[first_current].memory.id in (
            got[stale[0]].outdated_by, got[stale[0]].said_otherwise_by)
        recs.append({"r1": first_current == 0, "r5": first_current is not None and first_current < 5,
                     "stale_above": above, "stale_returned": bool(stale), "stale_above_told": told})
        if above or first_current is None or first_current >= 5:
            stale_cases.append((u["id"], u["kind"], u["question"], first_current, stale[:1],
                                [r.memory.content[:90] for r in got[:3]]))
    look: list[bool] = []
    look1: list[bool] = []
    look_marked: list[bool] = []
    lookalike_misses: list[tuple] = []
    by_kind: dict[str, list[bool]] = defaultdict(list)
    for s in data["separate"]:
        flt = engine.default_filter(project=s["project"])
        for q in s["questions"]:
            got = engine.search(q["question"], filter=flt, limit=5, now=now, **options)
            hit = any(q["answer"].lower() in r.memory.content.lower() for r in got)
            look.append(hit)
            look1.append(bool(got) and q["answer"].lower() in got[0].memory.content.lower())
            holder = next((r for r in got if q["answer"].lower() in r.memory.content.lower()), None)
            look_marked.append(holder is not None and bool(holder.outdated_by or holder.said_otherwise_by))
            if not look1[-1]:
                lookalike_misses.append((s["id"], s["kind"], q["question"], q["answer"],
                                         [(r.memory.content[:90], r.why[-2:]) for r in got[:2]]))
            by_kind[s["kind"]].append(hit)
    n = len(recs)
    return {"questions": n, "r1": sum(r["r1"] for r in recs) / n, "r5": sum(r["r5"] for r in recs) / n,
            "stale_above": sum(r["stale_above"] for r in recs) / n,
            "stale_above_untold": sum(r["stale_above"] and not r["stale_above_told"] for r in recs) / n,
            "lookalike_marked": sum(look_marked) / len(look_marked),
            "stale_returned": sum(r["stale_returned"] for r in recs) / n, "stale_marked": marked,
            "lookalike_r5": sum(look) / len(look), "lookalike_r1": sum(look1) / len(look1), "lookalike_by_kind": {k: f"{sum(v)}/{len(v)}" for k, v in
                                                                           sorted(by_kind.items())},
            "misses": stale_cases, "lookalike_misses": lookalike_misses}


def evaluate(data: dict[str, Any], data_dir: Path, *, gate: GateConfig = DEFAULT_GATE, informed: bool = False,
             recipes: tuple[str, ...] = ("default",), judging: bool = False) -> dict[str, Any]:
    engine = build(data_dir, gate)
    try:
        run = write_all(engine, data, informed=informed, judging=judging)
        out = {"write": write_scores(data, run), "write_seconds": run.seconds,
               "read": {name: read_scores(engine, data, run, RECIPES[name]) for name in recipes}}
        if "bm25_only" in recipes:  # plain BM25 over everything ever written, superseded included
            out["read"]["bm25_everything"] = read_scores(engine, data, run, RECIPES["bm25_only"], timeline=True)
        return out
    finally:
        engine.close()


def report(name: str, res: dict[str, Any]) -> str:
    w = res["write"]
    lines = [f"## {name}", "",
             f"write time ({res['write_seconds']:.0f} s): supersede recall {w['caught']}/{w['steps']} = "
             f"{100 * w['recall']:.1f}%, precision {100 * w['precision']:.1f}% "
             f"(wrong supersedes {w['wrong_supersedes']}, look-alikes merged/skipped {w['lookalikes_damaged']})",
             f"missed but offered to the agent as a possible replacement (`candidates`, `supersedes=` can act on it): "
             f"{w['offered']}/{len(w['missed'])}",
             f"offers to the agent: {w['offers']} candidates over {w['writes']} writes "
             f"({w['offers'] / max(w['writes'], 1):.2f} per write), {w['right_offers']} of them the statement replaced; "
             f"look-alike pairs whose later statement was offered the earlier one (a trap for the judge): "
             f"{w['lookalikes_offered']}/{w['lookalikes']}",
             f"recall by kind: {w['recall_by_kind']}", "",
             "| read recipe | R@1 current | R@5 current | stale above current | ... and the reader not told | "
             "stale returned | look-alike R@1 | R@5 | look-alike answer marked |",
             "|---|---|---|---|---|---|---|---|---|"]
    for recipe, r in res["read"].items():
        lines.append(f"| {recipe} | {100 * r['r1']:.1f} | {100 * r['r5']:.1f} | {100 * r['stale_above']:.1f} | "
                     f"{100 * r['stale_above_untold']:.1f} | {100 * r['stale_returned']:.1f} | "
                     f"{100 * r['lookalike_r1']:.1f} | {100 * r['lookalike_r5']:.1f} | {100 * r['lookalike_marked']:.1f} |")
    first = next(iter(res["read"].values()))
    lines += ["", f"look-alike R@5 by kind: {first['lookalike_by_kind']}"]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(DATA))
    ap.add_argument("--gate", default="default", choices=sorted(GATES))
    ap.add_argument("--informed", action="store_true", help="also run with a perfectly informed agent (supersedes=)")
    ap.add_argument("--offer-at", type=float, default=None, metavar="COS",
                    help="the gate's offer_at (least cosine for an uncued neighbour given otherwise to be offered; 1 = off)")
    ap.add_argument("--judging", action="store_true",
                    help="also run with an agent that judges (perfectly) only the candidates memorize offers")
    ap.add_argument("--recipes", default="default,bm25_only", help=f"read recipes: {', '.join(RECIPES)}")
    ap.add_argument("--misses", action="store_true", help="list missed supersedes, wrong ones and read misses")
    ap.add_argument("--id-seed", type=int, default=0, help="seed of the memory ids (ties between equal scores follow them)")
    a = ap.parse_args(argv)
    seed_ids(a.id_seed)
    data = json.loads(Path(a.data).read_text())
    recipes = tuple(a.recipes.split(","))
    unknown = [r for r in recipes if r not in RECIPES]
    if unknown:
        print(f"updates.py: unknown recipe {unknown[0]!r}", file=sys.stderr)
        return 2
    runs = [(f"gate {a.gate}", False, False)] + (
        [(f"gate {a.gate}, perfectly informed agent (upper bound)", True, False)] if a.informed else []) + (
        [(f"gate {a.gate}, an agent judging what memorize offers", False, True)] if a.judging else [])
    print(f"{len(data['updates'])} update items, {len(data['separate'])} look-alike items, "
          f"{len(data['distractors'])} distractors ({a.data})\n")
    for name, informed, judging in runs:
        with tempfile.TemporaryDirectory(prefix="mnemex-updates-") as tmp:
            gate = GATES[a.gate] if a.offer_at is None else GATES[a.gate].model_copy(update={"offer_at": a.offer_at})
            res = evaluate(data, Path(tmp), gate=gate, informed=informed, recipes=recipes, judging=judging)
        print(report(name, res) + "\n")
        if a.misses:
            w = res["write"]
            for item, step, kind, out in w["missed"]:
                print(f"missed {item}/{step} [{kind}]: {out.action} {out.reason[:100]}")
            text = {(e.item, e.step): e.text for e in events(data)}
            for item, step, out, replaced in w["wrong"]:
                print(f"wrong supersede {item}/{step}: {out.reason[:100]}\n  new: {text[(item, step)][:150]}")
                for key in replaced:
                    print(f"  replaced {key[0]}/{key[1]}: {text.get(key, '?')[:150]}")
            for item, step, kind, out in w["damaged"]:
                print(f"look-alike damaged {item}/{step} [{kind}]: {out.action} {out.reason[:100]}")
            for case in next(iter(res["read"].values()))["misses"]:
                print("read miss", case)
            for case in next(iter(res["read"].values()))["lookalike_misses"]:
                print("look-alike R@1 miss", case)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
