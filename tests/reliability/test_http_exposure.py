"""Network HTTP never exposes the store without a credential.

Real servers (the app `mnemex serve --transport http|sse` runs, in a thread on the test's engine;
and the real command in a subprocess on a non-loopback address of this machine), the real MCP SDK
client with and without the bearer token, raw HTTP for the refusals a client cannot provoke.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import stat
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from typing import Any, Iterator

import httpx
import pytest

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
MCP_HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
FACT = "The staging database is restored from the nightly snapshot every Monday"


def _server_settings(settings: Any, **server: Any) -> Any:
    from mnemex.config import ServerSettings

    return settings.model_copy(update={"server": ServerSettings(**server)})


@contextmanager
def running(settings: Any, engine: Any, *, bind: str = "127.0.0.1", transport: str = "http") -> Iterator[int]:
    """The app of `serve_direct` for `transport` on `bind`, served by uvicorn in a thread; yields the port."""
    import uvicorn

    from mnemex.server.app import build_server
    from mnemex.server.direct import http_app
    from mnemex.tools.runtime import ToolRuntime

    app = http_app(build_server(ToolRuntime(engine, default_project="/work/proj")), settings, transport, bind)
    sock = socket.socket(socket.AF_INET6 if ":" in bind else socket.AF_INET)
    sock.bind((bind, 0))
    port = sock.getsockname()[1]
    uv = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on", http="h11", ws="none",
                                       proxy_headers=False, timeout_graceful_shutdown=2))
    thread = threading.Thread(target=lambda: asyncio.run(uv.serve(sockets=[sock])), daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not uv.started:
        assert time.monotonic() < deadline and thread.is_alive(), "server did not start"
        time.sleep(0.02)
    try:
        yield port
    finally:
        uv.should_exit = True
        thread.join(10)
        sock.close()


def _mcp_error(exc: BaseException) -> Any:
    """The MCPError inside whatever exception groups the client's task groups wrapped it in."""
    from mcp.shared.exceptions import MCPError

    while isinstance(exc, BaseExceptionGroup):
        exc = exc.exceptions[0]
    assert isinstance(exc, MCPError), repr(exc)
    return exc


async def _use_store(url: str, token: str | None) -> dict:
    """Connect with the SDK client (bearer header when `token`), write one memory, search it."""
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx2.AsyncClient(headers=headers) as http:
        async with Client(streamable_http_client(url, http_client=http)) as client:
            made = (await client.call_tool("memorize", {"content": FACT})).structured_content
            found = (await client.call_tool("search_memory", {"query": "when is staging restored"})).structured_content
    return {"made": made, "found": found}


def use_store(url: str, token: str | None = None) -> dict:
    return asyncio.run(_use_store(url, token))


def refused_by_client(url: str, token: str | None = None) -> Any:
    with pytest.raises(BaseException) as info:
        use_store(url, token)
    return _mcp_error(info.value)


def post(url: str, body: Any = INIT, **headers: str) -> httpx.Response:
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    return httpx.post(url, content=content, headers={**MCP_HEADERS, **headers}, timeout=10)


# --------------------------------------------------------------------------------- loopback
def test_loopback_needs_no_token_and_keeps_the_sdk_host_and_origin_checks(settings, engine):
    with running(settings, engine) as port:
        url = f"http://127.0.0.1:{port}/mcp"
        out = use_store(url)
        assert out["made"]["action"] == "created"
        assert out["found"]["results"][0]["id"] == out["made"]["id"]
        assert post(url, Host="evil.example").status_code == 421                 # DNS rebinding
        assert post(url, Host=f"attacker.example:{port}").status_code == 421
        assert post(url, Origin="http://evil.example").status_code == 403        # a foreign web page
        assert post(url, Origin=f"http://localhost:{port + 1}").status_code == 200  # SDK default kept
        assert post(url, Host=f"localhost:{port}").status_code == 200
    assert not settings.http_token_path.exists()  # loopback never needs (or makes) a token


