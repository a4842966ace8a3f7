"""The daemon's half: spooled events into the real store and journal — tool-event memories of
the session, the episode, the procedure learnt, the project's tool statistics — exactly once,
and never across projects."""

from __future__ import annotations

from pathlib import Path

import pytest

from mnemex.capture.hook import handle
from mnemex.capture.ingest import Ingester, event_memory_id
from mnemex.capture.settings import HookSettings
from mnemex.capture.spool import Spool
from mnemex.models import MemoryFilter, MemoryKind, ValidityMode
from mnemex.store.journal import TOMBSTONE
from tests.capture.helpers import PROJECT, SESSION, SESSION_FLOW, payload


def _spool_flow(settings, names=SESSION_FLOW, **changes) -> list[dict]:
    hook = HookSettings(data_dir=settings.data_dir)
    for name in names:
        handle(payload(name, **changes), hook, None, {})
    spool = Spool(hook.spool_dir)
    out = []
    for batch in spool.take():
        out += spool.read(batch)
        spool.done(batch)
    return out


def _of_kind(engine, kind: MemoryKind, project: str = PROJECT, validity=ValidityMode.CURRENT) -> list:
    hits, _ = engine.store.scroll(MemoryFilter(project=project, kinds=(kind,), validity=validity), limit=500)
    return [h.memory for h in hits]


def test_a_session_becomes_tool_events_an_episode_a_procedure_and_statistics(engine, settings) -> None:
    hook = HookSettings(data_dir=settings.data_dir)
    for name in SESSION_FLOW:
        handle(payload(name), hook, None, {})
    report = Ingester.for_settings(engine, settings).run()
    assert (report.batches, report.events, report.stored, report.episodes, len(report.procedures)) == (1, 10, 6, 1, 1)
    assert not Spool(HookSettings(data_dir=settings.data_dir).spool_dir).pending()

    events = _of_kind(engine, MemoryKind.TOOL_EVENT)
    assert len(events) == 6
    assert all(m.provenance.session_id == SESSION and m.provenance.source == "hook" for m in events)
    failed = [m for m in events if "failed" in m.tags]
    assert len(failed) == 1 and failed[0].metadata["exit"] == 1 and failed[0].metadata["duration_ms"] == 2140

    [episode] = _of_kind(engine, MemoryKind.EPISODE)
    assert "asked \"The checkout tests fail since the tax change" in episode.content
    assert "[REDACTED:" in episode.content and "hunter2" not in episode.content
    assert "Edited src/checkout/cart.py, src/checkout/tax.py, docs/tax.md." in episode.content
    assert "fixed by editing src/checkout/cart.py, src/checkout/tax.py, docs/tax.md, then it passed" in episode.content

    [procedure] = _of_kind(engine, MemoryKind.PROCEDURE)
    assert procedure.content.startswith('When `pytest -q tests/test_checkout.py` fails with "FAILED '
                                        'tests/test_checkout.py::test_total_includes_tax - AssertionError')
    assert "then `pytest -q tests/test_checkout.py` passes" in procedure.content
    assert procedure.id in report.procedures and procedure.metadata["command"] == "pytest tests/test_checkout.py"

    stats = {(t.tool, t.key): t for t in engine.journal.tool_stats(PROJECT)}
    bash = stats[("Bash", "pytest tests/test_checkout.py")]
    assert (bash.runs, bash.failures, bash.typical_ms) == (2, 1, 2140)
    assert stats[("Read", "")].runs == 1 and stats[("Edit", "")].runs == 1


def test_a_batch_read_again_stores_and_counts_nothing_twice(engine, settings) -> None:
    records = _spool_flow(settings)
    ingester = Ingester.for_settings(engine, settings)
    first = ingester.ingest(records)
    total = engine.store.count(MemoryFilter(validity=ValidityMode.TIMELINE))
    ops = len(engine.journal.ops(limit=100_000))
    again = ingester.ingest(records)  # a daemon killed before it deleted the batch reads it again
    assert (first.stored, again.stored, again.repeated, again.episodes, again.procedures) == (6, 0, 10, 0, [])
    assert engine.store.count(MemoryFilter(validity=ValidityMode.TIMELINE)) == total
    assert len(engine.journal.ops(limit=100_000)) == ops
    bash = next(t for t in engine.journal.tool_stats(PROJECT) if t.tool == "Bash")
    assert bash.runs == 2
    assert all(engine.get(event_memory_id(r["id"])) for r in records if r["kind"] == "tool")


