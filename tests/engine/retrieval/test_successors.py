"""Successors on the real stack: a question worded like a fact that has since changed finds the old
statement, and the memory that replaced it answers — the old one is never shown; a question that
merely brushes against the store's history moves nothing; `history_candidates=0` turns it off."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from mcp import Client

from mnemex.config.retrieval import DEFAULT
from mnemex.engine.statements import MAYBE_OUTDATED_BY
from mnemex.models import MemoryStatus, WriteAction
from tests.helpers import call_ok, remember

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
NOW = T0 + timedelta(days=120)
OFF = DEFAULT.model_copy(update={"history_candidates": 0})
QUERY = "Who is the code owner of the ledger service?"

#: Other facts about the same component: without the old statement's help they match the question
#: (it names the component) about as well as the new one, worded its own way, does.
AROUND = ("The ledger service is written in Kotlin and built with Gradle.",
          "The ledger service reads its settings from infra/helm/ledger/config.yaml.",
          "The ledger service answers on port 8450 in every environment.",
          "The ledger service keeps its state in Postgres 16.",
          "Deploy the ledger service with `make deploy-ledger` from the repo root.",
          "The ledger service exports its metrics to Prometheus under the ledger_ prefix.")


def _changed_owner(engine) -> tuple[str, str]:
    """An old ownership statement and the one the agent said replaces it (supersedes=)."""
    old = remember(engine, "Code owner for the ledger service: Aiko Tanaka.", created_at=T0)
    for i, text in enumerate(AROUND):
        remember(engine, text, created_at=T0 + timedelta(days=1 + i))
    new = remember(engine, "Lucia Romero took over the ledger service from Aiko Tanaka in the spring.",
                   created_at=T0 + timedelta(days=60), supersedes=(old.id,))
    assert new.action == WriteAction.SUPERSEDED, new.reason
    assert engine.get(old.id).status is MemoryStatus.SUPERSEDED
    return old.id, new.id


def test_the_memory_that_replaced_an_old_statement_answers_a_question_worded_like_it(engine):
    old, new = _changed_owner(engine)
    without = [r.memory.id for r in engine.search(QUERY, limit=5, now=NOW, config=OFF)]
    assert new not in without[:1]  # worded its own way, it does not lead on its own
    got = engine.search(QUERY, limit=5, now=NOW)
    assert got[0].memory.id == new
    assert any(w == f"replaces {old} (found by what it said)" for w in got[0].why)
    assert old not in [r.memory.id for r in got]  # the old statement itself is never shown


def test_a_chain_of_changes_leads_to_the_last_one_and_a_forgotten_end_to_nothing(engine):
    old, middle = _changed_owner(engine)
    last = remember(engine, "Since June, Priya Shah maintains the ledger service.",
                    created_at=T0 + timedelta(days=90), supersedes=(middle,))
    assert last.action == WriteAction.SUPERSEDED, last.reason
    got = engine.search(QUERY, limit=5, now=NOW)
    assert got[0].memory.id == last.id and middle not in [r.memory.id for r in got]
    engine.forget(last.id, reason="wrong")
    after = [r.memory.id for r in engine.search(QUERY, limit=5, now=NOW)]
    assert not {old, middle, last.id} & set(after)


def test_a_flagged_memory_put_to_sleep_still_leads_to_the_newer_one(engine):
    """The gate flagged the older one maybe_outdated_by the newer one; a dream put the older one to
    sleep. The question worded like the older one still reaches the newer one."""
    old = remember(engine, "Code review needs one approval before merging to main.", created_at=T0)
    new = remember(engine, "Merging to main now needs two approvals, one of them from a code owner.",
                   created_at=T0 + timedelta(days=30))
    stored = engine.get(old.id)
    assert stored.metadata[MAYBE_OUTDATED_BY] == new.id
    for i, text in enumerate(("Main is protected: force pushes are blocked for everyone.",
                              "Reviews should be done within one working day.",
                              "Merging to main squashes the branch into one commit.")):
        remember(engine, text, created_at=T0 + timedelta(days=31 + i))
    engine.store.save(stored.model_copy(update={"lifecycle": stored.lifecycle.model_copy(update={"dormant": True})}))
    query = "how many approvals does code review need before merging to main"
    got = engine.search(query, limit=5, now=NOW)
    assert got[0].memory.id == new.id and old.id not in [r.memory.id for r in got]
    assert any(w.startswith(f"replaces {old.id}") for w in got[0].why)


def test_a_question_that_only_brushes_against_the_history_moves_nothing(engine):
    """The old ownership statement shares the component's name with a question about its port; that
    is no reason to lift the new owner (`history_floor`), even in a store with little else."""
    old = remember(engine, "Code owner for the ledger service: Aiko Tanaka.", created_at=T0)
    port = remember(engine, "The ledger service answers on port 8450 in every environment.", created_at=T0)
    new = remember(engine, "Lucia Romero took over the ledger service from Aiko Tanaka in the spring.",
                   created_at=T0 + timedelta(days=60), supersedes=(old.id,))
    assert new.action == WriteAction.SUPERSEDED, new.reason
    query = "Which port does the ledger service answer on?"
    on = engine.search(query, limit=5, now=NOW)
    assert [r.memory.id for r in on] == [r.memory.id for r in engine.search(query, limit=5, now=NOW, config=OFF)]
    assert on[0].memory.id == port.id
    assert all(not w.startswith("replaces") for r in on for w in r.why)


@pytest.mark.anyio
async def test_search_memory_shows_the_successor_first_with_what_it_replaces(server):
    """Through the MCP client: the agent says what the new statement replaces; a later question
    worded like the old statement gets the new one first, as sure as the old one would be (above
    search_memory's confidence floor), and the old one only with include_history."""
    async with Client(server) as c:
        old = await call_ok(c, "memorize", {"content": "Code owner for the ledger service: Aiko Tanaka."})
        for text in AROUND:
            await call_ok(c, "memorize", {"content": text})
        new = await call_ok(c, "memorize", {"content": "Lucia Romero took over the ledger service from Aiko Tanaka in the spring.",
                                            "supersedes": [old["id"]]})
        assert new["action"] == "superseded" and new["affected_ids"] == [old["id"]]
        found = await call_ok(c, "search_memory", {"query": QUERY})
        top = found["results"][0]
        assert top["id"] == new["id"] and f"replaces {old['id']}" in top["why"] and top["confidence"] >= 0.5
        assert old["id"] not in [h["id"] for h in found["results"]]
        history = await call_ok(c, "search_memory", {"query": QUERY, "include_history": True})
        assert old["id"] in [h["id"] for h in history["results"]]


def test_records_neither_lead_to_a_successor_nor_are_one(engine):
    """A tool run stays true of its moment: an old run record never lifts a newer one. The same
    pair as facts does (the counterfactual)."""
    import uuid

    from mnemex.models import Memory, MemoryKind, Provenance, Scope

    def pair(kind: MemoryKind) -> tuple[str, str]:
        old_id, new_id = str(uuid.uuid4()), str(uuid.uuid4())
        made = [Memory(id=old_id, content=f"ran `make migrate-{kind.value}` on staging: the orders table migration failed",
                       kind=kind, scope=Scope.PROJECT, project="/work/proj", provenance=Provenance(source="hook"),
                       created_at=T0, recorded_at=T0, valid_from=T0, valid_until=T0 + timedelta(days=1),
                       status=MemoryStatus.SUPERSEDED, superseded_by=new_id),
                Memory(id=new_id, content=f"`make migrate-{kind.value}` works again after the stale lock was dropped.",
                       kind=kind, scope=Scope.PROJECT, project="/work/proj", provenance=Provenance(source="hook"),
                       created_at=T0 + timedelta(days=1), recorded_at=T0 + timedelta(days=1),
                       valid_from=T0 + timedelta(days=1))]
        engine.import_memories(made)
        return old_id, new_id

    for text in AROUND:
        remember(engine, text, created_at=T0)
    _, run = pair(MemoryKind.TOOL_EVENT)
    _, fact = pair(MemoryKind.FACT)
    got = engine.search("did the orders table migration on staging fail?", limit=10, now=NOW)
    why = {r.memory.id: r.why for r in got}
    assert any(w.startswith("replaces") for w in why.get(fact, ()))
    assert not any(w.startswith("replaces") for w in why.get(run, ()))


def test_a_wrong_supersede_leads_nowhere(engine):
    """A successor must not be unrelated to the old statement (`history_likeness`): an old ownership line
    marked superseded by a port check of another component (a wrong supersede, or the end of a
    chain of them) does not put that port check at the top of a question about the owner."""
    import uuid

    from mnemex.models import Memory, MemoryKind, Scope

    for text in AROUND:
        remember(engine, text, created_at=T0)
    old_id, other_id = str(uuid.uuid4()), str(uuid.uuid4())
    stamp = {"created_at": T0, "recorded_at": T0, "valid_from": T0}
    engine.import_memories([
        Memory(id=old_id, content="Code owner for the ledger service: Aiko Tanaka.", kind=MemoryKind.FACT,
               scope=Scope.PROJECT, project="/work/proj", status=MemoryStatus.SUPERSEDED, superseded_by=other_id,
               valid_until=T0 + timedelta(days=5), **stamp),
        Memory(id=other_id, content="tax-calculator answers on port 3702, checked with curl just now.",
               kind=MemoryKind.FACT, scope=Scope.PROJECT, project="/work/proj", **stamp)])
    got = engine.search(QUERY, limit=5, now=NOW)
    assert other_id not in [r.memory.id for r in got]
    loose = DEFAULT.model_copy(update={"history_likeness": 0.0})  # the counterfactual: no likeness asked
    assert engine.search(QUERY, limit=5, now=NOW, config=loose)[0].memory.id == other_id


def test_a_switch_off_found_through_the_old_workflow_yields_to_what_replaced_it(engine):
    """The agent said the switch-off line replaces the old release workflow; weeks later the new
    workflow is written down on its own. A question worded like the old workflow finds the switch-off
    through it, but the later workflow leads and the switch-off comes just after it, never dropped
    (`history_stop_yields`); without the rule the switch-off, which holds no current way to release,
    ranks first."""
    old = remember(engine, "Android release builds are produced by the Jenkins job `android-release`, which "
                           "signs the bundle and uploads it to the Play Console.", created_at=T0)
    for i, text in enumerate(("The Android app targets API level 34 and supports API 26 and up.",
                              "Android dev builds point at the mock backend on http://10.0.2.2:4010.",
                              "Crash reports from the Android app go to Sentry.")):
        remember(engine, text, created_at=T0 + timedelta(days=1 + i))
    stop = remember(engine, "The Jenkins release job is switched off. Until the new pipeline exists, Priya "
                            "builds releases on her laptop and uploads them by hand.",
                    created_at=T0 + timedelta(days=40), supersedes=(old.id,))
    assert stop.action == WriteAction.SUPERSEDED, stop.reason
    new = remember(engine, "Android releases ship from the Bitrise workflow `release-playstore`, which signs "
                           "with the upload key and pushes to the internal track.",
                   created_at=T0 + timedelta(days=70))
    query = "How are Android release builds produced and uploaded?"
    plain = [r.memory.id for r in engine.search(
        query, limit=5, now=NOW, config=DEFAULT.model_copy(update={"history_stop_yields": False}))]
    assert plain[:2] == [stop.id, new.id]
    got = engine.search(query, limit=5, now=NOW)
    assert [r.memory.id for r in got][:2] == [new.id, stop.id]
    assert f"stopped what {new.id} says now" in got[1].why
