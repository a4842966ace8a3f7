"""Which file and which key each client reads, by scope (project or user)."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

from mnemex.clients import CLIENTS
from mnemex.errors import MnemexError


@dataclass(frozen=True)
class Target:
    """What `init` writes for one client."""

    client: str
    servers_path: Path
    servers_key: str
    typed: bool  # the entry carries "type": "stdio"
    hooks_path: Path | None
    next_step: str
    undo_step: str


def desktop_config_dir() -> Path:
    home = Path.home()
    if sys.platform == "darwin":
        return home / "Library" / "Application Support" / "Claude"
    if os.name == "nt":
        return Path(os.environ.get("APPDATA") or home / "AppData" / "Roaming") / "Claude"
    return Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config") / "Claude"


def target_for(client: str, *, scope: str | None, project: Path, path: Path | None = None,
               hooks_path: Path | None = None, hooks: bool = True) -> Target:
    """The files and keys of `client` (scope: project or user; None is the client's default)."""
    home = Path.home()
    user = scope == "user"
    if client == "claude-code":
        servers = path or (home / ".claude.json" if user else project / ".mcp.json")
        settings = hooks_path or (home / ".claude" if user else project / ".claude") / "settings.json"
        where = "" if user else f" in {project}"
        approve = "" if user else " and approve the mnemex server when asked"
        return Target(client, servers, "mcpServers", True, settings if hooks else None,
                      f"claude-code: run `claude`{where}{approve}; check with `/mcp`",
                      "claude-code: restart `claude`; `/mcp` no longer lists mnemex")
    if client == "claude-desktop":
        if scope == "project":
            raise MnemexError("init claude-desktop: Claude Desktop has one config per user; drop --scope project")
        return Target(client, path or desktop_config_dir() / "claude_desktop_config.json", "mcpServers", False, None,
                      "claude-desktop: quit Claude Desktop completely and start it again; mnemex then shows "
                      "among its connectors", "claude-desktop: quit Claude Desktop completely and start it again")
    if client == "cursor":
        return Target(client, path or (home if user else project) / ".cursor" / "mcp.json", "mcpServers", False,
                      None, "cursor: open Cursor Settings > MCP and check that mnemex is enabled (or restart Cursor)",
                      "cursor: restart Cursor")
    if client == "vscode":
        if user and path is None:
            raise MnemexError("init vscode: only the project's .vscode/mcp.json is written; drop --scope user "
                              "or give the file with --path")
        return Target(client, path or project / ".vscode" / "mcp.json", "servers", True, None,
                      "vscode: run `MCP: List Servers` in VS Code and start mnemex; its tools show in Chat's "
                      "agent mode", "vscode: run `MCP: List Servers` in VS Code; mnemex is gone")
    raise MnemexError(f"init: unknown client {client!r} (choose from {', '.join(CLIENTS)})")


