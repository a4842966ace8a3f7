"""Pure edits of a client config document: add or remove the mnemex server entry and hooks.

Each function returns a new document and leaves every key it does not own as it was (value
and order). A document of the wrong shape raises `ShapeError` saying what is wrong.
"""

from __future__ import annotations

import copy
from typing import Any

from mnemex.clients.launcher import is_mnemex_hook

SERVER_NAME = "mnemex"
TOOL_MATCHER = "Read|Edit|MultiEdit|Write|Bash"
#: Claude Code hook event -> (matcher or None, timeout in seconds)
HOOK_EVENTS: dict[str, tuple[str | None, int]] = {
    "SessionStart": (None, 30),
    "UserPromptSubmit": (None, 10),
    "PostToolUse": (TOOL_MATCHER, 5),
    "PostToolUseFailure": (TOOL_MATCHER, 5),
    "PreCompact": (None, 30),
    "Stop": (None, 30),
    "SessionEnd": (None, 30),
}
#: keys of a server entry that say how to reach it; ours replace them, other keys (env, ...) stay
_TRANSPORT_KEYS = frozenset({"type", "command", "args", "url", "headers"})


class ShapeError(ValueError):
    """A config document whose shape mnemex cannot merge into (the message says what is wrong)."""


def _object(doc: Any, key: str) -> dict[str, Any] | None:
    if not isinstance(doc, dict):
        raise ShapeError(f"its top level is {_kind(doc)}, not a JSON object")
    value = doc.get(key)
    if value is not None and not isinstance(value, dict):
        raise ShapeError(f"its {key!r} is {_kind(value)}, not an object")
    return value


def _kind(value: Any) -> str:
    return {list: "a list", str: "a string", bool: "a boolean", int: "a number", float: "a number",
            type(None): "null", dict: "an object"}.get(type(value), type(value).__name__)


def with_server(doc: Any, key: str, entry: dict[str, Any], name: str = SERVER_NAME) -> dict[str, Any]:
    """`doc` with `doc[key][name]` set to `entry`; an existing entry keeps its place and its other
    keys (env, ...), every other server stays as it is."""
    _object(doc, key)
    out = copy.deepcopy(doc)
    if out.get(key) is None:
        out[key] = {}
    servers = out[key]
    old = servers.get(name)
    if isinstance(old, dict):
        merged = {k: entry.get(k, v) for k, v in old.items()
                  if k in entry or k not in _TRANSPORT_KEYS}
        servers[name] = {**merged, **{k: v for k, v in entry.items() if k not in merged}}
    else:
        servers[name] = copy.deepcopy(entry)
    return out


def without_server(doc: Any, key: str, name: str = SERVER_NAME) -> dict[str, Any]:
    """`doc` without `doc[key][name]`; `doc[key]` goes too when that leaves it empty."""
    servers = _object(doc, key)
    out = copy.deepcopy(doc)
    if servers is None or name not in servers:
        return out
    del out[key][name]
    if not out[key]:
        del out[key]
    return out


def _our_hook(hook: Any) -> bool:
    return isinstance(hook, dict) and hook.get("type", "command") == "command" and is_mnemex_hook(hook.get("command"))


def _event_groups(hooks: dict[str, Any], event: str) -> list[Any] | None:
    groups = hooks.get(event)
    if groups is not None and not isinstance(groups, list):
        raise ShapeError(f"its 'hooks.{event}' is {_kind(groups)}, not a list")
    return groups


def with_hooks(doc: Any, command: str) -> dict[str, Any]:
    """`doc` with a `command` hook on every event of HOOK_EVENTS. An existing mnemex hook is
    updated where it is (duplicates dropped); every other hook entry stays as it is."""
    _object(doc, "hooks")
    out = copy.deepcopy(doc)
    if out.get("hooks") is None:
        out["hooks"] = {}
    hooks = out["hooks"]
    for event, (matcher, timeout) in HOOK_EVENTS.items():
        ours_hook = {"type": "command", "command": command, "timeout": timeout}
        ours_group = {**({"matcher": matcher} if matcher else {}), "hooks": [ours_hook]}
        groups = _event_groups(hooks, event)
        if groups is None:
            hooks[event] = [ours_group]
            continue
        placed, kept = False, []
        for group in groups:
            inner = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(inner, list) or not any(_our_hook(h) for h in inner):
                kept.append(group)
            elif all(_our_hook(h) for h in inner):  # a group of ours: it becomes ours, once
                if not placed:
                    kept.append(ours_group)
                placed = True
            else:  # our hook among the user's: update it there, keep the group's matcher
                rest = []
                for h in inner:
                    if not _our_hook(h):
                        rest.append(h)
                    elif not placed:
                        rest.append(ours_hook)
                        placed = True
                kept.append({**group, "hooks": rest})
        hooks[event] = kept if placed else [*kept, ours_group]
    return out


def without_hooks(doc: Any) -> dict[str, Any]:
    """`doc` without any mnemex hook; a group, event list or `hooks` object that this empties goes too."""
    hooks = _object(doc, "hooks")
    out = copy.deepcopy(doc)
    if hooks is None:
        return out
    for event in list(hooks):
        groups = _event_groups(hooks, event)
        if not groups:
            continue
        kept = []
        for group in groups:
            inner = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(inner, list) or not any(_our_hook(h) for h in inner):
                kept.append(group)
            elif rest := [h for h in inner if not _our_hook(h)]:
                kept.append({**group, "hooks": rest})
        if kept != groups:
            if kept:
                out["hooks"][event] = kept
            else:
                del out["hooks"][event]
    if not out["hooks"] and hooks:
        del out["hooks"]
    return out


