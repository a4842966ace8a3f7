"""The `mnemex` command's entry point: `mnemex hook` (run by Claude Code at every tool use and
prompt) goes straight to the hook, importing nothing else (no argparse, no settings model);
every other command goes to `mnemex.cli`.

A hook event is first handed to the store's running daemon over its Unix socket
(`server/capture_endpoint.py`: the daemon does what the hook would, with this process's capture
settings, and answers with what to print). Only when no daemon takes it does the hook import the
capture code and do it itself — with the same event id, so an event that reached both is
ingested once. This process then imports `re`, `json` and `_socket` and nothing of mnemex but
this module and the defaults."""

from __future__ import annotations

import os
import sys

MAX_INPUT = 8 * 1024 * 1024  # as capture.hook.MAX_INPUT
#: How long the daemon may take: a tool use is only spooled; the context of a session start may
#: wait for the last session's capture to be ingested (hook limits set by `mnemex init`: 30/10 s).
HANDOFF_TIMEOUT = {"SessionStart": 20.0, "UserPromptSubmit": 6.0}
HANDOFF_DEFAULT_TIMEOUT = 1.0
HOOK_PATH = "/mnemex/hook"  # as server.capture_endpoint.PATH
MAX_SOCKET_PATH = 100  # as server.runfiles.MAX_SOCKET_PATH (longer: the hook does the work itself)
INJECTS = frozenset(HANDOFF_TIMEOUT)


def main() -> int:
    argv = sys.argv[1:]
    if argv[:1] == ["hook"] and not {"-h", "--help"} & set(argv):
        return run_hook()
    from mnemex.cli import main as cli_main

    return cli_main(argv)


def run_hook(stdin=None, stdout=None) -> int:  # type: ignore[no-untyped-def]
    """`mnemex hook`: one hook event; context from the store's daemon. Always 0."""
    import io

    raw = (stdin or sys.stdin.buffer).read(MAX_INPUT + 1)
    event_id = os.urandom(16).hex()
    event = None
    try:
        answer, event = hand_over(raw, os.environ, event_id)
    except Exception:  # the hook's own path below says what is wrong, if anything
        answer = None
    if answer is not None:
        if answer.strip():
            out = stdout or sys.stdout
            out.write(answer.decode("utf-8", "replace").rstrip("\n") + "\n")
            out.flush()
        return 0
    from mnemex.capture.hook import main as hook_main
    from mnemex.private import private_umask

    private_umask()

    def daemon_context():  # imported only by the events that inject (http.client costs ~0.1 s)
        if event is not None and event in INJECTS:
            return None  # the daemon had it and did not answer in time: no second wait
        from mnemex.server.hook_context import DaemonContext

        return DaemonContext()

    return hook_main(stdin=io.BytesIO(raw), stdout=stdout, context_factory=daemon_context, event_id=event_id)


def hand_over(raw: bytes, environ, event_id: str) -> tuple[bytes | None, str | None]:  # type: ignore[no-untyped-def]
    """Give the event to the running daemon: (what to print, None) once it answered; (None, None)
    when no daemon took it; (None, event) when the daemon had it but gave no answer in time."""
    import json

    if len(raw) > MAX_INPUT:
        return None, None
    payload = json.loads(raw)
    event = payload.get("hook_event_name") if isinstance(payload, dict) else None
    if not isinstance(event, str):
        return None, None
    path = daemon_socket(environ)
    if path is None or not os.path.exists(path):
        return None, None
    try:
        import _socket as socket  # the C module: `socket` would cost the hook ~4 ms of imports
    except ImportError:  # pragma: no cover - not CPython
        import socket  # type: ignore[no-redef]

    passed = passed_env(environ)
    head = (f"POST {HOOK_PATH} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(raw)}\r\nx-mnemex-env: {json.dumps(passed)}\r\n"
            f"x-mnemex-event-id: {event_id}\r\nConnection: close\r\n\r\n")
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sent = False
    try:
        conn.settimeout(HANDOFF_TIMEOUT.get(event, HANDOFF_DEFAULT_TIMEOUT))
        conn.connect(path)
        conn.sendall(head.encode("ascii") + raw)
        sent = True
        reply = b""
        while True:
            chunk = conn.recv(65536)
            if not chunk:
                break
            reply += chunk
    except OSError:
        return None, (event if sent else None)
    finally:
        conn.close()
    head_part, _, body = reply.partition(b"\r\n\r\n")
    if not head_part.startswith((b"HTTP/1.1 200", b"HTTP/1.0 200")):
        return None, None  # refused or failed: the hook's own path
    return body, None


def passed_env(environ) -> dict[str, str]:  # type: ignore[no-untyped-def]
    """The part of a hook's environment the daemon takes into account (its capture settings and
    project): what the hook sends, and all the daemon accepts."""
    return {k: v for k, v in environ.items() if isinstance(k, str) and isinstance(v, str)
            and (k in ("MNEMEX_CONFIG", "CLAUDE_PROJECT_DIR") or k.startswith("MNEMEX_CAPTURE__"))}


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