# ----------------------------------------------------------------------------- off loopback
def test_a_wildcard_bind_demands_the_token_even_through_loopback(settings, engine):
    from mnemex.server.http_auth import ensure_token

    token = ensure_token(settings.http_token_path)
    with running(settings, engine, bind="0.0.0.0") as port:
        url = f"http://127.0.0.1:{port}/mcp"
        for offered in (None, "wrong-" + token[6:], token[:-1], token + "x"):
            err = refused_by_client(url, offered)
            assert "error response" in err.error.message
            raw = post(url, **({"Authorization": f"Bearer {offered}"} if offered else {}))
            assert raw.status_code == 401 and raw.headers["www-authenticate"].startswith("Bearer ")
        assert post(url, Authorization=f"Basic {token}").status_code == 401
        assert engine.upkeep.stats()["memories_total"] == 0        # nothing was written without the token
        out = use_store(url, token)
        assert out["made"]["action"] == "created"
        assert out["found"]["results"][0]["id"] == out["made"]["id"]
        assert engine.upkeep.stats()["memories_total"] == 1


def test_off_loopback_host_and_origin_follow_the_allow_lists(settings, engine):
    from mnemex.server.http_auth import ensure_token

    token = ensure_token(settings.http_token_path)
    conf = _server_settings(settings, allowed_hosts=("mnemex.lan",), allowed_origins=("https://app.example",))
    with running(conf, engine, bind="0.0.0.0") as port:
        url = f"http://127.0.0.1:{port}/mcp"
        auth = {"Authorization": f"Bearer {token}"}
        assert post(url, **auth).status_code == 200
        assert post(url, **auth, Host=f"mnemex.lan:{port}").status_code == 200       # configured
        assert post(url, **auth, Host=f"{socket.gethostname()}:{port}").status_code == 200  # this machine
        assert post(url, **auth, Host=f"evil.example:{port}").status_code == 421
        assert post(url, Host=f"evil.example:{port}").status_code == 401            # token first
        assert post(url, **auth, Origin="https://app.example").status_code == 200
        assert post(url, **auth, Origin="https://evil.example").status_code == 403
        assert post(url, **auth, Origin=f"http://localhost:{port}").status_code == 403  # none by default


def test_sse_transport_works_with_the_token_and_refuses_without(settings, engine):
    from mcp import Client
    from mcp.client.sse import sse_client

    from mnemex.server.http_auth import ensure_token

    token = ensure_token(settings.http_token_path)

    async def stats(url: str) -> dict:
        async with Client(sse_client(url, headers={"Authorization": f"Bearer {token}"})) as client:
            return (await client.call_tool("memory_stats", {})).structured_content

    with running(settings, engine, bind="0.0.0.0", transport="sse") as port:
        url = f"http://127.0.0.1:{port}/sse"
        with httpx.stream("GET", url, timeout=10) as raw:
            assert raw.status_code == 401 and raw.headers["www-authenticate"].startswith("Bearer ")
        messages = f"http://127.0.0.1:{port}/messages/?session_id=0123456789abcdef0123456789abcdef"
        assert post(messages, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).status_code == 401
        assert asyncio.run(stats(url))["memories_total"] == 0


# -------------------------------------------------------------------------------- limits
def test_an_oversized_body_gets_413_with_the_limit_and_how_to_raise_it(settings, engine):
    conf = _server_settings(settings, max_request_bytes=4096)
    with running(conf, engine) as port:
        url = f"http://127.0.0.1:{port}/mcp"
        big = {**INIT, "params": {**INIT["params"], "pad": "x" * 5000}}
        raw = post(url, big)
        assert raw.status_code == 413
        message = raw.json()["error"]["message"]
        assert "4096 bytes" in message and "server.max_request_bytes" in message
        chunked = httpx.post(url, content=iter([b"{" + b" " * 3000, b" " * 3000 + b"}"]), headers=MCP_HEADERS)
        assert chunked.status_code == 413                    # no Content-Length: counted as it streams

        async def write_big() -> None:
            import httpx2
            from mcp import Client
            from mcp.client.streamable_http import streamable_http_client

            async with httpx2.AsyncClient() as http:
                async with Client(streamable_http_client(url, http_client=http)) as client:
                    await client.call_tool("memorize", {"content": FACT + " " + "and more detail " * 400})

        with pytest.raises(BaseException) as info:
            asyncio.run(write_big())
        assert "server.max_request_bytes" in _mcp_error(info.value).error.message  # the client sees why
        assert engine.upkeep.stats()["memories_total"] == 0


