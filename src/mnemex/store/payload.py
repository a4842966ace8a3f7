"""Memory <-> store payload. The payload carries the whole memory plus flat, indexed
epoch-second fields (`*_ts`) so that backends can filter on time with one range test."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from mnemex.models import Memory
from mnemex.store.base import OPEN_END_TS


def to_ts(value: datetime | None, default: float = 0.0) -> float:
    return value.timestamp() if value is not None else default


def from_ts(value: float | None) -> datetime | None:
    if value is None or value >= OPEN_END_TS:
        return None
    return datetime.fromtimestamp(value, tz=timezone.utc)


def memory_to_payload(memory: Memory) -> dict[str, Any]:
    data = memory.model_dump(mode="json")
    data["tags"] = list(memory.tags)
    data["entities"] = list(memory.entities)
    data["session_id"] = memory.provenance.session_id
    data["created_ts"] = to_ts(memory.created_at)
    data["recorded_ts"] = to_ts(memory.recorded_at)
    data["valid_from_ts"] = to_ts(memory.valid_from)
    data["valid_until_ts"] = to_ts(memory.valid_until, OPEN_END_TS)
    return data


_DERIVED = ("session_id", "created_ts", "recorded_ts", "valid_from_ts", "valid_until_ts")


def payload_to_memory(payload: dict[str, Any]) -> Memory:
    data = {k: v for k, v in payload.items() if k not in _DERIVED}
    return Memory.model_validate(data)
