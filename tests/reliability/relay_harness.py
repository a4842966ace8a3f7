"""Shared pieces for the stdio relay's tests: a small MCP server on a run dir's socket (in a
thread, or as its own process that a test can SIGKILL), and the relay fed through OS pipes.

Run as a script (`python relay_harness.py RUN_DIR`) it is a stand-in daemon: it takes the owner
lock like `python -m mnemex.server.daemon`, serves the small server with the extra tools below,
and appends "start NAME ARG" / "end NAME ARG" lines to RUN_DIR/journal.log around each of them,
so a test can see whether (and how often) a request was carried out.
"""

from __future__ import annotations

import asyncio
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import Context  # module level: the tools' annotations are resolved here

from mnemex.server.runfiles import RunFiles, pid_alive

INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}}
READ_TIMEOUT = 30.0


def call(i: int | str, name: str, arguments: dict) -> dict:
    return {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": name, "arguments": arguments}}


def gone(pid: int) -> bool:
    """The process has exited (reaping it if it is our child, as a zombie still 'exists')."""
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass
    return not pid_alive(pid)


def wait_until(predicate, timeout: float = 20.0, step: float = 0.05) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(step)
    return predicate()


class FakeDaemon:
    """A tiny MCPServer on the run dir's socket, served by uvicorn in a thread.

    With `journal`, it also has a read-only `search_memory` and a writing `memorize`, each
    sleeping `seconds` and logging its start and end to the journal file.
    """

    def __init__(self, files: RunFiles, journal: Path | None = None):
        import uvicorn
        from mcp.server import MCPServer

        from mnemex.server.daemon import bind_socket, socket_security

        self.server = MCPServer("fake")

        @self.server.tool()
        def echo(text: str) -> dict[str, Any]:
            return {"text": text}

        @self.server.tool()
        def whoami(ctx: Context) -> dict[str, Any]:
            return {"project": (ctx.headers or {}).get("x-mnemex-project")}

        @self.server.tool()
        async def nap(seconds: float) -> dict[str, Any]:
            await asyncio.sleep(seconds)
            return {"slept": seconds}

        if journal is not None:
            def note(line: str) -> None:
                with open(journal, "a") as fh:
                    fh.write(f"{line} pid={os.getpid()}\n")

            @self.server.tool()
            async def search_memory(query: str, seconds: float = 0.0) -> dict[str, Any]:
                note(f"start search_memory {query}")
                await asyncio.sleep(seconds)
                note(f"end search_memory {query}")
                return {"results": [], "query": query, "pid": os.getpid()}

            @self.server.tool()
            async def memorize(content: str, seconds: float = 0.0) -> dict[str, Any]:
                note(f"start memorize {content}")
                await asyncio.sleep(seconds)
                note(f"end memorize {content}")
                return {"action": "created", "content": content, "pid": os.getpid()}

        files.ensure_dir()
        app = self.server.streamable_http_app(transport_security=socket_security())
        self.uv = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on", http="h11"))
        sock = bind_socket(files)
        self.thread = threading.Thread(target=lambda: asyncio.run(self.uv.serve(sockets=[sock])), daemon=True)
        self.thread.start()
        assert wait_until(lambda: self.uv.started, 10)

    def forget_sessions(self) -> None:
        self.server._lowlevel_server._session_manager._server_instances.clear()

    def stop(self) -> None:
        self.uv.should_exit = True
        self.thread.join(10)


class Pipes:
    """Relay.serve in a thread, fed and read through OS pipes like a real client would."""

    def __init__(self, relay: Any):
        in_r, self._in_w = os.pipe()
        self._out_r, out_w = os.pipe()
        self.stdin = os.fdopen(self._in_w, "wb", buffering=0)
        self.stdout = os.fdopen(self._out_r, "rb")
        self.lines: queue.Queue[bytes] = queue.Queue()
        self.thread = threading.Thread(
            target=lambda: relay.serve(os.fdopen(in_r, "rb"), os.fdopen(out_w, "wb")), daemon=True)
        self.thread.start()
        self._reader = threading.Thread(target=self._read_lines, daemon=True)
        self._reader.start()

    def _read_lines(self) -> None:
        for line in iter(self.stdout.readline, b""):
            self.lines.put(line)
        self.lines.put(b"")

    def send(self, msg: Any) -> None:
        """One line: a message as JSON, or raw bytes as they are."""
        self.stdin.write((msg if isinstance(msg, bytes) else json.dumps(msg).encode()) + b"\n")

    def read(self, timeout: float = READ_TIMEOUT) -> dict:
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"the relay wrote nothing within {timeout} s") from None
        assert line, "relay closed stdout"
        return json.loads(line)

    def close(self) -> None:
        self.stdin.close()
        self.thread.join(15)


# ------------------------------------------------------- a daemon to SIGKILL
def spawn_harness_daemon(files: RunFiles, env: dict[str, str] | None = None) -> subprocess.Popen:
    """Drop-in for `daemon_client.spawn_daemon`: start this file as the store's daemon process."""
    files.ensure_dir()
    log = open(files.log_file, "ab")
    try:
        return subprocess.Popen([sys.executable, __file__, str(files.run_dir)], stdin=subprocess.DEVNULL,
                                stdout=log, stderr=log, start_new_session=True, close_fds=True)
    finally:
        log.close()


def kill_harness_daemons(files: RunFiles) -> None:
    """SIGKILL every stand-in daemon of this run dir, however many the relay started (one may
    have lost the lock race and still wait for it): no test leaves a process behind."""
    wanted = str(files.run_dir).encode()
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit() or int(proc.name) == os.getpid():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes()
        except OSError:
            continue
        if b"relay_harness.py" in cmdline and wanted in cmdline:
            try:
                os.kill(int(proc.name), signal.SIGKILL)
            except ProcessLookupError:
                pass


def journal(files: RunFiles) -> list[str]:
    try:
        return (files.run_dir / "journal.log").read_text().splitlines()
    except FileNotFoundError:
        return []


def _serve_as_daemon(run_dir: str) -> int:
    files = RunFiles(Path(run_dir))
    lock = files.acquire_owner_lock("daemon")
    if lock is None:
        print("harness daemon: already running", file=sys.stderr)
        return 0
    files.write_pid()  # before the socket answers, so a test that reached it can also find whom to kill
    daemon = FakeDaemon(files, journal=files.run_dir / "journal.log")
    daemon.thread.join()
    return 0


if __name__ == "__main__":
    sys.exit(_serve_as_daemon(sys.argv[1]))
