"""The daemon's capture endpoint: `mnemex hook` hands a tool use to a running daemon instead of
redacting and spooling it itself (that takes the hook process ~25 ms of imports; this takes a
socket). The daemon does exactly what the hook would — the hook's own capture settings and
project (its environment's `MNEMEX_CONFIG`, `MNEMEX_CAPTURE__*`, `CLAUDE_PROJECT_DIR` come along),
redaction, `<private>` removal, the rate limit — and answers 204 once the event is in the spool.
Anything else is refused with a status; the hook then spools the event itself, and the event id
(from the tool use) makes a use that reached both ingested once.

The route sits before the MCP app on the daemon's Unix socket (owner-only): `POST
/mnemex/capture`, the hook payload as the body, header `x-mnemex-env` a JSON object of those
variables."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import anyio

from mnemex.capture.hook import MAX_INPUT, TOOL_EVENTS, handle
from mnemex.capture.settings import read_hook_settings

log = logging.getLogger(__name__)

PATH = "/mnemex/capture"
ENV_HEADER = b"x-mnemex-env"
#: What the hook's environment may say about its capture.
PASSED = ("MNEMEX_CONFIG", "CLAUDE_PROJECT_DIR")
PASSED_PREFIX = "MNEMEX_CAPTURE__"


def passed_env(environ: Any) -> dict[str, str]:
    """The part of a hook's environment the daemon takes into account."""
    return {k: v for k, v in environ.items() if isinstance(k, str) and isinstance(v, str)
            and (k in PASSED or k.startswith(PASSED_PREFIX))}


class CaptureEndpoint:
    """ASGI wrapper: serves `PATH`, passes everything else to `app`."""

    def __init__(self, app: Any, data_dir: Path):
        self.app = app
        self.data_dir = Path(data_dir)

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope.get("path") != PATH:
            await self.app(scope, receive, send)
            return
        status = await self._capture(scope, receive)
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-length", b"0"), (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": b""})

    async def _capture(self, scope: dict, receive: Any) -> int:
        if scope.get("method") != "POST":
            return 405
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return 400
            body += message.get("body", b"")
            if len(body) > MAX_INPUT:
                return 413
            if not message.get("more_body"):
                break
        try:
            payload = json.loads(bytes(body))
            headers = dict(scope.get("headers") or [])
            env = passed_env(json.loads(headers.get(ENV_HEADER, b"{}")))
        except (ValueError, AttributeError):
            return 400
        if not isinstance(payload, dict) or payload.get("hook_event_name") not in TOOL_EVENTS:
            return 400
        try:
            await anyio.to_thread.run_sync(self._spool, payload, env)
        except Exception as exc:  # the hook spools it itself
            log.warning("capture endpoint: %s: %s", type(exc).__name__, exc)
            return 500
        return 204

    def _spool(self, payload: dict[str, Any], env: dict[str, str]) -> None:
        settings = read_hook_settings({**env, "MNEMEX_DATA_DIR": str(self.data_dir)})
        handle(payload, settings, None, env)
