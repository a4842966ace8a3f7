"""Project keys: memories of project scope belong to the project they were made in."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def detect_project(cwd: Path | str | None = None) -> str:
    """The git root above `cwd` (a worktree's `.git` file counts), else `cwd` itself, resolved.

    Falling back to the directory keeps memories made outside any repository (a desktop
    client started in the home folder) together, and still apart from every repository's.
    """
    here = Path(cwd or Path.cwd()).resolve()
    for candidate in (here, *here.parents):
        if (candidate / ".git").exists():
            return str(candidate)
    return str(here)


def project_of_roots(roots: Any) -> str | None:
    """The project of an MCP client's roots (`roots/list` result's `roots`, as objects or dicts):
    the git root of the first `file://` root, or None when there is none."""
    from urllib.parse import unquote, urlsplit  # only for roots (the hook path stays light)

    for root in roots if isinstance(roots, (list, tuple)) else []:
        uri = root.get("uri") if isinstance(root, dict) else getattr(root, "uri", None)
        parts = urlsplit(str(uri or ""))
        if parts.scheme == "file" and parts.path:
            return detect_project(unquote(parts.path))
    return None
