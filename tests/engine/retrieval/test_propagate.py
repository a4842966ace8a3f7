"""Neighbour propagation through the real engine: answers follow questions, while tool-run
records and chatter stand beside the exchange, neither giving a share nor taking one."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from mnemex.config.retrieval import DEFAULT
from mnemex.models import CHATTER, Memory, MemoryKind, Provenance, Scope

NOW = datetime(2026, 9, 1, tzinfo=timezone.utc)
ALONE = DEFAULT.model_copy(update={"propagation": False})


def _memory(key: int, minutes: int, content: str, kind: MemoryKind = MemoryKind.FACT, *,
            chatter: bool = False) -> Memory:
    at = NOW - timedelta(minutes=minutes)
    return Memory(id=f"00000000-0000-4000-8000-{key:012d}", content=content, kind=kind, scope=Scope.PROJECT,
                  project="/work/proj", provenance=Provenance(source="test", session_id=f"s{key // 10}"),
                  created_at=at, recorded_at=at, valid_from=at,
                  metadata={"flags": [CHATTER]} if chatter else {})


def _score(engine, query: str, memory: Memory, config=DEFAULT) -> float:
    got = {r.memory.id: r.score for r in engine.search(query, limit=10, now=NOW, config=config)}
    return got[memory.id]


def _sleep(engine, memory: Memory) -> None:
    """As the dream's forgetting does it: to sleep, out of default search, never deleted."""
    stored = engine.get(memory.id)
    engine.store.save(stored.model_copy(update={"lifecycle": stored.lifecycle.model_copy(update={"dormant": True})}))


def test_an_answer_takes_a_share_of_its_question(engine):
    query = "which queue does the invoice-mailer consume?"
    asked = _memory(10, 50, "Which queue does the invoice-mailer consume from, and who owns it?")
    answer = _memory(11, 49, "It reads mail jobs from the invoices.outbound RabbitMQ queue; the billing team owns it.")
    engine.import_memories([asked, answer])
    assert _score(engine, query, answer) > _score(engine, query, answer, ALONE) + 0.05


@pytest.mark.parametrize("aside", ["record", "chatter"])
def test_a_record_or_chatter_line_put_to_sleep_moves_no_one_elses_score(engine, aside):
    """A record or a chatter line gives its neighbour no share, so putting it to sleep changes
    nothing: the year lost an answer when the dream put such a neighbour to sleep
    (`lifecycle_year.py --each-cycle`)."""
    query = "what env var holds the payments-adapter database connection?"
    fact = _memory(40, 20, "payments-adapter needs PAYMENTS_ADAPTER_DB_DSN set or it refuses to start.")
    neighbour = (_memory(41, 19, "Ran `pytest services/payments-adapter -k database` → exit 0, connection tests passed",
                         MemoryKind.TOOL_EVENT) if aside == "record" else
                 _memory(41, 19, "Toni asked whether payments-adapter is affected, told them I would check the database",
                         chatter=True))
    best = _memory(50, 90, "The env var for the payments-adapter database connection is set in deploy/payments-adapter.env.")
    engine.import_memories([fact, neighbour, best])
    awake = _score(engine, query, fact)
    assert awake == _score(engine, query, fact, ALONE)  # no share, though it is found
    assert neighbour.id in {r.memory.id for r in engine.search(query, limit=10, now=NOW)}
    alone = _score(engine, query, neighbour, ALONE)
    assert _score(engine, query, neighbour) == alone  # and it takes none from the fact
    _sleep(engine, neighbour)
    assert neighbour.id not in {r.memory.id for r in engine.search(query, limit=10, now=NOW)}
    assert _score(engine, query, fact) == awake
