"""Talk to the per-store daemon from the CLI, hooks and the stdio relay (stdlib only).

The daemon serves MCP streamable HTTP on a Unix socket. This module holds the pieces every
caller shares: an HTTP connection over AF_UNIX, one POST with the response parsed from JSON or
SSE, starting a detached daemon and waiting until it answers, and a one-shot `call_tool` for the
CLI and hooks that uses the stateless 2026-07-28 envelope (one request, no session handshake).
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from mnemex import __version__
from mnemex.errors import DaemonError
from mnemex.server.runfiles import RunFiles, pid_alive

MCP_PATH = "/mcp"
PROJECT_HEADER = "x-mnemex-project"  # == mnemex.tools.runtime.PROJECT_HEADER (not imported: it pulls in anyio)
CLIENT_HEADER = "x-mnemex-client"
MODERN_VERSION = "2026-07-28"
META_PREFIX = "io.modelcontextprotocol/"
START_TIMEOUT = 60.0
LOG_ROTATE_BYTES = 2_000_000


def header_value(text: str) -> str:
    """A header value http.client can send: the UTF-8 bytes of `text` (the server reads header
    bytes as latin-1, so `value.encode("latin-1").decode("utf-8")` there gives `text` back);
    line breaks, which would split the header, are dropped."""
    return text.replace("\r", "").replace("\n", "").encode("utf-8").decode("latin-1")


class NotDelivered(ConnectionError):
    """No daemon accepted the connection: the message was certainly not processed (safe to retry)."""


class UnixHTTPConnection(http.client.HTTPConnection):
    """http.client over a Unix socket; the Host header says `localhost` (the daemon allows it)."""

    def __init__(self, path: str | Path, timeout: float | None = None):
        super().__init__("localhost", timeout=timeout)
        self._path = str(path)

    def connect(self) -> None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(self.timeout)
        try:
            sock.connect(self._path)
        except BaseException:
            sock.close()
            raise
        self.sock = sock


@dataclass
class Reply:
    """One HTTP exchange: status, lower-cased headers, the JSON-RPC messages that came back."""

    status: int
    headers: dict[str, str]
    messages: list[dict[str, Any]] = field(default_factory=list)
    text: str = ""


def iter_sse(resp: http.client.HTTPResponse) -> Iterator[dict[str, Any]]:
    """The JSON-RPC messages of an SSE stream, as they arrive (priming and ping events skipped)."""
    data: list[str] = []
    while True:
        raw = resp.readline()
        line = raw.decode("utf-8").rstrip("\r\n")
        if raw and line:
            if line.startswith("data:"):
                data.append(line[5:].lstrip(" ") if line[5:6] == " " else line[5:])
            continue  # event:, id:, retry: and ":" comments carry nothing the relay needs
        if data:
            payload = "\n".join(data)
            data = []
            if payload.strip():
                yield json.loads(payload)
        if not raw:
            return


def post(sock_path: str | Path, message: dict[str, Any] | None, headers: dict[str, str], *,
         timeout: float | None, method: str = "POST",
         on_message: Callable[[dict[str, Any]], None] | None = None) -> Reply:
    """Send one message to the daemon; the messages of its JSON or SSE answer go to `on_message`
    as they arrive (unless the HTTP status is an error), and into `Reply.messages`. Raises NotDelivered when no daemon listens, another
    OSError when the connection broke after the message was sent."""
    conn = UnixHTTPConnection(sock_path, timeout=timeout)
    try:
        try:
            conn.connect()
        except OSError as exc:
            raise NotDelivered(f"no mnemex daemon on {sock_path}: {exc}") from exc
        body = json.dumps(message, ensure_ascii=False).encode("utf-8") if message is not None else None
        conn.request(method, MCP_PATH, body=body, headers={
            "Content-Type": "application/json", "Accept": "application/json, text/event-stream", **headers})
        resp = conn.getresponse()
        reply = Reply(resp.status, {k.lower(): v for k, v in resp.getheaders()})

        stream = on_message if reply.status < 400 else None  # rejections: the caller decides

        def sink(msg: dict[str, Any]) -> None:
            reply.messages.append(msg)
            if stream is not None:
                stream(msg)

        ctype = reply.headers.get("content-type", "")
        if ctype.startswith("text/event-stream"):
            for msg in iter_sse(resp):
                sink(msg)
        else:
            raw = resp.read()
            if ctype.startswith("application/json") and raw.strip():
                try:
                    parsed = json.loads(raw)
                except ValueError:
                    reply.text = raw.decode("utf-8", "replace")
                else:
                    for msg in parsed if isinstance(parsed, list) else [parsed]:
                        sink(msg)
            else:
                reply.text = raw.decode("utf-8", "replace")
        return reply
    finally:
        conn.close()


# --------------------------------------------------------------- starting
def daemon_env(settings: Any = None) -> dict[str, str]:
    """The environment for a daemon: ours, with the data dir pinned so it opens the same store."""
    env = dict(os.environ)
    if settings is not None:
        env["MNEMEX_DATA_DIR"] = str(settings.data_dir)
    return env


def spawn_daemon(files: RunFiles, env: dict[str, str] | None = None) -> subprocess.Popen:
    """Start `python -m mnemex.server.daemon` detached (own session), logging to the run dir."""
    files.ensure_dir()
    try:
        if files.log_file.stat().st_size > LOG_ROTATE_BYTES:
            os.replace(files.log_file, files.log_file.with_suffix(".log.1"))
    except FileNotFoundError:
        pass
    log_fd = os.open(files.log_file, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        return subprocess.Popen(
            [sys.executable, "-m", "mnemex.server.daemon"], stdin=subprocess.DEVNULL, stdout=log_fd,
            stderr=log_fd, cwd=str(files.run_dir), env=env if env is not None else dict(os.environ),
            start_new_session=True, close_fds=True)  # own session: the client's Ctrl-C/SIGHUP never reach it
    finally:
        os.close(log_fd)


def _log_tail(files: RunFiles, offset: int) -> str:
    try:
        with open(files.log_file, "rb") as fh:
            fh.seek(offset)
            lines = [ln.strip() for ln in fh.read().decode("utf-8", "replace").splitlines() if ln.strip()]
    except OSError:
        return ""
    return lines[-1] if lines else ""


def start_daemon(files: RunFiles, *, env: dict[str, str] | None = None, timeout: float = START_TIMEOUT) -> Path:
    """Return the socket of a daemon that answers, starting one if none runs.

    Two callers racing both spawn; the daemon that loses the lock exits 0 and both callers
    wait for the winner. A daemon that fails raises DaemonError with its last log line.
    """
    if files.socket_answers():
        return files.socket
    deadline = time.monotonic() + timeout
    files.ensure_dir()
    offset = files.log_file.stat().st_size if files.log_file.exists() else 0
    proc: subprocess.Popen | None = spawn_daemon(files, env)
    respawns = 0
    while True:
        if files.socket_answers(0.5):
            if proc is not None:  # reap it whenever it exits, so no zombie outlives it in a long-lived relay
                threading.Thread(target=proc.wait, name="mnemex-reap", daemon=True).start()
            return files.socket
        rc = proc.poll() if proc is not None else None
        if rc not in (None, 0):
            detail = _log_tail(files, offset) or f"exit status {rc}"
            raise DaemonError(f"the mnemex daemon failed to start: {detail} (log: {files.log_file})")
        if rc == 0:  # it lost the race (or found a daemon); respawn if no owner is left after all
            proc = None
        if proc is None and files.owner() is None and respawns < 3:
            respawns += 1
            proc = spawn_daemon(files, env)
        if time.monotonic() > deadline:
            raise DaemonError(f"the mnemex daemon did not answer on {files.socket} within {timeout:.0f} s "
                              f"(log: {files.log_file})")
        time.sleep(0.02)


# ------------------------------------------------------ CLI / hook surface
def ensure_daemon(settings: Any, *, timeout: float = START_TIMEOUT) -> Path:
    """The socket path of the store's running daemon, starting it if needed."""
    return start_daemon(RunFiles.for_settings(settings), env=daemon_env(settings), timeout=timeout)


