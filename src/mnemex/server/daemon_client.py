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
from mnemex.server.wire import (  # re-exported: callers import them from here
    CLIENT_HEADER,
    META_PREFIX,
    MODERN_VERSION,
    PROJECT_HEADER,
    Interrupted,
    NotDelivered,
    header_value,
)

MCP_PATH = "/mcp"
START_TIMEOUT = 60.0
LOG_ROTATE_BYTES = 2_000_000


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


def parse_messages(payload: bytes) -> list[dict[str, Any]] | None:
    """The JSON-RPC messages in one JSON text (a message or a batch); None if it is not JSON."""
    try:
        parsed = json.loads(payload)
    except (ValueError, RecursionError):
        return None
    return [m for m in (parsed if isinstance(parsed, list) else [parsed]) if isinstance(m, dict)]


def iter_sse(resp: http.client.HTTPResponse) -> Iterator[dict[str, Any]]:
    """The JSON-RPC messages of an SSE stream, as they arrive (priming and ping events skipped).

    Raises http.client.IncompleteRead when the stream breaks off before its end (the last chunk
    of a chunked response): `read1()` reports that, where `readline()` would hide it as a quiet
    end of stream.
    """
    pending = b""
    data: list[bytes] = []
    while True:
        chunk = resp.read1(65536)
        if not chunk:
            return  # the end of the stream; an event without its closing blank line is dropped
        *lines, pending = (pending + chunk).split(b"\n")
        for raw in lines:
            line = raw.rstrip(b"\r")
            if line:
                if line.startswith(b"data:"):
                    data.append(line[6:] if line[5:6] == b" " else line[5:])
                continue  # event:, id:, retry: and ":" comments carry nothing the relay needs
            if data:
                payload, data = b"\n".join(data), []
                messages = parse_messages(payload) if payload.strip() else []
                if messages is None:
                    print(f"mnemex: dropped a malformed event from the daemon: {payload[:200]!r}", file=sys.stderr)
                yield from messages or ()