def test_a_burst_over_the_rate_limit_gets_429_with_retry_after(settings, engine):
    conf = _server_settings(settings, rate_limit_per_minute=5)
    with running(conf, engine) as port:
        url = f"http://127.0.0.1:{port}/mcp"
        statuses = [post(url) for _ in range(8)]
        assert [r.status_code for r in statuses[:5]] == [200] * 5
        over = statuses[5]
        assert over.status_code == 429 and int(over.headers["retry-after"]) >= 1
        message = over.json()["error"]["message"]
        assert "5 per minute" in message and "retry after" in message and "rate_limit_per_minute" in message
        err = refused_by_client(url)
        assert "5 per minute" in err.error.message


def test_rate_limit_refills_over_the_minute_and_forgets_old_clients():
    from mnemex.server.http_guard import MAX_TRACKED_CLIENTS, RateLimit

    now = [0.0]
    limit = RateLimit(app=None, per_minute=60, clock=lambda: now[0])
    assert [limit.wait_seconds("a") for _ in range(60)] == [0] * 60
    assert limit.wait_seconds("a") == 1 and limit.wait_seconds("b") == 0  # per address
    now[0] += 1.0
    assert limit.wait_seconds("a") == 0
    for i in range(MAX_TRACKED_CLIENTS + 10):
        limit.wait_seconds(f"10.0.{i // 256}.{i % 256}")
    assert len(limit.buckets) == MAX_TRACKED_CLIENTS


