"""The fast handshake: `mnemex serve` answers `initialize` from the relay without loading the
settings model, the MCP SDK or the HTTP client; the quick reading of where the store is agrees
with the settings, and gives way to them whenever it cannot be sure."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from mnemex.server.relay_plan import relay_plan
from tests.reliability.relay_harness import INIT

#: (http.client may load by then: the relay's start thread imports it to reach the daemon.)
HEAVY = ("pydantic", "pydantic_settings", "mcp", "httpx", "anyio", "mnemex.config", "mnemex.cli", "argparse")


def _env(tmp_path: Path, config: str = "", **extra: str) -> dict[str, str]:
    cfg = tmp_path / "config.toml"
    cfg.write_text(config)
    return {"MNEMEX_CONFIG": str(cfg), **extra}


def test_the_plan_reads_data_dir_and_project_from_env_over_config(tmp_path: Path) -> None:
    env = _env(tmp_path, 'data_dir = "/from/config"\nproject = "/p/config"\n[limits]\nmax_results = 5\n')
    plan = relay_plan(env)
    assert plan is not None and (plan.data_dir, plan.project, plan.run_dir) == ("/from/config", "/p/config",
                                                                                 "/from/config/run")
    plan = relay_plan({**env, "MNEMEX_DATA_DIR": "/from/env", "MNEMEX_PROJECT": "/p/env",
                       "MNEMEX_SERVER__DAEMON_IDLE_SECONDS": "60"})  # the daemon's business, not the relay's
    assert plan is not None and (plan.data_dir, plan.project) == ("/from/env", "/p/env")


@pytest.mark.parametrize("config, extra", [
    ('[server]\ntransport = "http"\n', {}),           # not a relay at all
    ("[server]\ndaemon = false\n", {}),                # serve in-process
    ("", {"MNEMEX_SERVER__DAEMON": "false"}),
    ("", {"MNEMEX_SERVER__TRANSPORT": "http"}),
    ("", {"MNEMEX_SERVER": '{"daemon": false}'}),
    ("", {"mnemex_data_dir": "/elsewhere"}),           # pydantic reads env keys case-insensitively
    ("[store\n", {}),                                  # a TOML error: the settings say it in one line
    ("data_dir = 5\n", {}),
    ("project = [1]\n", {}),
])
def test_the_plan_gives_way_to_the_settings_when_unsure(tmp_path: Path, config: str, extra: dict) -> None:
    assert relay_plan(_env(tmp_path, config, **extra)) is None


def test_a_named_config_file_that_is_missing_is_left_to_the_settings(tmp_path: Path) -> None:
    assert relay_plan({"MNEMEX_CONFIG": str(tmp_path / "nope.toml")}) is None


@pytest.mark.parametrize("config, extra", [
    ("", {}),
    ('data_dir = "/srv/mnemex"\nproject = "/src/app"\n', {}),
    ('data_dir = "/srv/mnemex"\n', {"MNEMEX_DATA_DIR": "/var/other", "MNEMEX_PROJECT": "/src/b"}),
])
def test_the_plan_agrees_with_the_settings(tmp_path: Path, monkeypatch, config: str, extra: dict) -> None:
    from mnemex.config import load_settings

    env = _env(tmp_path, config, **extra)
    monkeypatch.delenv("MNEMEX_DATA_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    plan = relay_plan({"HOME": str(tmp_path), **env})
    settings = load_settings()
    assert plan is not None
    assert (Path(plan.data_dir), Path(plan.run_dir), plan.project) == (settings.data_dir, settings.run_dir,
                                                                       settings.project)


@pytest.mark.slow
def test_serve_answers_initialize_without_loading_settings_sdk_or_http(daemons, tmp_path: Path) -> None:
    """The relay process, having answered initialize (and started the daemon in the background),
    holds none of the heavy packages: they are what made the handshake slow."""
    code = ("import io, json, sys; from mnemex import entry; sys.argv = ['mnemex', 'serve']; "
            f"sys.stdin = io.TextIOWrapper(io.BytesIO({(json.dumps(INIT) + chr(10)).encode()!r})); "
            "rc = entry.main(); "
            f"print(json.dumps([rc, [m for m in {HEAVY!r} if m in sys.modules]]), file=sys.stderr)")
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PYTHONPATH": ":".join(sys.path),
           **_env(tmp_path, ""), "MNEMEX_DATA_DIR": str(daemons.data_dir)}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    reply = json.loads(done.stdout.splitlines()[0])
    assert reply["id"] == INIT["id"] and reply["result"]["serverInfo"]["name"] == "mnemex"
    assert "search_memory" in reply["result"]["instructions"]
    rc, heavy = json.loads(done.stderr.strip().splitlines()[-1])
    assert rc == 0 and heavy == []


@pytest.mark.slow
def test_a_config_the_daemon_refuses_reaches_the_clients_requests_in_one_line(daemons, tmp_path: Path) -> None:
    """The quick reading checks only where the store is; the daemon checks the rest and its
    refusal is the answer to every request (and one line on the relay's stderr)."""
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PYTHONPATH": ":".join(sys.path),
           **_env(tmp_path, "[limits]\nmax_results = 0\n"), "MNEMEX_DATA_DIR": str(daemons.data_dir)}
    lines = [INIT, {"jsonrpc": "2.0", "method": "notifications/initialized"},
             {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}]
    done = subprocess.run([sys.executable, "-m", "mnemex", "serve"], env=env, capture_output=True, timeout=60,
                          input="".join(json.dumps(m) + "\n" for m in lines).encode())
    init, listed = (json.loads(line) for line in done.stdout.splitlines())
    assert "result" in init
    assert "invalid config limits.max_results" in listed["error"]["message"]
    assert b"invalid config limits.max_results" in done.stderr and done.returncode == 0
