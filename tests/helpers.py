"""Plain helpers the tests share (fixtures live in conftest.py)."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from mnemex.models import Memory, MemoryKind, NewMemory, WriteOutcome, utcnow

TESTS = Path(__file__).resolve().parent
DATA = TESTS / "data"
REPO = TESTS.parent


def import_aged(engine: Any, content: str, *, project: str, kind: MemoryKind, days: float, **fields: Any) -> str:
    """Store `content` as it is (no write gate), created `days` ago; its id."""
    created = utcnow() - timedelta(days=days)
    memory = Memory(id=str(uuid.uuid4()), content=content, kind=kind, project=project, created_at=created,
                    recorded_at=created, valid_from=created, **fields)
    engine.import_memories([memory])
    return memory.id


async def call_ok(client: Any, name: str, args: dict[str, Any]) -> dict[str, Any]:
    """Call a tool, fail the test on a tool error, return its structured content."""
    result = await client.call_tool(name, args)
    assert not result.is_error, result.content[0].text
    return result.structured_content


def remember(engine: Any, text: str, **fields: Any) -> WriteOutcome:
    """Memorize `text` (with any NewMemory fields) through the engine."""
    return engine.memorize(NewMemory(content=text, **fields))


class FakeClock:
    """A clock the test sets by hand (`clock.now = ...`); with `step`, every reading first moves
    it on by that much, so successive events are ordered without sleeping."""

    def __init__(self, start: datetime, step: timedelta = timedelta(0)):
        self.now = start
        self.step = step

    def __call__(self) -> datetime:
        self.now += self.step
        return self.now


def rss_kb() -> int:
    """This process's resident set, in KiB (Linux)."""
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
