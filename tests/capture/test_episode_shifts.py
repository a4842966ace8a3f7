"""Semantic-shift episode boundaries on the real engine and model: a captured session that moves
from one topic to another becomes one episode per topic; a session on one topic stays one episode."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from mnemex.capture.ingest import Ingester
from mnemex.capture.spool import Spool
from mnemex.engine.lifecycle.shifts import boundaries, split_at, windows
from mnemex.models import MemoryFilter, MemoryKind

PROJECT = "/home/dev/shop"
ASYNC = ["Read src/api/async_client.py", "Edited src/api/async_client.py: `requests.get` → `await client.get`",
         "Ran pytest tests/test_async_client.py: 2 failed", "Edited src/api/async_client.py: add asyncio.gather for the batch",
         "Read src/api/retry.py", "Edited src/api/retry.py: `time.sleep` → `await asyncio.sleep`",
         "Ran pytest tests/test_async_client.py: passed", "Grep for 'requests.' in src/api",
         "Edited src/api/session.py: reuse one httpx.AsyncClient", "Ran pytest tests/test_async_client.py -k retry: passed",
         "Read src/api/__init__.py", "Edited src/api/__init__.py: export AsyncApiClient"]
SCHEMA = ["Read migrations/versions/0012_orders.py", "Ran alembic revision --autogenerate -m add invoices table",
          "Edited migrations/versions/0013_invoices.py: add foreign key orders.id",
          "Ran alembic upgrade head: failed, duplicate column",
          "Edited src/db/models.py: Invoice model with total_cents column", "Ran alembic upgrade head: passed",
          "Read src/db/schema.sql", "Edited src/db/models.py: index on invoices.customer_id",
          "Ran psql -c '\\d invoices'", "Edited migrations/versions/0013_invoices.py: drop default on status",
          "Ran pytest tests/test_db_models.py: passed", "Grep for 'Invoice' in src/db"]


def _records(session: str, texts: list[str]) -> list[dict]:
    start = datetime(2026, 11, 2, 9, tzinfo=timezone.utc)
    out = [{"kind": "start", "id": f"{session}-start", "at": start.isoformat(), "project": PROJECT, "session": session}]
    for i, text in enumerate(texts):
        tool = "Read" if text.startswith("Read") else "Bash" if text.startswith("Ran") else "Grep" \
            if text.startswith("Grep") else "Edit"
        ref = text.split()[1]
        out.append({"kind": "tool", "id": f"{session}-{i:04d}", "at": (start + timedelta(minutes=i + 1)).isoformat(),
                    "project": PROJECT, "session": session, "tool": tool, "text": text, "ref": ref,
                    "files": [f"{PROJECT}/{ref}"] if tool in ("Edit", "Read") else []})
    out.append({"kind": "end", "id": f"{session}-end", "at": (start + timedelta(hours=1)).isoformat(),
                "project": PROJECT, "session": session})
    return out


def _episodes(engine, session: str) -> list:
    hits, _ = engine.store.scroll(MemoryFilter(project=PROJECT, kinds=(MemoryKind.EPISODE,)), limit=100)
    return sorted((h.memory for h in hits if h.memory.provenance.session_id == session), key=lambda m: m.created_at)


def test_a_session_that_shifts_topic_makes_one_episode_per_topic(engine, tmp_path) -> None:
    ingester = Ingester(engine, Spool(tmp_path / "spool"))
    report = ingester.ingest(_records("s-shift", ASYNC + SCHEMA))
    assert report.episodes == 2
    first, second = _episodes(engine, "s-shift")
    assert "src/api/async_client.py" in first.content and "invoices" not in first.content
    assert "src/db/models.py" in second.content and "async_client" not in second.content
    assert first.metadata["part"] == 1 and second.metadata["part"] == 2
    assert (first.metadata["events"], second.metadata["events"]) == (13, 13)  # the start event, the end event

    again = ingester.ingest(_records("s-shift", ASYNC + SCHEMA))  # the same batch again: nothing new
    assert again.episodes == 0 and len(_episodes(engine, "s-shift")) == 2


def test_a_session_on_one_topic_stays_one_episode(engine, tmp_path) -> None:
    report = Ingester(engine, Spool(tmp_path / "spool")).ingest(_records("s-one", ASYNC + ASYNC[::-1]))
    assert report.episodes == 1 and len(_episodes(engine, "s-one")) == 1


def test_boundaries_follow_the_centroid_and_need_a_long_enough_episode() -> None:
    a, b = [1.0, 0.0], [0.0, 1.0]
    assert boundaries([a, a, b, b], threshold=0.5, min_windows=2) == [2]
    assert boundaries([a, b, b, b], threshold=0.5, min_windows=2) == []  # the first episode is too short to end
    assert boundaries([a, a, [0.8, 0.6], [0.6, 0.8]], threshold=0.5, min_windows=2) == []  # drifts slowly
    assert boundaries([a, a, [0.6, 0.8], b], threshold=0.5, min_windows=2) == [3]  # then turns away
    assert windows(list(range(7)), 3) == [[0, 1, 2], [3, 4, 5]]
    assert split_at(list("abcdef"), [2, 4]) == [["a", "b"], ["c", "d"], ["e", "f"]]