def modern_request(request_id: int | str, method: str, params: dict[str, Any], *,
                   client: str = "mnemex-cli") -> tuple[dict[str, Any], dict[str, str]]:
    """A 2026-07-28 request (per-request `_meta` envelope) and the routing headers it needs."""
    meta = {META_PREFIX + "protocolVersion": MODERN_VERSION, META_PREFIX + "clientCapabilities": {},
            META_PREFIX + "clientInfo": {"name": client, "version": __version__}}
    message = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": {**params, "_meta": meta}}
    headers = {"mcp-protocol-version": MODERN_VERSION, "mcp-method": method}
    if method == "tools/call":
        headers["mcp-name"] = params["name"]
    return message, headers


def call_tool(settings: Any, name: str, arguments: dict[str, Any], *, project: str | None = None,
              timeout: float = 60.0, client: str = "mnemex-cli", start: bool = True) -> dict[str, Any]:
    """Call one tool on the daemon and return its structuredContent. With start=False (hooks
    that must stay fast) no daemon is started: DaemonError at once if none answers.

    Raises DaemonError with the MCP error message when the call fails or the tool reports an error.
    """
    files = RunFiles.for_settings(settings)
    if start:
        sock = ensure_daemon(settings)
    elif files.socket_answers():
        sock = files.socket
    else:
        raise DaemonError(f"no mnemex daemon is running for {settings.data_dir}")
    message, headers = modern_request(1, "tools/call", {"name": name, "arguments": arguments}, client=client)
    headers[CLIENT_HEADER] = header_value(client)
    if project:
        headers[PROJECT_HEADER] = header_value(project)
    try:
        reply = post(sock, message, headers, timeout=timeout)
    except OSError as exc:
        raise DaemonError(f"mnemex daemon on {sock} did not answer: {exc}") from None
    answer = next((m for m in reply.messages if m.get("id") == 1), None)
    if answer is None:
        raise DaemonError(f"mnemex daemon answered HTTP {reply.status} without a result: {reply.text.strip()[:200]}")
    if "error" in answer:
        raise DaemonError(f"{name}: {answer['error'].get('message', 'error')}")
    result = answer.get("result") or {}
    if result.get("isError"):
        text = " ".join(c.get("text", "") for c in result.get("content", []) if c.get("type") == "text")
        raise DaemonError(f"{name}: {text or 'tool failed'}")
    structured = result.get("structuredContent")
    if structured is None:
        texts = [c.get("text", "") for c in result.get("content", []) if c.get("type") == "text"]
        try:
            structured = json.loads(texts[0]) if len(texts) == 1 else {"text": "\n".join(texts)}
        except ValueError:
            structured = {"text": texts[0]}
    return structured


