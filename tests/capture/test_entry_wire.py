"""What the hook sends the daemon, read without `json`: the event's name from the payload's
bytes (or, when unsure, its JSON) and the passed environment as one header value."""

from __future__ import annotations

import json

import pytest

from mnemex.entry import decode_env, encode_env, event_name
from tests.capture.helpers import payload


@pytest.mark.parametrize("name", ["session_start", "user_prompt_submit", "post_tool_use_bash", "pre_compact",
                                  "post_tool_use_failure_bash", "stop", "session_end"])
def test_the_event_name_of_every_recorded_payload(name: str) -> None:
    data = payload(name)
    for raw in (json.dumps(data), json.dumps(data, indent=2), json.dumps(data, separators=(",", ":"))):
        assert event_name(raw.encode()) == data["hook_event_name"]


def test_an_event_name_it_cannot_read_from_the_bytes_comes_from_the_json() -> None:
    # the key twice (a tool's input that names it): the top-level one, by parsing
    nested = {"tool_input": {"hook_event_name": "Stop"}, "hook_event_name": "PostToolUse"}
    assert event_name(json.dumps(nested).encode()) == "PostToolUse"
    assert event_name(b'{"hook_event_name": "Post\\u0054oolUse"}') == "PostToolUse"  # escaped
    assert event_name(b'{"hook_event_name": 3}') is None
    assert event_name(b'["hook_event_name"]') is None
    assert event_name(b"{not json") is None
    assert event_name(b"") is None
    # a string that merely contains the key is escaped in JSON: never read as the key
    text = {"tool_response": 'print("\\"hook_event_name\\": \\"Stop\\"")', "hook_event_name": "PostToolUse"}
    assert event_name(json.dumps(text).encode()) == "PostToolUse"


def test_the_environment_travels_whole() -> None:
    env = {"MNEMEX_CONFIG": "/home/dév/x=y.toml", "CLAUDE_PROJECT_DIR": "/p q", "MNEMEX_CAPTURE__TOOLS": "",
           "MNEMEX_CAPTURE__ODD": "a\udcffb"}  # a byte that is not UTF-8, as os.environ holds it
    value = encode_env(env)
    assert value.isascii() and "\r" not in value and "\n" not in value
    assert decode_env(value.encode()) == env
    assert decode_env(b"") == {} == decode_env(encode_env({}).encode())
    for bad in (b"{}", b"[1", b"zz", "=x".encode().hex().encode(), b"ff"):
        with pytest.raises(ValueError):
            decode_env(bad)
