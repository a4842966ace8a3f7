"""Claude Code hook payloads as capture events: what the agent read, edited and ran, told in a
line, with secrets redacted and `<private>…</private>` text removed before anything is kept.

A file read keeps its path, not its content; an edit keeps the file and a capped summary of the
change; a command keeps itself, its exit status, its duration when the payload carries one, and
a capped tail of its error output. Stdlib only (plus the redaction rules): the hook is fast.
"""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path
from typing import Any

from mnemex.capture.settings import HookSettings
from mnemex.engine.write.redact import clean_text, redact
from mnemex.projects import detect_project

SCHEMA = 1
PRIVATE = re.compile(r"<private>.*?(?:</private>|\Z)", re.S | re.I)
_EXIT = re.compile(r"(?:exit(?:ed)?(?: with)?(?: non-zero)? (?:status|code)(?: code)?|status code|returned)\s*[:=]?\s*(-?\d{1,3})",
                   re.I)
#: A line that only states the exit status (the event says it already)
_STATUS_LINE = re.compile(r"^\s*(?:exit code|exited with (?:status|code)|command exited with non-zero status code)"
                          r"\s*:?\s*-?\d+\s*$", re.I | re.M)
_ENV_ASSIGN = re.compile(r"^(?:[A-Z_][A-Z0-9_]*=\S*\s+)+")
EDIT_TOOLS = frozenset({"Edit", "MultiEdit", "Write", "NotebookEdit"})


def safe(text: Any, limit: int) -> str:
    """`text` as it may be kept: private parts removed, cleaned, secrets redacted, capped."""
    value = PRIVATE.sub("[private]", str(text if text is not None else ""))
    value = redact(clean_text(value)).text
    return value if len(value) <= limit else value[: max(0, limit - 1)] + "…"


def project_of(payload: dict[str, Any], env: dict[str, str] | None = None) -> str:
    """The project of a hook event: CLAUDE_PROJECT_DIR, else the git root of the payload's cwd."""
    env = os.environ if env is None else env
    explicit = env.get("CLAUDE_PROJECT_DIR")
    if explicit:
        return detect_project(explicit)
    cwd = payload.get("cwd")
    return detect_project(cwd if isinstance(cwd, str) and cwd else None)


def now_iso() -> str:
    now = time.time()  # as datetime.now(timezone.utc).isoformat(timespec="milliseconds"), without datetime
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now)) + f".{int(now * 1000) % 1000:03d}+00:00"


def _sha256(data: bytes):  # type: ignore[no-untyped-def]
    """hashlib.sha256 without importing hashlib (OpenSSL: ~4 ms of the hook's start)."""
    try:
        from _sha256 import sha256  # CPython 3.11
    except ImportError:
        try:
            from _sha2 import sha256  # type: ignore[no-redef]  # CPython 3.12+
        except ImportError:
            from hashlib import sha256  # type: ignore[no-redef]
    return sha256(data)


def event_id(payload: dict[str, Any]) -> str:
    """A tool use's event id comes from its session and `tool_use_id`, so the same use handed to
    the daemon and then spooled by the hook itself (no answer in time) is ingested once."""
    use = payload.get("tool_use_id")
    if isinstance(use, str) and use:
        seed = f"{payload.get('session_id') or ''}\x00{use}".encode("utf-8", "replace")
        return _sha256(seed).hexdigest()[:32]
    return os.urandom(16).hex()


#: Where `mnemex hook` puts the id it chose for an event that is not a tool use (the daemon and
#: the hook's own path then write the same id: the event is ingested once).
EVENT_ID_KEY = "_mnemex_event_id"


def base_record(payload: dict[str, Any], kind: str, project: str) -> dict[str, Any]:
    given = payload.get(EVENT_ID_KEY)
    rid = event_id(payload) if kind == "tool" else (given if isinstance(given, str) and given else os.urandom(16).hex())
    return {"v": SCHEMA, "id": rid, "at": now_iso(),
            "kind": kind,
            "event": str(payload.get("hook_event_name") or ""), "session": _text(payload.get("session_id"), 200),
            "project": project}


def tool_record(payload: dict[str, Any], settings: HookSettings, project: str) -> dict[str, Any] | None:
    """The event of one tool use (PostToolUse / PostToolUseFailure), None when not captured."""
    tool = _text(payload.get("tool_name"), 100)
    if not tool or not settings.captures(tool):
        return None
    args = payload.get("tool_input") if isinstance(payload.get("tool_input"), dict) else {}
    response = payload.get("tool_response")
    failed = payload.get("hook_event_name") == "PostToolUseFailure"
    limit = settings.max_chars
    rec = base_record(payload, "tool", project)
    rec.update(tool=tool, failed=failed)
    if tool == "Bash":
        _bash(rec, args, response, payload, limit)
    elif tool in EDIT_TOOLS:
        _edit(rec, tool, args, limit)
    elif tool == "Read":
        path = safe(args.get("file_path") or args.get("path") or "", 500)
        span = ""
        if isinstance(args.get("offset"), int) or isinstance(args.get("limit"), int):
            start = int(args.get("offset") or 1)
            span = f" (lines {start}-{start + int(args.get('limit') or 0)})" if args.get("limit") else f" (from line {start})"
        rec.update(ref=path, text=f"Read {path}{span}")
    else:
        rec.update(ref="", text=safe(f"Used {tool}: {json.dumps(args, ensure_ascii=False, default=str)}", limit))
    if failed and not rec.get("error"):
        rec["error"] = safe(payload.get("error") or payload.get("error_message") or "failed", limit)
        rec["text"] = safe(f"{rec['text']} — failed: {rec['error']}", limit)
    return rec


