"""The bearer token of the HTTP transports off loopback, and its check through the MCP SDK.

The token is one random secret (`secrets.token_urlsafe(32)`) in `Settings.http_token_path`:
a file created with mode 0600 inside a directory created with mode 0700, never loosened by a
chmod afterwards. `mnemex token show` prints it (creating it on first use), `mnemex token
rotate` replaces it atomically. A running server re-reads the file whenever it (or its
directory's mode) changes, so a rotated-out token is refused from the next request on.

Requests are checked by the SDK's resource-server pieces: `BearerAuthBackend` with our
`FileTokenVerifier` (the SDK's `TokenVerifier` protocol) fills in the user, and
`RequireAuthMiddleware` answers 401 with `WWW-Authenticate: Bearer ...` when there is none.
The file functions are stdlib only, so `mnemex token` starts without importing the SDK.
"""

from __future__ import annotations

import hmac
import logging
import os
import secrets
import stat
from pathlib import Path
from typing import Any

from mnemex.errors import ConfigError

log = logging.getLogger("mnemex.http")

#: Who a valid token speaks for, in the SDK's `AccessToken.client_id` (one token, one principal).
CLIENT_ID = "mnemex-http"
#: Shorter tokens are refused: a hand-written weak secret must not guard the store.
MIN_TOKEN_CHARS = 32


def _check_private(path: Path, kind: str) -> None:
    """Raise ConfigError unless `path` belongs to this user and is closed to group and others."""
    info = path.stat()
    if info.st_uid != os.getuid() or info.st_mode & 0o077:
        mode = stat.S_IMODE(info.st_mode)
        fix = "chmod 700" if kind == "directory" else "chmod 600"
        raise ConfigError(f"the HTTP token {kind} {path} is open to other users (mode {mode:o}, owner uid "
                          f"{info.st_uid}): `{fix} {path}` if it is yours, then `mnemex token rotate`")


def _private_dir(directory: Path) -> None:
    """Create `directory` with mode 0700 (parents as usual), or check the one already there."""
    directory.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.mkdir(directory, 0o700)
    except FileExistsError:
        pass
    _check_private(directory, "directory")


def read_token(path: Path) -> str | None:
    """The stored token, or None when there is no token file yet. ConfigError when the file or
    its directory is open to other users, or the token is too short to be a secret."""
    try:
        _check_private(path.parent, "directory")
        _check_private(path, "file")
        token = path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return None
    if len(token) < MIN_TOKEN_CHARS:
        raise ConfigError(f"the HTTP token in {path} is shorter than {MIN_TOKEN_CHARS} characters: "
                          "replace it with `mnemex token rotate`")
    return token


def _write_token(path: Path) -> str:
    """Write a fresh token atomically (temp file 0600 in the same directory, then rename)."""
    _private_dir(path.parent)
    token = secrets.token_urlsafe(32)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(token + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return token


def ensure_token(path: Path) -> str:
    """The stored token, created on first use."""
    return read_token(path) or _write_token(path)


def rotate_token(path: Path) -> str:
    """Replace the token; servers watching the file refuse the old one from their next request."""
    if path.exists():
        read_token(path)  # refuse to rotate inside a directory others can write to
    return _write_token(path)


class FileTokenVerifier:
    """The SDK's `TokenVerifier` for the token file: constant-time comparison, re-read on change.

    Fails closed: a missing, unreadable or unsafe file refuses every token (and says why in the log).
    """

    def __init__(self, path: Path):
        self.path = path
        self._seen: tuple[int, ...] | None = None
        self._token: bytes | None = None

    def _current(self) -> bytes | None:
        try:
            info, folder = self.path.stat(), self.path.parent.stat()
        except OSError:
            if self._token is not None:
                log.error("HTTP token file %s is gone: refusing every request until `mnemex token show` "
                          "recreates it", self.path)
            self._seen, self._token = None, None
            return None
        # A rename (rotation) changes the inode, a write the mtime, a chmod/chown the ctime.
        key = (info.st_ino, info.st_mtime_ns, info.st_ctime_ns, info.st_size, folder.st_mode, folder.st_uid)
        if key != self._seen:
            self._seen = key
            try:
                token = read_token(self.path)
            except (ConfigError, OSError) as exc:
                log.error("refusing every HTTP request: %s", exc)
                token = None
            self._token = token.encode() if token else None
        return self._token

    async def verify_token(self, token: str) -> Any:
        expected = self._current()
        offered = token.encode("utf-8", "surrogateescape")
        if expected is None or not hmac.compare_digest(offered, expected):
            return None
        from mcp.server.auth.provider import AccessToken

        return AccessToken(token="<mnemex http token>", client_id=CLIENT_ID, scopes=[])


class BearerTokenRequired:
    """ASGI wrapper: every request needs the token; only lifespan events pass straight through.

    The SDK's own wiring only applies `RequireAuthMiddleware` to the streamable HTTP route of an
    `MCPServer` built with `AuthSettings` (which demand an OAuth issuer URL we do not have); this
    wraps the whole app — streamable HTTP or SSE, every path — with the same SDK middleware.
    """

    def __init__(self, app: Any, verifier: FileTokenVerifier):
        from mcp.server.auth.middleware.auth_context import AuthContextMiddleware
        from mcp.server.auth.middleware.bearer_auth import BearerAuthBackend, RequireAuthMiddleware
        from starlette.middleware.authentication import AuthenticationMiddleware

        self.app = app
        self.guarded = AuthenticationMiddleware(
            AuthContextMiddleware(RequireAuthMiddleware(app, required_scopes=[])),
            backend=BearerAuthBackend(verifier))

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await self.app(scope, receive, send)
        else:
            await self.guarded(scope, receive, send)
