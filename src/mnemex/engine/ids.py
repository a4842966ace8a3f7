"""Memory ids: UUIDs, accepted in any spelling, used in one canonical form everywhere."""

from __future__ import annotations

import re
import uuid
from typing import Callable, Sequence

from mnemex.errors import InvalidInputError

#: Shortest prefix of an id that is looked up (shorter ones would match too much to be useful).
MIN_PREFIX = 6
_PREFIX = re.compile(r"^[0-9a-f][0-9a-f-]{%d,35}$" % (MIN_PREFIX - 1))
_HEX = re.compile(r"^[0-9a-f]{1,%d}$" % (MIN_PREFIX - 1))


def memory_id_of(value: str) -> str | None:
    """The canonical id (lower-case, hyphenated UUID) of any spelling of one — upper case,
    braces, `urn:uuid:`, no dashes — or None when `value` is no id at all. Every engine method
    that takes an id reads it through here, so all of them accept the same spellings."""
    try:
        return str(uuid.UUID(str(value).strip()))
    except (ValueError, TypeError, AttributeError):
        return None


def resolve_id(value: str, candidates: Callable[[str], Sequence[str]]) -> str | None:
    """The canonical id `value` names: any spelling of a full id, or a unique prefix of one (at
    least MIN_PREFIX hex characters, as the tools print them). `candidates(prefix)` lists stored
    ids starting with a prefix. None when nothing matches; InvalidInputError when a prefix is
    ambiguous (the message lists what it matches)."""
    full = memory_id_of(value)
    if full is not None:
        return full
    prefix = str(value).strip().lower()
    if not _PREFIX.match(prefix):
        if _HEX.match(prefix):
            raise InvalidInputError(f"id prefix {value!r} is too short: give at least {MIN_PREFIX} characters of the id")
        return None
    found = list(dict.fromkeys(candidates(prefix)))
    if len(found) > 1:
        shown = ", ".join(f[:12] + "…" for f in found[:4])
        raise InvalidInputError(f"id prefix {value!r} matches {len(found) if len(found) < 5 else 'several'} memories "
                                f"({shown}): give more of the id")
    return found[0] if found else None
