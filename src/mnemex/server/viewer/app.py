"""The viewer's HTTP side: one static page and its JSON API under /viewer, as a Starlette app.

Who may use it (every request, checked before any route runs — `ViewerGuard`):
- Host must name the loopback listener (`127.0.0.1:PORT`, `localhost:PORT`): a DNS-rebinding
  page under another name is refused, as the HTTP transports refuse it (http_guard.py).
- Origin, when a browser sends one, must be the viewer's own: a foreign page gets 403.
- The access key: the URL `mnemex viewer` prints carries `?key=...`, which the page trades for an
  HttpOnly, SameSite=Strict cookie (then redirects, dropping the key from the address bar).
  A loopback port is open to every local user, unlike the daemon's 0600 socket: the key — kept
  in the run dir, mode 0600 — is what stands in for the socket's file mode.
- Writes are POST only, with JSON, and the header `X-Mnemex-Csrf` carrying the per-daemon CSRF
  token embedded in the page: a foreign page can neither read it nor send the header cross-site.
"""

from __future__ import annotations

import hmac
import json
import logging
import secrets
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Awaitable, Callable
from urllib.parse import parse_qs

import anyio.to_thread

from mnemex.errors import InvalidInputError, MnemexError, NotFoundError
from mnemex.server.viewer.api import ViewerApi

log = logging.getLogger("mnemex.viewer")

PREFIX = "/viewer"
COOKIE = "mnemex_viewer"
CSRF_HEADER = "x-mnemex-csrf"
MAX_BODY = 1 << 20
STATIC = {"viewer.css": "text/css; charset=utf-8", "viewer.js": "text/javascript; charset=utf-8"}
SECURITY_HEADERS = {
    "content-security-policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                               "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cache-control": "no-store",
    "x-frame-options": "DENY",
}


@dataclass(frozen=True)
class ViewerSecrets:
    """The per-daemon access key (in the URL, then a cookie) and CSRF token (in the page)."""

    key: str = field(default_factory=lambda: secrets.token_urlsafe(32))
    csrf: str = field(default_factory=lambda: secrets.token_urlsafe(32))


def _asset(name: str) -> bytes:
    return resources.files("mnemex.server.viewer").joinpath("static", name).read_bytes()


def _same(offered: str | None, expected: str) -> bool:
    return offered is not None and hmac.compare_digest(offered.encode(), expected.encode())


