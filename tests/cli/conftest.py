"""The `mnemex` command as a user runs it: real subprocesses, a temporary data dir."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.fixture
def run(tmp_path: Path):
    cfg = tmp_path / "config.toml"
    cfg.write_text("")
    env = {**os.environ, "MNEMEX_DATA_DIR": str(tmp_path / "data"), "MNEMEX_CONFIG": str(cfg)}
    env = {k: v for k, v in env.items() if not k.startswith("MNEMEX_") or k in ("MNEMEX_DATA_DIR", "MNEMEX_CONFIG")}
    proj = tmp_path / "repo"
    (proj / ".git").mkdir(parents=True)

    def _run(*args: str, ok: bool = True, extra_env: dict | None = None) -> subprocess.CompletedProcess:
        proc = subprocess.run([sys.executable, "-m", "mnemex", *args], cwd=proj, env={**_run.env, **(extra_env or {})},
                              capture_output=True, text=True, timeout=120)
        if ok:
            assert proc.returncode == 0, proc.stderr
        return proc

    _run.env = env  # type: ignore[attr-defined]  # a test may change the environment of its later commands
    yield _run
    _run("daemon", "stop", ok=False)
