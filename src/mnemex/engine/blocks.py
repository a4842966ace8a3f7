"""Core memory blocks (MemGPT/Letta style): short labelled texts that are always in the agent's
context and that the agent edits itself — append, replace one passage, rewrite the whole.

Three blocks exist from the start, empty: `user` (facts about the user) and `persona` (how the
agent should behave) are global, shared by every project; `project` (this project's durable
context) belongs to the caller's project. The agent may create further blocks in its project
(`rewrite` of a new label), up to `blocks.max_custom_blocks`; emptying one removes it.

Every value is cleaned and redacted (`write/sanitize.scrub`) before it is counted or stored, so
the limit holds for what is kept and no secret reaches the journal. A write that would leave a
block over its limit changes nothing and says how much to cut. Every change is a new version in
the journal (`store/journal/blocks.py`); purging memories never touches blocks.
"""

from __future__ import annotations

import re
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any, Callable, Literal

from pydantic import BaseModel, ConfigDict, Field

from mnemex.config.blocks import DEFAULT_BLOCKS, BlocksConfig
from mnemex.config.redaction import DEFAULT_REDACTION, RedactionConfig
from mnemex.engine.write.sanitize import clean_text, scrub
from mnemex.errors import InvalidInputError
from mnemex.store.journal import BlockRecord, BlockVersion

LABEL = re.compile(r"^[a-z][a-z0-9_-]{0,39}$")
#: The journal's project key of the global blocks.
GLOBAL = ""
#: The blocks every agent has, in the order they are shown: (scope, description).
DEFAULTS: dict[str, tuple[Literal["global", "project"], str]] = {
    "user": ("global", "Facts about the user: name, role, preferences, how they like to work."),
    "project": ("project", "This project's durable context: purpose, stack, conventions, decisions, gotchas."),
    "persona": ("global", "How you, the agent, should behave: tone, habits, rules the user set for you."),
}
MAX_DESCRIPTION_CHARS = 200
_CLOSING = re.compile(r"</(?=\s*memory_block)", re.IGNORECASE)
MIN_LIMIT = 100


class MemoryBlock(BaseModel):
    """A core memory block as it stands."""

    model_config = ConfigDict(frozen=True)

    label: str = Field(description="The block's name.")
    scope: Literal["global", "project"] = Field(description="global: shared by every project; project: this project's own.")
    project: str | None = Field(description="The project a project block belongs to; null for a global block.")
    description: str = Field(description="What the block is for.")
    value: str = Field(description="The block's text.")
    chars: int = Field(description="Characters the block holds.")
    limit: int = Field(description="Characters it may hold.")
    version: int = Field(description="How many times it was changed (0: never written).")
    updated_at: datetime | None = Field(None, description="When it last changed.")


