"""Memory ids: UUIDs, accepted in any spelling, used in one canonical form everywhere."""

from __future__ import annotations

import uuid


def memory_id_of(value: str) -> str | None:
    """The canonical id (lower-case, hyphenated UUID) of any spelling of one — upper case,
    braces, `urn:uuid:`, no dashes — or None when `value` is no id at all. Every engine method
    that takes an id reads it through here, so all of them accept the same spellings."""
    try:
        return str(uuid.UUID(str(value).strip()))
    except (ValueError, TypeError, AttributeError):
        return None