def encode_message(message: dict[str, Any]) -> bytes:
    """UTF-8 JSON; a string with a lone surrogate (not encodable) goes as a \\u escape instead."""
    try:
        return json.dumps(message, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(message).encode("ascii")


def post(sock_path: str | Path, message: dict[str, Any] | None, headers: dict[str, str], *,
         timeout: float | None, method: str = "POST",
         on_message: Callable[[dict[str, Any]], None] | None = None) -> Reply:
    """Send one message to the daemon; the messages of its JSON or SSE answer go to `on_message`
    as they arrive (unless the HTTP status is an error), and into `Reply.messages`.

    Raises NotDelivered when the daemon certainly never read the message, Interrupted when it
    read it but the answer broke off (both are OSErrors).
    """
    conn = UnixHTTPConnection(sock_path, timeout=timeout)
    try:
        try:
            conn.connect()
        except OSError as exc:
            raise NotDelivered(f"no mnemex daemon on {sock_path}: {exc}") from exc
        body = encode_message(message) if message is not None else None
        try:
            conn.request(method, MCP_PATH, body=body, headers={
                "Content-Type": "application/json", "Accept": "application/json, text/event-stream", **headers})
        except OSError as exc:  # not all of it left: the daemon cannot have parsed the JSON body
            raise NotDelivered(f"sending to the mnemex daemon failed: {exc}") from exc
        try:
            resp = conn.getresponse()
        except http.client.RemoteDisconnected as exc:  # (a ConnectionResetError: catch it first)
            # A clean EOF: the daemon read everything we sent, then closed or died.
            raise Interrupted("the mnemex daemon closed the connection without answering") from exc
        except ConnectionResetError as exc:
            # On an AF_UNIX stream socket, Linux resets the connection (the reader gets ECONNRESET)
            # only when the peer closed while data was still unread in its receive queue, or
            # before it even accepted the connection (unix_release_sock); once the peer has read
            # everything, its death is a clean EOF (above). We send nothing but the request, so
            # a reset means the daemon never read all of it: it cannot have been carried out.
            # (tests/reliability/test_relay_faults.py checks this on the running kernel.)
            raise NotDelivered(f"the mnemex daemon went away before reading the request: {exc}") from exc
        except (OSError, http.client.HTTPException) as exc:
            raise Interrupted(f"the mnemex daemon's answer broke off: {exc!r}") from exc
        reply = Reply(resp.status, {k.lower(): v for k, v in resp.getheaders()})
        stream = on_message if reply.status < 400 else None  # rejections: the caller decides

        def sink(msg: dict[str, Any]) -> None:
            reply.messages.append(msg)
            if stream is not None:
                stream(msg)

        ctype = reply.headers.get("content-type", "")
        try:
            if ctype.startswith("text/event-stream"):
                for msg in iter_sse(resp):
                    sink(msg)
            else:
                raw = resp.read()
                messages = parse_messages(raw) if ctype.startswith("application/json") and raw.strip() else None
                if messages is None:
                    reply.text = raw.decode("utf-8", "replace")
                for msg in messages or ():
                    sink(msg)
        except (OSError, http.client.HTTPException) as exc:
            raise Interrupted(f"the mnemex daemon's answer broke off: {exc!r}") from exc
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
    if method in ("tools/call", "prompts/get"):
        headers["mcp-name"] = params["name"]
    return message, headers


def request(settings: Any, method: str, params: dict[str, Any], *, project: str | None = None,
            timeout: float = 60.0, client: str = "mnemex-cli", start: bool = True, what: str = "") -> dict[str, Any]:
    """One stateless request to the daemon; its `result`. With start=False (hooks that must stay
    fast) no daemon is started: DaemonError at once if none answers. `settings` needs `run_dir`
    and `data_dir` (the full settings, or the hook's). DaemonError carries the MCP error message."""
    what = what or method
    files = RunFiles.for_settings(settings)
    if start:
        sock = ensure_daemon(settings)
    elif files.socket_answers():
        sock = files.socket
    else:
        raise DaemonError(f"no mnemex daemon is running for {settings.data_dir}")
    message, headers = modern_request(1, method, params, client=client)
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
        raise DaemonError(f"{what}: {answer['error'].get('message', 'error')}")
    return answer.get("result") or {}


def call_tool(settings: Any, name: str, arguments: dict[str, Any], *, project: str | None = None,
              timeout: float = 60.0, client: str = "mnemex-cli", start: bool = True) -> dict[str, Any]:
    """Call one tool on the daemon and return its structuredContent (see `request`); a tool
    error is a DaemonError with the tool's message."""
    result = request(settings, "tools/call", {"name": name, "arguments": arguments}, project=project,
                     timeout=timeout, client=client, start=start, what=name)
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


def get_prompt(settings: Any, name: str, arguments: dict[str, str], *, project: str | None = None,
               timeout: float = 60.0, client: str = "mnemex-hook", start: bool = True) -> str:
    """The text of a prompt of the daemon (its messages' text, joined), e.g. the packed context."""
    result = request(settings, "prompts/get", {"name": name, "arguments": arguments}, project=project,
                     timeout=timeout, client=client, start=start, what=name)
    parts = []
    for message in result.get("messages") or []:
        content = message.get("content") if isinstance(message, dict) else None
        for block in content if isinstance(content, list) else [content]:
            if isinstance(block, dict) and block.get("type") == "text":
                parts.append(str(block.get("text", "")))
    return "\n".join(parts)


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


def open_viewer(settings: Any, *, timeout: float = 30.0) -> dict[str, Any]:
    """Start the daemon if needed and have it open the memory viewer (`server/viewer/`); returns
    {"url", "open_url" (with the access key), "port", "pid"}. DaemonError says what went wrong."""
    sock = ensure_daemon(settings)
    conn = UnixHTTPConnection(sock, timeout=timeout)
    try:
        conn.request("POST", "/mnemex/viewer", body=b"", headers={"Content-Length": "0"})
        resp = conn.getresponse()
        raw = resp.read()
    except (OSError, http.client.HTTPException) as exc:
        raise DaemonError(f"the mnemex daemon did not open the viewer: {exc}") from exc
    finally:
        conn.close()
    try:
        body = json.loads(raw)
    except ValueError:
        body = {}
    if resp.status != 200 or not isinstance(body, dict) or "open_url" not in body:
        detail = body.get("error") if isinstance(body, dict) else None
        raise DaemonError(detail or f"the mnemex daemon answered {resp.status} to the viewer request: is it an "
                                    "older version? `mnemex daemon stop`, then retry")
    return body


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
    current = files.owner() or {}
    if current.get("successor_of") == pid:  # it had just handed the store over (`handoff.py`): stop that one too
        stop_daemon(settings, timeout=timeout)
    return True


def _wait(predicate: Callable[[], bool], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True
