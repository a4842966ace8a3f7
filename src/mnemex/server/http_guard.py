"""Request checks of the HTTP transports (`mnemex serve --transport http|sse`) around the SDK's app.

- Host/Origin allow-lists for the SDK's DNS-rebinding check (`TransportSecuritySettings`), which
  the SDK only switches on by itself for a loopback bind: here it is on for every bind address.
- `RateLimit`: a token bucket per client address (TCP peer), 429 with `Retry-After` when empty.
- `BodyLimit`: 413 for a request body over `server.max_request_bytes`.

Refusals carry a JSON-RPC error body, which the MCP client surfaces as the error of the call.
"""

from __future__ import annotations

import ipaddress
import json
import math
import socket
import time
from collections import OrderedDict
from typing import Any, Callable, Iterable

#: What the SDK allows for a loopback bind when given no settings
#: (`mcp.server.lowlevel.server.Server.streamable_http_app`); kept as is for loopback.
SDK_LOOPBACK_HOSTS = ("127.0.0.1:*", "localhost:*", "[::1]:*")
SDK_LOOPBACK_ORIGINS = ("http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*")
#: Client addresses whose buckets are remembered; the least recently seen are dropped beyond it.
MAX_TRACKED_CLIENTS = 4096
INVALID_REQUEST = -32600


def is_loopback(host: str) -> bool:
    """True for a bind address only this machine can reach: localhost, 127.0.0.0/8, ::1."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def is_wildcard(host: str) -> bool:
    """True for 0.0.0.0 and :: (every interface, loopback included)."""
    try:
        return ipaddress.ip_address(host).is_unspecified
    except ValueError:
        return False


def _host_header(name: str) -> str:
    """How `name` appears in a Host header (IPv6 literals in brackets)."""
    try:
        if ipaddress.ip_address(name).version == 6:
            return f"[{name}]"
    except ValueError:
        pass
    return name


def host_patterns(entries: Iterable[str]) -> list[str]:
    """Allow-list entries as the SDK matches them: a bare name also stands for `name:*`."""
    out: list[str] = []
    for entry in entries:
        has_port = entry.rsplit("]", 1)[-1].count(":") == 1 if entry.startswith("[") else ":" in entry
        for pattern in ((entry,) if has_port else (entry, f"{entry}:*")):
            if pattern not in out:
                out.append(pattern)
    return out


def default_allowed_hosts(bind_host: str) -> list[str]:
    """Host headers accepted with no `server.allowed_hosts`: for loopback, the SDK's defaults;
    otherwise the bind address itself (a wildcard bind: the loopback names, since it listens there
    too) and this machine's host name — names of this machine, never an attacker's domain."""
    if is_loopback(bind_host):
        own = f"{_host_header(bind_host)}:*"
        return list(SDK_LOOPBACK_HOSTS) + ([] if own.lower() in SDK_LOOPBACK_HOSTS else [own])
    names = list(SDK_LOOPBACK_HOSTS) if is_wildcard(bind_host) else [_host_header(bind_host)]
    hostname = socket.gethostname()  # no DNS lookup: start-up must not wait on the network
    if hostname:
        names += [hostname, hostname.split(".")[0]]
    return host_patterns(names)


def transport_security(bind_host: str, allowed_hosts: Iterable[str], allowed_origins: Iterable[str]) -> Any:
    """The SDK's Host/Origin check, on for every bind: defaults above plus the configured entries.
    Origins: the SDK's loopback ones on loopback, none elsewhere unless configured."""
    from mcp.server.transport_security import TransportSecuritySettings

    hosts = host_patterns([*default_allowed_hosts(bind_host), *allowed_hosts])
    origins = [*(SDK_LOOPBACK_ORIGINS if is_loopback(bind_host) else ()), *allowed_origins]
    return TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=hosts,
                                     allowed_origins=list(dict.fromkeys(origins)))


