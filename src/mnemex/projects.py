"""Project keys: memories of project scope belong to the project they were made in."""

from __future__ import annotations

from pathlib import Path


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
