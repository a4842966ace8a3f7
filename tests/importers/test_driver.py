"""Imports through the real engine: the write path applies (redaction, gate), counts by outcome,
and importing the same source twice adds nothing."""

from __future__ import annotations

from pathlib import Path

from mnemex import importers
from mnemex.importers.driver import run_import
from mnemex.models import MemoryFilter, ValidityMode

DATA = Path(__file__).parent.parent / "data" / "import"


def every(engine) -> list:
    return list(engine.export())


def test_memory_jsonl_goes_through_the_write_path_and_twice_adds_nothing(engine):
    items = importers.parse(DATA / "memory.jsonl", "memory-jsonl")
    first = run_import(engine, items)
    assert first.total == 11 and first.counts["unchanged"] == 0
    stored = every(engine)
    assert stored and all(m.provenance.source == "import" for m in stored)
    assert not any("AKIA0EMCCAZIETY2LSRI" in m.content for m in stored)  # redacted like every write
    assert any("Prefers small pull requests" in m.content for m in stored)
    assert all(m.project == "/work/proj" for m in stored)
    again = run_import(engine, importers.parse(DATA / "memory.jsonl", "memory-jsonl"))
    assert again.as_dict()["unchanged"] == 11 and again.counts["created"] == 0
    assert sorted(m.model_dump_json() for m in every(engine)) == sorted(m.model_dump_json() for m in stored)


def test_rules_become_conventions_and_preferences_found_by_search(engine):
    report = run_import(engine, importers.parse(DATA / "project", "rules"))
    assert report.counts["created"] >= 9, report.as_dict()
    hits = engine.search("should I store money as a float", limit=3)
    assert "integer number of cents" in hits[0].memory.content
    assert hits[0].memory.kind == "convention"
    assert hits[0].memory.provenance.reference.endswith("CLAUDE.md")


def test_the_gate_dedupes_what_is_already_known(engine):
    from mnemex.models import NewMemory

    engine.memorize(NewMemory(content="Money is always an integer number of cents, never a float.",
                              kind="convention"))
    report = run_import(engine, importers.parse(DATA / "project" / "CLAUDE.md", "rules"))
    assert report.counts["reinforced"] + report.counts["skipped"] >= 1, report.as_dict()
    current = [m for m in every(engine) if "integer number of cents" in m.content]
    assert len(current) == 1


def test_mnemex_partial_rows_and_exported_rows(engine, tmp_path):
    report = run_import(engine, importers.parse(DATA / "partial.jsonl", "mnemex"))
    assert report.counts["created"] == 3
    made = every(engine)
    celery = next(m for m in made if "Celery over RQ" in m.content)  # the observer may tell "we" in the third person
    assert celery.scope == "global" and celery.kind == "decision"
    dump = tmp_path / "dump.jsonl"
    dump.write_text("".join(m.model_dump_json() + "\n" for m in made))
    again = run_import(engine, importers.parse(dump, "mnemex"))
    assert again.counts["unchanged"] == 3 and again.counts["restored"] == 0  # stored ids are kept as they are
    assert engine.store.count(MemoryFilter(validity=ValidityMode.TIMELINE)) == 3
    assert run_import(engine, importers.parse(DATA / "partial.jsonl", "mnemex")).counts["unchanged"] == 3


def test_markdown_notes_import(engine):
    report = run_import(engine, importers.parse(DATA / "notes", "markdown"))
    assert report.total == 8 and report.counts["created"] >= 6, report.as_dict()
    hits = engine.search("how long do access tokens live", limit=3)
    assert "15 minutes" in hits[0].memory.content


def test_an_export_restores_into_another_store_and_never_overwrites(engine, tmp_path):
    from mnemex.models import Memory

    kept = Memory(id="5e1f0c2a-7b3d-4c8e-9f10-2a3b4c5d6e7f", content="The queue is RabbitMQ", project="/work/proj")
    engine.import_memories([kept])
    dump = tmp_path / "old.jsonl"
    older = kept.model_copy(update={"content": "The queue is Kafka"})
    other = Memory(id="6e1f0c2a-7b3d-4c8e-9f10-2a3b4c5d6e7f", content="Builds run on Buildkite", status="forgotten")
    dump.write_text(older.model_dump_json() + "\n" + other.model_dump_json() + "\n")
    report = run_import(engine, importers.parse(dump, "mnemex"))
    assert report.as_dict()["restored"] == 1 and report.as_dict()["unchanged"] == 1
    assert engine.get(kept.id).content == "The queue is RabbitMQ"
    assert engine.get(other.id).status == "forgotten" and engine.get(other.id).content == "Builds run on Buildkite"
