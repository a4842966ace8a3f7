"""What a parser yields: a `Draft` to go through the write path (redaction, observation, the
gate), or a `Restore` of a whole exported memory. Parsers are pure: files in, items out."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from mnemex.errors import InvalidInputError
from mnemex.models import Memory, NewMemory, Provenance


@dataclass(frozen=True, slots=True)
class Draft:
    new: NewMemory
    key: str  # stable across runs for the same item of the same source: importing again adds nothing

    @property
    def source_key(self) -> str:
        return "import:" + hashlib.sha256(self.key.encode("utf-8", "replace")).hexdigest()[:32]


@dataclass(frozen=True, slots=True)
class Restore:
    memory: Memory  # a row of `mnemex export`: stored as given (id, times, status)


def draft(fmt: str, source: Path | str, content: str, **fields: object) -> Draft:
    """A draft of `content` read from `source` by the `fmt` importer (the file becomes the
    memory's provenance reference); `fields` are NewMemory's."""
    content = content.strip()
    where = str(Path(source).expanduser().resolve())  # the same file however its path was spelled
    provenance = Provenance(source="import", client=f"mnemex-import:{fmt}", reference=where)
    new = NewMemory(content=content, provenance=provenance, **fields)  # type: ignore[arg-type]
    return Draft(new, key=f"{fmt}\0{where}\0{new.scope}\0{' '.join(content.split())}")


def read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise InvalidInputError(f"import: cannot read {path}: {exc.strerror or exc}") from None


def json_rows(path: Path, expected: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """(`file:line`, object) for each non-empty line of a JSONL file; an InvalidInputError naming the
    line when one is not a JSON object (`expected` says what it should be)."""
    for lineno, line in enumerate(read_text(path).splitlines(), 1):
        if not line.strip():
            continue
        where = f"{path}:{lineno}"
        try:
            row = json.loads(line)
        except ValueError as exc:
            raise InvalidInputError(f"import: {where}: not JSON ({exc.msg}); nothing imported") from None
        if not isinstance(row, dict):
            raise InvalidInputError(f"import: {where}: expected {expected}; nothing imported")
        yield where, row
