"""Memory <-> store payload: private to `store/`. The payload carries the whole memory plus flat,
indexed epoch-second fields (`*_ts`) so that backends filter on time with one range test."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from mnemex.models import Lifecycle, Memory, Provenance

#: valid_until_ts of a memory that is still valid (year 3000), so "current" is one range test.
OPEN_END_TS = 32_503_680_000.0

#: Payload fields the store indexes for filtering, with their index type.
INDEXED_FIELDS: dict[str, str] = {
    "kind": "keyword",
    "scope": "keyword",
    "project": "keyword",
    "tags": "keyword",
    "status": "keyword",
    "session_id": "keyword",
    "entities": "keyword",
    "created_ts": "float",
    "valid_from_ts": "float",
    "valid_until_ts": "float",
    "recorded_ts": "float",
    "marks": "keyword",
}

#: The payload layout's version: 2 added `marks` (Qdrant Edge cannot match booleans, so pinned,
#: immutable and — since the lifecycle — dormant are kept as keywords too; a memory written before
#: the lifecycle has no `dormant` mark and is not dormant, so no upgrade is needed for it). A store of an older layout is brought up to date by
#: `upkeep.upgrade_payloads` in the background.
PAYLOAD_VERSION = 2

#: The memory fields a store can order by, and the indexed payload field holding each.
ORDER_FIELDS = {"created_at": "created_ts", "recorded_at": "recorded_ts", "valid_from": "valid_from_ts"}


def to_ts(value: datetime | None, default: float = 0.0) -> float:
    return value.timestamp() if value is not None else default


def from_ts(value: float | None) -> datetime | None:
    if value is None or value >= OPEN_END_TS:
        return None
    return datetime.fromtimestamp(value, tz=timezone.utc)


#: Fields left out of a payload while they hold their default (read back as the default): ~40% of
#: a typical memory's payload, which every search reads for each candidate (issue 15). Fields a
#: filter uses are never left out (`INDEXED_FIELDS`, and `kind`, `scope`, `status` always written).
_ELIDED = {"confidence": 1.0, "importance": 0.5, "pinned": False, "immutable": False, "valid_until": None,
           "updated_at": None, "access_count": 0, "last_accessed_at": None, "supersedes": [],
           "superseded_by": None, "metadata": {}}
#: Nested models whose fields are left out while default (and the model itself when all are).
_ELIDED_PARTS = {"provenance": Provenance().model_dump(mode="json"), "lifecycle": Lifecycle().model_dump(mode="json")}


def _elide(data: dict[str, Any]) -> dict[str, Any]:
    for key, default in _ELIDED.items():
        if key in data and data[key] == default:
            del data[key]
    for key, defaults in _ELIDED_PARTS.items():
        part = data.get(key)
        if isinstance(part, dict):
            kept = {k: v for k, v in part.items() if k not in defaults or defaults[k] != v}
            if kept:
                data[key] = kept
            else:
                del data[key]
    return data


def memory_to_payload(memory: Memory) -> dict[str, Any]:
    data = _elide(memory.model_dump(mode="json"))
    data["tags"] = list(memory.tags)
    data["entities"] = list(memory.entities)
    data["session_id"] = memory.provenance.session_id
    data["created_ts"] = to_ts(memory.created_at)
    data["recorded_ts"] = to_ts(memory.recorded_at)
    data["valid_from_ts"] = to_ts(memory.valid_from)
    data["valid_until_ts"] = to_ts(memory.valid_until, OPEN_END_TS)
    data["marks"] = marks_of(memory)
    return data


def marks_of(memory: Memory) -> list[str]:
    return [name for name, on in (("pinned", memory.pinned), ("immutable", memory.immutable),
                                  ("dormant", memory.lifecycle.dormant)) if on]


def access_payload(access_count: int, at: datetime, lifecycle: Lifecycle | None = None) -> dict[str, Any]:
    """The payload fields a read touches (merged into the stored payload): the access count and
    time, and the lifecycle state the read changed (storage strength, recent recalls)."""
    payload: dict[str, Any] = {"access_count": access_count, "last_accessed_at": at.isoformat()}
    if lifecycle is not None:
        payload["lifecycle"] = lifecycle.model_dump(mode="json")
    return payload


_DERIVED = ("session_id", "created_ts", "recorded_ts", "valid_from_ts", "valid_until_ts", "marks")


def payload_to_memory(payload: dict[str, Any]) -> Memory:
    data = {k: v for k, v in payload.items() if k not in _DERIVED}
    return Memory.model_validate(data)
