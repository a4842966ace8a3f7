"""LoCoMo adapter for the referee (`../shared/bench/locomo/locomo_recall.py --factory benchmarks.locomo:make_search`).

Every dialog turn becomes one mnemex memory, imported through the public engine API
(`build_engine` + `MemoryEngine.import_memories`) into a fresh embedded store in a temporary
directory; `search(query, k)` calls `MemoryEngine.search`, the same path as the
`search_memory` tool, and maps mnemex ids back to dia_ids.

Mapping of a turn:
  content      the referee's memory text as given ("[<session date>] <speaker>: <text>")
  created_at   the session date, plus the turn's position in seconds so that the turns of a
               session keep their order in time (neighbours in time are looked up by created_at)
  valid_from   = created_at
  provenance   source "benchmark", session_id "<conv>/session_<n>", speaker
  metadata     dia_id, session number
  id           uuid5 of "<conv>/<dia_id>" (deterministic)

After the import the store is optimized, as the daemon does in its idle time after a bulk
write (`MNEMEX_BENCH_OPTIMIZE=0` skips it, to time queries on freshly written segments).

Nothing here looks at questions, names or categories: the engine sees memories and queries only.
"""

from __future__ import annotations

import atexit
import os
import re
import shutil
import tempfile
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable

from mnemex.config import Settings
from mnemex.engine.factory import build_embedder, build_engine
from mnemex.config.retrieval import RetrievalConfig
from mnemex.models import Memory, MemoryKind, Provenance, Scope

NAMESPACE = uuid.UUID("6f1c1d5e-4f7a-4a8e-9a51-6c6f636f6d6f")
_DATE = re.compile(r"(?P<h>\d{1,2}):(?P<m>\d{2})\s*(?P<ap>am|pm)\s+on\s+(?P<d>\d{1,2})\s+(?P<mon>\w+),?\s+(?P<y>\d{4})", re.I)
_MONTHS = {m: i for i, m in enumerate(
    ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
     "november", "december"], start=1)}

_embedder = None
_tmp_root: Path | None = None
_engines: list = []


def session_datetime(text: str) -> datetime:
    """'1:56 pm on 8 May, 2023' -> aware UTC datetime."""
    m = _DATE.search(text or "")
    if not m:
        return datetime(2000, 1, 1, tzinfo=timezone.utc)
    hour = int(m["h"]) % 12 + (12 if m["ap"].lower() == "pm" else 0)
    return datetime(int(m["y"]), _MONTHS[m["mon"].lower()], int(m["d"]), hour, int(m["m"]), tzinfo=timezone.utc)


def memory_id(conv: str, dia_id: str) -> str:
    return str(uuid.uuid5(NAMESPACE, f"{conv}/{dia_id}"))


def to_memory(turn: dict, position: int, project: str) -> Memory:
    created = session_datetime(turn["date"]) + timedelta(seconds=position)
    return Memory(
        id=memory_id(turn["conv"], turn["id"]),
        content=turn["text"],
        kind=MemoryKind.EPISODE,
        scope=Scope.PROJECT,
        project=project,
        provenance=Provenance(source="benchmark", session_id=f"{turn['conv']}/session_{turn['session']}",
                              speaker=turn["speaker"]),
        created_at=created, recorded_at=created, valid_from=created,
        metadata={"dia_id": turn["id"], "session": turn["session"]},
    )


def _shared_embedder(settings: Settings):
    global _embedder
    if _embedder is None:
        _embedder = build_embedder(settings)
        _embedder.load()
    return _embedder


def _fresh_dir() -> Path:
    global _tmp_root
    if _tmp_root is None:
        _tmp_root = Path(tempfile.mkdtemp(prefix="mnemex-locomo-"))
        atexit.register(_cleanup)
    return Path(tempfile.mkdtemp(dir=_tmp_root))


def _cleanup() -> None:
    for eng in _engines:
        try:
            eng.close()
        except Exception:
            pass
    if _tmp_root is not None:
        shutil.rmtree(_tmp_root, ignore_errors=True)


def build_conversation(memories: list[dict], clock: Callable[[], datetime] | None = None) -> tuple[Any, dict[str, str]]:
    """A fresh engine holding one conversation's turns, and the map mnemex id -> dia_id; `clock`
    replaces the engine's (the lifecycle runs on it)."""
    data_dir = _fresh_dir()
    settings = Settings(data_dir=data_dir)
    models_dir = Path(os.environ.get("MNEMEX_BENCH_MODELS", tempfile.gettempdir())) / "mnemex-bench-models"
    embedder = _shared_embedder(settings.model_copy(update={"data_dir": models_dir}))
    conv = memories[0]["conv"] if memories else "conv"
    project = f"locomo/{conv}"
    engine = build_engine(settings, default_project=project, embedder=embedder,
                          **({"clock": clock} if clock is not None else {}))
    _engines.append(engine)
    position: dict[int, int] = {}
    batch = []
    for turn in memories:
        n = position.get(turn["session"], 0)
        position[turn["session"]] = n + 1
        batch.append(to_memory(turn, n, project))
    engine.import_memories(batch, batch=256)
    if os.environ.get("MNEMEX_BENCH_OPTIMIZE", "1") != "0":
        # what the daemon does in its idle time after `store.optimize_every` (500) writes; set
        # MNEMEX_BENCH_OPTIMIZE=0 to time queries against the freshly written segments instead
        engine.upkeep.optimize()
    return engine, {memory_id(conv, t["id"]): t["id"] for t in memories}


def searcher(engine: Any, back: dict[str, str], config: RetrievalConfig | None = None,
             now: datetime | None = None) -> Callable[[str, int], list[str]]:
    """search(query, k) -> [dia_id] through `MemoryEngine.search` (the search_memory path), at
    `now` when given."""
    options: dict[str, Any] = {"config": config} if config is not None else {}
    if now is not None:
        options["now"] = now
    elif os.environ.get("MNEMEX_BENCH_NOW"):  # a fixed clock: recency scored the same on every run
        options["now"] = datetime.fromisoformat(os.environ["MNEMEX_BENCH_NOW"])

    def search(query: str, k: int) -> list[str]:
        return [back.get(r.memory.id, r.memory.id) for r in engine.search(query, limit=k, **options)]

    return search


def make_search(memories: list[dict]) -> Callable[[str, int], list[str]]:
    """Build a fresh store from one conversation's turns; return search(query, k) -> [dia_id]."""
    engine, back = build_conversation(memories)
    return searcher(engine, back)


def _day_after(memories: list[dict]) -> datetime:
    """The day after the conversation's last session: when a nightly dream would first run."""
    return max(session_datetime(t["date"]) for t in memories) + timedelta(days=1)


def make_search_day_after(memories: list[dict]) -> Callable[[str, int], list[str]]:
    """The baseline of `make_search_dream`: the same store, engine clock and search time (the day
    after the last session), no lifecycle."""
    now = _day_after(memories)
    engine, back = build_conversation(memories, clock=lambda: now)
    return searcher(engine, back, now=now)


def make_search_dream(memories: list[dict]) -> Callable[[str, int], list[str]]:
    """The lifecycle on (issue 13): the day after the last session the daemon dreams and sweeps,
    then the questions are asked at that time (`--factory benchmarks.locomo:make_search_dream`)."""
    now = _day_after(memories)
    engine, back = build_conversation(memories, clock=lambda: now)
    engine.dream(now=now)
    engine.sweep()
    return searcher(engine, back, now=now)

