"""Same stores, two versions: does a change alter what search returns? For restructuring work.

Search results vary a little between runs for reasons outside the read path (the order Qdrant
Edge keeps points in after an import decides ties; Python's string hashing changes set order),
so comparing two benchmark runs cannot prove two versions rank the same. This script takes
those out: it builds (or reopens) one store per LoCoMo dev conversation in DIR and writes every
question's top 10 to OUT, with a fixed clock. Run it with PYTHONHASHSEED=0, once with `--build`,
then with each version on the same DIR, and compare the OUT files:

    PYTHONHASHSEED=0 PYTHONPATH=. python benchmarks/equivalence.py /tmp/eq base.json --build
    (in a worktree of the other version)  PYTHONHASHSEED=0 PYTHONPATH=src:. python .../equivalence.py /tmp/eq other.json
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent.parent / "shared" / "bench" / "locomo"))

import locomo_recall as referee  # noqa: E402

from benchmarks import locomo as adapter  # noqa: E402
from mnemex.config import Settings  # noqa: E402
from mnemex.engine.factory import build_engine  # noqa: E402

NOW = datetime.fromisoformat("2026-11-22T12:00:00+00:00")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir", type=Path, help="one store per conversation is kept here")
    ap.add_argument("out", type=Path, help="JSON file: question -> top-10 dialog ids")
    ap.add_argument("--build", action="store_true", help="import the conversations first (DIR must be new)")
    ap.add_argument("--data", type=Path, default=HERE.parent.parent / "shared" / "bench" / "locomo" / "locomo-dev.json")
    args = ap.parse_args()
    results: dict[str, list[str | None]] = {}
    for i, sample in enumerate(json.loads(args.data.read_text())):
        turns = referee.build_memories(sample)
        conv = turns[0]["conv"]
        project = f"locomo/{conv}"
        engine = build_engine(Settings(data_dir=args.dir / f"conv{i}"), default_project=project)
        try:
            if args.build:
                position: dict[int, int] = {}
                batch = []
                for turn in turns:
                    n = position.get(turn["session"], 0)
                    position[turn["session"]] = n + 1
                    batch.append(adapter.to_memory(turn, n, project))
                engine.import_memories(batch, batch=256)
            back = {adapter.memory_id(conv, t["id"]): t["id"] for t in turns}
            for qa in sample["qa"]:
                hits = engine.search(qa["question"], limit=10, now=NOW)
                results[f"{i}:{qa['question']}"] = [back.get(r.memory.id) for r in hits]
        finally:
            engine.close()
    args.out.write_text(json.dumps(results))
    print(f"{len(results)} questions -> {args.out}")


if __name__ == "__main__":
    main()
