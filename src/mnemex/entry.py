"""The `mnemex` command's entry point: `mnemex hook` (run by Claude Code at every tool use and
prompt) goes straight to the hook, importing nothing else (no argparse, no settings model);
`mnemex serve` (what MCP clients start) goes straight to the stdio relay when it can
(`serve_relay`), so `initialize` is answered within ~100 ms of the process start; every other
command goes to `mnemex.cli`.

A hook event is first handed to the store's running daemon over its Unix socket
(`server/capture_endpoint.py`: the daemon does what the hook would, with this process's capture
settings, and answers with what to print). Only when no daemon takes it does the hook import the
capture code and do it itself — with the same event id, so an event that reached both is
ingested once. The hand-off imports `_socket` and nothing of mnemex but this module and
`userdirs`: no `json`, `pathlib` or `typing`, which load `re` (~10 ms on a slow core); with
the hook command `mnemex init` writes (`hook_script.py`, without `site`) a tool use costs p50
28 ms (benchmarks/RESULTS.md)."""

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
    if argv == ["serve"]:
        served = serve_relay()
        if served is not None:
            return served
    from mnemex.cli import main as cli_main

    return cli_main(argv)


def serve_relay() -> int | None:
    """`mnemex serve` as MCP clients start it: straight to the stdio relay, without argparse or
    the settings model, when the environment and config file say plainly where the store is
    (server/relay_plan.py); None (the CLI's own path) when only the full settings can tell."""
    from mnemex.server.relay_plan import relay_plan

    plan = relay_plan(os.environ)
    if plan is None:
        return None
    from mnemex.private import private_umask
    from mnemex.server.relay import run_relay

    private_umask()  # as the CLI does: what the relay creates (the run dir) is owner-only
    return run_relay(plan)


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
    with_site()
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
    when no daemon took it; (None, event) when the daemon had it but gave no answer in time.
    The daemon parses the payload; an invalid one gets a 400 and the hook's own path."""
    if len(raw) > MAX_INPUT:
        return None, None
    event = event_name(raw)
    if event is None:
        return None, None
    path = daemon_socket(environ)
    if path is None or not os.path.exists(path):
        return None, None
    try:
        import _socket as socket  # the C module: `socket` would cost the hook ~4 ms of imports
    except ImportError:  # pragma: no cover - not CPython
        import socket  # type: ignore[no-redef]

    head = (f"POST {HOOK_PATH} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(raw)}\r\nx-mnemex-env: {encode_env(passed_env(environ))}\r\n"
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


_EVENT_KEY = b'"hook_event_name"'


def event_name(raw: bytes) -> str | None:
    """The payload's `hook_event_name` (it only picks the hand-off's time limit), read from the
    bytes when the key occurs once and the name is a plain word, else by parsing the JSON."""
    at = raw.find(_EVENT_KEY)
    if at >= 0 and raw.find(_EVENT_KEY, at + 1) < 0:
        rest = raw[at + len(_EVENT_KEY):at + len(_EVENT_KEY) + 200].lstrip()
        if rest[:1] == b":":
            rest = rest[1:].lstrip()
            end = rest.find(b'"', 1)
            name = rest[1:end]
            if rest[:1] == b'"' and end > 1 and name.isalpha():
                return name.decode("ascii")
    import json

    try:
        payload = json.loads(raw)
    except ValueError:
        return None
    name = payload.get("hook_event_name") if isinstance(payload, dict) else None
    return name if isinstance(name, str) else None


def encode_env(env: dict[str, str]) -> str:
    """The passed environment as one header value: `k=v` pairs, NUL-separated, in hex (no `json`)."""
    return "\0".join(f"{k}={v}" for k, v in env.items()).encode("utf-8", "surrogateescape").hex()


def decode_env(value: bytes) -> dict[str, str]:
    """What `encode_env` wrote; ValueError if it is not that."""
    text = bytes.fromhex(value.decode("ascii")).decode("utf-8", "surrogateescape")
    pairs = [item.partition("=") for item in text.split("\0")] if text else []
    if any(not sep or not key for key, sep, _ in pairs):
        raise ValueError("not an environment")
    return {key: val for key, _, val in pairs}


def with_site() -> None:
    """Load `site` (the installation's packages) if the hook started without it (`-S`)."""
    if sys.flags.no_site and "site" not in sys.modules:
        import site

        site.main()


def passed_env(environ) -> dict[str, str]:  # type: ignore[no-untyped-def]
    """The part of a hook's environment the daemon takes into account (its capture settings and
    project): what the hook sends, and all the daemon accepts."""
    return {k: v for k, v in environ.items() if isinstance(k, str) and isinstance(v, str)
            and (k in ("MNEMEX_CONFIG", "CLAUDE_PROJECT_DIR") or k.startswith("MNEMEX_CAPTURE__"))}


def daemon_socket(environ) -> str | None:  # type: ignore[no-untyped-def]
    """The store's daemon socket, found as the hook's settings find the data dir."""
    data = environ.get("MNEMEX_DATA_DIR")
    if not data:
        from mnemex.userdirs import user_config_file, user_dir

        explicit = environ.get("MNEMEX_CONFIG")
        config = os.path.expanduser(explicit) if explicit else user_config_file()
        if os.path.exists(config):
            with open(config, "rb") as f:
                text = f.read()
            if b"data_dir" in text:  # `tomllib` loads `re`: only when the file may set it
                import tomllib

                data = tomllib.loads(text.decode("utf-8")).get("data_dir")
        data = data if isinstance(data, str) and data else user_dir("data")
    path = os.path.join(os.path.expanduser(data), "run", "daemon.sock")
    return path if len(os.fsencode(path)) <= MAX_SOCKET_PATH else None
