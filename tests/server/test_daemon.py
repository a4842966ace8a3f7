"""The process model: owner lock, stale files, racing starts, crash replacement, persistence,
and the stdio relay against a small in-thread MCP server (no engine needed for those)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mnemex.errors import DaemonError, StoreLockedError
from mnemex.server import daemon_client
from mnemex.server.relay import DEFAULT_INFO, HANDSHAKE_VERSIONS, Relay
from mnemex.server.runfiles import RunFiles
from tests.reliability.relay_harness import (
    INIT,
    FakeDaemon,
    Pipes,
    call,
    gone,
    wait_until,
)




def spawn_daemon_proc(settings) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "mnemex.server.daemon"], env=daemon_client.daemon_env(settings),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)


# ------------------------------------------------------------------ runfiles
def test_owner_lock_is_exclusive_and_records_the_owner(tmp_path: Path) -> None:
    files = RunFiles(tmp_path / "run")
    first = files.acquire_owner_lock("daemon")
    assert first is not None
    assert oct(files.run_dir.stat().st_mode & 0o777) == "0o700"
    assert files.acquire_owner_lock("cli") is None
    with files.try_owner_lock() as owned:
        assert owned is False
    owner = files.owner()
    assert owner["role"] == "daemon" and owner["pid"] == os.getpid()
    first.release()
    assert files.owner() is None
    with files.try_owner_lock() as owned:
        assert owned is True
        assert files.owner()["role"] == "cli"


def test_stale_pid_and_socket_files_are_removed(tmp_path: Path) -> None:
    files = RunFiles(tmp_path / "run")
    files.ensure_dir()
    files.pid_file.write_text("999999\n")  # no such process
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(str(files.socket))  # a socket file nobody listens on, as a SIGKILLed daemon leaves it
    dead.close()
    assert files.socket.exists() and not files.socket_answers()
    assert files.owner() is None
    assert not files.pid_file.exists() and not files.socket.exists()


def test_long_run_dir_gets_a_short_private_socket_path(tmp_path: Path) -> None:
    files = RunFiles(tmp_path / ("x" * 120) / "run")
    assert len(str(files.socket)) < 100
    files.ensure_dir()
    assert oct(files.socket.parent.stat().st_mode & 0o777) == "0o700"
    assert RunFiles(files.run_dir).socket == files.socket


def test_direct_serve_refuses_a_store_owned_by_the_daemon(settings) -> None:
    from mnemex.server.direct import claim_store

    lock = RunFiles.for_settings(settings).acquire_owner_lock("daemon")
    try:
        with pytest.raises(StoreLockedError, match="mnemex daemon stop"):
            claim_store(settings, "stdio")
    finally:
        lock.release()
    claim_store(settings, "stdio").release()


def test_relay_constants_match_the_sdk() -> None:
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

    from mnemex.strategies import strategy_for

    assert HANDSHAKE_VERSIONS == tuple(HANDSHAKE_PROTOCOL_VERSIONS)
    assert DEFAULT_INFO["instructions"] == strategy_for("context").instructions()  # the default strategy


def test_relay_module_imports_no_heavy_packages() -> None:
    code = ("import sys, mnemex.server.relay; heavy = [m for m in ('mcp', 'pydantic', 'httpx', 'anyio', "
            "'mnemex.config') if m in sys.modules]; print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


# ------------------------------------------------- relay vs. a small server
@pytest.fixture
def fake(tmp_path: Path):
    files = RunFiles(tmp_path / "run")
    daemon = FakeDaemon(files)
    yield files, daemon
    daemon.stop()


def test_relay_answers_initialize_itself_and_forwards(fake) -> None:
    files, daemon = fake
    pipes = Pipes(Relay(files, project="/work/proj", start_timeout=5))
    pipes.send(INIT)
    init = pipes.read()
    assert init["id"] == 0 and init["result"]["protocolVersion"] == "2025-06-18"
    assert init["result"]["serverInfo"]["name"] == "mnemex"  # no server.json yet: the relay's defaults
    pipes.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    pipes.send({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    assert sorted(t["name"] for t in pipes.read()["result"]["tools"]) == ["echo", "nap", "whoami"]
    pipes.send(call(2, "whoami", {}))
    assert pipes.read()["result"]["structuredContent"] == {"project": "/work/proj"}
    pipes.send(b"{not json")
    assert pipes.read()["error"]["code"] == -32700
    pipes.close()
    assert not pipes.thread.is_alive()


def test_relay_takes_the_project_from_the_clients_roots(fake, tmp_path: Path) -> None:
    files, _ = fake
    repo = tmp_path / "shop"
    (repo / ".git").mkdir(parents=True)
    (repo / "web").mkdir()
    pipes = Pipes(Relay(files, project="/cwd/of/the/client", start_timeout=5))
    pipes.send({**INIT, "params": {**INIT["params"], "capabilities": {"roots": {"listChanged": True}}}})
    pipes.read()
    pipes.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    ask = pipes.read()
    assert ask["method"] == "roots/list"
    pipes.send(call(1, "whoami", {}))  # waits for the roots
    pipes.send({"jsonrpc": "2.0", "id": ask["id"], "result": {"roots": [{"uri": f"file://{repo}/web", "name": "web"}]}})
    assert pipes.read()["result"]["structuredContent"] == {"project": str(repo)}  # the root's git root
    pipes.send({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"})
    again = pipes.read()
    pipes.send({"jsonrpc": "2.0", "id": again["id"], "error": {"code": -32601, "message": "no roots"}})
    pipes.send(call(2, "whoami", {}))
    assert pipes.read()["result"]["structuredContent"] == {"project": str(repo)}  # an error changes nothing
    pipes.close()


def test_a_configured_project_is_not_moved_by_roots_and_silence_does_not_block(fake) -> None:
    files, _ = fake
    pinned = Pipes(Relay(files, project="/configured", start_timeout=5, pinned=True))
    pinned.send({**INIT, "params": {**INIT["params"], "capabilities": {"roots": {}}}})
    pinned.read()
    pinned.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    pinned.send(call(1, "whoami", {}))
    assert pinned.read()["result"]["structuredContent"] == {"project": "/configured"}  # no roots/list asked
    pinned.close()
    mute = Pipes(Relay(files, project="/cwd", start_timeout=5))
    mute.send({**INIT, "params": {**INIT["params"], "capabilities": {"roots": {}}}})
    mute.read()
    mute.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    assert mute.read()["method"] == "roots/list"  # never answered
    started = time.monotonic()
    mute.send(call(1, "whoami", {}))
    assert mute.read()["result"]["structuredContent"] == {"project": "/cwd"}
    assert time.monotonic() - started < 10
    mute.close()


def test_relay_runs_requests_concurrently(fake) -> None:
    files, _ = fake
    pipes = Pipes(Relay(files, project=None, start_timeout=5))
    pipes.send(INIT)
    pipes.read()
    started = time.monotonic()
    pipes.send(call(1, "nap", {"seconds": 1.0}))
    pipes.send(call(2, "nap", {"seconds": 1.0}))
    pipes.send(call(3, "echo", {"text": "fast"}))
    order = [pipes.read()["id"] for _ in range(3)]
    assert order[0] == 3 and sorted(order[1:]) == [1, 2]  # the quick call is not stuck behind the naps
    assert time.monotonic() - started < 1.8
    pipes.close()


def test_relay_reopens_a_lost_session_and_retries(fake) -> None:
    files, daemon = fake
    relay = Relay(files, project=None, start_timeout=5)
    pipes = Pipes(relay)
    pipes.send(INIT)
    pipes.read()
    pipes.send(call(1, "echo", {"text": "a"}))
    assert pipes.read()["result"]["structuredContent"] == {"text": "a"}
    old = relay.session_id
    daemon.forget_sessions()  # as after a daemon restart: the old session id answers 404
    pipes.send(call(2, "echo", {"text": "b"}))
    assert pipes.read()["result"]["structuredContent"] == {"text": "b"}
    assert relay.session_id and relay.session_id != old
    pipes.close()


def test_relay_forwards_stateless_2026_requests(fake) -> None:
    files, _ = fake
    pipes = Pipes(Relay(files, project="/p", start_timeout=5))
    message, _ = daemon_client.modern_request(7, "tools/call", {"name": "whoami", "arguments": {}})
    pipes.send(message)
    reply = pipes.read()
    assert reply["id"] == 7 and reply["result"]["structuredContent"] == {"project": "/p"}
    pipes.close()


# ------------------------------------------------------------ real daemons
@pytest.mark.slow
def test_two_daemons_racing_leave_exactly_one(daemons) -> None:
    procs = [spawn_daemon_proc(daemons) for _ in range(2)]
    files = RunFiles.for_settings(daemons)
    assert wait_until(files.socket_answers, 30)
    loser = wait_until(lambda: any(p.poll() is not None for p in procs), 30)
    assert loser, "one of the two daemons must give up"
    done = [p for p in procs if p.poll() is not None]
    alive = [p for p in procs if p.poll() is None]
    assert len(done) == 1 and len(alive) == 1
    assert done[0].returncode == 0 and b"already running" in done[0].stderr.read()
    assert files.owner()["pid"] == alive[0].pid == files.read_pid()
    # what relays replay as the initialize answer is what the daemon says about itself
    assert json.loads(files.info_file.read_text()) == DEFAULT_INFO


@pytest.mark.slow
def test_two_clients_starting_at_once_share_one_daemon(daemons) -> None:
    code = ("import sys; from mnemex.config import load_settings; from mnemex.server.daemon_client import "
            "ensure_daemon; print(ensure_daemon(load_settings()))")
    env = daemon_client.daemon_env(daemons)
    procs = [subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, text=True)
             for _ in range(3)]
    outs = {p.communicate(timeout=60)[0].strip() for p in procs}
    assert all(p.returncode == 0 for p in procs)
    files = RunFiles.for_settings(daemons)
    assert outs == {str(files.socket)}
    assert daemon_client.daemon_status(daemons)["running"]


@pytest.mark.slow
def test_killed_daemon_is_replaced_and_memories_persist(daemons) -> None:
    remembered = daemon_client.call_tool(daemons, "memorize", {
        "content": "The billing service retries webhooks with exponential backoff capped at ten minutes."},
        project="/work/proj")
    assert remembered["action"] == "created"
    files = RunFiles.for_settings(daemons)
    first = files.read_pid()
    os.kill(first, signal.SIGKILL)
    assert wait_until(lambda: gone(first), 10)
    assert files.socket.exists()  # SIGKILL leaves the socket and pid files behind
    # the next relay start replaces the dead daemon
    proc = subprocess.Popen([sys.executable, "-m", "mnemex.server.relay"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, env=daemon_client.daemon_env(daemons), cwd="/")
    proc.stdin.write((json.dumps(INIT) + "\n" + json.dumps(call(1, "search_memory", {"query": "webhook retries"}))
                      + "\n").encode())
    proc.stdin.flush()
    replies = [json.loads(proc.stdout.readline()) for _ in range(2)]
    proc.stdin.close()
    assert proc.wait(20) == 0
    assert "result" in replies[1], replies[1]
    assert files.read_pid() not in (None, first)
    # graceful restart: stop, start again, the memory is still there (the store was flushed)
    assert daemon_client.stop_daemon(daemons)
    assert not files.socket.exists() and not files.pid_file.exists()
    hits = daemon_client.call_tool(daemons, "search_memory", {"query": "webhook backoff"}, project="/work/proj")
    assert remembered["id"] in [h["id"] for h in hits["results"]]
    with pytest.raises(DaemonError, match="recall_memory"):  # MCP errors arrive as DaemonError
        daemon_client.call_tool(daemons, "recall_memory", {"ids": ["no-such-id"]})


@pytest.mark.slow
def test_the_daemon_flushes_what_was_written_once_no_call_comes(daemons) -> None:
    """The flush (Qdrant Edge holds the GIL for it) is done between calls, not in the write that
    crosses `FLUSH_EVERY` nor inside a dream beside calls: written points are flushed after
    `IDLE_FLUSH_SECONDS` without a call, and the store holds them after a kill."""
    remembered = daemon_client.call_tool(daemons, "memorize", {
        "content": "The ledger service rounds half-even before it converts currencies."}, project="/work/proj")
    assert remembered["action"] == "created"

    def unflushed() -> int:
        time.sleep(1.5)  # no call for longer than IDLE_FLUSH_SECONDS
        return daemon_client.call_tool(daemons, "memory_stats", {})["writes_unflushed"]

    assert wait_until(lambda: unflushed() == 0, 30)
    files = RunFiles.for_settings(daemons)
    first = files.read_pid()
    os.kill(first, signal.SIGKILL)
    assert wait_until(lambda: gone(first), 10)
    hits = daemon_client.call_tool(daemons, "search_memory", {"query": "ledger rounding"}, project="/work/proj")
    assert remembered["id"] in [h["id"] for h in hits["results"]]


def relay_process(env: dict[str, str]):
    """A `mnemex serve` relay process and `ask(msg)`: send one JSON-RPC line, read one back."""
    proc = subprocess.Popen([sys.executable, "-m", "mnemex.server.relay"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, env=env)

    def ask(msg: dict) -> dict:
        proc.stdin.write((json.dumps(msg) + "\n").encode())
        proc.stdin.flush()
        return json.loads(proc.stdout.readline())

    return proc, ask


@pytest.mark.slow
def test_relay_survives_the_daemon_dying_mid_session(daemons) -> None:
    proc, ask = relay_process(daemon_client.daemon_env(daemons))
    try:
        ask(INIT)
        assert "result" in ask(call(1, "memory_stats", {}))
        files = RunFiles.for_settings(daemons)
        pid = files.read_pid()
        os.kill(pid, signal.SIGKILL)
        assert wait_until(lambda: gone(pid), 10)
        reply = ask(call(2, "memory_stats", {}))
        assert "result" in reply, reply
        assert files.read_pid() != pid
        daemon_client.stop_daemon(daemons)  # graceful stop: next call meets a fresh daemon, session 404
        assert "result" in ask(call(3, "memory_stats", {}))
    finally:
        proc.stdin.close()
        assert proc.wait(20) == 0


@pytest.mark.slow
def test_an_idle_daemon_exits_under_an_open_session_and_the_relay_restarts_it(daemons) -> None:
    proc, ask = relay_process({**daemon_client.daemon_env(daemons), "MNEMEX_SERVER__DAEMON_IDLE_SECONDS": "1"})
    try:
        ask(INIT)
        made = ask(call(1, "memorize", {"content": "Webhooks retry with exponential backoff up to 6 times"}))
        files = RunFiles.for_settings(daemons)
        pid = files.read_pid()
        assert wait_until(lambda: gone(pid), 20), "a daemon idle past daemon_idle_seconds should exit"
        assert "no client request for" in files.log_file.read_text()
        reply = ask(call(2, "search_memory", {"query": "how often do webhooks retry"}))  # transparently restarted
        assert "result" in reply and not reply["result"].get("isError"), reply
        found = reply["result"]["structuredContent"]["results"]
        assert found and found[0]["id"] == made["result"]["structuredContent"]["id"]
        assert files.read_pid() not in (None, pid)
    finally:
        proc.stdin.close()
        assert proc.wait(20) == 0


@pytest.mark.slow
def test_daemon_optimizes_when_idle_and_exits_when_unused(tmp_path: Path, monkeypatch) -> None:
    from mnemex.config import Settings

    monkeypatch.setenv("MNEMEX_STORE__OPTIMIZE_EVERY", "2")
    monkeypatch.setenv("MNEMEX_SERVER__DAEMON_IDLE_SECONDS", "1")
    settings = Settings(data_dir=tmp_path / "data")
    try:
        for text in ("Frontend builds use Vite with the legacy plugin disabled.",
                     "Database migrations are written by hand, never autogenerated."):
            daemon_client.call_tool(settings, "memorize", {"content": text}, project="/work/proj")
        assert daemon_client.call_tool(settings, "memory_stats", {})["writes_since_optimize"] >= 2
        files = RunFiles.for_settings(settings)
        assert wait_until(lambda: "optimized in" in files.log_file.read_text(), 15)
        assert "objects frozen out of garbage collection" in files.log_file.read_text()  # settled when idle
        assert wait_until(lambda: files.owner() is None, 15), "idle daemon should exit"
        assert "no client" in files.log_file.read_text()
    finally:
        daemon_client.stop_daemon(settings, timeout=5)


def test_daemon_exits_2_on_a_bad_config(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("[server]\nport = 'many'\n")
    env = {**os.environ, "MNEMEX_CONFIG": str(bad)}
    out = subprocess.run([sys.executable, "-m", "mnemex.server.daemon"], env=env, capture_output=True, text=True)
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and "server.port" in out.stderr


@pytest.mark.slow
def test_relay_reports_why_the_daemon_cannot_start(daemons) -> None:
    lock = RunFiles.for_settings(daemons).acquire_owner_lock("direct-http")  # `mnemex serve --transport http`
    try:
        proc = subprocess.Popen([sys.executable, "-m", "mnemex.server.relay"], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=daemon_client.daemon_env(daemons))
        out, err = proc.communicate((json.dumps(INIT) + "\n" + json.dumps(call(1, "memory_stats", {})) + "\n").encode(),
                                    timeout=30)
    finally:
        lock.release()
    init, reply = (json.loads(line) for line in out.splitlines())
    assert "result" in init
    assert "--transport http" in reply["error"]["message"] and "daemon.log" in reply["error"]["message"]
    assert b"--transport http" in err
    assert daemon_client.stop_daemon(daemons) is False
    assert daemon_client.daemon_status(daemons)["running"] is False
