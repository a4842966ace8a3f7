"""The daemon's hook endpoint: `mnemex hook` hands its event to a running daemon instead of
handling it itself (that would cost the hook process its imports: the capture code ~25 ms, the
daemon client ~75 ms). The daemon does exactly what the hook would — `capture.hook.handle`, with
the hook's own capture settings and project (its environment's `MNEMEX_CONFIG`,
`MNEMEX_CAPTURE__*`, `CLAUDE_PROJECT_DIR` come along): redaction, `<private>` removal, the rate
limit, the spool — and for SessionStart and UserPromptSubmit the context, built in process by
the same strategy the `memory_context` prompt uses. It answers 200 with what the hook prints
(empty for capture). Anything else is refused with a status, and the hook does the work itself;
the event id the hook chose (header `x-mnemex-event-id`; a tool use's id comes from the use)
makes an event that reached both ingested once.

The route sits before the MCP app on the daemon's Unix socket (owner-only): `POST
/mnemex/hook`, the hook payload as the body, header `x-mnemex-env` those
variables (`entry.encode_env`)."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path
from typing import Any

import anyio

from mnemex.capture.events import EVENT_ID_KEY
from mnemex.capture.hook import MAX_INPUT, handle
from mnemex.capture.settings import HookSettings, read_hook_settings
from mnemex.entry import decode_env, passed_env

log = logging.getLogger(__name__)

PATH = "/mnemex/hook"
ENV_HEADER = b"x-mnemex-env"
ID_HEADER = b"x-mnemex-event-id"
_EVENT_ID = re.compile(r"[0-9a-f]{16,64}")


class RuntimeContext:
    """The hook's context source inside the daemon: the strategy's context, built in process."""

    def __init__(self, runtime: Any):
        self.rt = runtime

    def session_context(self, settings: HookSettings, *, project: str, session: str, source: str) -> str:
        return self.rt.session_context(project, session or None).text

    def prompt_context(self, settings: HookSettings, *, project: str, session: str, prompt: str) -> str:
        return self.rt.prompt_context(project, session or None, prompt).text


class HookEndpoint:
    """ASGI wrapper: serves `PATH`, passes everything else to `app`."""

    def __init__(self, app: Any, data_dir: Path, runtime: Any = None):
        self.app = app
        self.data_dir = Path(data_dir)
        self.context = RuntimeContext(runtime) if runtime is not None else None

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope.get("path") != PATH:
            await self.app(scope, receive, send)
            return
        status, body = await self._serve(scope, receive)
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(body)).encode()), (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": body})

    async def _serve(self, scope: dict, receive: Any) -> tuple[int, bytes]:
        if scope.get("method") != "POST":
            return 405, b""
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return 400, b""
            body += message.get("body", b"")
            if len(body) > MAX_INPUT:
                return 413, b""
            if not message.get("more_body"):
                break
        try:
            payload = json.loads(bytes(body))
            headers = dict(scope.get("headers") or [])
            env = passed_env(decode_env(headers.get(ENV_HEADER, b"")))
            event_id = headers.get(ID_HEADER, b"").decode("ascii")
        except (ValueError, AttributeError):
            return 400, b""
        if not isinstance(payload, dict) or not isinstance(payload.get("hook_event_name"), str):
            return 400, b""
        payload.pop(EVENT_ID_KEY, None)
        if _EVENT_ID.fullmatch(event_id):
            payload[EVENT_ID_KEY] = event_id
        try:
            out = await anyio.to_thread.run_sync(self._handle, payload, env)
        except Exception as exc:  # the hook does it itself
            log.warning("hook endpoint: %s: %s", type(exc).__name__, exc)
            return 500, b""
        return 200, (out or "").encode("utf-8")

    def _handle(self, payload: dict[str, Any], env: dict[str, str]) -> str | None:
        settings = read_hook_settings({**env, "MNEMEX_DATA_DIR": str(self.data_dir)})
        return handle(payload, settings, self.context, env)
