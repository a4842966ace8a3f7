"""mnemex's own JSONL. A row of `mnemex export` (with an `id`) is restored as given: ids, times
and status kept, so export → import round-trips. A row without an `id` (written by hand or by
another tool) needs only `content`; the fields it lacks are filled as `mnemex add` would, and it
goes through the write path like any new memory."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

from pydantic import ValidationError

from mnemex.errors import InvalidInputError
from mnemex.importers.items import Draft, Restore, draft, json_rows
from mnemex.models import Memory, NewMemory

FORMAT = "mnemex"
#: What a row without an id may say; other fields (status, access counts, ...) belong to a stored memory.
NEW_FIELDS = frozenset(NewMemory.model_fields) - {"provenance", "supersedes"}


def looks_like(first: dict[str, Any]) -> bool:
    return "content" in first


def _invalid(where: str, exc: ValidationError) -> InvalidInputError:
    first = exc.errors()[0]
    field = ".".join(str(x) for x in first["loc"]) or "row"
    return InvalidInputError(f"import: {where}: {field}: {first['msg']}; nothing imported")


def parse(path: Path, *, scope: str = "project") -> Iterator[Draft | Restore]:
    for where, row in json_rows(path, 'a JSON object with "content"'):
        try:
            if row.get("id"):
                yield Restore(Memory.model_validate(row))
                continue
            if not isinstance(row.get("content"), str) or not row["content"].strip():
                raise InvalidInputError(f"import: {where}: content: a non-empty string is required; nothing imported")
            fields = {k: v for k, v in row.items() if k in NEW_FIELDS and k != "content" and v is not None}
            fields.setdefault("scope", scope)
            NewMemory.model_validate({"content": row["content"], **fields})  # the error names the field
            yield draft(FORMAT, path, row["content"], **fields)
        except ValidationError as exc:
            raise _invalid(where, exc) from None
