"""Commands that run or set up mnemex: serve, init, token, daemon, viewer, doctor, hook."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from mnemex.cli.access import load, print_json
from mnemex.cli.parser import command, int_between, json_flag
from mnemex.clients import CLIENTS
from mnemex.entry import run_hook


def register(sub: Any) -> None:
    hk = command(sub, "hook", "handle one Claude Code hook event (JSON on stdin); installed by `mnemex init`",
                 "mnemex hook < payload.json",
                 details="Captures Read/Edit/Write/Bash use (PostToolUse), injects memories (SessionStart, "
                         "UserPromptSubmit), closes the session's episode (PreCompact, Stop, SessionEnd). "
                         "Always exits 0")
    hk.set_defaults(func=lambda _args: run_hook())

    s = command(sub, "serve", "run the MCP server (stdio relays to the per-store daemon)",
                "mnemex serve", "mnemex serve --transport http --port 8765",
                "mnemex serve --transport http --host 0.0.0.0 --allow-host mnemex.lan")
    s.add_argument("--transport", choices=["stdio", "http", "sse"], default=None,
                   help="stdio (default; what MCP clients start), http (streamable HTTP) or sse (older clients)")
    s.add_argument("--host", default=None, help="http/sse bind address (default 127.0.0.1); any other "
                                                "address requires the bearer token (`mnemex token show`)")
    s.add_argument("--port", type=int_between(1, 65535), default=None, help="http/sse TCP port (default 8765)")
    s.add_argument("--allow-host", action="append", default=[], metavar="NAME[:PORT]",
                   help="http/sse: also accept this Host header (repeatable; adds to server.allowed_hosts)")
    s.add_argument("--allow-origin", action="append", default=[], metavar="ORIGIN",
                   help="http/sse: accept requests from this browser origin, e.g. https://app.example:* "
                        "(repeatable; adds to server.allowed_origins)")
    s.add_argument("--no-daemon", action="store_true", help="stdio: serve in this process instead of the daemon")
    s.set_defaults(func=cmd_serve)

    ini = command(sub, "init", "set up an MCP client to start this mnemex (Claude Code: and its hooks)",
                  "mnemex init claude-code", "mnemex init cursor vscode --yes", "mnemex init claude-code --undo",
                  "mnemex init claude-desktop --dry-run")
    ini.add_argument("clients", nargs="+", metavar="CLIENT", choices=CLIENTS,
                     help=f"one or more of: {', '.join(CLIENTS)}")
    ini.add_argument("--scope", choices=["project", "user"], default=None,
                     help="project (default; the git root of this directory) or user (every project)")
    ini.add_argument("--path", type=Path, default=None, metavar="FILE", help="write the MCP config to FILE instead")
    ini.add_argument("--hooks-path", type=Path, default=None, metavar="FILE",
                     help="claude-code: write the hooks to FILE instead of .claude/settings.json")
    ini.add_argument("--no-hooks", action="store_true", help="claude-code: only the MCP server, no hooks")
    ini.add_argument("--undo", action="store_true", help="remove what init added, nothing else")
    how = ini.add_mutually_exclusive_group()
    how.add_argument("--yes", "-y", action="store_true", help="apply without asking")
    how.add_argument("--dry-run", action="store_true", help="show the changes, write nothing")
    ini.set_defaults(func=cmd_init)

    tk = command(sub, "token", "the bearer token of `serve --transport http|sse` outside loopback",
                 "mnemex token show", "mnemex token rotate")
    tk.add_argument("action", choices=["show", "rotate"],
                    help="show: print it (created on first use); rotate: replace it (running servers refuse "
                         "the old one at once)")
    tk.set_defaults(func=cmd_token)

    d = command(sub, "daemon", "manage the per-store daemon (started on demand by `mnemex serve` and the commands that need the store)",
                "mnemex daemon status", "mnemex daemon status --json", "mnemex daemon start", "mnemex daemon stop",
                details="It exits by itself after server.daemon_idle_seconds without requests (0 = never); the "
                        "next client starts it again")
    d.add_argument("action", choices=["run", "start", "status", "stop"],
                   help="run: in the foreground; start: in the background (if none runs); status: is one running "
                        "(exit 0 either way, 1 if it runs but does not answer); stop: shut it down gracefully")
    json_flag(d)
    d.set_defaults(func=cmd_daemon)

    v = command(sub, "viewer", "open the memory viewer in your browser (served by the daemon on 127.0.0.1)",
                "mnemex viewer", "mnemex viewer --no-open",
                details="Starts the daemon if needed; the printed link carries an access key (keep it to "
                        "yourself). The port is server.viewer_port (0 = any free port)")
    v.add_argument("--no-open", action="store_true",
                   help="only print the link (also what happens without a terminal or a display)")
    json_flag(v)
    v.set_defaults(func=cmd_viewer)

    doc = command(sub, "doctor", "check model, store, daemon and config; say how to fix problems", "mnemex doctor")
    doc.set_defaults(func=cmd_doctor)


def _serve_overrides(args: argparse.Namespace) -> dict[str, Any]:
    """`serve` flags as settings overrides, validated like the config (an error names the key)."""
    server: dict[str, Any] = {k: v for k, v in (("host", args.host), ("port", args.port)) if v is not None}
    if args.allow_host or args.allow_origin:
        configured = load().server
        if args.allow_host:
            server["allowed_hosts"] = [*configured.allowed_hosts, *args.allow_host]
        if args.allow_origin:
            server["allowed_origins"] = [*configured.allowed_origins, *args.allow_origin]
    return {"server": server} if server else {}


def cmd_serve(args: argparse.Namespace) -> int:
    settings = load(**_serve_overrides(args))
    transport = args.transport or settings.server.transport
    if transport == "stdio" and settings.server.daemon and not args.no_daemon:
        from mnemex.server import relay

        return relay.run_relay(settings)
    from mnemex.server.direct import serve_direct

    serve_direct(settings, transport, settings.server.host, settings.server.port)
    return 0


def cmd_init(args: argparse.Namespace) -> int:
    from mnemex.clients.init import run_init

    return run_init(args.clients, mode="yes" if args.yes else "dry-run" if args.dry_run else "ask",
                    scope=args.scope, path=args.path, hooks_path=args.hooks_path, hooks=not args.no_hooks,
                    undo=args.undo)


def cmd_token(args: argparse.Namespace) -> int:
    from mnemex.server.http_auth import ensure_token, rotate_token

    path = load().http_token_path
    if args.action == "rotate":
        print(rotate_token(path))
        print(f"mnemex: new HTTP token in {path}; running servers refuse the old one from their next request",
              file=sys.stderr)
    else:
        print(ensure_token(path))
        print(f"mnemex: HTTP token from {path}; clients send 'Authorization: Bearer <token>'", file=sys.stderr)
    return 0


def cmd_daemon(args: argparse.Namespace) -> int:
    settings = load()
    from mnemex.server import daemon_client

    if args.action == "run":
        from mnemex.server.daemon import run_daemon

        # it hands its store over as a detached daemon does, and follows the daemons after it
        return run_daemon(settings, hand_over=True, follow=True) or 0
    if args.action == "start":
        path = daemon_client.ensure_daemon(settings)
        print(f"mnemex daemon running on {path}")
        return 0
    if args.action == "stop":
        stopped = daemon_client.stop_daemon(settings)
        print("mnemex daemon stopped" if stopped else "no mnemex daemon was running")
        return 0
    status = {**daemon_client.daemon_status(settings), "idle_exit_seconds": settings.server.daemon_idle_seconds}
    if args.json:
        print_json(status)
    else:
        print(status_text(status))
    return 1 if status["running"] and not status["answering"] else 0


def _duration(seconds: float) -> str:
    seconds = int(seconds)
    if seconds < 120:
        return f"{seconds} s"
    if seconds < 7200:
        return f"{seconds // 60} min"
    return f"{seconds // 3600} h {seconds % 3600 // 60} min"


def status_text(status: dict[str, Any]) -> str:
    """`mnemex daemon status` for people."""
    idle = status.get("idle_exit_seconds") or 0
    leaves = f"exits after {_duration(idle)} without requests" if idle else "never exits by itself"
    if not status["running"]:
        head = "mnemex daemon: not running (the next `mnemex serve`, `mnemex search`, ... or `mnemex daemon start` starts it)"
        owner = f"\n  store open in: {status['owner']} (pid {status['pid']})" if status.get("owner") else ""
        return f"{head}{owner}\n  data dir: {status['data_dir']}"
    up = f", up {_duration(status['uptime'])}" if status.get("uptime") is not None else ""
    state = "running" if status["answering"] else "running but NOT answering (see the log; `mnemex daemon stop`)"
    return (f"mnemex daemon: {state} (pid {status['pid']}{up})\n  data dir: {status['data_dir']}\n"
            f"  socket:   {status['socket']}\n  log:      {status['log']}\n  idle:     {leaves}")


def cmd_viewer(args: argparse.Namespace) -> int:
    from mnemex.server.daemon_client import open_viewer

    info = open_viewer(load())
    if args.json:
        print_json(info)
        return 0
    print(info["open_url"])
    opened = not args.no_open and _can_open_browser() and _open_browser(info["open_url"])
    print(f"mnemex: memory viewer on {info['url']} (daemon pid {info['pid']})"
          + ("; opened in your browser" if opened else "; open the link above in a browser"), file=sys.stderr)
    return 0


def _can_open_browser() -> bool:
    """A person at a terminal with a graphical session (a text browser would take over the terminal)."""
    import os

    if not (sys.stdout.isatty() and sys.stdin.isatty()):
        return False
    return sys.platform in ("darwin", "win32") or bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def _open_browser(url: str) -> bool:
    import webbrowser

    try:
        return bool(webbrowser.open(url, new=2))
    except webbrowser.Error:
        return False


def cmd_doctor(args: argparse.Namespace) -> int:
    from mnemex.doctor import run_doctor

    return run_doctor()
