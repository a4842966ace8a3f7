"""Project keys: memories of project scope belong to the git root they were made in."""

from __future__ import annotations

from pathlib import Path


def detect_project(cwd: Path | str | None = None) -> str | None:
    """The git root above `cwd` (a worktree's `.git` file counts), as a resolved path string."""
    here = Path(cwd or Path.cwd()).resolve()
    for candidate in (here, *here.parents):
        if (candidate / ".git").exists():
            return str(candidate)
    return None
