"""The YAML front matter of Markdown notes, read for the few keys importers use (title, type,
tags, permalink, description, globs): `key: value`, `key: [a, b]` and `key:` with `- item` lines.
Not a YAML parser: anything else is kept as text."""

from __future__ import annotations

from typing import Any


def split(text: str) -> tuple[dict[str, Any], str]:
    """(front matter, body) of a Markdown text; ({}, text) when it has none."""
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        return {}, text
    for end in range(1, len(lines)):
        if lines[end].strip() in ("---", "..."):
            return _fields(lines[1:end]), "\n".join(lines[end + 1:])
    return {}, text


def _scalar(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


def _fields(lines: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    key = None
    for line in lines:
        stripped = line.strip()
        if key and stripped.startswith("- "):
            out.setdefault(key, [])
            if isinstance(out[key], list):
                out[key].append(_scalar(stripped[2:]))
            continue
        name, sep, value = line.partition(":")
        if not sep or line[:1].isspace():
            continue
        key, value = name.strip().lower(), value.strip()
        if value.startswith("[") and value.endswith("]"):
            out[key] = [_scalar(v) for v in value[1:-1].split(",") if v.strip()]
        elif value:
            out[key] = _scalar(value)
    return out


def as_list(value: Any) -> list[str]:
    if isinstance(value, list):
        return [str(v).strip().lstrip("#") for v in value if str(v).strip()]
    if isinstance(value, str) and value.strip():
        return [v.strip().lstrip("#") for v in value.replace(",", " ").split() if v.strip()]
    return []
