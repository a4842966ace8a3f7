"""Write imported items through the engine: drafts go through the write path (redaction, the
observer, the prediction-error gate's dedupe and supersede), exported memories are restored as
given unless a memory with its id is already stored (that one is kept as it is: an import never
overwrites what the store holds). Idempotent: each draft's source key is recorded in the journal
with the memory it became, so importing the same source again writes nothing ("unchanged")."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from mnemex.importers.items import Draft, Restore

#: The order outcomes are reported in.
OUTCOMES = ("created", "updated", "reinforced", "superseded", "skipped", "restored", "unchanged")


@dataclass
class ImportReport:
    counts: Counter = field(default_factory=Counter)
    ids: list[str] = field(default_factory=list)  # the memories created or restored

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def as_dict(self) -> dict[str, Any]:
        return {"total": self.total, **{k: self.counts.get(k, 0) for k in OUTCOMES}}

    def summary(self) -> str:
        parts = ", ".join(f"{self.counts[k]} {k}" for k in OUTCOMES if self.counts.get(k))
        return f"{self.total} item{'s' if self.total != 1 else ''}: {parts or 'nothing to import'}"


def run_import(engine: Any, items: Sequence[Draft | Restore], *, batch: int = 32,
               progress: Callable[[int], None] = lambda n: None) -> ImportReport:
    report = ImportReport()
    journal = engine.journal
    seen: set[str] = set()
    drafts: list[Draft] = []
    restores: list[Restore] = []

    def flush() -> None:
        if restores:
            have = {h.id for h in engine.store.retrieve([r.memory.id for r in restores])}
            new = list({r.memory.id: r.memory for r in restores if r.memory.id not in have}.values())
            engine.import_memories(new)
            report.counts["restored"] += len(new)
            report.counts["unchanged"] += len(restores) - len(new)
            report.ids.extend(m.id for m in new)
            progress(len(restores))
            restores.clear()
        if drafts:
            for d, out in zip(drafts, engine.memorize_many([d.new for d in drafts])):
                report.counts[out.action.value] += 1
                if out.action.value == "created" and out.id:
                    report.ids.append(out.id)
                if journal is not None:
                    journal.mark_learnt(d.source_key, out.id or "", out.action.value)
            progress(len(drafts))
            drafts.clear()

    for item in items:
        if isinstance(item, Restore):
            restores.append(item)
        elif item.source_key in seen or (journal is not None and journal.learnt(item.source_key)):
            report.counts["unchanged"] += 1  # imported before (or twice in this source)
            progress(1)
        else:
            seen.add(item.source_key)
            drafts.append(item)
        if len(drafts) + len(restores) >= batch:
            flush()
    flush()
    return report