class MemoryBlocks:
    """The blocks of the journal; writes hold the engine's write lock (`lock`) and first call
    `before_write` (the engine's disk-space check)."""

    def __init__(self, journal: Any, *, lock: AbstractContextManager[Any], before_write: Callable[[], None],
                 config: BlocksConfig = DEFAULT_BLOCKS, redaction: RedactionConfig = DEFAULT_REDACTION,
                 default_project: str | None = None):
        self._journal = journal
        self._lock = lock
        self._before_write = before_write
        self._config = config
        self._redaction = redaction
        self._default_project = default_project

    # ------------------------------------------------------------------- reads
    def list(self, project: str | None = None) -> list[MemoryBlock]:
        """Every block the caller sees: the defaults (empty until written), then the blocks the
        agent created in `project`, by label. Without a project, only the global blocks."""
        key = project or self._default_project
        keys = [GLOBAL] + ([key] if key else [])
        stored = {(r.project, r.label): r for r in self._journal.blocks(keys)} if self._journal is not None else {}
        out = []
        for label, (scope, _) in DEFAULTS.items():
            owner = GLOBAL if scope == "global" else key
            if owner is not None:
                out.append(self._block(label, owner, stored.get((owner, label))))
        out += [self._block(r.label, r.project, r) for r in stored.values()
                if r.project == key and r.label not in DEFAULTS and r.value]
        return out

    def get(self, label: str, project: str | None = None) -> MemoryBlock:
        """One block; InvalidInputError for a label the caller has no block under."""
        label = _label(label)
        key = self._key(label, project)
        return self._block(label, key, self._existing(label, key, self._record(key, label)))

    def versions(self, label: str, project: str | None = None) -> list[BlockVersion]:
        """Every version of a block, oldest first (none for a block never written)."""
        label = _label(label)
        key = self._key(label, project)
        return self._journal.block_versions(key, label) if self._journal is not None else []

    def render(self, project: str | None = None) -> str:
        """Every non-empty block the caller sees as one text for the agent's context, each as
        `<memory_block label=".." chars="n/limit" description="..">value</memory_block>`;
        "" when all are empty."""
        return "\n".join(_render(b) for b in self.list(project) if b.value)

    # ------------------------------------------------------------------ writes
    def append(self, label: str, text: str, project: str | None = None, by: str | None = None) -> MemoryBlock:
        """Add `text` at the end of a block, on a line of its own."""
        piece = _text(text, "text").strip()
        if not piece:
            raise InvalidInputError("text is empty: give the line to add to the block")
        return self._write(label, project, "append", by,
                           lambda current: f"{current}\n{piece}" if current else piece)

    def replace(self, label: str, old: str, new: str, project: str | None = None, by: str | None = None) -> MemoryBlock:
        """Replace the one occurrence of `old` in a block by `new` ("" deletes it). InvalidInputError
        when `old` does not occur or occurs more than once: nothing is changed then."""
        old, new = _text(old, "old"), _text(new, "new")
        if not old.strip():
            raise InvalidInputError("old is empty: give the exact text to replace, as memory_blocks shows it")

        def edit(current: str) -> str:
            count = _occurrences(current, old)
            if count != 1:
                where = "does not occur" if count == 0 else f"occurs {count} times"
                hint = ("copy it exactly as the block shows it" if count == 0
                        else "include more of the text around it so that it occurs once")
                shown = _quote(scrub(old, self._redaction))
                raise InvalidInputError(f"old text {shown} {where} in block {label!r}: {hint}; nothing was changed")
            return current.replace(old, new, 1)

        return self._write(label, project, "replace", by, edit)

    def rewrite(self, label: str, value: str, project: str | None = None, by: str | None = None,
                limit: int | None = None, description: str | None = None) -> MemoryBlock:
        """Set a block's whole text, creating the block for a new label (in `project`, with
        `limit` characters, default `blocks.custom_limit`, and an optional `description`).
        Rewriting a created block with "" removes it. The default blocks keep their limit
        (from the configuration) and description."""
        text = _text(value, "value")
        if label in DEFAULTS and (limit is not None or description is not None):
            raise InvalidInputError(f"the {label!r} block's limit and description are fixed (its limit is "
                                    f"blocks.{label}_limit in the configuration): rewrite only its text")
        if limit is not None and not MIN_LIMIT <= limit <= self._config.max_custom_limit:
            raise InvalidInputError(f"limit must be between {MIN_LIMIT} and {self._config.max_custom_limit} "
                                    "characters (blocks.max_custom_limit)")
        if description is not None:
            description = scrub(_text(description, "description"), self._redaction).strip()
            if len(description) > MAX_DESCRIPTION_CHARS:
                raise InvalidInputError(f"description is {len(description)} characters, over "
                                        f"{MAX_DESCRIPTION_CHARS}: say in one sentence what the block is for")
        return self._write(label, project, "rewrite", by, lambda current: text, limit=limit,
                           description=description, create=True)

    def _write(self, label: str, project: str | None, op: str, by: str | None, edit: Callable[[str], str], *,
               limit: int | None = None, description: str | None = None, create: bool = False) -> MemoryBlock:
        label = _label(label)
        key = self._key(label, project)
        if self._journal is None:
            raise InvalidInputError("this engine runs without a journal: memory blocks are unavailable")
        self._before_write()
        with self._lock:
            record = self._record(key, label)
            live = record is not None and bool(record.value)
            if not create:
                self._existing(label, key, record)
            value = scrub(edit(record.value if record else ""), self._redaction).strip()
            cap = self._limit(label, record) if limit is None else limit
            about = description if description is not None else self._description(label, record)
            if (record is None and not value) or (
                    record is not None and (value, cap, about) == (record.value, record.char_limit, record.description)):
                return self._block(label, key, record)  # nothing changes: no new version
            if len(value) > cap:
                raise InvalidInputError(
                    f"block {label!r} would hold {len(value)} characters, over its limit of {cap}: cut at least "
                    f"{len(value) - cap} characters (shorten the text, or replace/rewrite what is there more "
                    "briefly) and try again; nothing was written")
            if label not in DEFAULTS and not live and value:
                self._check_room(key)
            saved = self._journal.write_block(key, label, value, char_limit=cap, description=about, op=op,
                                              actor=by, expected_version=record.version if record else 0)
        return self._block(label, key, saved)

    # --------------------------------------------------------------- internals
    def _key(self, label: str, project: str | None) -> str:
        """The journal's project key of the block: "" for a global one, the project otherwise."""
        if label in DEFAULTS and DEFAULTS[label][0] == "global":
            return GLOBAL
        key = project or self._default_project
        if not key:
            raise InvalidInputError(f"block {label!r} belongs to a project and this call has none: run mnemex "
                                    "from the project's directory (or set `project` in the configuration)")
        return key

    def _record(self, key: str, label: str) -> BlockRecord | None:
        return self._journal.block(key, label) if self._journal is not None else None

    def _existing(self, label: str, key: str, record: BlockRecord | None) -> BlockRecord | None:
        """`record`, or InvalidInputError when `label` names no block (a created block emptied is gone)."""
        if label not in DEFAULTS and (record is None or not record.value):
            raise InvalidInputError(f"there is no block {label!r} in project {key}: the blocks are "
                                    f"{', '.join(DEFAULTS)} and those created with memory_block_rewrite")
        return record

    def _check_room(self, key: str) -> None:
        most = self._config.max_custom_blocks
        made = [r.label for r in self._journal.blocks([key]) if r.label not in DEFAULTS and r.value]
        if len(made) >= most:
            raise InvalidInputError(f"project {key} already has {len(made)} blocks of its own, the most allowed "
                                    f"(blocks.max_custom_blocks = {most}): fold this into one of them "
                                    f"({', '.join(made)}) or empty one that is no longer needed")

    def _limit(self, label: str, record: BlockRecord | None) -> int:
        if label in DEFAULTS:
            return int(getattr(self._config, f"{label}_limit"))
        return record.char_limit if record is not None else self._config.custom_limit

    def _description(self, label: str, record: BlockRecord | None) -> str:
        if label in DEFAULTS:
            return DEFAULTS[label][1]
        return record.description if record is not None else ""

    def _block(self, label: str, key: str, record: BlockRecord | None) -> MemoryBlock:
        value = record.value if record else ""
        return MemoryBlock(label=label, scope="global" if key == GLOBAL else "project",
                           project=key or None, description=self._description(label, record), value=value,
                           chars=len(value), limit=self._limit(label, record),
                           version=record.version if record else 0, updated_at=record.updated_at if record else None)