def test_the_episode_grows_with_the_session_and_a_fix_met_again_adds_no_twin(engine, settings) -> None:
    ingester = Ingester.for_settings(engine, settings)
    ingester.ingest(_spool_flow(settings, SESSION_FLOW[:-1]))  # up to Stop
    [episode] = _of_kind(engine, MemoryKind.EPISODE)
    ingester.ingest(_spool_flow(settings, ("post_tool_use_read", "session_end"),
                                tool_input={"file_path": "/home/dev/shop/README.md"}, tool_use_id="toolu_readme"))
    [grown] = _of_kind(engine, MemoryKind.EPISODE)
    assert grown.id == episode.id and grown.content != episode.content and "README.md" in grown.content
    versions = engine.explore.history(episode.id)["versions"]
    assert len(versions) == 2  # the first telling is kept in its history
    # the same failure, fix and pass in a later session: the procedure is not learnt twice
    ingester.ingest(_spool_flow(settings, SESSION_FLOW, session_id="second-session"))
    assert len(_of_kind(engine, MemoryKind.PROCEDURE)) == 1
    assert len(_of_kind(engine, MemoryKind.EPISODE)) == 2


def test_capture_never_crosses_projects(engine, settings) -> None:
    ingester = Ingester.for_settings(engine, settings)
    ingester.ingest(_spool_flow(settings))
    other = "/home/dev/billing"
    records = _spool_flow(settings, ("post_tool_use_bash", "session_end"), cwd=other, session_id="billing-1")
    assert {r["project"] for r in records} == {other}
    ingester.ingest(records)
    assert len(_of_kind(engine, MemoryKind.TOOL_EVENT, other)) == 1
    assert len(_of_kind(engine, MemoryKind.TOOL_EVENT)) == 6
    assert {t.project for t in engine.journal.tool_stats(other)} == {other}
    assert next(t for t in engine.journal.tool_stats(PROJECT) if t.tool == "Bash").runs == 2
    assert engine.journal.session_events("billing-1", PROJECT) == []


def test_a_purged_tool_event_leaves_no_text_in_the_session_log(engine, settings) -> None:
    records = _spool_flow(settings, ("post_tool_use_failure_bash",))
    Ingester.for_settings(engine, settings).ingest(records)
    memory_id = event_memory_id(records[0]["id"])
    engine.forget(memory_id, purge=True)
    [logged] = engine.journal.session_events(SESSION, PROJECT)
    assert logged.text == TOMBSTONE and logged.error == "" and logged.ref == ""


def test_a_forgotten_episode_stays_forgotten(engine, settings) -> None:
    ingester = Ingester.for_settings(engine, settings)
    ingester.ingest(_spool_flow(settings, SESSION_FLOW[:-1]))
    [episode] = _of_kind(engine, MemoryKind.EPISODE)
    engine.forget(episode.id, reason="not useful")
    ingester.ingest(_spool_flow(settings, ("post_tool_use_read", "session_end")))
    assert _of_kind(engine, MemoryKind.EPISODE) == []
    assert engine.get(episode.id).content == episode.content


@pytest.mark.parametrize("bad", [
    {"id": "x"}, {"id": "abcdefgh1234", "kind": "tool", "at": "yesterday", "project": PROJECT, "text": "a"},
    {"id": "abcdefgh1234", "kind": "weird", "at": "2026-11-22T10:00:00+00:00", "project": PROJECT},
    {"id": "abcdefgh1234", "kind": "tool", "at": "2026-11-22T10:00:00+00:00", "project": "", "text": "a"},
])
def test_a_malformed_record_is_skipped_and_counted(engine, settings, bad: dict) -> None:
    report = Ingester.for_settings(engine, settings).ingest([bad])
    assert (report.malformed, report.events, report.stored) == (1, 0, 0)


def test_a_sessions_working_memory_is_cleared_at_its_end_not_at_a_turns_stop(engine, settings) -> None:
    from mnemex.models import utcnow

    hook = HookSettings(data_dir=settings.data_dir)
    engine.working.attend(SESSION, "some-memory", 0.5, utcnow())
    for name in SESSION_FLOW[:-1]:  # ... the turn's Stop
        handle(payload(name), hook, None, {})
    Ingester.for_settings(engine, settings).run()
    assert engine.working.items(SESSION, utcnow()) == ["some-memory"]
    handle(payload("session_end"), hook, None, {})
    Ingester.for_settings(engine, settings).run()
    assert engine.working.items(SESSION, utcnow()) == []
