"""What the lifecycle has done to a store, for `memory_stats` and `mnemex stats`: current memories
per kind and scope (live counts), per tier and their average retention (as the last dream found
them), promotions and demotions (the audit log), the last dream's report and the concepts it found
schematic."""

from __future__ import annotations

from typing import Any

from mnemex.config.lifecycle import LifecycleConfig
from mnemex.models import MemoryFilter, MemoryKind, Scope
from mnemex.store.base import MemoryStore

#: The audit ops the lifecycle writes, counted in the stats.
LIFECYCLE_OPS = ("promote", "demote", "reactivate", "dormant", "rehearse", "flashbulb", "capture", "feedback", "tally",
                 "propose-global", "promote-global")


def lifecycle_stats(store: MemoryStore, journal: Any, dreamer: Any, config: LifecycleConfig) -> dict[str, Any]:
    kinds = {k.value: n for k in MemoryKind if (n := store.count(MemoryFilter(kinds=(k,))))}
    scopes = {s.value: n for s in Scope if (n := store.count(MemoryFilter(scopes=(s,))))}
    dormant = store.count(MemoryFilter(dormant=True))
    ops = journal.count_ops(LIFECYCLE_OPS) if journal is not None else {}
    last = dreamer.last.as_dict() if dreamer.last is not None else None
    if last is None and journal is not None:
        record = journal.last_op("dream")
        last = record.detail if record is not None else None
    concepts = None
    if dreamer.schematic is not None and dreamer.last is not None:
        concepts = {"concepts": dreamer.last.concepts, "schematic_count": dreamer.last.schematic,
                    "schematic": dreamer.schematic}
    elif journal is not None and (record := journal.last_op("concepts")) is not None:
        concepts = record.detail
    return {
        "preset": config.preset,
        "by_kind": kinds,
        "by_scope": scopes,
        "dormant": dormant,
        "by_tier": (last or {}).get("tiers", {}),
        "average_retention": (last or {}).get("average_retention"),
        "promotions": ops.get("promote", 0) + ops.get("reactivate", 0) + ops.get("promote-global", 0),
        "demotions": ops.get("demote", 0) + ops.get("dormant", 0),
        "lifecycle_ops": {k: v for k, v in ops.items() if v},
        "last_dream": last,
        "concepts": concepts,
    }
