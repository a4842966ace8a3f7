"""Config files: read (refusing what is not a JSON document), show the change as a unified diff,
write atomically keeping the mode and a backup of the previous version."""

from __future__ import annotations

import difflib
import json
import os
import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mnemex.clients.merge import ShapeError
from mnemex.errors import MnemexError

BACKUP_SUFFIX = ".mnemex-backup"


@dataclass(frozen=True)
class FileChange:
    """One config file before and after: `after` None means the file goes (undo left it empty)."""

    path: Path
    before: bytes | None
    before_text: str | None
    after_text: str | None

    @property
    def changed(self) -> bool:
        return self.before_text != self.after_text

    def diff(self) -> str:
        lines = difflib.unified_diff(
            _lines(self.before_text), _lines(self.after_text),
            fromfile=str(self.path) if self.before is not None else "/dev/null",
            tofile=str(self.path) if self.after_text is not None else "/dev/null")
        return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def _lines(text: str | None) -> list[str]:
    return [] if text is None else text.splitlines(keepends=True)


def _real(path: Path) -> Path:
    """Where `path` is written: through a symlink (dotfiles) to its target, always absolute."""
    path = path.expanduser().absolute()
    return path.resolve() if path.is_symlink() else path


def read_config(path: Path) -> tuple[bytes | None, str | None, Any]:
    """(bytes, text, document) of a config file; (None, None, {}) when it does not exist."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None, None, {}
    except OSError as exc:
        raise MnemexError(f"{path}: cannot read it ({exc.strerror or exc}); nothing was written") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise MnemexError(f"{path}: not UTF-8 text; fix or move it, then run `mnemex init` again "
                          "(nothing was written)") from None
    if not text.strip():
        return raw, text, {}
    try:
        return raw, text, json.loads(text)
    except json.JSONDecodeError as exc:
        raise MnemexError(f"{path}: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno}); fix it "
                          "(JSON allows no comments or trailing commas) or move it, then run `mnemex init` "
                          "again (nothing was written)") from None


def render(doc: Any, like: str | None) -> str:
    """`doc` as JSON in the style of `like` (its indentation, line ends, final newline)."""
    fresh = like is None or like.strip() in ("", "{}", "[]")  # nothing to take a style from
    indent: str | int | None = 2
    if not fresh:
        found = re.search(r"\n([ \t]+)\S", like)
        indent = found.group(1) if found else None
    text = json.dumps(doc, indent=indent, ensure_ascii=False)
    if fresh or like.endswith("\n"):
        text += "\n"
    return text.replace("\n", "\r\n") if like and "\r\n" in like else text


def plan_file(path: Path, edit: Callable[[Any], Any], *, drop_if_empty: bool = False) -> FileChange:
    """What `edit` would make of the config at `path` (nothing changes when the result is equal)."""
    path = _real(path)
    raw, text, doc = read_config(path)
    try:
        new = edit(doc)
    except ShapeError as exc:
        raise MnemexError(f"{path}: {exc}; fix it by hand, then run `mnemex init` again (nothing was written)") \
            from None
    if new == doc and raw is not None:
        return FileChange(path, raw, text, text)
    if drop_if_empty and new == {}:
        return FileChange(path, raw, text, None)
    return FileChange(path, raw, text, render(new, text))


def apply_changes(changes: list[FileChange]) -> None:
    """Write every change atomically (previous version kept as `<file>.mnemex-backup`), after
    checking that no file changed since it was read."""
    for ch in changes:
        current = ch.path.read_bytes() if ch.path.exists() else None
        if current != ch.before:
            raise MnemexError(f"{ch.path}: changed since it was read; run `mnemex init` again (nothing was written)")
    for ch in changes:
        if not ch.changed:
            continue
        backup = ch.path.with_name(ch.path.name + BACKUP_SUFFIX)
        mode = ch.path.stat().st_mode & 0o7777 if ch.before is not None else None
        if ch.after_text is None:
            os.replace(ch.path, backup)
            continue
        if ch.before is not None:
            _write_atomic(backup, ch.before, mode)
        bom = b"\xef\xbb\xbf" if ch.before and ch.before.startswith(b"\xef\xbb\xbf") else b""
        _write_atomic(ch.path, bom + ch.after_text.encode("utf-8"), mode)


def _write_atomic(path: Path, data: bytes, mode: int | None) -> None:
    """Write through a temp file in the same folder and rename it over `path`. New files get the
    temp file's owner-only mode."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


