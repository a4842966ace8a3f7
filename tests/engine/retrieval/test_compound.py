"""A question with two parts ("which X, and what does it need?") is searched as a whole: the
memory that answers it is not pushed down by memories that match only its second part.

Splitting it into sub-queries fused by rank (`decomposition`) favours memories that match every
part a little over the one that answers the question (benchmarks/RESULTS.md, thirty-ninth
session: it cost R@5 on the update sets and gained nothing on LoCoMo or the coding sets)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from mnemex.config.retrieval import DEFAULT
from mnemex.models import Memory, MemoryKind, Provenance, Scope

NOW = datetime(2026, 9, 1, tzinfo=timezone.utc)
ROWS = [
    "Vendor scoring is `VendorRating.rate(vendor, period)` now; the evaluation period has to be passed in.",
    "The CSV importer needs a header row as its input.",
    "The thumbnail job needs the original upload as input and writes three sizes.",
    "Anything over 2 MB in a pull request needs a second reviewer.",
    "The PDF renderer needs the invoice JSON as input, not the database id.",
    "Purchase orders are printed with the Adobe form ZPO_FORM.",
    "The supplier portal shows each vendor's open invoices.",
    "Decided not to build our own vendor portal; the network covers what buyers need.",
    "The message class for purchasing errors is ZPUR_MSG.",
    "Invoice matching needs the goods receipt posted first.",
]


def test_a_two_part_question_finds_the_memory_that_answers_it_first(engine):
    ids = [f"00000000-0000-4000-8000-{i:012d}" for i in range(len(ROWS))]
    memories = []
    for i, (key, text) in enumerate(zip(ids, ROWS)):
        at = NOW - timedelta(days=30 - i)
        memories.append(Memory(id=key, content=text, kind=MemoryKind.FACT, scope=Scope.PROJECT, project="/work/proj",
                               provenance=Provenance(source="test", session_id="s1"),
                               created_at=at, recorded_at=at, valid_from=at))
    engine.import_memories(memories)
    query = "Which method do I call to score a vendor, and what does it need as input?"

    def rank(config):
        got = [r.memory.id for r in engine.search(query, limit=10, now=NOW, config=config)]
        return got.index(ids[0]) if ids[0] in got else None

    assert not DEFAULT.decomposition
    assert rank(DEFAULT) == 0
    split = rank(DEFAULT.model_copy(update={"decomposition": True}))
    assert split is None or split > 0  # fused by rank, the parts' shared matches came first
