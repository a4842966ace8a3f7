"""A hook event handed to the running daemon (`mnemex hook` → the daemon's hook endpoint): the hook
process imports no capture code and no daemon client; the daemon spools what the hook would have
spooled — redacted, with the hook's own capture settings and project — and answers with the
context a session start or a prompt gets; an event that reached both the daemon and the hook's
own spool is ingested once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import mnemex
from mnemex.capture.events import event_id
from mnemex.capture.ingest import Ingester, event_memory_id
from mnemex.capture.spool import Spool
from mnemex.entry import daemon_socket
from mnemex.server import daemon_client
from tests.capture.helpers import PROJECT, payload

pytestmark = pytest.mark.slow

SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
PROBE = ("import io, json, sys; sys.stdin = io.TextIOWrapper(io.BytesIO(sys.argv[1].encode())); "
         "from mnemex.entry import run_hook; run_hook(); "
         "print(json.dumps(sorted(m for m in sys.modules if m.startswith('mnemex'))), file=sys.stderr)")


def _spooled(data_dir: Path) -> list[dict]:
    """What the spool holds, left in place."""
    return [json.loads(line) for f in sorted((data_dir / "spool").glob("*.jsonl"))
            for line in f.read_text().splitlines() if line.strip()]


def _ingested(settings, data: dict, timeout: float = 30.0) -> dict | None:
    """The memory the daemon made of a tool use, once its upkeep ingested the spool."""
    memory_id = event_memory_id(event_id(data))
    deadline = time.monotonic() + timeout
    while True:  # asked at least once
        try:
            return daemon_client.call_tool(settings, "recall_memory", {"ids": [memory_id]}, start=False)["memories"][0]
        except daemon_client.DaemonError:
            if time.monotonic() >= deadline:
                return None
            time.sleep(0.2)


def _run(data: dict, env: dict[str, str]) -> tuple[list[str], bytes]:
    """Run the hook as a process: the mnemex modules it imported, and what it printed."""
    done = subprocess.run([sys.executable, "-c", PROBE, json.dumps(data)], capture_output=True, timeout=60,
                          env={**{k: v for k, v in os.environ.items() if not k.startswith("MNEMEX_")}, **env})
    assert done.returncode == 0, done.stderr
    return json.loads(done.stderr.decode().strip().splitlines()[-1]), done.stdout


def _hook(data: dict, env: dict[str, str]) -> list[str]:
    """Run a hook that prints nothing; the mnemex modules it imported."""
    modules, printed = _run(data, env)
    assert printed == b""
    return modules


def test_a_running_daemon_takes_the_tool_use_and_spools_it_as_the_hook_would(daemons) -> None:
    daemon_client.ensure_daemon(daemons)
    env = {"MNEMEX_DATA_DIR": str(daemons.data_dir), "CLAUDE_PROJECT_DIR": PROJECT}
    assert daemon_socket(env) == str(daemons.data_dir / "run" / "daemon.sock")
    off = payload("post_tool_use_read", tool_use_id="toolu_off")
    # the hook's own capture settings travel with it: capture off in its environment, nothing kept
    assert "mnemex.capture.hook" not in _hook(off, {**env, "MNEMEX_CAPTURE__ENABLED": "false"})
    bash = payload("post_tool_use_failure_bash", error=f"Exit code 1\nauth failed for token {SECRET}")
    modules = _hook(bash, env)
    assert "mnemex.capture.hook" not in modules and "mnemex.engine.write.redact" not in modules, modules
    memory = _ingested(daemons, bash)
    assert memory is not None and memory["kind"] == "tool_event" and "failed" in memory["tags"]
    assert memory["project"] == PROJECT  # the hook's CLAUDE_PROJECT_DIR, not the daemon's directory
    assert SECRET not in json.dumps(memory) and "REDACTED" in memory["content"]
    assert _ingested(daemons, off, timeout=0) is None  # spooled before the other: would be there by now
    # a prompt gets its context from the daemon, built in process: no daemon client in the hook
    daemon_client.call_tool(daemons, "memorize", {"content": "Integration tests need `docker compose up db` first, "
                                                  "or they hang on connect.", "kind": "procedure"},
                            project=PROJECT, start=False)
    modules, printed = _run(payload("user_prompt_submit", prompt="why do the integration tests hang?"), env)
    assert "mnemex.server.hook_context" not in modules and "mnemex.capture.hook" not in modules, modules
    answer = json.loads(printed)["hookSpecificOutput"]
    assert answer["hookEventName"] == "UserPromptSubmit" and "docker compose up db" in answer["additionalContext"]
    modules, printed = _run(payload("session_start", session_id="second-session"), env)
    assert modules == ["mnemex", "mnemex.entry"]
    answer = json.loads(printed)["hookSpecificOutput"]
    assert answer["hookEventName"] == "SessionStart" and "docker compose up db" in answer["additionalContext"]


FAST_HOOK = [sys.executable, "-X", "importtime", "-S", str(Path(mnemex.__file__).resolve().parent / "hook_script.py")]


def _fast(data: dict, env: dict[str, str]) -> tuple[set[str], bytes]:
    """Run the hook command `mnemex init` writes: the modules it imported, what it printed."""
    done = subprocess.run(FAST_HOOK, input=json.dumps(data).encode(), capture_output=True, timeout=60,
                          env={**{k: v for k, v in os.environ.items() if not k.startswith("MNEMEX_")}, **env})
    assert done.returncode == 0, done.stderr
    lines = [line.split("|") for line in done.stderr.decode().splitlines() if line.startswith("import time:")]
    return {cols[-1].strip() for cols in lines[1:]}, done.stdout


def test_the_hook_command_init_writes_hands_over_without_loading_re_and_spools_itself_with_site(daemons) -> None:
    daemon_client.ensure_daemon(daemons)
    env = {"MNEMEX_DATA_DIR": str(daemons.data_dir), "CLAUDE_PROJECT_DIR": PROJECT,
           "MNEMEX_CAPTURE__MAX_CHARS": "1500"}  # a setting that travels in the hand-off
    bash = payload("post_tool_use_bash", tool_use_id="toolu_fast_1")
    modules, printed = _fast(bash, env)
    assert printed == b"" and "mnemex.entry" in modules and "mnemex.capture.hook" not in modules
    assert not modules & {"re", "json", "pathlib", "typing", "site", "socket"}, sorted(modules)
    assert _ingested(daemons, bash) is not None
    daemon_client.call_tool(daemons, "memorize", {"content": "Releases are cut from the release branch with "
                                                  "`make release`, never from main.", "kind": "procedure"},
                            project=PROJECT, start=False)
    modules, printed = _fast(payload("session_start", session_id="fast-session"), env)
    assert not modules & {"re", "json", "site"}, sorted(modules)
    assert "make release" in json.loads(printed)["hookSpecificOutput"]["additionalContext"]
    # no daemon for this store: the hook's own path, with the installation's packages (`site`)
    alone = {"MNEMEX_DATA_DIR": str(daemons.data_dir.parent / "alone"), "CLAUDE_PROJECT_DIR": PROJECT}
    modules, printed = _fast(bash, alone)
    assert printed == b"" and {"site", "mnemex.capture.hook"} <= modules
    assert [e["id"] for e in _spooled(daemons.data_dir.parent / "alone")] == [event_id(bash)]


def test_with_no_daemon_the_hook_spools_itself_and_a_use_spooled_twice_is_ingested_once(engine, settings) -> None:
    env = {"MNEMEX_DATA_DIR": str(settings.data_dir)}
    edit = payload("post_tool_use_edit")
    assert "mnemex.capture.hook" in _hook(edit, env)  # no daemon: its own path
    assert "mnemex.capture.hook" in _hook(edit, env)  # the same use again (the daemon answered too late)
    first, again = _spooled(settings.data_dir)
    assert first["id"] == again["id"]  # the id comes from the tool use, not from chance
    report = Ingester.for_settings(engine, settings).run()
    assert report.events == 2 and report.stored == 1 and report.repeated == 1


def test_the_hook_and_the_daemon_agree_on_the_endpoint() -> None:
    from mnemex import entry
    from mnemex.capture import hook
    from mnemex.server import capture_endpoint, runfiles

    assert entry.HOOK_PATH == capture_endpoint.PATH and entry.MAX_INPUT == hook.MAX_INPUT
    assert entry.MAX_SOCKET_PATH == runfiles.MAX_SOCKET_PATH


def test_the_endpoint_refuses_what_is_not_a_tool_use(daemons) -> None:
    import socket

    sock = str(daemon_client.ensure_daemon(daemons))

    def send(method: str, body: bytes, env: str = "") -> bytes:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(10)
            conn.connect(sock)
            conn.sendall(f"{method} /mnemex/hook HTTP/1.1\r\nHost: localhost\r\nContent-Length: {len(body)}\r\n"
                         f"x-mnemex-env: {env}\r\nConnection: close\r\n\r\n".encode() + body)
            return conn.recv(64)

    assert send("GET", b"").startswith(b"HTTP/1.1 405")
    assert send("POST", b"{not json").startswith(b"HTTP/1.1 400")
    assert send("POST", b'["not", "an object"]').startswith(b"HTTP/1.1 400")
    assert send("POST", json.dumps(payload("post_tool_use_read")).encode(), env="[1").startswith(b"HTTP/1.1 400")
    assert send("POST", json.dumps(payload("post_tool_use_read")).encode()).startswith(b"HTTP/1.1 200")
    assert daemon_client.call_tool(daemons, "memory_stats", {}, start=False)["memories_total"] >= 0  # still serving


def test_an_event_id_given_by_the_hook_is_the_records_id(tmp_path: Path) -> None:
    """What the hook sends the daemon and what it spools itself carry one id (never a forged one)."""
    import io

    from mnemex.capture.hook import main

    data = json.dumps(payload("user_prompt_submit", _mnemex_event_id="f" * 32)).encode()
    env = {"MNEMEX_DATA_DIR": str(tmp_path)}
    main(stdin=io.BytesIO(data), env=env, event_id="ab" * 16)
    main(stdin=io.BytesIO(data), env=env)
    first, second = _spooled(tmp_path)
    assert first["id"] == "ab" * 16 and second["id"] not in ("ab" * 16, "f" * 32)
