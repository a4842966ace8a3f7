"""Commands that need the engine start the store's daemon when none runs, so the model loads
once and later commands are warm calls; `--local` / MNEMEX_LOCAL=1 keep the in-process path;
commands that need the store alone stop a daemon, and say what to do about any other owner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mnemex.server.runfiles import RunFiles

pytestmark = pytest.mark.slow


def status(run) -> dict:
    return json.loads(run("daemon", "status", "--json").stdout)


def test_the_first_command_starts_the_daemon_and_the_next_ones_use_it(run):
    assert status(run)["running"] is False
    made = json.loads(run("add", "The API server listens on port 8080", "--json").stdout)
    started = status(run)
    assert started["running"] is True and started["answering"] is True
    hits = json.loads(run("search", "which port does the API listen on", "--json").stdout)
    assert hits[0]["id"] == made["id"]
    listed = json.loads(run("list", "--local", "--json").stdout)  # a running daemon is used even so
    assert [m["id"] for m in listed] == [made["id"]]
    assert status(run)["pid"] == started["pid"]


def test_local_commands_start_no_daemon(run):
    made = json.loads(run("add", "We deploy with ArgoCD from the main branch", "--local", "--json").stdout)
    listed = json.loads(run("list", "--json", extra_env={"MNEMEX_LOCAL": "1"}).stdout)
    assert [m["id"] for m in listed] == [made["id"]]
    assert status(run)["running"] is False


def test_commands_that_need_the_store_alone_say_what_to_do_when_a_server_holds_it(run, tmp_path: Path):
    lock = RunFiles(tmp_path / "data" / "run").acquire_owner_lock("direct-http")  # `serve --transport http`
    assert lock is not None
    try:
        for verb in ("export", "sweep"):
            done = run(verb, ok=False)
            lines = done.stderr.strip().splitlines()
            assert done.returncode == 1 and len(lines) == 1, done.stderr
            assert "mnemex serve --transport http" in lines[0] and "stop that server, then retry" in lines[0]
    finally:
        lock.release()
