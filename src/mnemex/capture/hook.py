"""`mnemex hook`: one Claude Code hook event, read from stdin (its `hook_event_name` says which).

- PostToolUse / PostToolUseFailure: the tool use is appended to the capture spool (redacted,
  `<private>` removed) and the hook returns; the daemon ingests the spool in batches.
- UserPromptSubmit: the prompt joins the session's log (spool), and the memories relevant to it
  are returned as `additionalContext` (trivial prompts and what the session already received
  are left out by the daemon).
- SessionStart: the strategy's context for the project (core blocks, pinned memories, what
  matters here) as `additionalContext`.
- PreCompact / Stop / SessionEnd: a marker in the spool; the daemon consolidates the session
  into an episode (and procedures) when it ingests it.

It never blocks or breaks the agent: any failure is one line on stderr, the exit status is 0,
and there is no output but the context. Capture imports neither the model, the MCP SDK nor the
store; the context comes from the running daemon (`ContextSource`, provided by the CLI).
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any, BinaryIO, Callable, Mapping, Protocol, TextIO

from mnemex.capture.events import EVENT_ID_KEY, marker_record, project_of, prompt_record, tool_record
from mnemex.capture.settings import HookSettings, read_hook_settings
from mnemex.capture.spool import Spool
from mnemex.private import private_umask

MAX_INPUT = 8 * 1024 * 1024
TOOL_EVENTS = frozenset({"PostToolUse", "PostToolUseFailure"})
END_EVENTS = frozenset({"PreCompact", "Stop", "SessionEnd", "SubagentStop"})


class ContextSource(Protocol):
    """Where injected context comes from (the daemon). Either may raise: the hook stays silent."""

    def session_context(self, settings: HookSettings, *, project: str, session: str, source: str) -> str: ...

    def prompt_context(self, settings: HookSettings, *, project: str, session: str, prompt: str) -> str: ...


def handle(payload: dict[str, Any], settings: HookSettings, context: ContextSource | None,
           env: Mapping[str, str]) -> str | None:
    """Do what the event asks; the text to print on stdout (the hook's JSON), or None."""
    event = payload.get("hook_event_name")
    if not isinstance(event, str):
        raise ValueError("the hook payload has no hook_event_name")
    project = project_of(payload, dict(env))
    spool = Spool(settings.spool_dir)
    session = str(payload.get("session_id") or "")
    if event in TOOL_EVENTS:
        record = tool_record(payload, settings, project)
        if record is not None and spool.allow(settings.max_per_minute):
            spool.append(record)
        return None
    if event in END_EVENTS:
        if settings.enabled:
            spool.append(marker_record(payload, project))
        return None
    if event == "SessionStart":
        if settings.enabled:
            spool.append(marker_record(payload, project))
        text = context.session_context(settings, project=project, session=session,
                                       source=str(payload.get("source") or "")) if context else ""
        return _inject(event, text)
    if event == "UserPromptSubmit":
        record = prompt_record(payload, settings, project)
        if record is not None:
            spool.append(record)
        prompt = payload.get("prompt")
        if not isinstance(prompt, str) or not prompt.strip() or context is None:
            return None
        return _inject(event, context.prompt_context(settings, project=project, session=session, prompt=prompt))
    return None  # an event we do not handle (Notification, PreToolUse...)


def _inject(event: str, text: str) -> str | None:
    if not text or not text.strip():
        return None
    return json.dumps({"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}},
                      ensure_ascii=False)


def main(stdin: BinaryIO | None = None, stdout: TextIO | None = None, stderr: TextIO | None = None,
         env: Mapping[str, str] | None = None,
         context_factory: Callable[[], ContextSource | None] | None = None, event_id: str | None = None) -> int:
    """Read one event and handle it; always exit 0 (a hook must never break the agent)."""
    stdin = stdin or sys.stdin.buffer
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    started = time.monotonic()
    try:
        raw = stdin.read(MAX_INPUT + 1)
        if len(raw) > MAX_INPUT:
            raise ValueError(f"the hook input is over {MAX_INPUT // 2**20} MB")
        payload = json.loads(raw or b"{}")
        if not isinstance(payload, dict):
            raise ValueError("the hook input is not a JSON object")
        payload.pop(EVENT_ID_KEY, None)
        if event_id:
            payload[EVENT_ID_KEY] = event_id  # the id the daemon was given too
        env = os.environ if env is None else env
        private_umask()  # the spool (and a data dir made here) is the owner's alone
        settings = read_hook_settings(env)
        injects = payload.get("hook_event_name") in ("SessionStart", "UserPromptSubmit")
        context = context_factory() if context_factory is not None and injects else None
        out = handle(payload, settings, context, env)
        if out:
            stdout.write(out + "\n")
            stdout.flush()
    except Exception as exc:  # never block or break the agent: one line on stderr, exit 0
        try:
            stderr.write(f"mnemex hook: {type(exc).__name__}: {exc} ({(time.monotonic() - started) * 1000:.0f} ms)\n")
        except Exception:
            pass
    return 0
