"""Markdown note folders: basic-memory (front matter; `## Observations` lines
`- [category] text #tag (context)`; `## Relations` lines `- relation_type [[Target]]`) and
Obsidian-style notes (each section under a heading becomes one memory; `[[links]]` read as text)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterator

from mnemex.importers import frontmatter
from mnemex.importers.items import Draft, draft, read_text
from mnemex.models import MemoryKind

FORMAT = "markdown"
SECTION_CHARS = 2_000  # a longer section is cut at paragraphs: one memory should hold one topic
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_OBSERVATION = re.compile(r"^\s*[-*]\s+\[([^\]]+)\]\s+(.+)$")
_RELATION = re.compile(r"^\s*[-*]\s+([A-Za-z][\w -]*?)\s+\[\[([^\]]+)\]\]\s*(\(.*\))?\s*$")
_TAG = re.compile(r"(?<![\w&])#([A-Za-z][\w/-]*)")
_LINK = re.compile(r"\[\[([^\]|]+)(?:\|([^\]]+))?\]\]")
KINDS = {k.value for k in MemoryKind} - {"tool_event", "episode"}


def notes(root: Path) -> list[Path]:
    """The Markdown files of a folder (hidden folders left out, e.g. .obsidian), or the file itself."""
    if root.is_file():
        return [root]
    return sorted(p for p in root.rglob("*.md")
                  if p.is_file() and not any(part.startswith(".") for part in p.relative_to(root).parts))


def _plain(text: str) -> str:
    return _LINK.sub(lambda m: m.group(2) or m.group(1), text)


def parse(root: Path, *, scope: str = "project") -> Iterator[Draft]:
    for path in notes(root):
        yield from parse_note(path, scope=scope)


def parse_note(path: Path, *, scope: str = "project") -> Iterator[Draft]:
    meta, body = frontmatter.split(read_text(path))
    title = str(meta.get("title") or "").strip()
    note_tags = tuple(frontmatter.as_list(meta.get("tags")))
    section, heading, fenced = "", "", False
    chunks: list[tuple[str, str]] = []  # (heading, text) of ordinary sections
    lines: list[str] = []
    for line in body.splitlines():
        if line.strip().startswith("```"):
            fenced = not fenced
        match = None if fenced else _HEADING.match(line)
        if match:
            chunks.append((heading, "\n".join(lines)))
            lines, heading = [], match.group(2)
            title = title or (heading if len(match.group(1)) == 1 else "")
            section = heading.strip().lower()
            continue
        if section == "observations" and (obs := _OBSERVATION.match(line)):
            yield _observation(path, title or path.stem, obs.group(1), obs.group(2), note_tags, scope)
        elif section == "relations" and (rel := _RELATION.match(line)):
            subject = title or path.stem
            yield draft(FORMAT, path, f"{subject} {rel.group(1).replace('_', ' ')} {rel.group(2)}", kind="fact",
                        scope=scope, tags=(*note_tags, "relation"), metadata={"note": subject})
        elif section not in ("observations", "relations"):
            lines.append(line)
    chunks.append((heading, "\n".join(lines)))
    subject = title or path.stem
    for head, text in chunks:
        for part in _parts(_plain(text).strip()):
            lead = subject if not head or head == subject else f"{subject} — {head}"
            yield draft(FORMAT, path, f"{lead}: {part}", kind="note", scope=scope,
                        tags=note_tags + tuple(t for t in _TAG.findall(part) if t not in note_tags)[:8],
                        metadata={"note": subject})


def _observation(path: Path, subject: str, category: str, text: str, note_tags: tuple[str, ...],
                 scope: str) -> Draft:
    category = category.strip().lower()
    tags = tuple(dict.fromkeys((*note_tags, *_TAG.findall(text), category)))
    content = " ".join(_plain(_TAG.sub("", text)).split())  # the #tags are tags, not words of the claim
    return draft(FORMAT, path, f"{subject}: {content}", kind=category if category in KINDS else None, scope=scope,
                 tags=tags[:16], metadata={"note": subject, "category": category})


def _parts(text: str) -> list[str]:
    """A section's text in pieces of at most SECTION_CHARS, cut between paragraphs."""
    if not text:
        return []
    out, current = [], ""
    for para in re.split(r"\n\s*\n", text):
        para = para.strip()
        if current and len(current) + len(para) + 2 > SECTION_CHARS:
            out.append(current)
            current = ""
        current = f"{current}\n\n{para}" if current else para
    out.append(current)
    return [p[:SECTION_CHARS * 2] for p in out if p.strip()]
