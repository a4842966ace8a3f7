"""What tool functions need at call time: the engine and the caller's project."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, TypeVar

import anyio.to_thread

from mnemex.engine.service import MemoryEngine

PROJECT_HEADER = "x-mnemex-project"
CLIENT_HEADER = "x-mnemex-client"
T = TypeVar("T")


@dataclass
class ToolRuntime:
    """Holds the engine; `default_project` is the server's own git root (direct stdio mode)."""

    engine: MemoryEngine
    default_project: str | None = None

    def project_for(self, ctx: Any) -> str | None:
        """The caller's project: the relay's header (each client's own cwd), else the server's."""
        headers = None
        try:
            headers = ctx.headers
        except (ValueError, AttributeError):
            headers = None
        if headers:
            value = headers.get(PROJECT_HEADER)
            if value:
                return _utf8_header(value)
        return self.default_project

    def client_for(self, ctx: Any) -> str | None:
        """The caller's client name: the relay's header (from the client's `clientInfo`), else
        the `clientInfo` of this session's `initialize` (direct stdio/HTTP). Recorded in
        provenance and the audit log; it names a client, it proves nothing."""
        try:
            value = (ctx.headers or {}).get(CLIENT_HEADER)
        except (ValueError, AttributeError):
            value = None
        if value:
            return _utf8_header(value)[:200]
        try:
            info = ctx.session.client_params.client_info
        except (ValueError, AttributeError):
            return None
        name = getattr(info, "name", None)
        return str(name)[:200] if name else None

    async def run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run a blocking engine call in a worker thread so the event loop never stalls."""
        return await anyio.to_thread.run_sync(lambda: fn(*args, **kwargs))


def _utf8_header(value: str) -> str:
    """Header values arrive decoded as latin-1; the relay sends UTF-8 paths (/home/jörg/...)."""
    try:
        return value.encode("latin-1").decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):
        return value