def build_viewer_app(engine: Any, secrets_: ViewerSecrets, port_of: Callable[[], int]) -> Any:
    """The viewer app over `engine`; `port_of()` names the listener's port (known once bound)."""
    from pydantic import ValidationError
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse, RedirectResponse, Response
    from starlette.routing import Route

    api = ViewerApi(engine)
    page = _asset("index.html").decode("utf-8").replace("{{CSRF}}", secrets_.csrf).encode("utf-8")

    async def run(fn: Callable[..., Any], *args: Any) -> Response:
        try:
            return JSONResponse(await anyio.to_thread.run_sync(lambda: fn(*args)))
        except NotFoundError as exc:
            return JSONResponse({"error": str(exc)}, 404)
        except (InvalidInputError, MnemexError) as exc:
            return JSONResponse({"error": str(exc)}, 400)
        except ValidationError as exc:  # a value the API let through: name it, no validation dump
            first = exc.errors()[0]
            where = ".".join(str(x) for x in first["loc"])
            return JSONResponse({"error": f"{where + ': ' if where else ''}{first['msg']}"}, 400)
        except Exception:
            log.exception("viewer API")
            return JSONResponse({"error": "internal error: see the daemon log (`mnemex daemon status`)"}, 500)

    async def index(request: Request) -> Response:
        key = request.query_params.get("key")
        if key is not None:
            if not _same(key, secrets_.key):
                return _refused(401, "this viewer link is stale: run `mnemex viewer` again for a fresh one")
            out = RedirectResponse(f"{PREFIX}/", status_code=303)
            out.set_cookie(COOKIE, secrets_.key, httponly=True, samesite="strict", path=PREFIX)
            return out
        return Response(page, media_type="text/html; charset=utf-8")

    async def static(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in STATIC:
            return _refused(404, "not found")
        return Response(_asset(name), media_type=STATIC[name])

    def reader(fn: Callable[..., Any], *names: str, params: bool = False) -> Callable[[Request], Awaitable[Response]]:
        """A GET endpoint calling `fn(*path params named, [query params])`."""
        async def endpoint(request: Request) -> Response:
            args = [request.path_params[n] for n in names] + ([request.query_params] if params else [])
            return await run(fn, *args)
        return endpoint

    async def action(request: Request) -> Response:
        memory_id, verb = request.path_params["id"], request.path_params["action"]
        body = await _json_body(request)
        if isinstance(body, Response):
            return body
        calls: dict[str, Callable[[], Any]] = {
            "edit": lambda: api.edit(memory_id, body), "pin": lambda: api.pin(memory_id, True),
            "unpin": lambda: api.pin(memory_id, False), "forget": lambda: api.forget(memory_id, body),
            "restore": lambda: api.restore(memory_id), "purge": lambda: api.purge(memory_id, body)}
        if verb not in calls:
            return _refused(404, f"unknown action {verb!r}: one of {', '.join(calls)}")
        return await run(calls[verb])

    routes = [
        Route(f"{PREFIX}/", index, methods=["GET"]),
        Route(f"{PREFIX}/static/{{name}}", static, methods=["GET"]),
        Route(f"{PREFIX}/api/overview", reader(api.overview), methods=["GET"]),
        Route(f"{PREFIX}/api/search", reader(api.search, params=True), methods=["GET"]),
        Route(f"{PREFIX}/api/blocks", reader(api.blocks, params=True), methods=["GET"]),
        Route(f"{PREFIX}/api/sessions", reader(api.sessions, params=True), methods=["GET"]),
        Route(f"{PREFIX}/api/sessions/{{session}}", reader(api.session, "session", params=True), methods=["GET"]),
        Route(f"{PREFIX}/api/stats", reader(api.stats, params=True), methods=["GET"]),
        Route(f"{PREFIX}/api/memory/{{id}}", reader(api.memory, "id"), methods=["GET"]),
        Route(f"{PREFIX}/api/memory/{{id}}/history", reader(api.history, "id"), methods=["GET"]),
        Route(f"{PREFIX}/api/memory/{{id}}/related", reader(api.related, "id"), methods=["GET"]),
        Route(f"{PREFIX}/api/memory/{{id}}/timeline", reader(api.timeline, "id"), methods=["GET"]),
        Route(f"{PREFIX}/api/memory/{{id}}/{{action}}", action, methods=["POST"]),
        Route("/", lambda request: RedirectResponse(f"{PREFIX}/", status_code=303), methods=["GET"]),
    ]
    return ViewerGuard(Starlette(routes=routes), secrets_, port_of)


async def _json_body(request: Any) -> Any:
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        return _refused(415, "send the body as application/json")
    raw = await request.body()
    if len(raw) > MAX_BODY:
        return _refused(413, f"request body over {MAX_BODY} bytes")
    try:
        body = json.loads(raw or b"{}")
    except ValueError:
        return _refused(400, "the body is not JSON")
    return body if isinstance(body, dict) else _refused(400, "the body must be a JSON object")


def _refused(status: int, message: str) -> Any:
    from starlette.responses import JSONResponse

    return JSONResponse({"error": message}, status, headers=SECURITY_HEADERS)


class ViewerGuard:
    """ASGI wrapper: Host, Origin, access key and (for writes) CSRF checks, then security headers."""

    def __init__(self, app: Any, secrets_: ViewerSecrets, port_of: Callable[[], int]):
        self.app = app
        self.secrets = secrets_
        self.port_of = port_of

    def refusal(self, scope: dict) -> tuple[int, str] | None:
        """(status, why) when the request may not pass, else None."""
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers") or []}
        port = self.port_of()
        hosts = {f"127.0.0.1:{port}", f"localhost:{port}"}
        if headers.get("host", "").lower() not in hosts:
            return 421, "wrong Host header: open the viewer at the URL `mnemex viewer` prints"
        origin = headers.get("origin")
        if origin is not None and origin.lower() not in {f"http://{h}" for h in hosts}:
            return 403, f"requests from {origin} are refused: the viewer only answers its own page"
        site = headers.get("sec-fetch-site")
        if site is not None and site not in ("same-origin", "none"):
            return 403, "cross-site requests are refused"
        path = scope.get("path", "")
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        if path == f"{PREFIX}/" and "key" in query:
            return None  # the page trades the key for its cookie (checked there)
        cookies = {}
        for part in headers.get("cookie", "").split(";"):
            name, _, value = part.strip().partition("=")
            cookies[name] = value
        if not _same(cookies.get(COOKIE), self.secrets.key):
            return 401, "no access key: open the viewer with the link `mnemex viewer` prints"
        if scope.get("method") not in ("GET", "HEAD") and not _same(headers.get(CSRF_HEADER), self.secrets.csrf):
            return 403, "missing or wrong CSRF token: reload the viewer page"
        return None

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            if scope["type"] == "lifespan":
                await self.app(scope, receive, send)
            return
        refused = self.refusal(scope)
        if refused is not None:
            await _refused(*refused)(scope, receive, send)
            return

        async def with_headers(message: dict) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []),
                                                  *((k.encode(), v.encode()) for k, v in SECURITY_HEADERS.items())]}
            await send(message)

        await self.app(scope, receive, with_headers)
