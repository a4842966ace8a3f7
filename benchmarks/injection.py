"""What the prompt hook injects: the relevant memory when there is one, nothing when there is none.

    PYTHONPATH=. python benchmarks/injection.py [--floors 0.3,0.2,0.1] [--budget 600]

Two coding projects' memories (benchmarks/data/coding_bench.json and coding_bench_2.json) in one
store, each under its own project. For each project's questions, asked as prompts in that
project, the context strategy's packed context at the prompt budget (`ContextBuilder`, as
UserPromptSubmit gets it):

* on-topic: the questions of the project itself — the share of their expected memories that
  are injected (whole or as a line);
* off-topic: questions about something else entirely — LoCoMo dev's questions about people's
  lives (`--offtopic`, default ../shared/bench/locomo/locomo-dev.json, the first 200) asked in
  each project: how many memories are injected per prompt, and for how many prompts anything is.
  (The other coding project's questions are no test of this: generic developer questions such
  as "how do I start the datastores locally" are rightly answered by this project's memories.)

`injection.min_relevance` (the floor) trades one against the other; each floor is one row.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

DATA = Path(__file__).with_name("data")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--floors", default="0.3,0.2,0.1")
    ap.add_argument("--budget", type=int, default=600)
    ap.add_argument("--offtopic", default=str(DATA.parent.parent.parent / "shared" / "bench" / "locomo" / "locomo-dev.json"))
    ap.add_argument("--offtopic-n", type=int, default=200)
    args = ap.parse_args(argv)

    from benchmarks.coding import case_id, case_memories
    from mnemex.config import Settings
    from mnemex.config.injection import InjectionSettings
    from mnemex.engine.factory import build_engine
    from mnemex.strategies.context import ContextBuilder, ContextRequest

    sets = [json.loads((DATA / name).read_text()) for name in ("coding_bench.json", "coding_bench_2.json")]
    if not Path(args.offtopic).exists():
        raise SystemExit(f"injection benchmark: no off-topic questions at {args.offtopic} (pass --offtopic)")
    offtopic = [qa["question"] for sample in json.loads(Path(args.offtopic).read_text())
                for qa in sample["qa"]][: args.offtopic_n]
    rows = []
    with tempfile.TemporaryDirectory(prefix="mnemex-injection-") as tmp:
        engine = build_engine(Settings(data_dir=Path(tmp)), default_project=sets[0]["project"])
        try:
            for data in sets:
                engine.import_memories(case_memories(data))
            for floor in (float(f) for f in args.floors.split(",")):
                builder = ContextBuilder(engine, InjectionSettings(min_relevance=floor))
                found, wanted, off_counts = 0, 0, []
                for data in sets:
                    for case in data["cases"]:
                        expect = {case_id(k) for k in case.get("expect", [])}
                        if not expect:
                            continue
                        packed = builder.build(ContextRequest(data["project"], task=case["query"], budget=args.budget),
                                               with_blocks=False, with_pinned=False)
                        found += len(expect & set(packed.ids))
                        wanted += len(expect)
                    for question in offtopic:
                        packed = builder.build(ContextRequest(data["project"], task=question, budget=args.budget),
                                               with_blocks=False, with_pinned=False)
                        off_counts.append(len(packed.ids))
                rows.append((floor, 100 * found / wanted, statistics.fmean(off_counts),
                             100 * sum(c > 0 for c in off_counts) / len(off_counts), len(off_counts)))
        finally:
            engine.close()
    print(f"prompt budget {args.budget} tokens; on-topic: {wanted} expected memories; off-topic: {rows[0][4]} prompts")
    print("| min_relevance | on-topic: expected memories injected | off-topic: memories injected per prompt | "
          "off-topic prompts given anything |")
    print("|---|---|---|---|")
    for floor, hit, per, share, _ in rows:
        print(f"| {floor} | {hit:.1f}% | {per:.2f} | {share:.1f}% |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