def _bash(rec: dict[str, Any], args: dict[str, Any], response: Any, payload: dict[str, Any], limit: int) -> None:
    command = safe(args.get("command") or "", min(limit, 1000))
    out = response if isinstance(response, dict) else {}
    code = _exit_code(out, payload)
    failed = rec["failed"] or (code is not None and code != 0) or bool(out.get("interrupted"))
    duration = _duration(out, payload)
    error = ""
    if failed:
        tail = out.get("stderr") or payload.get("error") or payload.get("error_message") or out.get("stdout") or ""
        error = safe(_tail(_STATUS_LINE.sub("", str(tail)), 12), min(limit, 800))
    status = f"exit {code}" if code is not None else ("failed" if failed else "ok")
    text = f"Ran `{command}` → {status}"
    if duration is not None:
        text += f" in {duration / 1000:.1f} s"
    if error:
        text += f"; error: {error}"
    rec.update(failed=failed, exit=code, duration_ms=duration, ref=command, key=command_key(command),
               error=error, text=safe(text, limit))


def _edit(rec: dict[str, Any], tool: str, args: dict[str, Any], limit: int) -> None:
    path = safe(args.get("file_path") or args.get("notebook_path") or args.get("path") or "", 500)
    if tool == "Write":
        content = str(args.get("content") or "")
        text = f"Wrote {path} ({content.count(chr(10)) + 1 if content else 0} lines)"
    elif tool == "MultiEdit" and isinstance(args.get("edits"), list):
        edits = [e for e in args["edits"] if isinstance(e, dict)]
        first = _change(edits[0]) if edits else ""
        text = f"Edited {path} ({len(edits)} changes){': ' + first if first else ''}"
    else:
        text = f"Edited {path}: {_change(args)}"
    rec.update(ref=path, files=[path], text=safe(text, limit))


def _change(edit: dict[str, Any]) -> str:
    old = " ".join(str(edit.get("old_string") or edit.get("old_source") or "").split())
    new = " ".join(str(edit.get("new_string") or edit.get("new_source") or "").split())
    change = f"`{_short(old)}` → `{_short(new)}`"
    return change + (" (every occurrence)" if edit.get("replace_all") else "")


def _short(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _tail(text: str, lines: int) -> str:
    kept = [ln for ln in text.strip().splitlines() if ln.strip()][-lines:]
    return "\n".join(kept)


def _exit_code(out: dict[str, Any], payload: dict[str, Any]) -> int | None:
    for key in ("exit_code", "exitCode", "returncode", "return_code", "code"):
        value = out.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    for text in (payload.get("error"), payload.get("error_message")):
        if isinstance(text, str):
            m = _EXIT.search(text)
            if m:
                return int(m.group(1))
    return None


def _duration(out: dict[str, Any], payload: dict[str, Any]) -> int | None:
    for source in (out, payload):
        for key in ("duration_ms", "durationMs", "elapsed_ms"):
            value = source.get(key)
            if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0:
                return int(value)
    return None


def command_key(command: str) -> str:
    """What identifies a command across runs: env assignments dropped, the program and its first
    argument (`pytest -q tests/x.py` and `pytest -q` are the same command, `npm test` another)."""
    words = _ENV_ASSIGN.sub("", command.strip()).split()
    if not words:
        return ""
    program = Path(words[0]).name
    rest = [w for w in words[1:3] if not w.startswith("-")][:1]
    return " ".join([program, *rest])


def prompt_record(payload: dict[str, Any], settings: HookSettings, project: str) -> dict[str, Any] | None:
    if not settings.enabled or not settings.prompts:
        return None
    prompt = safe(payload.get("prompt") or "", min(settings.max_chars, 1000))
    if not prompt.strip():
        return None
    rec = base_record(payload, "prompt", project)
    rec["text"] = prompt
    return rec


def marker_record(payload: dict[str, Any], project: str) -> dict[str, Any]:
    """A session boundary: start (SessionStart) or an end to consolidate at (PreCompact, Stop, SessionEnd)."""
    event = payload.get("hook_event_name")
    rec = base_record(payload, "start" if event == "SessionStart" else "end", project)
    for key in ("source", "reason", "trigger"):
        if isinstance(payload.get(key), str):
            rec[key] = _text(payload[key], 100)
    return rec


def _text(value: Any, limit: int) -> str:
    return clean_text(str(value))[:limit] if value is not None else ""
