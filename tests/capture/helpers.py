"""The recorded Claude Code payloads (tests/data/hooks) and ways to feed them to the hook."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.helpers import DATA

HOOKS = DATA / "hooks"
SESSION = "4f3c9a1e-2b7d-4e8a-9c61-0d5e7f8a9b21"
PROJECT = "/home/dev/shop"
#: one session as Claude Code runs it: the failing test run, the fix, the passing run, the end
SESSION_FLOW = ("session_start", "user_prompt_submit", "post_tool_use_read", "post_tool_use_failure_bash",
                "post_tool_use_edit", "post_tool_use_multiedit", "post_tool_use_write", "post_tool_use_grep",
                "post_tool_use_bash", "stop", "session_end")


def payload(name: str, **changes: Any) -> dict[str, Any]:
    data = json.loads((HOOKS / f"{name}.json").read_text())
    data.update(changes)
    return data


def run_hook(data: dict[str, Any] | bytes, env: dict[str, str], *, cwd: Path | None = None,
             timeout: float = 60) -> subprocess.CompletedProcess:
    """`mnemex hook` as Claude Code runs it: the payload on stdin, the answer on stdout."""
    raw = data if isinstance(data, bytes) else json.dumps(data).encode()
    return subprocess.run([sys.executable, "-m", "mnemex", "hook"], input=raw, capture_output=True,
                          env={**os.environ, **env}, cwd=cwd, timeout=timeout)