def daemon_status(settings: Any) -> dict[str, Any]:
    """{"running", "answering", "pid", "socket", "uptime", "log", "owner"} of this store's daemon."""
    files = RunFiles.for_settings(settings)
    owner = files.owner()
    running = bool(owner) and owner.get("role") == "daemon"
    started = owner.get("started") if running else None
    return {
        "running": running,
        "answering": running and files.socket_answers(),
        "pid": owner.get("pid") if owner else None,
        "socket": str(files.socket),
        "uptime": round(time.time() - started, 1) if isinstance(started, (int, float)) else None,
        "log": str(files.log_file),
        "owner": owner.get("role") if owner else None,
        "data_dir": str(settings.data_dir),
    }


def stop_daemon(settings: Any, *, timeout: float = 15.0) -> bool:
    """Ask the store's daemon to shut down gracefully (SIGTERM: it flushes the store), SIGKILL
    after `timeout`; False if no daemon was running."""
    files = RunFiles.for_settings(settings)
    owner = files.owner()
    if not owner or owner.get("role") != "daemon" or not pid_alive(owner.get("pid")):
        return False
    pid = int(owner["pid"])

    def released() -> bool:  # the lock is free, or someone else (a new owner) holds it now
        current = files.owner()
        return current is None or current.get("pid") != pid

    os.kill(pid, signal.SIGTERM)
    if not _wait(released, timeout):
        if pid_alive(pid):
            os.kill(pid, signal.SIGKILL)
        _wait(released, 5.0)
    return True


def _wait(predicate: Callable[[], bool], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True
