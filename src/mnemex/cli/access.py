"""The CLI's way to the store: the engine in this process when no daemon owns the store, else a
tool call to the daemon. Each verb does the same thing both ways and prints the same fields."""

from __future__ import annotations

import json
import sys
from contextlib import contextmanager
from typing import Any, Iterator

from mnemex.errors import MnemexError

CLIENT = "mnemex-cli"


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


@contextmanager
def store_access(settings: Any, *, require_local: bool = False) -> Iterator[Access]:
    from mnemex.server.runfiles import RunFiles

    run = RunFiles.for_settings(settings)
    with run.try_owner_lock() as owned:
        if not owned:
            if require_local:
                raise MnemexError("the mnemex daemon owns this store: run `mnemex daemon stop` first, then retry")
            yield Access(settings)
            return
        from mnemex.engine.factory import build_engine
        from mnemex.projects import detect_project

        engine = build_engine(settings, default_project=settings.project or detect_project())
        try:
            yield Access(settings, engine)
        finally:
            engine.close()


def print_json(value: Any) -> None:
    print(json.dumps(value, indent=1, ensure_ascii=False, default=str))


def say(message: str) -> None:
    """A status line for people, on stderr (stdout stays for results)."""
    print(message, file=sys.stderr, flush=True)


def short(memory_id: str) -> str:
    """The 8 characters the lists print (as render.short; every ID argument takes them)."""
    return memory_id[:8]
