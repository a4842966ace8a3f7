"""Agent rule files: `CLAUDE.md`, `AGENTS.md`, `.cursorrules` and `.cursor/rules/*.mdc`. Each
bullet (with its sub-bullets) or paragraph is one rule: a preference memory when it says what
someone prefers, else a convention, with its source file as the reference and its heading."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterator

from mnemex.importers import frontmatter
from mnemex.importers.items import Draft, draft, read_text

FORMAT = "rules"
NAMES = ("CLAUDE.md", "CLAUDE.local.md", "AGENTS.md", ".cursorrules")
_BULLET = re.compile(r"^(\s*)(?:[-*+]|\d+[.)])\s+(.*)$")
_HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")
_PREFERS = re.compile(r"\b(prefers?|preferred|rather|likes?|dislikes?|favou?rs?|wants?)\b", re.IGNORECASE)


def is_rules_file(path: Path) -> bool:
    return path.name in NAMES or path.suffix == ".mdc" or (path.parent.name == "rules"
                                                           and path.parent.parent.name == ".cursor")


def rule_files(root: Path) -> list[Path]:
    """The rule files at a project's top and in its `.cursor/rules`, or the file itself."""
    if root.is_file():
        return [root]
    found = [root / n for n in NAMES if (root / n).is_file()]
    rules_dir = root if (root.name == "rules" and root.parent.name == ".cursor") else root / ".cursor" / "rules"
    if rules_dir.is_dir():
        found += sorted(p for p in rules_dir.rglob("*") if p.is_file() and p.suffix in (".mdc", ".md"))
    return found


def has_rules(root: Path) -> bool:
    return root.is_dir() and bool(rule_files(root))


def parse(root: Path, *, scope: str = "project") -> Iterator[Draft]:
    for path in rule_files(root):
        yield from parse_file(path, scope=scope)


def parse_file(path: Path, *, scope: str = "project") -> Iterator[Draft]:
    meta, body = frontmatter.split(read_text(path))
    reference = str(path.resolve())
    base_meta = {"source_file": reference}
    globs = frontmatter.as_list(meta.get("globs"))
    if globs:
        base_meta["globs"] = globs
    tag = path.stem.lower().lstrip(".") if path.suffix in (".mdc", ".md") and path.name not in NAMES else \
        path.name.lower().lstrip(".").replace(".", "-")
    for heading, rule in _rules(body):
        kind = "preference" if _PREFERS.search(rule) else "convention"
        yield draft(FORMAT, path, rule, kind=kind, scope=scope, tags=("rules", tag),
                    metadata={**base_meta, **({"section": heading} if heading else {})})


def _rules(body: str) -> Iterator[tuple[str, str]]:
    """(heading, rule) for each top-level bullet (sub-bullets joined to it) and each paragraph."""
    heading, current, fenced = "", "", False
    for line in body.splitlines() + [""]:
        if line.strip().startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        bullet, head = _BULLET.match(line), _HEADING.match(line)
        if head or not line.strip() or (bullet and not bullet.group(1)):
            if current.strip():
                yield heading, current.strip()
            current = bullet.group(2) if bullet else ""
            heading = head.group(1) if head else heading
        elif bullet:  # a sub-bullet: part of its parent rule
            current = f"{current.rstrip(':')}: {bullet.group(2)}" if current and ": " not in current \
                else f"{current}; {bullet.group(2)}"
        else:  # a paragraph's next line, or a bullet's continuation
            current = f"{current} {line.strip()}" if current else line.strip()