def _label(label: Any) -> str:
    if not isinstance(label, str) or not LABEL.match(label):
        raise InvalidInputError(f"block label {label!r} is not valid: a lower-case letter, then up to 39 lower-case "
                                "letters, digits, '_' or '-' (e.g. user, project, persona, api-notes)")
    return label


def _text(value: Any, name: str) -> str:
    if not isinstance(value, str):
        raise InvalidInputError(f"{name} must be a string")
    return clean_text(value)


def _occurrences(text: str, part: str) -> int:
    """How many times `part` occurs in `text`, overlapping occurrences included."""
    count, at = 0, text.find(part)
    while at != -1:
        count += 1
        at = text.find(part, at + 1)
    return count


def _quote(text: str, most: int = 80) -> str:
    return repr(text if len(text) <= most else text[:most] + "…")


def _render(block: MemoryBlock) -> str:
    description = f' description="{_attribute(block.description)}"' if block.description else ""
    # A block's text is the agent's own writing: it must not close its delimiter early.
    body = _CLOSING.sub("&lt;/", block.value)
    return (f'<memory_block label="{block.label}" chars="{block.chars}/{block.limit}"{description}>\n'
            f"{body}\n</memory_block>")


def _attribute(text: str) -> str:
    return text.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;").replace("\n", " ")
