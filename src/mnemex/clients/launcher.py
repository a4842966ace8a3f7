"""The command a client runs to start this mnemex: always an absolute path."""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Launcher:
    """How a client starts this mnemex: `argv` + a subcommand (`serve`, `hook`). `hook_argv`,
    when set, is the faster hook command of this very installation (`hook_script.py`)."""

    argv: tuple[str, ...]
    hook_argv: tuple[str, ...] | None = None

    def server_entry(self, *, typed: bool) -> dict[str, Any]:
        entry: dict[str, Any] = {"type": "stdio"} if typed else {}
        return {**entry, "command": self.argv[0], "args": [*self.argv[1:], "serve"]}

    @property
    def hook_command(self) -> str:
        return _join(self.hook_argv or [*self.argv, "hook"])

    @property
    def shown(self) -> str:
        return _join(self.argv)


def find_launcher(argv0: str | None = None, *, which: Callable[[str], str | None] = shutil.which,
                  executable: str | None = None) -> Launcher:
    """The running installation's `mnemex`: the console script being run, else the one on PATH,
    else this Python with `-m mnemex.cli`. Always absolute."""
    # not resolved: a venv's python is a symlink whose target is outside the venv
    python = str(Path(executable or sys.executable).absolute())
    script = _console_script(sys.argv[0] if argv0 is None else argv0)
    if script is not None:
        return Launcher((str(script),), _fast_hook(python))
    found = which("mnemex")
    if found:  # another installation: its own `mnemex hook`
        return Launcher((str(Path(found).resolve()),))
    return Launcher((python, "-m", "mnemex.cli"), _fast_hook(python))


def _fast_hook(python: str) -> tuple[str, ...] | None:
    """`python -S .../mnemex/hook_script.py` (POSIX): the hook without `site` and the console
    script's imports, ~15 ms less per tool use (hook_script.py)."""
    script = Path(__file__).resolve().parent.parent / "hook_script.py"
    if os.name == "nt" or not script.is_file():
        return None
    return (python, "-S", str(script))


def _console_script(argv0: str) -> Path | None:
    if not argv0:
        return None
    path = Path(argv0)
    if path.stem.lower() != "mnemex":  # `python -m mnemex[.cli]` runs a .py file, not the script
        return None
    # on Windows the launcher strips `.exe` from argv[0]
    for candidate in (path, path.with_name(path.name + ".exe")):
        if candidate.is_file():
            return candidate.resolve()
    return None


def _join(argv: list[str] | tuple[str, ...]) -> str:
    if os.name == "nt":
        import subprocess  # only for its Windows quoting; costly to import

        return subprocess.list2cmdline(argv)
    return shlex.join(argv)


def is_mnemex_hook(command: Any) -> bool:
    """Whether a hook command runs `mnemex hook` (any install path: script, `python -m` or
    `python -S .../mnemex/hook_script.py`)."""
    if not isinstance(command, str):
        return False
    try:
        words = shlex.split(command, posix=os.name != "nt")
    except ValueError:
        return False
    words = [w.strip('"') for w in words]
    if len(words) == 3 and words[1] == "-S":
        return words[2].replace("\\", "/").endswith("/mnemex/hook_script.py")
    if len(words) == 2 and words[1] == "hook":
        return Path(words[0].replace("\\", "/")).stem.lower() == "mnemex"
    return len(words) == 4 and words[1:] in (["-m", "mnemex.cli", "hook"], ["-m", "mnemex", "hook"])


