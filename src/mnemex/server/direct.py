"""`mnemex serve` without the daemon: the engine and the MCP server in this one process.

For `--transport http|sse` (a network endpoint for remote or non-stdio clients) and for stdio
with the daemon disabled. An embedded store admits one process, so this takes the same owner
lock as the daemon; when the daemon holds it the user is told to relay or to stop the daemon.
"""

from __future__ import annotations

import signal
from typing import Any, Literal

from mnemex.errors import StoreLockedError
from mnemex.server.runfiles import OwnerLock, RunFiles

Transport = Literal["stdio", "http", "sse"]


def claim_store(settings: Any, transport: str) -> OwnerLock | None:
    """The owner lock for an embedded store (None for a Qdrant server, which admits many
    processes); StoreLockedError with a one-line remedy when another process owns the store."""
    if settings.store.url:
        return None
    files = RunFiles.for_settings(settings)
    lock = files.acquire_owner_lock(f"direct-{transport}")
    if lock is not None:
        return lock
    owner = files.owner() or {}
    pid = owner.get("pid", "?")
    if owner.get("role") == "daemon":
        raise StoreLockedError(
            f"the memory store in {settings.data_dir} is owned by the running mnemex daemon (pid {pid}): "
            "use plain `mnemex serve` (it relays to the daemon) or stop it with `mnemex daemon stop`")
    raise StoreLockedError(f"the memory store in {settings.data_dir} is open in another mnemex process "
                           f"({owner.get('role', 'unknown')}, pid {pid}); stop it first")


def _exit_on_signal(signum: int, frame: Any) -> None:
    raise SystemExit(0)  # unwinds through `finally`, so the store is flushed and closed


def serve_direct(settings: Any, transport: Transport, host: str, port: int) -> None:
    """Serve MCP over `transport` from this process until the client leaves or a signal arrives.

    The default project (used when a request carries no `x-mnemex-project` header) is
    `settings.project`, else the git root of the working directory.
    """
    if transport not in ("stdio", "http", "sse"):
        raise ValueError(f"unknown transport {transport!r}")
    lock = claim_store(settings, transport)
    try:
        from mnemex.engine.factory import build_engine
        from mnemex.projects import detect_project
        from mnemex.server.app import build_server
        from mnemex.tools.runtime import ToolRuntime

        project = settings.project or detect_project()
        engine = build_engine(settings, default_project=project)
        try:
            # uvicorn restores this handler after its graceful stop and re-raises the signal.
            for sig in (signal.SIGTERM, signal.SIGINT):
                signal.signal(sig, _exit_on_signal)
            server = build_server(ToolRuntime(engine, default_project=project))
            if transport == "stdio":
                server.run("stdio")
            elif transport == "http":
                server.run("streamable-http", host=host, port=port)
            else:
                server.run("sse", host=host, port=port)
        finally:
            engine.close()
    finally:
        if lock is not None:
            lock.release()
