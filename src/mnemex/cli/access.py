"""The CLI's way to the store: a tool call to the store's daemon (started when none runs, so the
model loads once, not at every command), or the engine in this process (`--local`, MNEMEX_LOCAL=1,
server.daemon = false; and the commands that need the store alone). Each verb does the same
thing both ways and prints the same fields."""

from __future__ import annotations

import json
import os
import sys
import time
from contextlib import contextmanager
from typing import Any, Iterator

from mnemex.errors import MnemexError

CLIENT = "mnemex-cli"
LOCAL_ENV = "MNEMEX_LOCAL"
STOP_ATTEMPTS = 3  # a client may restart the daemon between our stop and our lock
LOCK_WAIT = 5.0  # seconds an owner without a name may take to write it


def load(**overrides: Any) -> Any:
    from mnemex.config import load_settings

    return load_settings(**overrides)


class Access:
    """`engine` is set when this process owns the store; else `call` reaches the daemon."""

    def __init__(self, settings: Any, engine: Any = None):
        self.settings = settings
        self.engine = engine

    @property
    def local(self) -> bool:
        return self.engine is not None

    @property
    def project(self) -> str | None:
        from mnemex.projects import detect_project

        return self.settings.project or detect_project()

    def call(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        from mnemex.server.daemon_client import call_tool

        return call_tool(self.settings, tool, arguments, project=self.project, client=CLIENT)


def wants_local(settings: Any, local: bool = False) -> bool:
    """Work in this process rather than start the daemon: `--local`, MNEMEX_LOCAL=1, or the
    daemon switched off (server.daemon = false)."""
    return local or os.environ.get(LOCAL_ENV, "").strip() not in ("", "0") or not settings.server.daemon


@contextmanager
def store_access(settings: Any, *, local: bool = False, require_local: bool = False) -> Iterator[Access]:
    """The way to the store for one command. By default the store's daemon: the one that runs,
    else one started now (as `mnemex serve` does), so the next command finds the model loaded.
    `local` (see wants_local): the engine in this process when no one owns the store.
    `require_local` (export, import, reindex, sweep): the engine in this process, alone — a
    running daemon is stopped first (its clients start it again on their next call)."""
    from mnemex.server.runfiles import RunFiles

    run = RunFiles.for_settings(settings)
    if require_local:
        with exclusive_lock(settings, run), local_engine(settings) as acc:
            yield acc
        return
    if not wants_local(settings, local):
        owner = run.owner()
        if owner is None or owner.get("role") == "daemon":  # calls start (or reach) the daemon
            yield Access(settings)
            return
    with run.try_owner_lock() as owned:
        if not owned:
            yield Access(settings)
            return
        with local_engine(settings) as acc:
            yield acc


@contextmanager
def local_engine(settings: Any) -> Iterator[Access]:
    from mnemex.engine.factory import build_engine
    from mnemex.projects import detect_project

    engine = build_engine(settings, default_project=settings.project or detect_project())
    try:
        yield Access(settings, engine)
    finally:
        engine.close()


@contextmanager
def exclusive_lock(settings: Any, run: Any) -> Iterator[None]:
    """Hold the store's owner lock for a command that needs the store to itself. A daemon that
    owns it is asked to stop (gracefully: it finishes its requests and flushes the store); any
    other owner is an error that says what to do."""
    from mnemex.server.daemon_client import stop_daemon

    stops = 0
    deadline = time.monotonic() + LOCK_WAIT
    while True:
        lock = run.acquire_owner_lock("cli")
        if lock is not None:
            try:
                yield
            finally:
                lock.release()
            return
        owner = run.owner() or {}
        role, pid = owner.get("role"), owner.get("pid")
        if role == "daemon":
            if stops == STOP_ATTEMPTS:
                raise MnemexError("the mnemex daemon keeps being restarted by its clients: close the MCP clients "
                                  "of this store (or run the command when they are idle), then retry")
            stops += 1
            say(f"mnemex: stopping the daemon (pid {pid}) to have the store to this command alone; "
                "the next client call starts it again")
            stop_daemon(settings)
            continue
        if role or time.monotonic() > deadline:
            raise MnemexError(_busy(role, pid))
        time.sleep(0.05)  # released a moment ago, or a new owner has not written its name yet


def _busy(role: str | None, pid: Any) -> str:
    """Why a command that needs the store alone cannot have it, and what to do."""
    if role and role.startswith("direct"):
        transport = role.partition("-")[2] or "stdio"
        return (f"the memory store is open in `mnemex serve --transport {transport}` without the daemon (pid {pid}): "
                "stop that server, then retry")
    if role == "cli":
        return f"another mnemex command (pid {pid}) is using the store: wait until it ends, then retry"
    return f"the memory store is locked by {role or 'another process'} (pid {pid}): wait until it ends, then retry"


def print_json(value: Any) -> None:
    print(json.dumps(value, indent=1, ensure_ascii=False, default=str))


def say(message: str) -> None:
    """A status line for people, on stderr (stdout stays for results)."""
    print(message, file=sys.stderr, flush=True)


def short(memory_id: str) -> str:
    """The 8 characters the lists print (as render.short; every ID argument takes them)."""
    return memory_id[:8]
