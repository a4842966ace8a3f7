"""The `mnemex` command's entry point: `mnemex hook` (run by Claude Code at every tool use) goes
straight to the hook, importing nothing else (no argparse, no settings model); every other
command goes to `mnemex.cli`.

A tool use (PostToolUse, PostToolUseFailure) is first handed to the store's running daemon over
its Unix socket (`server/capture_endpoint.py`: the daemon redacts and spools it as the hook
would, with this process's capture settings); only when no daemon answers within
`HANDOFF_TIMEOUT` does the hook import the capture code and spool it itself."""

from __future__ import annotations

import os
import sys

MAX_INPUT = 8 * 1024 * 1024  # as capture.hook.MAX_INPUT
HANDOFF_TIMEOUT = 0.5
HANDOFF_EVENTS = ("PostToolUse", "PostToolUseFailure")
CAPTURE_PATH = "/mnemex/capture"  # as server.capture_endpoint.PATH
MAX_SOCKET_PATH = 100  # as server.runfiles.MAX_SOCKET_PATH (longer: the hook spools itself)


def main() -> int:
    argv = sys.argv[1:]
    if argv[:1] == ["hook"] and not {"-h", "--help"} & set(argv):
        return run_hook()
    from mnemex.cli import main as cli_main

    return cli_main(argv)


def run_hook(stdin=None) -> int:  # type: ignore[no-untyped-def]
    """`mnemex hook`: one hook event; context from the store's daemon. Always 0."""
    import io

    raw = (stdin or sys.stdin.buffer).read(MAX_INPUT + 1)
    try:
        if handed_over(raw, os.environ):
            return 0
    except Exception:  # the hook's own path below says what is wrong, if anything
        pass
    from mnemex.capture.hook import main as hook_main
    from mnemex.private import private_umask

    private_umask()

    def daemon_context():  # imported only by the events that inject (http.client costs ~0.1 s)
        from mnemex.server.hook_context import DaemonContext

        return DaemonContext()

    return hook_main(stdin=io.BytesIO(raw), context_factory=daemon_context)


def handed_over(raw: bytes, environ) -> bool:  # type: ignore[no-untyped-def]
    """Give a tool use to the running daemon; True once it answered that the event is spooled."""
    import json

    if len(raw) > MAX_INPUT:
        return False
    payload = json.loads(raw)
    if not isinstance(payload, dict) or payload.get("hook_event_name") not in HANDOFF_EVENTS:
        return False
    path = daemon_socket(environ)
    if path is None or not os.path.exists(path):
        return False
    try:
        import _socket as socket  # the C module: `socket` would cost the hook ~4 ms of imports
    except ImportError:  # pragma: no cover - not CPython
        import socket  # type: ignore[no-redef]

    passed = {k: v for k, v in environ.items()
              if k in ("MNEMEX_CONFIG", "CLAUDE_PROJECT_DIR") or k.startswith("MNEMEX_CAPTURE__")}
    head = (f"POST {CAPTURE_PATH} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(raw)}\r\nx-mnemex-env: {json.dumps(passed)}\r\nConnection: close\r\n\r\n")
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.settimeout(HANDOFF_TIMEOUT)
        conn.connect(path)
        conn.sendall(head.encode("ascii") + raw)
        answer = conn.recv(64)
    except OSError:
        return False
    finally:
        conn.close()
    return answer.startswith((b"HTTP/1.1 204", b"HTTP/1.0 204"))


def daemon_socket(environ) -> str | None:  # type: ignore[no-untyped-def]
    """The store's daemon socket, found as the hook's settings find the data dir."""
    data = environ.get("MNEMEX_DATA_DIR")
    if not data:
        from mnemex.config.defaults import default_config_file, default_data_dir

        explicit = environ.get("MNEMEX_CONFIG")
        config = os.path.expanduser(explicit) if explicit else str(default_config_file())
        if os.path.exists(config):
            import tomllib

            with open(config, "rb") as f:
                data = tomllib.load(f).get("data_dir")
        data = data if isinstance(data, str) and data else str(default_data_dir())
    path = os.path.join(os.path.expanduser(data), "run", "daemon.sock")
    return path if len(os.fsencode(path)) <= MAX_SOCKET_PATH else None
