"""Each recorded Claude Code payload as the event the hook keeps: what was read (the path, never
the content), edited (file and a capped change), run (command, exit status, duration, error
tail); secrets redacted and `<private>` parts gone before anything is written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mnemex.capture.events import command_key, marker_record, prompt_record, tool_record
from mnemex.capture.settings import HookSettings, read_hook_settings
from tests.capture.helpers import PROJECT, SESSION, payload

SETTINGS = HookSettings(data_dir=Path("/nonexistent"))


def test_a_read_keeps_the_path_not_the_content() -> None:
    rec = tool_record(payload("post_tool_use_read"), SETTINGS, PROJECT)
    assert rec["text"] == "Read /home/dev/shop/src/checkout/tax.py" and rec["ref"].endswith("tax.py")
    assert "sk-live" not in json.dumps(rec) and "RATE" not in json.dumps(rec)
    assert rec["session"] == SESSION and rec["project"] == PROJECT and rec["kind"] == "tool"


def test_a_failed_command_keeps_its_exit_status_duration_and_error_tail() -> None:
    rec = tool_record(payload("post_tool_use_failure_bash"), SETTINGS, PROJECT)
    assert rec["failed"] and rec["exit"] == 1 and rec["duration_ms"] == 2140
    assert rec["key"] == "pytest tests/test_checkout.py" and rec["ref"] == "pytest -q tests/test_checkout.py"
    assert rec["error"].endswith("1 failed, 12 passed in 0.84s")
    assert "Exit code 1" not in rec["error"]  # the status is said once, in the text
    assert rec["text"].startswith("Ran `pytest -q tests/test_checkout.py` → exit 1 in 2.1 s; error: ")


def test_a_passing_command_and_the_edits() -> None:
    ok = tool_record(payload("post_tool_use_bash"), SETTINGS, PROJECT)
    assert not ok["failed"] and ok["text"] == "Ran `pytest -q tests/test_checkout.py` → ok in 2.0 s" and not ok["error"]
    edit = tool_record(payload("post_tool_use_edit"), SETTINGS, PROJECT)
    assert edit["text"] == ("Edited /home/dev/shop/src/checkout/cart.py: `return subtotal` → "
                            "`return subtotal * (1 + tax.RATE)`")
    assert edit["files"] == ["/home/dev/shop/src/checkout/cart.py"]
    multi = tool_record(payload("post_tool_use_multiedit"), SETTINGS, PROJECT)
    assert multi["text"].startswith("Edited /home/dev/shop/src/checkout/tax.py (2 changes): `RATE = 0.19`")
    write = tool_record(payload("post_tool_use_write"), SETTINGS, PROJECT)
    assert write["text"] == "Wrote /home/dev/shop/docs/tax.md (4 lines)"


def test_an_edit_summary_is_capped() -> None:
    big = payload("post_tool_use_edit", tool_input={"file_path": "/home/dev/shop/a.py", "old_string": "x" * 5000,
                                                     "new_string": "y" * 5000})
    rec = tool_record(big, HookSettings(data_dir=Path("/x"), max_chars=300), PROJECT)
    assert len(rec["text"]) <= 300 and "…" in rec["text"]


def test_which_tools_are_captured_follows_the_settings() -> None:
    grep = payload("post_tool_use_grep")
    assert tool_record(grep, SETTINGS, PROJECT) is None  # skipped by default
    every = HookSettings(data_dir=Path("/x"), tools=("*",), skip_tools=())
    assert tool_record(grep, every, PROJECT)["text"].startswith("Used Grep: ")
    assert tool_record(payload("post_tool_use_read"), HookSettings(data_dir=Path("/x"), tools=("Bash",)), PROJECT) is None
    assert tool_record(payload("post_tool_use_bash"), HookSettings(data_dir=Path("/x"), enabled=False), PROJECT) is None


def test_secrets_and_private_text_never_reach_the_record() -> None:
    rec = prompt_record(payload("user_prompt_submit"), SETTINGS, PROJECT)
    text = json.dumps(rec)
    assert "hunter2-Stg9xQ" not in text and "Acme" not in text
    assert "[REDACTED:" in rec["text"] and "[private]" in rec["text"]
    bash = tool_record(payload("post_tool_use_bash", tool_input={
        "command": "curl -H 'Authorization: Bearer ghp_Q7wE9rT2yU4iO6pA8sD0fG1hJ3kL5zX7cV9b' https://api.github.com "
                   "<private>--data @customer-list.csv</private>"}), SETTINGS, PROJECT)
    assert "ghp_Q7wE9" not in json.dumps(bash) and "customer-list" not in json.dumps(bash)
    assert prompt_record(payload("user_prompt_submit"), HookSettings(data_dir=Path("/x"), prompts=False), PROJECT) is None


def test_session_boundaries() -> None:
    assert marker_record(payload("session_start"), PROJECT)["kind"] == "start"
    end = marker_record(payload("session_end"), PROJECT)
    assert end["kind"] == "end" and end["reason"] == "prompt_input_exit"
    assert marker_record(payload("pre_compact"), PROJECT)["trigger"] == "auto"
    assert marker_record(payload("stop"), PROJECT)["kind"] == "end"


@pytest.mark.parametrize("command,key", [
    ("pytest -q tests/test_x.py", "pytest tests/test_x.py"),
    ("pytest", "pytest"),
    ("CI=1 NODE_ENV=test npm test -- --watch=false", "npm test"),
    ("/usr/bin/make -j4 build", "make build"),
    ("  ", ""),
])
def test_command_key(command: str, key: str) -> None:
    assert command_key(command) == key


def test_the_hook_reads_the_capture_settings_from_env_and_file(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(f'data_dir = "{tmp_path / "d"}"\n[capture]\ntools = ["Bash"]\nmax_per_minute = 7\n')
    s = read_hook_settings({"MNEMEX_CONFIG": str(config), "MNEMEX_CAPTURE__MAX_PER_MINUTE": "9"})
    assert s.data_dir == tmp_path / "d" and s.tools == ("Bash",) and s.max_per_minute == 9
    broken = read_hook_settings({"MNEMEX_CONFIG": str(config), "MNEMEX_CAPTURE__MAX_PER_MINUTE": "lots"})
    assert broken.max_per_minute == 120  # a bad value falls back; the hook never fails on config


def test_the_hook_settings_match_the_config_model() -> None:
    from mnemex.config.capture import CaptureSettings

    model = CaptureSettings()
    hook = HookSettings(data_dir=Path("/x"))
    for name in CaptureSettings.model_fields:
        assert getattr(hook, name) == getattr(model, name), name
