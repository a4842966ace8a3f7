"""`mnemex serve` on stdio: a stdlib-only relay from one MCP client to the store's daemon.

It reads newline-delimited JSON-RPC from stdin and POSTs each message to the daemon (streamable
HTTP over the run dir's Unix socket), writing every JSON-RPC message that comes back to stdout,
one line each. It starts the daemon if none runs, answers `initialize` itself (from the
daemon's saved `server.json`) so the client is not kept waiting, and opens its own session with
the daemon in the background. Messages of the stateless 2026-07-28 era (a `_meta` envelope on
every request) are forwarded without a session.

Each line is checked before anything else: its size, how deep it nests, that it is JSON, that
it is a JSON-RPC 2.0 message, and what the relay itself reads of it (`initialize` params, the
`_meta` envelope). A bad line gets its JSON-RPC error and the next line is served as usual.

Every request forwarded gets exactly one answer. When the daemon dies or forgets the session,
the relay restarts it and opens a new session; a request the daemon never read is retried, and
so is one that only reads (READ_ONLY). A request the daemon read and died on is answered with an
error saying it may have taken effect: repeating it behind the client's back could write twice.

No MCP SDK, pydantic or httpx here: the relay must be up in milliseconds.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from typing import TYPE_CHECKING, Any, BinaryIO

from mnemex import __version__
from mnemex.errors import DaemonError
from mnemex.server.jsonrpc_check import (
    INVALID_REQUEST,
    Refused,
    check_message,
    error_message,
    is_valid_id,
    parse_line,
)
from mnemex.server.runfiles import RunFiles
from mnemex.server.wire import (
    CLIENT_HEADER,
    META_PREFIX,
    PROJECT_HEADER,
    NotDelivered,
    header_value,
)

if TYPE_CHECKING:
    from mnemex.server.daemon_client import Reply


def post(*args: Any, **kwargs: Any) -> Reply:
    """daemon_client.post, imported on first use: http.client stays off the handshake's path."""
    from mnemex.server.daemon_client import post as http_post

    return http_post(*args, **kwargs)


def start_daemon(*args: Any, **kwargs: Any) -> Any:
    """daemon_client.start_daemon, imported on first use (in the relay's start thread)."""
    from mnemex.server.daemon_client import start_daemon as start

    return start(*args, **kwargs)

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
        'mnemex is your long-term memory across sessions. Memories that matter to this session and to each '
        'prompt may be given to you between <mnemex-memory> tags; a newer statement wins over an older one, '
        'and recall_memory takes the ids shown. When none were given, or you need more — a past decision, a '
        'convention, an earlier fix — search_memory. Memorize what the code does not show and a later '
        'session will need — a decision and why, a convention, a user preference, a gotcha, a command that '
        "failed and what fixed it — as one self-contained statement each, in the project's own words "
        '(memorize). When it changes something that may already be stored (renamed, replaced, moved, a new '
        'value, a rule relaxed or dropped), search_memory for the old statement first and pass its id in '
        "supersedes: mnemex's own rules catch only part of the ways a change is written. When memorize lists "
        'candidates it may replace, memorize it again with supersedes=[the ids it makes outdated]. Correct a '
        'wrong memory with update_memory; forget one that no longer holds. When a memory you used proved '
        'right or misleading, say so with rate_memory.'),
}
INTERNAL_ERROR = -32603
ROOTS_ID = "mnemex-relay-roots"
ROOTS_WAIT = 2.0  # how long a request waits for the client's roots (they set its project)
DRAIN_SECONDS = 10.0
#: Sends of one request (and session opens of one recovery) when the daemon never read it: a
#: daemon still dying from SIGKILL can accept a connection and then reset it.
MAX_ATTEMPTS = 3
MAX_LINE_BYTES = 4 * 1024 * 1024  # far above any memory; a bigger line is refused, not buffered further
MAX_BATCH = 1000
MAX_IN_FLIGHT = 64                # requests forwarded at once; the next line is read when one finishes
MAX_CLIENT_NAME = 200             # it goes into a header of every request: keep it far below header limits
JSON_SPACE = b" \t\r\n"
#: Requests that only read: one the daemon read but never answered (it died) is retried once,
#: as repeating it is harmless. Method -> None (every such request) or the names of the tools
#: that only read (tests/reliability/test_relay_faults.py keeps them equal to the tools'
#: readOnlyHint).
READ_ONLY: dict[str, frozenset[str] | None] = {
    "ping": None, "server/discover": None, "tools/list": None, "resources/list": None,
    "resources/templates/list": None, "resources/read": None, "prompts/list": None, "prompts/get": None,
    "completion/complete": None,
    "tools/call": frozenset({"search_memory", "recall_memory", "memory_stats", "memory_history",
                             "memory_timeline", "related_memories", "list_memories", "memory_blocks",
                             "search_past_sessions"}),
}


