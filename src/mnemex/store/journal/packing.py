"""Memory payloads in the journal, packed: about a sixth of their JSON's size.

A whole memory's JSON (the before/after of a write op, each content version) is ~1 KB, most
of it the same keys every time. It is stored as a BLOB: a version byte, the ids of the objects
inside as plain text (so the purge's `LIKE '%<id>%'` still finds every row carrying a memory),
a newline, then the JSON deflated against a fixed dictionary of those keys. Short values stay
JSON text, and rows written before packing existed read as they always did.

`DICTIONARY` must never change: rows packed with version 1 need exactly it. A new dictionary
gets a new version byte.
"""

from __future__ import annotations

import zlib
from typing import Any, Iterator

VERSION = b"\x01"
#: Values shorter than this (as JSON) are stored as text: packing would barely pay.
PACK_FROM = 200
DICTIONARY = (
    b'{"created_at": "2026-01-01T00:00:00Z", "entities": [], "id": "00000000-0000-0000-0000-000000000000", '
    b'"immutable": false, "importance": 0.5, "kind": "fact", "last_accessed_at": null, "lifecycle": '
    b'{"dormant": false, "helped": 0, "misled": 0, "recent_accesses": [], "storage": 1.0, "surprise": 0.0, '
    b'"tier": null, "tier_since": null, "utility": 0.5, "utility_at": null}, "metadata": {"kind_confidence": '
    b'0.5, "atom_of": ""}, "pinned": false, "project": "", "provenance": {"client": null, "reference": null, '
    b'"session_id": null, "source": "agent", "speaker": null}, "recorded_at": "2026-01-01T00:00:00.000000Z", '
    b'"scope": "project", "status": "active", "superseded_by": null, "supersedes": [], "tags": [], '
    b'"updated_at": null, "valid_from": "2026-01-01T00:00:00Z", "valid_until": null, '
    b'{"access_count": 0, "confidence": 1.0, "content": "The '
)


def pack(text: str | None, value: Any) -> str | bytes | None:
    """`text` (the JSON of `value`) as stored: itself when short, else packed."""
    if text is None or len(text) < PACK_FROM:
        return text
    ids = ",".join(sorted(set(_ids(value))))
    squeeze = zlib.compressobj(9, zlib.DEFLATED, -15, 9, zdict=DICTIONARY)
    return VERSION + ids.encode() + b"\n" + squeeze.compress(text.encode()) + squeeze.flush()


def unpack(stored: str | bytes) -> str:
    """The JSON text of a stored value, packed or not."""
    if isinstance(stored, str):
        return stored
    if stored[:1] != VERSION:
        raise ValueError(f"journal value packed with unknown version {stored[:1]!r}")
    body = stored[stored.index(b"\n") + 1:]
    return zlib.decompressobj(-15, zdict=DICTIONARY).decompress(body).decode()


def _ids(value: Any) -> Iterator[str]:
    """The `id` of every object inside `value`: what a purge looks for."""
    if isinstance(value, dict):
        if isinstance(value.get("id"), str) and "\n" not in value["id"]:
            yield value["id"]
        for v in value.values():
            yield from _ids(v)
    elif isinstance(value, list):
        for v in value:
            yield from _ids(v)
