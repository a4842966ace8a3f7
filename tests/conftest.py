"""Shared fixtures: isolated settings (no user config), one real embedding model per session."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _isolated_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads the developer's config file or data dir."""
    home = tmp_path_factory.mktemp("env")
    empty = home / "config.toml"
    empty.write_text("")
    monkeypatch.setenv("MNEMEX_CONFIG", str(empty))
    monkeypatch.setenv("MNEMEX_DATA_DIR", str(home / "data"))
    for key in list(os.environ):
        if key.startswith("MNEMEX_") and key not in ("MNEMEX_CONFIG", "MNEMEX_DATA_DIR"):
            monkeypatch.delenv(key)


@pytest.fixture(scope="session")
def model_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("models")


@pytest.fixture(scope="session")
def embedder(model_cache: Path):
    """The real default model (int8 MiniLM), loaded once for the whole run."""
    from mnemex.embed.dense import FastEmbedder

    emb = FastEmbedder(cache_dir=model_cache)
    emb.load()
    return emb


@pytest.fixture
def settings(tmp_path: Path):
    from mnemex.config import Settings

    return Settings(data_dir=tmp_path / "data")


@pytest.fixture
def engine(settings, embedder):
    """A real engine on a fresh embedded Qdrant Edge store, project key /work/proj."""
    from mnemex.engine.factory import build_engine

    eng = build_engine(settings, default_project="/work/proj", embedder=embedder)
    yield eng
    eng.close()


@pytest.fixture
def daemons(settings):
    """Settings for a fresh store; every daemon of it is stopped (or killed) after the test."""
    import os
    import signal

    from mnemex.server import daemon_client
    from mnemex.server.runfiles import RunFiles, pid_alive

    yield settings
    daemon_client.stop_daemon(settings, timeout=10)
    pid = RunFiles.for_settings(settings).read_pid()
    if pid_alive(pid):
        os.kill(pid, signal.SIGKILL)


@pytest.fixture
def server(engine):
    """The MCP server (tools, resources) on the `engine` fixture, as a client attaches to it."""
    from mnemex.server.app import build_server
    from mnemex.tools.runtime import ToolRuntime

    return build_server(ToolRuntime(engine, default_project="/work/proj"))


@pytest.fixture
def editing_server(engine):
    """The server of the self-editing strategy (core blocks and their tools, past-session search)."""
    from mnemex.server.app import build_server
    from mnemex.strategies import strategy_for
    from mnemex.tools.runtime import ToolRuntime

    return build_server(ToolRuntime(engine, default_project="/work/proj", strategy=strategy_for("self_editing")))


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
