"""`mnemex serve` on stdio: a stdlib-only relay from one MCP client to the store's daemon.

It reads newline-delimited JSON-RPC from stdin and POSTs each message to the daemon (streamable
HTTP over the run dir's Unix socket), writing every JSON-RPC message that comes back to stdout,
one line each. It starts the daemon if none runs, answers `initialize` itself (from the
daemon's saved `server.json`) so the client is not kept waiting, and opens its own session with
the daemon in the background. Messages of the stateless 2026-07-28 era (a `_meta` envelope on
every request) are forwarded without a session. When the daemon dies or forgets the session,
the relay restarts it, opens a new session and retries the request once.

No MCP SDK, pydantic or httpx here: the relay must be up in milliseconds.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from typing import Any, BinaryIO

from mnemex import __version__
from mnemex.errors import DaemonError
from mnemex.server.daemon_client import (
    CLIENT_HEADER,
    META_PREFIX,
    PROJECT_HEADER,
    NotDelivered,
    Reply,
    daemon_env,
    header_value,
    post,
    start_daemon,
)
from mnemex.server.runfiles import RunFiles

#: == mcp_types.version.HANDSHAKE_PROTOCOL_VERSIONS (a test keeps them equal).
HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
NAME_PARAM = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}
#: What the daemon says about itself, until one has written `server.json` (first run ever).
#: A copy, not an import (the SDK must not load here); tests/test_daemon.py keeps it equal.
DEFAULT_INFO: dict[str, Any] = {
    "serverInfo": {"name": "mnemex", "title": "mnemex memory", "version": __version__},
    "capabilities": {"prompts": {"listChanged": False}, "resources": {"subscribe": False, "listChanged": False},
                     "tools": {"listChanged": False}, "extensions": {}},
    "instructions": (
        "mnemex is your long-term memory across sessions. Before a task, search_memory for decisions, "
        "conventions, preferences and past fixes that may apply; recall_memory for full entries. When you "
        "learn something durable that the code does not show (a decision and why, a convention, a user "
        "preference, a gotcha, what failed and what fixed it), memorize it as one self-contained statement. "
        "Correct stale memories with update_memory; forget ones that no longer hold."),
}
INTERNAL_ERROR = -32603
PARSE_ERROR = -32700
DRAIN_SECONDS = 10.0


def is_modern(msg: dict[str, Any]) -> bool:
    """A 2026-07-28 message: its params carry the per-request protocol-version envelope."""
    params = msg.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    return msg.get("method") != "initialize" and isinstance(meta, dict) and META_PREFIX + "protocolVersion" in meta


class Relay:
    """One client's relay. `serve()` runs until stdin closes."""

    def __init__(self, files: RunFiles, *, project: str | None, env: dict[str, str] | None = None,
                 start_timeout: float = 60.0):
        self.files = files
        self.project = project
        self.env = env
        self.start_timeout = start_timeout
        self.out: BinaryIO = sys.stdout.buffer
        self.out_lock = threading.Lock()
        self.session_lock = threading.Lock()     # one (re)initialization at a time
        self.daemon_up = threading.Event()       # start attempt finished (see daemon_error)
        self.session_up = threading.Event()      # legacy session attempt finished (see session_error)
        self.daemon_error: str | None = None
        self.session_error: str | None = None
        self.session_id: str | None = None
        self.init_params: dict[str, Any] | None = None
        self.version: str | None = None
        self.client_name = "unknown"
        self.workers: list[threading.Thread] = []
        self._init_seq = 0

    # ------------------------------------------------------------------ output
    def write(self, msg: dict[str, Any]) -> None:
        line = json.dumps(msg, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"
        with self.out_lock:
            try:
                self.out.write(line)
                self.out.flush()
            except (BrokenPipeError, ValueError):
                pass  # the client is gone; stdin will close next

    def error(self, request_id: Any, message: str, code: int = INTERNAL_ERROR) -> None:
        if request_id is not None:
            self.write({"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}})

    # ----------------------------------------------------------------- daemon
    def start(self) -> None:
        """Make sure a daemon answers (spawning one); record the failure for waiting requests."""
        try:
            start_daemon(self.files, env=self.env, timeout=self.start_timeout)
            self.daemon_error = None
        except (DaemonError, OSError) as exc:
            self.daemon_error = str(exc)
            print(f"mnemex serve: {exc}", file=sys.stderr, flush=True)
        finally:
            self.daemon_up.set()

    def open_session(self) -> None:
        """Initialize a session with the daemon as this client did with us (call with session_lock)."""
        assert self.init_params is not None
        self._init_seq += 1
        init = {"jsonrpc": "2.0", "id": f"mnemex-relay-init-{self._init_seq}", "method": "initialize",
                "params": {**self.init_params, "protocolVersion": self.version}}
        reply = post(self.files.socket, init, self.base_headers(), timeout=30)
        answer = next((m for m in reply.messages if m.get("id") == init["id"]), None)
        sid = reply.headers.get("mcp-session-id")
        if answer is None or "error" in answer or not sid:
            detail = (answer or {}).get("error", {}).get("message") or reply.text or f"HTTP {reply.status}"
            raise DaemonError(f"the mnemex daemon refused the session: {detail}")
        self.version = answer["result"].get("protocolVersion", self.version)
        self.session_id = sid
        post(self.files.socket, {"jsonrpc": "2.0", "method": "notifications/initialized"},
             self.session_headers(), timeout=30)

    def connect(self) -> None:
        """Background: wait for the daemon, then open the session queued requests wait for."""
        self.daemon_up.wait()
        with self.session_lock:
            if self.daemon_error:  # already reported by start()
                self.session_error = self.daemon_error
                self.session_up.set()
                return
            try:
                self.open_session()
                self.session_error = None
            except (DaemonError, OSError) as exc:
                self.session_error = str(exc)
                print(f"mnemex serve: {exc}", file=sys.stderr, flush=True)
            finally:
                self.session_up.set()

    def recover(self, failed_session: str | None, *, legacy: bool) -> None:
        """After a refused connection or an unknown session: restart the daemon if it is gone,
        then open a new session (once, however many requests noticed at the same time)."""
        with self.session_lock:
            if legacy and self.session_id != failed_session and not self.session_error:
                return  # another request already recovered
            start_daemon(self.files, env=self.env, timeout=self.start_timeout)
            self.daemon_error = None
            if legacy and self.init_params is not None:
                self.open_session()
                self.session_error = None

    # ---------------------------------------------------------------- headers
    def base_headers(self) -> dict[str, str]:
        headers = {CLIENT_HEADER: header_value(self.client_name)}
        if self.project:
            headers[PROJECT_HEADER] = header_value(self.project)
        return headers

    def session_headers(self) -> dict[str, str]:
        headers = self.base_headers()
        if self.session_id:
            headers["mcp-session-id"] = self.session_id
        if self.version:
            headers["mcp-protocol-version"] = self.version
        return headers

    def modern_headers(self, msg: dict[str, Any]) -> dict[str, str]:
        method = msg.get("method", "")
        meta = msg["params"]["_meta"]
        headers = {**self.base_headers(), "mcp-method": method,
                   "mcp-protocol-version": meta[META_PREFIX + "protocolVersion"]}
        info = meta.get(META_PREFIX + "clientInfo")
        if isinstance(info, dict) and info.get("name"):
            headers[CLIENT_HEADER] = header_value(str(info["name"]))
        name = msg["params"].get(NAME_PARAM.get(method, ""))
        if isinstance(name, str):
            headers["mcp-name"] = name
        return headers

    # --------------------------------------------------------------- messages
    def answer_initialize(self, msg: dict[str, Any]) -> None:
        """Reply at once from the daemon's saved self-description, then connect in the background."""
        params = msg.get("params") or {}
        requested = params.get("protocolVersion")
        self.version = requested if requested in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[-1]
        self.init_params = params
        self.client_name = str((params.get("clientInfo") or {}).get("name") or "unknown")
        info = self.server_info()
        result = {"protocolVersion": self.version, "capabilities": info["capabilities"],
                  "serverInfo": info["serverInfo"]}
        if info.get("instructions"):
            result["instructions"] = info["instructions"]
        self.write({"jsonrpc": "2.0", "id": msg.get("id"), "result": result})
        self.session_up.clear()
        threading.Thread(target=self.connect, name="mnemex-connect", daemon=True).start()

    def server_info(self) -> dict[str, Any]:
        """What the running (or last) daemon said about itself; our own defaults on a first run."""
        try:
            info = json.loads(self.files.info_file.read_text())
            if isinstance(info, dict) and "capabilities" in info and "serverInfo" in info:
                return info
        except (OSError, ValueError):
            pass
        return DEFAULT_INFO

    def forward(self, msg: dict[str, Any]) -> None:
        """Deliver one message; retry once after restarting the daemon/session if it was not delivered."""
        request_id = msg.get("id") if "method" in msg else None
        legacy = not is_modern(msg)
        for attempt in (1, 2):
            self.daemon_up.wait()
            if legacy and self.init_params is not None:
                self.session_up.wait()
            sid = self.session_id
            headers = self.session_headers() if legacy else self.modern_headers(msg)
            try:
                broken = self.daemon_error or (legacy and self.init_params is not None and self.session_error)
                if broken and attempt == 1:
                    raise NotDelivered(broken)
                reply = post(self.files.socket, msg, headers, timeout=None, on_message=self.write)
            except NotDelivered as exc:
                if attempt == 2:
                    return self.error(request_id, f"mnemex daemon unavailable: {exc}")
                try:
                    self.recover(sid, legacy=legacy)
                except (DaemonError, OSError) as rexc:
                    return self.error(request_id, f"mnemex daemon unavailable: {rexc}")
                continue
            except OSError as exc:  # sent, but the daemon went away before answering: do not repeat it
                threading.Thread(target=self._quiet_recover, args=(sid, legacy), daemon=True).start()
                return self.error(request_id, f"the mnemex daemon stopped while handling {msg.get('method')}: "
                                              f"{exc!r}; it is being restarted, retry the request")
            if reply.status == 404 and legacy and sid and attempt == 1:
                try:
                    self.recover(sid, legacy=True)  # the daemon restarted or expired our session
                except (DaemonError, OSError) as rexc:
                    return self.error(request_id, f"mnemex daemon unavailable: {rexc}")
                continue
            self.settle(request_id, reply)
            return

    def forward_or_fail(self, msg: dict[str, Any]) -> None:
        try:
            self.forward(msg)
        except Exception as exc:  # never leave a client waiting on a request that cannot finish
            self.error(msg.get("id") if "method" in msg else None, f"mnemex relay: {exc!r}")

    def _quiet_recover(self, sid: str | None, legacy: bool) -> None:
        try:
            self.recover(sid, legacy=legacy)
        except (DaemonError, OSError) as exc:
            print(f"mnemex serve: {exc}", file=sys.stderr, flush=True)

    @staticmethod
    def with_id(msg: dict[str, Any], request_id: Any) -> dict[str, Any]:
        """An HTTP-level rejection carries an error with a null id: give it the request's id."""
        if "error" in msg and msg.get("id") is None and request_id is not None:
            return {**msg, "id": request_id}
        return msg

    def settle(self, request_id: Any, reply: Reply) -> None:
        """Pass on an HTTP rejection's error, or make one: a request never goes unanswered."""
        if reply.status < 400 or request_id is None:
            return
        errors = [self.with_id(m, request_id) for m in reply.messages if "error" in m]
        for m in errors:
            self.write(m)
        if not errors:
            self.error(request_id, f"mnemex daemon: HTTP {reply.status} {reply.text.strip()[:300]}")

    def dispatch(self, msg: Any) -> None:
        if isinstance(msg, list):  # a JSON-RPC batch (2025-03-26): relay its members one by one
            for item in msg:
                self.dispatch(item)
            return
        if not isinstance(msg, dict):
            return self.error(None, "invalid JSON-RPC message")
        method = msg.get("method")
        if method == "initialize":
            return self.answer_initialize(msg)
        if method == "notifications/initialized" and not is_modern(msg):
            return  # the relay sends its own once its session with the daemon is open
        worker = threading.Thread(target=self.forward_or_fail, args=(msg,), name=f"mnemex-{method or 'reply'}",
                                  daemon=True)
        self.workers = [w for w in self.workers if w.is_alive()]
        self.workers.append(worker)
        worker.start()

    def serve(self, stdin: BinaryIO, stdout: BinaryIO) -> int:
        """Relay until stdin closes; then let in-flight requests finish and end the session."""
        self.out = stdout
        threading.Thread(target=self.start, name="mnemex-start", daemon=True).start()
        for raw in iter(stdin.readline, b""):
            if not raw.strip():
                continue
            try:
                msg = json.loads(raw)
            except ValueError:
                self.write({"jsonrpc": "2.0", "id": None, "error": {"code": PARSE_ERROR, "message": "parse error"}})
                continue
            self.dispatch(msg)
        deadline = time.monotonic() + DRAIN_SECONDS
        for worker in self.workers:
            worker.join(max(0.0, deadline - time.monotonic()))
        if self.session_id:
            try:  # let the daemon drop our session now instead of after its idle timeout
                post(self.files.socket, None, self.session_headers(), timeout=2, method="DELETE")
            except OSError:
                pass
        return 0


def run_relay(settings: Any, *, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> int:
    """`mnemex serve` with the daemon enabled: relay this process's stdio to the store's daemon.

    The project header is `settings.project`, else the git root of the working directory.
    """
    from mnemex.projects import detect_project

    relay = Relay(RunFiles.for_settings(settings), project=settings.project or detect_project(),
                  env=daemon_env(settings))
    return relay.serve(stdin or sys.stdin.buffer, stdout or sys.stdout.buffer)


def main(argv: list[str] | None = None) -> int:
    """`python -m mnemex.server.relay`: settings from env/config (config errors exit 2)."""
    from mnemex.config import load_settings
    from mnemex.errors import ConfigError

    try:
        settings = load_settings()
    except ConfigError as exc:
        print(f"mnemex serve: {exc}", file=sys.stderr)
        return 2
    return run_relay(settings)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