# --------------------------------------------------------------------------------- token
def test_token_file_is_private_and_the_server_rereads_it(tmp_path):
    from mnemex.errors import ConfigError
    from mnemex.server.http_auth import FileTokenVerifier, ensure_token, read_token, rotate_token

    path = tmp_path / "data" / "auth" / "http-token"
    old_umask = os.umask(0)  # modes must come from creation, whatever the umask
    try:
        first = ensure_token(path)
    finally:
        os.umask(old_umask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert len(first) >= 43 and ensure_token(path) == first
    verifier = FileTokenVerifier(path)
    assert asyncio.run(verifier.verify_token(first)).client_id == "mnemex-http"
    second = rotate_token(path)
    assert second != first and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert asyncio.run(verifier.verify_token(first)) is None
    assert asyncio.run(verifier.verify_token(second)) is not None
    path.chmod(0o644)
    with pytest.raises(ConfigError, match="open to other users"):
        read_token(path)
    assert asyncio.run(verifier.verify_token(second)) is None  # fails closed
    path.chmod(0o600)
    path.parent.chmod(0o755)
    with pytest.raises(ConfigError, match="directory"):
        ensure_token(path)
    path.parent.chmod(0o700)
    path.write_text("short\n")
    with pytest.raises(ConfigError, match="shorter than"):
        read_token(path)
    path.unlink()
    assert asyncio.run(verifier.verify_token(second)) is None


def test_bad_network_settings_stop_with_one_line_naming_the_key(capsys, monkeypatch):
    from mnemex import cli

    assert cli.main(["serve", "--transport", "http", "--allow-host", "*"]) == 1
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "server.allowed_hosts" in err
    assert cli.main(["serve", "--transport", "http", "--allow-origin", "https://app.example/path"]) == 1
    assert "server.allowed_origins" in capsys.readouterr().err
    monkeypatch.setenv("MNEMEX_SERVER__MAX_REQUEST_BYTES", "10")
    assert cli.main(["serve", "--transport", "http"]) == 1
    assert "server.max_request_bytes" in capsys.readouterr().err
    monkeypatch.delenv("MNEMEX_SERVER__MAX_REQUEST_BYTES")
    monkeypatch.setenv("MNEMEX_SERVER__ALLOWED_HOSTS", '["mnemex.lan", "10.0.0.7:8765"]')
    from mnemex.config import load_settings

    assert load_settings().server.allowed_hosts == ("mnemex.lan", "10.0.0.7:8765")


# ------------------------------------------------------------------ the real command, subprocess
def _non_loopback_address() -> str | None:
    """An IPv4 address of this machine other than loopback that we can bind, else None."""
    try:
        out = subprocess.run(["hostname", "-I"], capture_output=True, text=True, timeout=5).stdout.split()
    except (OSError, subprocess.SubprocessError):
        return None
    for address in out:
        if ":" in address or address.startswith("127."):
            continue
        with socket.socket() as probe:
            try:
                probe.bind((address, 0))
            except OSError:
                continue
        return address
    return None


def _free_port(address: str) -> int:
    with socket.socket() as probe:
        probe.bind((address, 0))
        return probe.getsockname()[1]


def test_serve_on_a_network_address_warns_demands_the_token_and_honours_rotation(tmp_path):
    address = _non_loopback_address()
    if address is None:
        pytest.skip("this machine has no non-loopback IPv4 address to bind")
    cfg = tmp_path / "config.toml"
    cfg.write_text("")
    env = {k: v for k, v in os.environ.items() if not k.startswith("MNEMEX_")}
    env.update(MNEMEX_DATA_DIR=str(tmp_path / "data"), MNEMEX_CONFIG=str(cfg))

    def mnemex(*args: str) -> subprocess.CompletedProcess:
        proc = subprocess.run([sys.executable, "-m", "mnemex", *args], env=env, cwd=tmp_path,
                              capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0, proc.stderr
        return proc

    port = _free_port(address)
    log = tmp_path / "serve.err"
    with open(log, "w") as err:
        server = subprocess.Popen([sys.executable, "-m", "mnemex", "serve", "--transport", "http",
                                   "--host", address, "--port", str(port)],
                                  env=env, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=err)
    try:
        deadline = time.monotonic() + 30
        while True:
            assert server.poll() is None, log.read_text()
            try:
                socket.create_connection((address, port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, log.read_text()
                time.sleep(0.1)
        warning = log.read_text()
        assert f"http://{address}:{port}/mcp" in warning and "mnemex token show" in warning
        assert "Bearer" in warning and "WARNING" in warning

        url = f"http://{address}:{port}/mcp"
        raw = post(url)
        assert raw.status_code == 401 and raw.headers["www-authenticate"].startswith("Bearer ")
        refused_by_client(url)

        token = mnemex("token", "show").stdout.strip()
        path = tmp_path / "data" / "auth" / "http-token"
        assert path.read_text().strip() == token
        assert stat.S_IMODE(path.stat().st_mode) == 0o600 and stat.S_IMODE(path.parent.stat().st_mode) == 0o700
        assert use_store(url, token)["made"]["action"] == "created"
        assert post(url, Host=f"evil.example:{port}", Authorization=f"Bearer {token}").status_code == 421

        new = mnemex("token", "rotate").stdout.strip()
        assert new != token and mnemex("token", "show").stdout.strip() == new
        assert post(url, Authorization=f"Bearer {token}").status_code == 401   # old one refused at once
        refused_by_client(url, token)
        assert use_store(url, new)["made"]["action"] == "reinforced"  # same fact: the gate reinforces
    finally:
        server.terminate()
        server.wait(15)
    try:
        stats = json.loads(mnemex("stats", "--json").stdout)
        assert stats["memories_total"] == 1  # only the token-bearing writes reached the store
    finally:  # the CLI started a daemon for the store (it would idle for hours past the test run)
        mnemex("daemon", "stop")
