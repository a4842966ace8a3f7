"""`mnemex init [--undo]`: plan the file changes for some clients, show them, ask, apply."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from mnemex.clients.files import BACKUP_SUFFIX, FileChange, apply_changes, plan_file
from mnemex.clients.launcher import Launcher, find_launcher
from mnemex.clients.merge import with_hooks, with_server, without_hooks, without_server
from mnemex.clients.targets import Target, target_for
from mnemex.errors import MnemexError
from mnemex.projects import detect_project


def plan_init(clients: list[str], *, launcher: Launcher, scope: str | None = None, path: Path | None = None,
              hooks_path: Path | None = None, hooks: bool = True, undo: bool = False,
              cwd: Path | None = None) -> tuple[list[FileChange], list[Target]]:
    """The file changes that `init` (or `init --undo`) makes for `clients`."""
    if path is not None and len(clients) > 1:
        raise MnemexError("init: --path names one file; give one client with it")
    project = Path(detect_project(cwd))
    changes: list[FileChange] = []
    targets = []
    for client in dict.fromkeys(clients):
        t = target_for(client, scope=scope, project=project, path=path, hooks_path=hooks_path, hooks=hooks)
        targets.append(t)
        if undo:
            changes.append(plan_file(t.servers_path, lambda d, t=t: without_server(d, t.servers_key),
                                     drop_if_empty=True))
        else:
            entry = launcher.server_entry(typed=t.typed)
            changes.append(plan_file(t.servers_path, lambda d, t=t, e=entry: with_server(d, t.servers_key, e)))
        if t.hooks_path is not None:
            edit = without_hooks if undo else (lambda d: with_hooks(d, launcher.hook_command))
            changes.append(plan_file(t.hooks_path, edit, drop_if_empty=undo))
    paths = [c.path for c in changes]
    if len(set(paths)) != len(paths):
        raise MnemexError("init: two of these clients write the same file; run `mnemex init` once per client")
    return changes, targets


def run_init(clients: list[str], *, mode: str = "ask", launcher: Launcher | None = None,
             out: TextIO | None = None, err: TextIO | None = None,
             ask: Callable[[], bool] | None = None, **options: Any) -> int:
    """Show the change of each file, then apply it (mode "yes"), ask (mode "ask", on a terminal)
    or only show it (mode "dry-run"). Returns the exit code."""
    out, err = out or sys.stdout, err or sys.stderr
    launcher = launcher or find_launcher()
    undo = bool(options.get("undo"))
    changes, targets = plan_init(clients, launcher=launcher, **options)
    if not undo:
        print(f"mnemex command: {launcher.shown}", file=out)
    pending = [c for c in changes if c.changed]
    for ch in changes:
        if ch.changed:
            out.write(ch.diff())
        else:
            print(f"{ch.path}: {'nothing to remove' if undo else 'already up to date'}", file=out)
    if pending and mode == "dry-run":
        print(f"dry run: nothing written ({len(pending)} file(s) would change)", file=out)
        return 0
    if pending and mode != "yes":
        if ask is None and not sys.stdin.isatty():
            print("mnemex init: not a terminal, nothing written; run it again with --yes to apply these changes",
                  file=err)
            return 1
        if not (ask or _ask_on_terminal)():
            print("nothing written", file=out)
            return 1
    apply_changes(pending)
    for ch in pending:
        backup = f" (previous version: {ch.path.name}{BACKUP_SUFFIX})" if ch.before is not None else ""
        verb = "removed" if ch.after_text is None else "wrote"
        print(f"{verb} {ch.path}{backup}", file=out)
    for t in targets:
        print(t.undo_step if undo else t.next_step, file=out)
    return 0


def _ask_on_terminal() -> bool:
    try:
        return input("Apply? [y/N] ").strip().lower() in ("y", "yes")
    except EOFError:
        return False
