"""`mnemex hook` as Claude Code runs it (a subprocess, the payload on stdin): every recorded event
is handled with exit 0; capture spools and prints nothing; a failure is one line on stderr and
never an error for the agent; the spool is private; the capture path loads no model, MCP SDK,
store or settings model."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mnemex.capture.hook import handle
from mnemex.capture.settings import HookSettings
from mnemex.capture.spool import Spool
from tests.capture.helpers import PROJECT, SESSION_FLOW, payload, run_hook

CAPTURED = ("post_tool_use_read", "post_tool_use_failure_bash", "post_tool_use_edit", "post_tool_use_multiedit",
            "post_tool_use_write", "post_tool_use_bash")


def _spooled(data_dir: Path) -> list[dict]:
    """What the spool holds (taken out, as the ingester takes it)."""
    spool = Spool(data_dir / "spool")
    out = []
    for batch in spool.take():
        out += spool.read(batch)
        spool.done(batch)
    return out


def test_capture_events_with_the_daemon_down_are_spooled_silently(tmp_path: Path) -> None:
    env = {"MNEMEX_DATA_DIR": str(tmp_path / "data")}
    for name in (*CAPTURED, "post_tool_use_grep", "pre_compact", "stop", "session_end"):
        started = time.monotonic()
        done = run_hook(payload(name), env)
        assert done.returncode == 0 and done.stdout == b"" and done.stderr == b"", (name, done.stderr)
        assert time.monotonic() - started < 10  # far inside the 5 s... 30 s limits even on a loaded machine
    records = _spooled(tmp_path / "data")
    assert [r["kind"] for r in records] == ["tool"] * 6 + ["end"] * 3  # Grep is not captured by default
    assert {r["project"] for r in records} == {PROJECT} and len({r["id"] for r in records}) == 9
    assert not (tmp_path / "data" / "run" / "daemon.sock").exists()  # capture never starts the daemon


def test_the_spool_is_private_and_holds_no_secret(tmp_path: Path) -> None:
    env = {"MNEMEX_DATA_DIR": str(tmp_path / "data")}
    for name in ("post_tool_use_read", "post_tool_use_failure_bash"):
        assert run_hook(payload(name), env).returncode == 0
    bash = payload("post_tool_use_bash", tool_input={"command": "deploy --token=ghp_Q7wE9rT2yU4iO6pA8sD0fG1hJ3kL5zX7cV9b"})
    assert run_hook(bash, env).returncode == 0
    spool = tmp_path / "data" / "spool"
    for path in (tmp_path / "data", spool):
        assert stat.S_IMODE(path.stat().st_mode) == 0o700, path
    for path in spool.iterdir():
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    raw = (spool / "events.jsonl").read_text()
    assert "ghp_Q7wE9" not in raw and "sk-live" not in raw and "[REDACTED:" in raw


@pytest.mark.parametrize("stdin", [b"", b"not json", b"[1, 2]", b'{"session_id": "x"}', b"\xff\xfe",
                                   json.dumps({"hook_event_name": "PostToolUse", "tool_name": 5}).encode()])
def test_bad_input_is_one_line_on_stderr_and_exit_0(tmp_path: Path, stdin: bytes) -> None:
    done = run_hook(stdin, {"MNEMEX_DATA_DIR": str(tmp_path / "data")})
    assert done.returncode == 0 and done.stdout == b""
    assert done.stderr.count(b"\n") <= 1


def test_an_unwritable_data_dir_never_breaks_the_agent(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    env = {"MNEMEX_DATA_DIR": str(blocker / "data")}  # under a file: nothing can be created
    for name in ("post_tool_use_bash", "session_start", "user_prompt_submit", "session_end"):
        done = run_hook(payload(name), env)
        assert done.returncode == 0 and done.stdout == b"", name
        assert done.stderr.startswith(b"mnemex hook: ") and done.stderr.count(b"\n") == 1, (name, done.stderr)


def test_capture_disabled_spools_nothing(tmp_path: Path) -> None:
    env = {"MNEMEX_DATA_DIR": str(tmp_path / "data"), "MNEMEX_CAPTURE__ENABLED": "false"}
    for name in ("post_tool_use_bash", "stop"):
        assert run_hook(payload(name), env).returncode == 0
    assert _spooled(tmp_path / "data") == []


def test_the_rate_cap_drops_and_counts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(time, "time", lambda: 1_790_000_000.0)  # one minute for the whole test
    settings = HookSettings(data_dir=tmp_path / "data", max_per_minute=3)
    for _ in range(5):
        handle(payload("post_tool_use_bash"), settings, None, {})
    assert len(_spooled(tmp_path / "data")) == 3
    assert Spool(settings.spool_dir).dropped() == 2
    monkeypatch.setattr(time, "time", lambda: 1_790_000_060.0)  # the next minute
    handle(payload("post_tool_use_bash"), settings, None, {})
    assert len(_spooled(tmp_path / "data")) == 1


def test_the_project_is_claude_project_dir_else_the_git_root_of_cwd(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "pkg").mkdir()
    settings = HookSettings(data_dir=tmp_path / "data")
    handle(payload("post_tool_use_bash", cwd=str(repo / "pkg")), settings, None, {})
    handle(payload("post_tool_use_bash", cwd=str(repo / "pkg")), settings, None,
           {"CLAUDE_PROJECT_DIR": str(tmp_path / "elsewhere")})
    first, second = _spooled(tmp_path / "data")
    assert first["project"] == str(repo) and second["project"] == str(tmp_path / "elsewhere")


def test_capture_loads_no_model_sdk_store_or_settings_model(tmp_path: Path) -> None:
    code = ("import io, sys, json; sys.stdin = io.TextIOWrapper(io.BytesIO(json.dumps(json.load(open(sys.argv[1])))"
            ".encode())); from mnemex import cli; cli.main(['hook']); "
            "heavy = [m for m in ('mcp', 'pydantic', 'fastembed', 'onnxruntime', 'qdrant_edge', 'httpx', 'anyio', "
            "'numpy', 'tiktoken', 'mnemex.config.settings', 'mnemex.store', 'mnemex.engine.service') "
            "if m in sys.modules]; print(json.dumps(heavy), file=sys.stderr)")
    from tests.capture.helpers import HOOKS

    done = subprocess.run([sys.executable, "-c", code, str(HOOKS / "post_tool_use_failure_bash.json")],
                          capture_output=True, env={**os.environ, "MNEMEX_DATA_DIR": str(tmp_path / "data")}, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stderr.decode().strip().splitlines()[-1]) == []


def test_every_recorded_event_is_handled(tmp_path: Path) -> None:
    """In-process, with a context source standing in for the daemon: injection events print the
    hook JSON Claude Code reads; the others print nothing."""

    class Context:
        def session_context(self, settings, *, project, session, source):
            return f"<mnemex-memory>start {project} {source}</mnemex-memory>"

        def prompt_context(self, settings, *, project, session, prompt):
            return "" if "trivial" in prompt else f"<mnemex-memory>{prompt[:20]}</mnemex-memory>"

    settings = HookSettings(data_dir=tmp_path / "data")
    outputs = {name: handle(payload(name), settings, Context(), {}) for name in SESSION_FLOW}
    start = json.loads(outputs.pop("session_start"))
    assert start == {"hookSpecificOutput": {"hookEventName": "SessionStart",
                                            "additionalContext": f"<mnemex-memory>start {PROJECT} startup</mnemex-memory>"}}
    prompt = json.loads(outputs.pop("user_prompt_submit"))
    assert prompt["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"
    assert set(outputs.values()) == {None}
    assert handle(payload("user_prompt_submit", prompt="trivial"), settings, Context(), {}) is None
    kinds = [r["kind"] for r in _spooled(tmp_path / "data")]
    assert kinds == ["start", "prompt", "tool", "tool", "tool", "tool", "tool", "tool", "end", "end", "prompt"]
