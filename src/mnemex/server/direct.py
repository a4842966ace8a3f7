"""`mnemex serve` without the daemon: the engine and the MCP server in this one process.

For `--transport http|sse` (a network endpoint for remote or non-stdio clients) and for stdio
with the daemon disabled. An embedded store admits one process, so this takes the same owner
lock as the daemon; when the daemon holds it the user is told to relay or to stop the daemon.

The HTTP transports run the SDK's app inside our uvicorn server with, outermost first: a rate
limit per client address, the bearer token (any bind address but loopback), a body size limit,
then the SDK's Host/Origin check (on for every bind address) — see `http_guard`, `http_auth`.
"""

from __future__ import annotations

import asyncio
import signal
import sys
from typing import Any, Literal

from mnemex.errors import StoreLockedError
from mnemex.server.http_auth import BearerTokenRequired, FileTokenVerifier, ensure_token
from mnemex.server.http_guard import (
    BodyLimit,
    RateLimit,
    is_loopback,
    transport_security,
)
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


def http_app(server: Any, settings: Any, transport: Literal["http", "sse"], host: str) -> Any:
    """The ASGI app of an HTTP transport: the SDK's app for `transport`, wrapped in our checks."""
    conf = settings.server
    security = transport_security(host, conf.allowed_hosts, conf.allowed_origins)
    if transport == "http":
        app = server.streamable_http_app(transport_security=security, host=host,
                                         max_request_body_size=conf.max_request_bytes)
    else:
        app = server.sse_app(transport_security=security, host=host, max_request_body_size=conf.max_request_bytes)
    app = BodyLimit(app, conf.max_request_bytes)
    if not is_loopback(host):
        app = BearerTokenRequired(app, FileTokenVerifier(settings.http_token_path))
    return RateLimit(app, conf.rate_limit_per_minute)


def exposure_warning(settings: Any, transport: str, host: str, port: int) -> str:
    """The start-up warning for a bind outside loopback (two lines)."""
    shown = f"[{host}]" if ":" in host else host
    path = "/mcp" if transport == "http" else "/sse"
    hosts = ", ".join(transport_security(host, settings.server.allowed_hosts, ()).allowed_hosts)
    return (f"mnemex: WARNING: serving the memory store on http://{shown}:{port}{path}, outside loopback; every "
            f"request needs 'Authorization: Bearer <token>' (print it: `mnemex token show`).\n"
            f"mnemex: plain HTTP, so only on a trusted network or behind TLS; accepted Host headers: {hosts} "
            f"(add more with --allow-host).")


def serve_http(settings: Any, server: Any, transport: Literal["http", "sse"], host: str, port: int) -> None:
    """Serve `transport` on host:port until a signal arrives (off loopback the token file must
    exist: `serve_direct` makes it before opening the store)."""
    import uvicorn

    if not is_loopback(host):
        print(exposure_warning(settings, transport, host, port), file=sys.stderr, flush=True)
    # proxy_headers off: the rate limit must see the TCP peer, not a header a client can write.
    config = uvicorn.Config(http_app(server, settings, transport, host), host=host, port=port,
                            log_level="info", lifespan="on", proxy_headers=False, http="h11", ws="none",
                            timeout_graceful_shutdown=5)
    asyncio.run(uvicorn.Server(config).serve())


def serve_direct(settings: Any, transport: Transport, host: str | None = None, port: int | None = None) -> None:
    """Serve MCP over `transport` from this process until the client leaves or a signal arrives.

    `host`/`port` default to `settings.server`. The default project (used when a request
    carries no `x-mnemex-project` header) is `settings.project`, else the git root of the
    working directory.
    """
    if transport not in ("stdio", "http", "sse"):
        raise ValueError(f"unknown transport {transport!r}")
    host = host or settings.server.host
    port = port or settings.server.port
    if transport != "stdio" and not is_loopback(host):
        ensure_token(settings.http_token_path)  # an unsafe token file stops us before the store opens
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
            server = build_server(ToolRuntime.from_settings(engine, settings, default_project=project))
            if transport == "stdio":
                server.run("stdio")
            else:
                serve_http(settings, server, transport, host, port)
        finally:
            engine.close()
    finally:
        if lock is not None:
            lock.release()