def is_modern(msg: dict[str, Any]) -> bool:
    """A 2026-07-28 message: its params carry the per-request protocol-version envelope."""
    params = msg.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    return msg.get("method") != "initialize" and isinstance(meta, dict) and META_PREFIX + "protocolVersion" in meta


def is_read_only(msg: dict[str, Any]) -> bool:
    """The request only reads (see READ_ONLY): safe to send again."""
    method = msg.get("method")
    if method not in READ_ONLY:
        return False
    names = READ_ONLY[method]
    params = msg.get("params")
    name = params.get(NAME_PARAM.get(method, "")) if isinstance(params, dict) else None
    return names is None or (isinstance(name, str) and name in names)


def describe(msg: dict[str, Any]) -> str:
    """`tools/call memorize`, `tools/list`: what a request asked, for error messages."""
    method = str(msg.get("method"))[:100]
    params = msg.get("params")
    name = params.get(NAME_PARAM.get(method, "")) if isinstance(params, dict) else None
    return f"{method} {name[:100]}" if isinstance(name, str) else method


class Relay:
    """One client's relay. `serve()` runs until stdin closes."""

    def __init__(self, files: RunFiles, *, project: str | None, env: dict[str, str] | None = None,
                 start_timeout: float = 60.0, pinned: bool = False):
        self.files = files
        self.project = project
        self.pinned = pinned                     # the project was configured: the client's roots do not move it
        self.wants_roots = False                 # the client offers roots: its first root is the project
        self.roots_ready = threading.Event()     # set once the client answered roots/list (or never will)
        self.roots_ready.set()
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
        self.in_flight = threading.BoundedSemaphore(MAX_IN_FLIGHT)
        self._init_seq = 0

    # ------------------------------------------------------------------ output
    def write(self, msg: dict[str, Any]) -> None:
        """One message to the client, on one line. Never raises: a client that left is ignored."""
        try:
            try:
                line = json.dumps(msg, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"
            except UnicodeEncodeError:  # a lone surrogate (an id we echo, say): \u-escaped, still valid JSON
                line = json.dumps(msg, separators=(",", ":")).encode("ascii") + b"\n"
        except (ValueError, TypeError, RecursionError) as exc:
            request_id = msg.get("id") if isinstance(msg, dict) else None
            print(f"mnemex serve: cannot encode a message for the client: {exc!r}", file=sys.stderr, flush=True)
            if not is_valid_id(request_id):
                return
            line = json.dumps(error_message(request_id, INTERNAL_ERROR, f"mnemex relay: cannot encode the answer: "
                                                                        f"{exc!r}")).encode("ascii") + b"\n"
        with self.out_lock:
            try:
                self.out.write(line)
                self.out.flush()
            except (BrokenPipeError, ValueError):
                pass  # the client is gone; stdin will close next

    def error(self, request_id: Any, message: str, code: int = INTERNAL_ERROR) -> None:
        """Answer a request with an error (a notification, with id None, gets none)."""
        if request_id is not None:
            self.write(error_message(request_id, code, message))

    def reject(self, refused: Refused) -> None:
        """Answer a message the relay refused (with id null when it has no valid id)."""
        self.write(error_message(refused.request_id, refused.code, str(refused)))

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
        answer = next((m for m in reply.messages if m.get("id") == init["id"]), {})
        result, error = answer.get("result"), answer.get("error")
        sid = reply.headers.get("mcp-session-id")
        if not isinstance(result, dict) or not sid:
            detail = (error.get("message") if isinstance(error, dict) else None) or reply.text or f"HTTP {reply.status}"
            raise DaemonError(f"the mnemex daemon refused the session: {detail}")
        if isinstance(result.get("protocolVersion"), str):
            self.version = result["protocolVersion"]
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
            for attempt in range(1, MAX_ATTEMPTS + 1):
                start_daemon(self.files, env=self.env, timeout=self.start_timeout)
                self.daemon_error = None
                if not legacy or self.init_params is None:
                    return
                try:
                    self.open_session()
                    self.session_error = None
                    return
                except OSError:  # the daemon we found was still dying; opening a session is safe to repeat
                    if attempt == MAX_ATTEMPTS:
                        raise
                    time.sleep(0.05)

    # ---------------------------------------------------------------- headers
    def base_headers(self) -> dict[str, str]:
        headers = {CLIENT_HEADER: header_value(self.client_name)}
        if self.project:
            headers[PROJECT_HEADER] = header_value(self.project)
        return headers

    def session_headers(self) -> dict[str, str]:
        headers = self.base_headers()
        if self.session_id:
            headers["mcp-session-id"] = header_value(self.session_id)
        if self.version:
            headers["mcp-protocol-version"] = header_value(self.version)
        return headers

    def modern_headers(self, msg: dict[str, Any]) -> dict[str, str]:
        """Routing headers of a 2026-07-28 request (check_message saw to the types read here)."""
        method = msg["method"]
        params = msg["params"]
        meta = params["_meta"]
        headers = {**self.base_headers(), "mcp-method": header_value(method),
                   "mcp-protocol-version": header_value(meta[META_PREFIX + "protocolVersion"])}
        info = meta.get(META_PREFIX + "clientInfo")
        if isinstance(info, dict) and info.get("name"):
            headers[CLIENT_HEADER] = header_value(info["name"][:MAX_CLIENT_NAME])
        name = params.get(NAME_PARAM.get(method, ""))
        if isinstance(name, str):
            headers["mcp-name"] = header_value(name)
        return headers

    # --------------------------------------------------------------- messages
    def answer_initialize(self, msg: dict[str, Any]) -> None:
        """Reply at once from the daemon's saved self-description, then connect in the background
        (check_initialize saw to the params)."""
        params = msg["params"]
        requested = params["protocolVersion"]
        self.version = requested if requested in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[-1]
        caps = params.get("capabilities") if isinstance(params.get("capabilities"), dict) else {}
        self.wants_roots = isinstance(caps.get("roots"), dict) and not self.pinned
        if self.wants_roots:
            self.roots_ready.clear()  # requests wait (briefly) for the client's roots
        # the daemon asks the relay, not the client: roots are answered here, not forwarded
        self.init_params = {**params, "capabilities": {k: v for k, v in caps.items() if k != "roots"}}
        self.client_name = params["clientInfo"]["name"][:MAX_CLIENT_NAME] or "unknown"
        info = self.server_info()
        result = {"protocolVersion": self.version, "capabilities": info["capabilities"],
                  "serverInfo": info["serverInfo"]}
        if info.get("instructions"):
            result["instructions"] = info["instructions"]
        self.write({"jsonrpc": "2.0", "id": msg["id"], "result": result})
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
        """Deliver one message and see that a request gets exactly one answer.

        A request the daemon never read (NotDelivered) is sent again after restarting the daemon
        and reopening the session (up to MAX_ATTEMPTS sends); one it read and died on
        (Interrupted) is sent again once if it only reads. Any other request it read and never
        answered gets an error saying it may have taken effect, and the daemon is restarted in
        the background.
        """
        request_id = msg.get("id") if "method" in msg else None
        legacy = not is_modern(msg)
        resent = False  # a read-only request already sent again after the daemon read it
        for attempt in range(1, MAX_ATTEMPTS + 1):
            last = attempt == MAX_ATTEMPTS
            self.daemon_up.wait()
            if legacy and self.init_params is not None:
                self.session_up.wait()
            sid = self.session_id
            headers = self.session_headers() if legacy else self.modern_headers(msg)
            answered = threading.Event()

            def deliver(reply_msg: dict[str, Any]) -> None:
                if request_id is not None and reply_msg.get("id") == request_id and "method" not in reply_msg:
                    answered.set()
                self.write(reply_msg)

            try:
                broken = self.daemon_error or (legacy and self.init_params is not None and self.session_error)
                if broken and attempt == 1:
                    raise NotDelivered(broken)
                reply = post(self.files.socket, msg, headers, timeout=None, on_message=deliver)
            except NotDelivered as exc:
                if last:
                    return self.error(request_id, f"mnemex daemon unavailable (the request was not carried out): {exc}")
                time.sleep(0.05 * attempt)  # a daemon SIGKILLed a moment ago may still accept connections
                if self.recover_for(request_id, sid, legacy):
                    continue
                return
            except OSError as exc:  # Interrupted: it read the request, then its answer broke off
                if request_id is not None and not answered.is_set() and not resent and not last and is_read_only(msg):
                    resent = True
                    if self.recover_for(request_id, sid, legacy):
                        continue
                    return
                threading.Thread(target=self._quiet_recover, args=(sid, legacy), daemon=True).start()
                if request_id is not None and not answered.is_set():
                    self.error(request_id, self.lost(msg, exc))
                return
            if reply.status == 404 and legacy and sid and not last:
                if self.recover_for(request_id, sid, legacy):  # the daemon restarted or expired our session
                    continue
                return
            if reply.status >= 400:
                return self.settle(request_id, reply)
            if request_id is not None and not answered.is_set():
                self.error(request_id, f"the mnemex daemon finished {describe(msg)} without answering it "
                                       f"(HTTP {reply.status})")
            return

    @staticmethod
    def lost(msg: dict[str, Any], exc: OSError) -> str:
        """The error for a request the daemon read and died on (issue #1 of the fault run)."""
        effect = ("It only reads, so it had no effect: repeat it." if is_read_only(msg) else
                  "It may have taken effect: check (e.g. with search_memory) before repeating it.")
        return (f"the mnemex daemon stopped while handling {describe(msg)} ({exc}); it is being restarted. "
                f"{effect}")

    def recover_for(self, request_id: Any, sid: str | None, legacy: bool) -> bool:
        """Recover before a retry; False (the request answered with the error) if that fails."""
        try:
            self.recover(sid, legacy=legacy)
            return True
        except (DaemonError, OSError) as exc:
            self.error(request_id, f"mnemex daemon unavailable (the request was not carried out): {exc}")
            return False

    def ask_roots(self) -> None:
        self.roots_ready.clear()
        self.write({"jsonrpc": "2.0", "id": ROOTS_ID, "method": "roots/list"})
        threading.Timer(ROOTS_WAIT, self.roots_ready.set).start()  # a client that never answers

    def take_roots(self, msg: dict[str, Any]) -> None:
        """The client's answer to roots/list: its first file root's git root is the project."""
        from mnemex.projects import project_of_roots

        result = msg.get("result")
        project = project_of_roots(result.get("roots") if isinstance(result, dict) else None)
        if project:
            self.project = project
        self.roots_ready.set()

    def forward_or_fail(self, msg: dict[str, Any]) -> None:
        try:
            self.roots_ready.wait(ROOTS_WAIT)
            self.forward(msg)
        except Exception as exc:  # never leave a client waiting on a request that cannot finish
            self.error(msg.get("id") if "method" in msg else None, f"mnemex relay: {exc!r}")
        finally:
            self.in_flight.release()

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

    def receive(self, raw: bytes) -> None:
        """Act on one line from the client. Never raises: whatever the line holds, what must be
        answered is, and the next line is served as usual."""
        try:
            value = parse_line(raw)
            if isinstance(value, list):  # a JSON-RPC batch (2025-03-26): its members one by one
                if not value:
                    raise Refused(INVALID_REQUEST, "invalid request: an empty batch")
                if len(value) > MAX_BATCH:
                    raise Refused(INVALID_REQUEST, f"invalid request: a batch of {len(value)} messages "
                                                   f"(at most {MAX_BATCH})")
                for member in value:
                    self.accept(member)
            else:
                self.accept(value)
        except Refused as exc:
            self.reject(exc)
        except Exception as exc:  # a relay bug, not the client's: still say so, keep serving
            self.write(error_message(None, INTERNAL_ERROR, f"mnemex relay: {exc!r}"))

    def accept(self, msg: Any) -> None:
        """Check one message and act on it, or answer why not."""
        try:
            check_message(msg)
        except Refused as exc:
            return self.reject(exc)
        try:
            self.dispatch(msg)
        except Exception as exc:  # e.g. no thread could start: the request still gets its answer
            self.error(msg.get("id") if "method" in msg else None, f"mnemex relay: {exc!r}")

    def dispatch(self, msg: dict[str, Any]) -> None:
        method = msg.get("method")
        if method == "initialize":
            return self.answer_initialize(msg)
        if method in ("notifications/initialized", "notifications/roots/list_changed") and "id" not in msg \
                and not is_modern(msg):
            if self.wants_roots:
                self.ask_roots()
            return  # the relay sends its own once its session with the daemon is open
        if method is None and msg.get("id") == ROOTS_ID:
            return self.take_roots(msg)
        worker = threading.Thread(target=self.forward_or_fail, args=(msg,),
                                  name=f"mnemex-{(method or 'reply')[:40]}", daemon=True)
        self.workers = [w for w in self.workers if w.is_alive()]
        self.in_flight.acquire()  # a flood waits here (and stops reading stdin) instead of spawning threads
        try:
            worker.start()
        except BaseException:
            self.in_flight.release()
            raise
        self.workers.append(worker)

    def serve(self, stdin: BinaryIO, stdout: BinaryIO) -> int:
        """Relay until stdin closes; then let in-flight requests finish and end the session."""
        self.out = stdout
        threading.Thread(target=self.start, name="mnemex-start", daemon=True).start()
        while raw := stdin.readline(MAX_LINE_BYTES + 1):
            if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
                while (rest := stdin.readline(MAX_LINE_BYTES)) and not rest.endswith(b"\n"):
                    pass  # skip the rest of the line, without holding it
                self.reject(Refused(INVALID_REQUEST, f"invalid request: a message longer than "
                                                     f"{MAX_LINE_BYTES // 2**20} MB"))
            elif raw.strip(JSON_SPACE):
                self.receive(raw)
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

    `settings` needs `data_dir`, `run_dir` and `project` (the full settings, or a RelayPlan).
    The project header is `settings.project`; else the git root of the client's first root, when
    it offers roots (asked once initialized, and again when they change); else the git root of
    the working directory.
    """
    from mnemex.projects import detect_project

    env = {**os.environ, "MNEMEX_DATA_DIR": str(settings.data_dir)}  # as daemon_client.daemon_env
    relay = Relay(RunFiles.for_settings(settings), project=settings.project or detect_project(),
                  env=env, pinned=bool(settings.project))
    return relay.serve(stdin or sys.stdin.buffer, stdout or sys.stdout.buffer)


def main(argv: list[str] | None = None) -> int:
    """`python -m mnemex.server.relay`: settings from env/config (config errors exit 2)."""
    from mnemex.server.relay_plan import relay_plan

    plan = relay_plan(os.environ)
    if plan is not None:
        return run_relay(plan)
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
