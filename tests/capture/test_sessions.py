"""Episodes and procedures from a session's log: rules only, the same events give the same text."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from mnemex.capture.sessions import episode_text, procedures
from mnemex.store.journal import CaptureEvent

ROOT = "/home/dev/api"
T0 = datetime(2026, 11, 20, 9, 0, tzinfo=timezone.utc)


class Log:
    def __init__(self) -> None:
        self.events: list[CaptureEvent] = []

    def _add(self, **fields) -> CaptureEvent:
        e = CaptureEvent(id=f"e{len(self.events)}", session="s1", project=ROOT,
                         at=T0 + timedelta(minutes=len(self.events)), **fields)
        self.events.append(e)
        return e

    def run(self, command: str, key: str, error: str = "", exit: int | None = None) -> CaptureEvent:
        failed = bool(error) or (exit not in (None, 0))
        return self._add(kind="tool", tool="Bash", key=key, ref=command, failed=failed, error=error, exit=exit,
                         text=f"Ran `{command}`")

    def edit(self, path: str, change: str = "`a` → `b`") -> CaptureEvent:
        return self._add(kind="tool", tool="Edit", ref=path, files=(path,), text=f"Edited {path}: {change}")

    def read(self, path: str) -> CaptureEvent:
        return self._add(kind="tool", tool="Read", ref=path, text=f"Read {path}")

    def prompt(self, text: str) -> CaptureEvent:
        return self._add(kind="prompt", text=text)


ERROR = "Traceback (most recent call last):\n  File \"app.py\", line 3\nImportError: cannot import name 'settings'\n"


def test_a_failure_then_an_edit_then_the_same_command_passing_is_a_procedure() -> None:
    log = Log()
    fail = log.run("pytest -q tests/test_app.py", "pytest tests/test_app.py", ERROR, exit=1)
    log.read(f"{ROOT}/app/config.py")
    log.edit(f"{ROOT}/app/config.py", "`from .base import *` → `from .base import settings`")
    ok = log.run("pytest -q tests/test_app.py", "pytest tests/test_app.py")
    [found] = procedures(log.events)
    assert found.failure is fail and found.success is ok
    text = found.text(ROOT)
    assert text.startswith("When `pytest -q tests/test_app.py` fails with \"ImportError: cannot import name 'settings'\"")
    assert "edit app/config.py (`from .base import *` → `from .base import settings`)" in text
    assert text.count(". ") == 0 and ";" not in text  # one sentence: stored whole
    assert found.source(ROOT) == procedures(log.events)[0].source(ROOT)


def test_no_procedure_without_an_edit_between_or_without_the_pass() -> None:
    log = Log()
    log.run("npm test", "npm test", "npm ERR! Test failed", exit=1)
    log.run("npm test", "npm test")  # flaky: passed again with no change
    assert procedures(log.events) == []
    log = Log()
    log.run("make build", "make build", "error: missing header", exit=2)
    log.edit(f"{ROOT}/Makefile")
    log.run("make lint", "make lint")  # another command passing proves nothing
    assert procedures(log.events) == []


def test_a_streak_of_failures_names_the_first_and_gathers_every_edit() -> None:
    log = Log()
    first = log.run("cargo test", "cargo test", "error[E0308]: mismatched types", exit=101)
    log.edit(f"{ROOT}/src/lib.rs")
    log.run("cargo test", "cargo test", "error[E0425]: cannot find value `x`", exit=101)
    log.edit(f"{ROOT}/src/main.rs")
    log.run("cargo test", "cargo test")
    [found] = procedures(log.events)
    assert found.failure is first
    assert found.files(ROOT) == ["src/lib.rs", "src/main.rs"]


def test_the_episode_tells_what_was_asked_edited_read_run_and_fixed() -> None:
    log = Log()
    log.prompt("Fix the failing import in the app tests")
    log.read(f"{ROOT}/app/config.py")
    log.run("pytest -q tests/test_app.py", "pytest tests/test_app.py", ERROR, exit=1)
    log.edit(f"{ROOT}/app/config.py")
    log.edit(f"{ROOT}/app/config.py")
    log.run("pytest -q tests/test_app.py", "pytest tests/test_app.py")
    log.run("ruff check .", "ruff check", "app/x.py:1:1: F401 unused import", exit=1)
    text = episode_text(log.events, ROOT)
    assert text is not None
    assert text.startswith("Session 2026-11-20 09:00–09:06 UTC in api: asked \"Fix the failing import in the app tests\".")
    assert "Edited app/config.py (2×)." in text
    assert "Read 1 file: app/config.py." in text
    assert "Ran 3 commands, 2 failed." in text
    assert "fixed by editing app/config.py, then it passed" in text
    assert "`ruff check .` failed (app/x.py:1:1: F401 unused import); not fixed in this session." in text
    assert episode_text(list(log.events), ROOT) == text  # deterministic


def test_a_session_that_used_no_tool_has_no_episode() -> None:
    log = Log()
    log.prompt("What is the capital of France?")
    assert episode_text(log.events, ROOT) is None
