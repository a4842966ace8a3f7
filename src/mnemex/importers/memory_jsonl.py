"""The official MCP memory server's knowledge graph (`memory.jsonl`): one JSON object a line,
`{"type": "entity", "name", "entityType", "observations": [...]}` or
`{"type": "relation", "from", "to", "relationType"}`. Each observation becomes a memory about its
entity ("Alice_Smith: prefers TypeScript"), each relation a fact ("Alice_Smith works at Acme")."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

from mnemex.errors import InvalidInputError
from mnemex.importers.items import Draft, draft, json_rows

FORMAT = "memory-jsonl"


def looks_like(first: dict[str, Any]) -> bool:
    return first.get("type") in ("entity", "relation") and ("name" in first or "from" in first)


def _text(value: Any, what: str, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidInputError(f"import: {where}: {what} must be a non-empty string; fix or remove the line")
    return value.strip()


def parse(path: Path, *, scope: str = "project") -> Iterator[Draft]:
    for where, row in json_rows(path, "an entity or relation object"):
        if row.get("type") not in ("entity", "relation"):
            raise InvalidInputError(f"import: {where}: expected an entity or relation object (\"type\"); "
                                    "nothing imported")
        if row["type"] == "relation":
            src, dst = _text(row.get("from"), "from", where), _text(row.get("to"), "to", where)
            relation = _text(row.get("relationType"), "relationType", where).replace("_", " ")
            yield draft(FORMAT, path, f"{src} {relation} {dst}", kind="fact", scope=scope,
                        tags=("relation",), metadata={"entities": [src, dst]})
            continue
        name = _text(row.get("name"), "name", where)
        kind_of = str(row.get("entityType") or "").strip()
        tags = (kind_of,) if kind_of else ()
        observations = row.get("observations") or []
        if not isinstance(observations, list):
            raise InvalidInputError(f"import: {where}: observations must be a list of strings; nothing imported")
        if not observations and kind_of:
            yield draft(FORMAT, path, f"{name} is a {kind_of}", kind="entity", scope=scope, tags=tags,
                        metadata={"entity": name})
        for obs in observations:
            yield draft(FORMAT, path, f"{name}: {_text(obs, 'an observation', where)}", scope=scope, tags=tags,
                        metadata={"entity": name})