async def _refuse(send: Any, status: int, message: str, data: dict[str, Any],
                  headers: Iterable[tuple[bytes, bytes]] = ()) -> None:
    body = json.dumps({"jsonrpc": "2.0", "id": None,
                       "error": {"code": INVALID_REQUEST, "message": message, "data": data}}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close"), *headers]})
    await send({"type": "http.response.body", "body": body})


class RateLimit:
    """ASGI middleware: at most `per_minute` requests per client address — a burst of up to
    `per_minute`, refilled evenly over the minute. Over it: 429 and `Retry-After` (seconds).

    The address is the TCP peer (uvicorn runs with proxy headers off): clients behind one proxy or
    NAT share a bucket.
    """

    def __init__(self, app: Any, per_minute: int, clock: Callable[[], float] = time.monotonic):
        self.app = app
        self.per_minute = per_minute
        self.per_second = per_minute / 60.0
        self.clock = clock
        self.buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def wait_seconds(self, client: str) -> int:
        """Take one request from `client`'s bucket: 0 when allowed, else whole seconds to wait."""
        now = self.clock()
        tokens, last = self.buckets.pop(client, (float(self.per_minute), now))
        tokens = min(float(self.per_minute), tokens + (now - last) * self.per_second)
        wait = 0
        if tokens >= 1.0:
            tokens -= 1.0
        else:
            wait = max(1, math.ceil((1.0 - tokens) / self.per_second))
        self.buckets[client] = (tokens, now)
        while len(self.buckets) > MAX_TRACKED_CLIENTS:
            self.buckets.popitem(last=False)
        return wait

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or not self.per_minute:
            await self.app(scope, receive, send)
            return
        client = (scope.get("client") or ("unknown", 0))[0]
        wait = self.wait_seconds(client)
        if not wait:
            await self.app(scope, receive, send)
            return
        await _refuse(send, 429,
                      f"too many requests from {client}: this server accepts {self.per_minute} per minute per "
                      f"client address; retry after {wait} s (the operator can raise server.rate_limit_per_minute, "
                      "MNEMEX_SERVER__RATE_LIMIT_PER_MINUTE)",
                      {"limit_per_minute": self.per_minute, "retry_after_seconds": wait},
                      [(b"retry-after", str(wait).encode())])


#: How much of a refused body is read (and dropped) before the 413: closing on unread bytes makes
#: the kernel reset the connection, and the client then sees a broken connection, not the 413.
DRAIN_LIMIT = 64 * 1024 * 1024


async def _drain(receive: Any, limit: int) -> None:
    """Read and drop the rest of a request body (up to `limit` bytes)."""
    seen = 0
    while seen <= limit:
        message = await receive()
        if message["type"] != "http.request":
            return
        seen += len(message.get("body", b""))
        if not message.get("more_body", False):
            return


class BodyLimit:
    """ASGI middleware: 413 for a body over `max_bytes` (declared or streamed); the accepted
    body is read here and replayed to the app."""

    def __init__(self, app: Any, max_bytes: int):
        self.app = app
        self.max_bytes = max_bytes

    async def _too_large(self, receive: Any, send: Any, more: bool = True) -> None:
        if more:
            await _drain(receive, DRAIN_LIMIT)
        size = f"{self.max_bytes} bytes" + (f" ({self.max_bytes / 1048576:g} MiB)" if self.max_bytes >= 1048576 else "")
        await _refuse(send, 413,
                      f"request body too large: this server accepts at most {size}; the operator can raise "
                      "server.max_request_bytes (MNEMEX_SERVER__MAX_REQUEST_BYTES)",
                      {"max_request_bytes": self.max_bytes})

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = 0  # uvicorn refuses a malformed length before we see it
                if declared > self.max_bytes:
                    await self._too_large(receive, send)
                    return
        body = bytearray()
        complete = False
        pending: list[dict] = []
        while not complete:
            message = await receive()
            if message["type"] != "http.request":
                pending.append(message)  # the client left before the end of its body
                break
            body += message.get("body", b"")
            if len(body) > self.max_bytes:
                await self._too_large(receive, send, more=bool(message.get("more_body", False)))
                return
            complete = not message.get("more_body", False)
        pending.insert(0, {"type": "http.request", "body": bytes(body), "more_body": not complete})

        async def replay() -> dict:
            return pending.pop(0) if pending else await receive()

        await self.app(scope, replay, send)
