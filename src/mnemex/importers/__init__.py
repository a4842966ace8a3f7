"""Importers: bring memories from where users come from. Each format is a pure parser that
yields drafts (`items.py`); `driver.py` writes them through the engine's write path. `detect`
tells the format of a path; `parse` reads it, checking every item before anything is written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable, Iterator

from mnemex.errors import InvalidInputError
from mnemex.importers import markdown, memory_jsonl, mnemex_jsonl, rules
from mnemex.importers.items import Draft, Restore, read_text

FORMATS = ("memory-jsonl", "markdown", "rules", "mnemex")
_PARSERS: dict[str, Callable[..., Iterator[Draft | Restore]]] = {
    "memory-jsonl": memory_jsonl.parse, "markdown": markdown.parse, "rules": rules.parse, "mnemex": mnemex_jsonl.parse,
}


def detect(path: Path) -> str:
    """The format of `path`, from its name and, for JSONL, its first row."""
    if not path.exists():
        raise InvalidInputError(f"import: no such file or folder {path}")
    if path.is_dir():
        if rules.has_rules(path):
            return "rules"
        if markdown.notes(path):
            return "markdown"
        raise InvalidInputError(f"import: {path} holds no Markdown notes or rule files (CLAUDE.md, AGENTS.md, "
                                ".cursor/rules)")
    if rules.is_rules_file(path):
        return "rules"
    if path.suffix.lower() in (".md", ".markdown"):
        return "markdown"
    first = next((line for line in read_text(path).splitlines() if line.strip()), "")
    try:
        row = json.loads(first) if first else {}
    except ValueError:
        row = None
    if isinstance(row, dict) and memory_jsonl.looks_like(row):
        return "memory-jsonl"
    if isinstance(row, dict) and mnemex_jsonl.looks_like(row):
        return "mnemex"
    raise InvalidInputError(f"import: cannot tell the format of {path}: pass --from {'|'.join(FORMATS)}")


def parse(path: Path, fmt: str, *, scope: str = "project") -> list[Draft | Restore]:
    """Every item of `path` read as `fmt`; an InvalidInputError (file:line) before anything is written."""
    if fmt not in _PARSERS:
        raise InvalidInputError(f"import: unknown format {fmt!r}: use one of {', '.join(FORMATS)}")
    if not path.exists():
        raise InvalidInputError(f"import: no such file or folder {path}")
    return list(_PARSERS[fmt](path, scope=scope))
