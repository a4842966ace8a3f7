"""The whole path as Claude Code runs it: `mnemex init claude-code --yes` in a scratch git
repository, then the hook commands it wrote — run by a shell, the payload on stdin, with the
time limit it set — for a session whose test run fails, is fixed by an edit and passes; then a
new session starts and the context injected into it holds the procedure learnt."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.capture.helpers import payload

pytestmark = pytest.mark.slow


def _matches(matcher: str | None, tool: str | None) -> bool:
    return not matcher or tool is None or re.fullmatch(matcher, tool) is not None


def test_init_then_the_written_hooks_learn_a_fix_and_inject_it_next_session(daemons, tmp_path: Path) -> None:
    mnemex = shutil.which("mnemex", path=str(Path(sys.executable).parent))
    assert mnemex, "the mnemex command is installed beside this interpreter"
    repo = tmp_path / "shop"
    (repo / "src").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home), "MNEMEX_DATA_DIR": str(daemons.data_dir),
           "PATH": f"{Path(mnemex).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    done = subprocess.run([mnemex, "init", "claude-code", "--yes"], cwd=repo, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    hooks = json.loads((repo / ".claude" / "settings.json").read_text())["hooks"]
    server = json.loads((repo / ".mcp.json").read_text())["mcpServers"]["mnemex"]
    assert server["command"] == mnemex and server["args"] == ["serve"]

    def fire(event: dict) -> subprocess.CompletedProcess:
        """Run every hook command registered for this event (and tool), as Claude Code does."""
        name, tool = event["hook_event_name"], event.get("tool_name")
        groups = [g for g in hooks.get(name, []) if _matches(g.get("matcher"), tool)]
        assert groups, f"no hook for {name} {tool or ''}"
        outcome = None
        for group in groups:
            for hook in group["hooks"]:
                outcome = subprocess.run(hook["command"], shell=True, input=json.dumps(event), text=True,
                                         capture_output=True, cwd=repo, timeout=hook["timeout"],
                                         env={**env, "CLAUDE_PROJECT_DIR": str(repo)})
                assert outcome.returncode == 0 and not outcome.stderr, (name, outcome.stderr)
        return outcome

    def event(name: str, session: str, **changes) -> dict:
        data = payload(name, session_id=session, cwd=str(repo),
                       transcript_path=str(home / ".claude" / "projects" / f"{session}.jsonl"), **changes)
        return json.loads(json.dumps(data).replace("/home/dev/shop", str(repo)))

    first = "1a2b3c4d-0000-4000-8000-000000000001"
    fire(event("session_start", first))  # the first session of the day starts the daemon
    fire(event("user_prompt_submit", first, prompt="The checkout tests fail since the tax change, fix them"))
    assert fire(event("post_tool_use_failure_bash", first)).stdout == ""
    assert fire(event("post_tool_use_edit", first)).stdout == ""
    assert fire(event("post_tool_use_bash", first)).stdout == ""
    fire(event("session_end", first))

    second = "1a2b3c4d-0000-4000-8000-000000000002"
    out = fire(event("session_start", second))
    injected = json.loads(out.stdout)["hookSpecificOutput"]
    assert injected["hookEventName"] == "SessionStart"
    context = injected["additionalContext"]
    assert context.startswith(f'<mnemex-memory project="{repo}">')
    assert re.search(r"\[procedure · \d{4}-\d\d-\d\d · [0-9a-f]{8}\] When `pytest -q tests/test_checkout.py` fails "
                     r"with \"FAILED tests/test_checkout.py::test_total_includes_tax - AssertionError: assert "
                     r"100.0 == 119.0\", edit src/checkout/cart.py \(`return subtotal` → `return subtotal \* "
                     r"\(1 \+ tax.RATE\)`\) — then `pytest -q tests/test_checkout.py` passes", context), context
    assert "Latest sessions here:" in context and "fix them" in context

    stats = subprocess.run([mnemex, "stats", "--json"], cwd=repo, env=env, capture_output=True, text=True, timeout=120)
    use = {(t["tool"], t["command"]): t for t in json.loads(stats.stdout)["tool_use"]}
    assert use[("Bash", "pytest tests/test_checkout.py")]["runs"] == 2
    assert use[("Bash", "pytest tests/test_checkout.py")]["failures"] == 1
