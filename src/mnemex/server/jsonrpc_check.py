"""The relay's checks of what a client sends, before anything is acted on: the nesting depth of
a line (counted without recursion), JSON parsing, the JSON-RPC 2.0 shape of each message, and
the parts the relay reads itself (`initialize` params, the `_meta` envelope, encodable text).
A failed check raises `Refused` with the JSON-RPC error that answers it. Stdlib only.
"""

from __future__ import annotations

import json
import re
from itertools import accumulate
from typing import Any

from mnemex.server.wire import META_PREFIX

INVALID_REQUEST = -32600
INVALID_PARAMS = -32602
PARSE_ERROR = -32700
MAX_DEPTH = 64                    # arrays/objects; deeper JSON is refused before json.loads recurses into it


class Refused(Exception):
    """A message the relay does not forward, and the JSON-RPC error that answers it."""

    def __init__(self, code: int, message: str, request_id: str | int | None = None):
        super().__init__(message)
        self.code = code
        self.request_id = request_id


def is_integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def is_valid_id(value: Any) -> bool:
    """A JSON-RPC id the relay passes on: a string or an integer (not a boolean, float or null)."""
    return isinstance(value, str) or is_integer(value)


_JSON_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKET = bytes(b for b in range(256) if b not in b"[]{}")
_BRACKET_STEP = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}


def nested_too_deep(raw: bytes) -> bool:
    """True if the arrays and objects of a JSON text nest deeper than MAX_DEPTH. Counted without
    recursion, on the brackets left once the strings are cut out."""
    if raw.count(b"[") + raw.count(b"{") <= MAX_DEPTH:
        return False  # it cannot nest deeper than it has brackets
    brackets = _JSON_STRING.sub(b"", raw).translate(None, _NOT_BRACKET)
    return max(accumulate(map(_BRACKET_STEP.__getitem__, brackets)), default=0) > MAX_DEPTH


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def parse_line(raw: bytes) -> Any:
    """The JSON value of one line; Refused when it nests too deep or is not JSON."""
    too_deep = Refused(INVALID_REQUEST, f"invalid request: JSON nested deeper than {MAX_DEPTH} levels")
    if nested_too_deep(raw):
        raise too_deep
    try:
        return json.loads(raw, parse_constant=_no_constant)
    except RecursionError:  # a backstop: the check above keeps json.loads from recursing that far
        raise too_deep from None
    except ValueError as exc:  # including bytes that are not UTF-8
        raise Refused(PARSE_ERROR, f"parse error: {exc}") from None


def check_message(msg: Any) -> None:
    """Raise Refused unless `msg` is a JSON-RPC 2.0 request, notification or response the relay
    can pass on. The error carries the message's id when it has a valid one (a response's never:
    that id names a request of the daemon's, not the client's)."""
    if not isinstance(msg, dict):
        raise Refused(INVALID_REQUEST, "invalid request: a JSON-RPC message is an object")
    if "method" not in msg and ("result" in msg or "error" in msg):
        return check_response(msg)
    echo = msg.get("id") if is_valid_id(msg.get("id")) else None
    if msg.get("jsonrpc") != "2.0":
        raise Refused(INVALID_REQUEST, 'invalid request: "jsonrpc" must be "2.0"', echo)
    if not isinstance(msg.get("method"), str):
        raise Refused(INVALID_REQUEST, 'invalid request: "method" must be a string', echo)
    if "id" in msg and echo is None:
        raise Refused(INVALID_REQUEST, 'invalid request: "id" must be a string or an integer')
    if msg["method"] == "initialize":  # before the general rule: its params get the invalid-params code
        check_initialize(msg, echo)
    params = msg.get("params")
    if "params" in msg and not isinstance(params, (dict, list)):
        raise Refused(INVALID_REQUEST, 'invalid request: "params" must be an object or an array', echo)
    if isinstance(params, dict):
        check_meta(params.get("_meta"), echo)
    check_unicode(msg, echo)


def check_response(msg: dict[str, Any]) -> None:
    """A client's answer to a request the daemon sent it."""
    error = msg.get("error")
    if (msg.get("jsonrpc") != "2.0" or not is_valid_id(msg.get("id")) or ("result" in msg) == ("error" in msg)
            or ("error" in msg and not (isinstance(error, dict) and is_integer(error.get("code"))
                                        and isinstance(error.get("message"), str)))):
        raise Refused(INVALID_REQUEST, 'invalid response: it needs "jsonrpc": "2.0", a string or integer id, '
                                       "and either a result or an error with an integer code and a string message")
    check_unicode(msg, None)


CAPABILITIES = ("experimental", "sampling", "elicitation", "roots", "extensions", "tasks")


def check_initialize(msg: dict[str, Any], echo: str | int | None) -> None:
    """What the relay answers from, and the daemon opens the session with, must be there."""
    if echo is None:
        raise Refused(INVALID_REQUEST, "invalid request: initialize is a request and needs an id")
    params = msg.get("params")
    params = params if isinstance(params, dict) else {}
    caps, info = params.get("capabilities"), params.get("clientInfo")
    if not (isinstance(params.get("protocolVersion"), str)
            and isinstance(caps, dict) and all(isinstance(caps.get(k), (dict, type(None))) for k in CAPABILITIES)
            and isinstance(info, dict) and isinstance(info.get("name"), str) and isinstance(info.get("version"), str)):
        raise Refused(INVALID_PARAMS, "invalid params: initialize needs params {protocolVersion: string, "
                                      "capabilities: object, clientInfo: {name: string, version: string}}", echo)


def check_meta(meta: Any, echo: str | int | None) -> None:
    """The parts of `_meta` the relay reads (the 2026-07-28 envelope) must have their types."""
    if meta is None:
        return
    if not isinstance(meta, dict):
        raise Refused(INVALID_PARAMS, 'invalid params: "_meta" must be an object', echo)
    version_key, info_key = META_PREFIX + "protocolVersion", META_PREFIX + "clientInfo"
    if version_key in meta and not isinstance(meta[version_key], str):
        raise Refused(INVALID_PARAMS, f'invalid params: "_meta"."{version_key}" must be a string', echo)
    info = meta.get(info_key)
    if info_key in meta and not (isinstance(info, dict) and isinstance(info.get("name", ""), str)):
        raise Refused(INVALID_PARAMS, f'invalid params: "_meta"."{info_key}" must be an object with a '
                                      "string name", echo)


def _encodable(value: Any) -> bool:
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
        return True
    except UnicodeEncodeError:
        return False


def check_unicode(msg: dict[str, Any], echo: str | int | None) -> None:
    """Refuse a string holding a lone surrogate: `"\\ud800"` is valid JSON but no Unicode text,
    and UTF-8 (what goes to the daemon) cannot carry it."""
    if not _encodable(msg):
        code = INVALID_PARAMS if not _encodable(msg.get("params")) else INVALID_REQUEST
        raise Refused(code, "invalid unicode: a string holds a lone surrogate (\\ud800-\\udfff)", echo)


def error_message(request_id: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}
