"""The viewer's loopback TCP listener, opened by the daemon on first use.

The daemon serves MCP on its Unix socket only (owner-only by file mode); a browser needs TCP.
Rather than listening on a port from start-up, the daemon opens `127.0.0.1:server.viewer_port`
(0 = a free port) when `mnemex viewer` asks for it over the socket (`POST /mnemex/viewer`), runs
a second uvicorn server on it in the same event loop (viewer routes only: MCP is never served on
TCP), records the URL and access key in the run dir's `viewer.json` (mode 0600), and stops it
with the daemon. Viewer requests count as activity, so the daemon does not idle out under a
person who is looking at it.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import json
import logging
import os
import socket
from typing import Any, Callable, Iterator

from mnemex.errors import DaemonError
from mnemex.server.runfiles import RunFiles
from mnemex.server.viewer.app import PREFIX, ViewerSecrets, build_viewer_app

log = logging.getLogger("mnemex.viewer")

PATH = "/mnemex/viewer"
HOST = "127.0.0.1"
STOP_SECONDS = 5.0


def bind_loopback(port: int) -> socket.socket:
    """A listening TCP socket on 127.0.0.1:`port` (0 = a free one); DaemonError when taken."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((HOST, port))
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise DaemonError(f"the viewer port {port} is in use: set server.viewer_port "
                              "(MNEMEX_SERVER__VIEWER_PORT) to a free port, or 0 for any, then `mnemex daemon "
                              "stop` so the daemon reads it") from None
        raise DaemonError(f"cannot listen on {HOST}:{port} for the viewer: {exc}") from None
    sock.listen(64)
    sock.setblocking(False)
    return sock


def write_viewer_file(files: RunFiles, info: dict[str, Any]) -> None:
    """viewer.json, mode 0600 from creation, replaced atomically."""
    tmp = files.viewer_file.with_suffix(".json.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(info, fh)
    os.replace(tmp, files.viewer_file)


class ViewerListener:
    """Opens the viewer's listener once (`open`), stops it with the daemon (`close`)."""

    def __init__(self, engine: Any, files: RunFiles, port: int,
                 wrap: Callable[[Any], Any] = lambda app: app):
        self.engine = engine
        self.files = files
        self.wanted_port = port
        self.wrap = wrap  # the daemon's activity counter
        self.secrets = ViewerSecrets()
        self.port = 0
        self._server: Any = None
        self._task: asyncio.Task | None = None
        self._lock = asyncio.Lock()

    def info(self) -> dict[str, Any]:
        base = f"http://{HOST}:{self.port}{PREFIX}/"
        return {"url": base, "open_url": f"{base}?key={self.secrets.key}", "port": self.port, "pid": os.getpid()}

    async def open(self) -> dict[str, Any]:
        """Start listening (once) and return the viewer's URLs (`open_url` carries the access key)."""
        import uvicorn

        async with self._lock:
            if self._task is None or self._task.done():
                sock = bind_loopback(self.wanted_port)
                self.port = sock.getsockname()[1]
                app = build_viewer_app(self.engine, self.secrets, lambda: self.port)
                config = uvicorn.Config(self.wrap(app), log_level="warning", access_log=False, lifespan="off",
                                        interface="asgi3", proxy_headers=False, timeout_graceful_shutdown=2,
                                        http="h11", ws="none")
                self._server = embedded_server(config)
                self._task = asyncio.create_task(self._server.serve(sockets=[sock]))
                write_viewer_file(self.files, self.info())
                log.info("viewer on http://%s:%d%s/", HOST, self.port, PREFIX)
            return self.info()

    async def close(self) -> None:
        if self._task is None:
            return
        self._server.should_exit = True
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._task, STOP_SECONDS)
        with contextlib.suppress(FileNotFoundError):
            self.files.viewer_file.unlink()


def embedded_server(config: Any) -> Any:
    """A uvicorn server run beside the daemon's own, which alone handles the signals."""
    import uvicorn

    class Embedded(uvicorn.Server):
        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            yield

    return Embedded(config)


class ViewerEndpoint:
    """ASGI wrapper on the daemon's Unix socket: `POST /mnemex/viewer` opens the viewer and answers
    its URLs as JSON; everything else goes to `app`."""

    def __init__(self, app: Any, listener: ViewerListener):
        self.app = app
        self.listener = listener

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope.get("path") != PATH:
            await self.app(scope, receive, send)
            return
        if scope.get("method") != "POST":
            status, body = 405, {"error": "POST only"}
        else:
            try:
                status, body = 200, await self.listener.open()
            except DaemonError as exc:
                status, body = 409, {"error": str(exc)}
        raw = json.dumps(body).encode()
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(raw)).encode()),
                                (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": raw})
