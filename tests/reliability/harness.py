"""Shared pieces of the reliability tests: an isolated store served by a real daemon
subprocess, tool calls through it, kills, and a byte-level search of the whole data dir."""

from __future__ import annotations

import os
import re
import signal
import time
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Iterator

from mnemex.config import Settings
from mnemex.server import daemon_client
from mnemex.server.runfiles import RunFiles, pid_alive


@dataclass
class LiveStore:
    """A data dir, the environment a daemon for it needs, and a git project to work in."""

    root: Path
    settings: Settings
    env: dict[str, str]
    project: Path

    @property
    def data_dir(self) -> Path:
        return self.settings.data_dir

    @property
    def files(self) -> RunFiles:
        return RunFiles.for_settings(self.settings)

    def start(self, timeout: float = 60.0) -> int:
        """Start the daemon (or find it running); its pid."""
        daemon_client.start_daemon(self.files, env=self.env, timeout=timeout)
        return self.pid()

    def pid(self) -> int:
        owner = self.files.owner() or {}
        assert owner.get("role") == "daemon", owner
        return int(owner["pid"])

    def kill(self) -> None:
        """SIGKILL the daemon and wait until the kernel released its lock."""
        owner = self.files.owner() or {}
        pid = owner.get("pid")
        if pid and pid_alive(pid):
            os.kill(int(pid), signal.SIGKILL)
        deadline = time.monotonic() + 10
        while (self.files.owner() or {}).get("pid") == pid and pid is not None:
            assert time.monotonic() < deadline, "the killed daemon kept its lock"
            time.sleep(0.02)

    def stop(self) -> None:
        daemon_client.stop_daemon(self.settings, timeout=15)

    def call(self, tool: str, arguments: dict[str, Any] | None = None, *, timeout: float = 60.0,
             client: str = "reliability-test") -> dict[str, Any]:
        """One tool call on the running daemon (no start); DaemonError on any failure."""
        return daemon_client.call_tool(self.settings, tool, arguments or {}, project=str(self.project),
                                       timeout=timeout, client=client, start=False)


def live_store(tmp_path: Path, **env: str) -> LiveStore:
    config = tmp_path / "empty.toml"
    config.write_text("")
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    # MNEMEX_LOCAL: CLI commands work in-process unless a test started a daemon (they would
    # otherwise start one each store; tests/cli/test_autostart.py covers that)
    full_env = {**os.environ, "MNEMEX_DATA_DIR": str(tmp_path / "data"), "MNEMEX_CONFIG": str(config),
                "MNEMEX_LOCAL": "1", **env}
    for key in list(full_env):
        if key.startswith("MNEMEX_") and key not in ("MNEMEX_DATA_DIR", "MNEMEX_CONFIG", "MNEMEX_LOCAL") \
                and key not in env:
            del full_env[key]
    return LiveStore(tmp_path, Settings(data_dir=tmp_path / "data"), full_env, project)


def files_holding(root: Path, needles: Iterable[str | bytes]) -> list[tuple[str, str]]:
    """(file, needle) for every needle found in the bytes of any file under `root`, in any
    of the encodings a store might keep text in (UTF-8, and UTF-16 just in case)."""
    wanted = []
    for needle in needles:
        raw = needle.encode() if isinstance(needle, str) else needle
        wanted.append((raw, needle))
        if isinstance(needle, str):
            wanted.append((needle.encode("utf-16-le"), needle))
    hits = []
    for path in sorted(p for p in root.rglob("*") if p.is_file() and not p.is_symlink()):
        if path.is_socket() or path.suffix == ".sock":
            continue
        try:
            data = path.read_bytes()
        except OSError:
            continue
        data += b"".join(_packed_values(data))  # the journal deflates memory JSON: look inside too
        for raw, needle in wanted:
            if raw in data:
                hits.append((str(path.relative_to(root)), str(needle)))
    return hits


#: A packed journal value (`store/journal/packing.py`): the version byte, the ids it carries, a newline.
_PACKED = re.compile(rb"\x01[0-9a-fA-F,-]{0,4000}\n")


def _packed_values(data: bytes) -> Iterator[bytes]:
    """The inflated text of every packed journal value in `data`, wherever it lies (a live row, a
    freed page, the WAL): a leak must not hide behind compression."""
    from mnemex.store.journal.packing import unpack

    for m in _PACKED.finditer(data):
        try:  # what follows the stream in the file is left over, not an error
            yield unpack(data[m.start():m.end() + 1_000_000]).encode()
        except (zlib.error, UnicodeDecodeError):
            continue
