"""Read-time resolution on the real stack: of two results about the same thing that disagree, the
newer one leads and the older one is marked `outdated_by` the newer one — never dropped; look-alikes
(another environment, another component) are left alone; `resolution=False` leaves the order as it was."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

from mnemex import render
from mnemex.config.retrieval import DEFAULT
from mnemex.engine.statements import ATOM_OF, MAYBE_OUTDATED_BY, SAID_OTHERWISE_BY, SAID_OTHERWISE_KEPT
from mnemex.models import CHATTER, Memory, MemoryKind, Provenance, Scope, WriteAction
from mnemex.views import ranked_hit
from tests.helpers import remember

T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
NOW = T0 + timedelta(days=90)
OFF = DEFAULT.model_copy(update={"resolution": False})
COMPARE = DEFAULT.model_copy(update={"resolution_compare": True})


def _flagged_pair(engine):
    """An older rule and a newer one the write gate was not sure replaces it (both stay, the older
    one flagged maybe_outdated_by the newer one)."""
    old = remember(engine, "Code review needs one approval before merging to main.", created_at=T0)
    new = remember(engine, "Merging to main now needs two approvals, one of them from a code owner.",
                   created_at=T0 + timedelta(days=30))
    assert new.action == WriteAction.CREATED, new.reason
    assert engine.recall([old.id], touch=False)[0].metadata[MAYBE_OUTDATED_BY] == new.id
    return old.id, new.id


def test_the_newer_statement_leads_and_the_older_one_is_marked(engine):
    old, new = _flagged_pair(engine)
    got = engine.search("how many approvals does a merge to main need", limit=5, now=NOW)
    ids = [r.memory.id for r in got]
    assert ids[0] == new and old in ids  # never dropped
    marked = {r.memory.id: r.outdated_by for r in got}
    assert marked[old] == new and marked[new] is None
    assert any(w.startswith(f"outdated by {new}") for w in got[ids.index(old)].why)


def test_resolution_off_leaves_the_order_alone(engine):
    old, new = _flagged_pair(engine)
    query = "how many approvals does a merge to main need"
    plain = engine.search(query, limit=5, now=NOW, config=OFF)
    assert {old, new} <= {r.memory.id for r in plain}
    assert all(r.outdated_by is None for r in plain)
    on = engine.search(query, limit=5, now=NOW)
    rest = [r.memory.id for r in on if r.memory.id != new]
    assert rest == [r.memory.id for r in plain if r.memory.id != new]  # only the newer one moved


def test_a_look_alike_in_another_environment_is_not_marked(engine):
    a = remember(engine, "In production, deploy notifications are posted to #releases.", created_at=T0)
    b = remember(engine, "Staging deploy notifications now go to #staging-releases.", created_at=T0 + timedelta(days=3))
    assert engine.recall([a.id], touch=False)[0].metadata[MAYBE_OUTDATED_BY] == b.id  # the gate flagged it
    for config in (DEFAULT, COMPARE):
        got = engine.search("where are production deploy notifications posted", limit=5, now=NOW, config=config)
        assert got[0].memory.id == a.id and all(r.outdated_by is None for r in got)


def _imported(engine, *items: tuple[str, int]) -> list[str]:
    """Memories stored as given (no write gate, no flags): (content, days after T0)."""
    memories = [Memory(id=str(uuid.uuid4()), content=text, kind=MemoryKind.FACT, scope=Scope.PROJECT, project="/work/proj",
                       provenance=Provenance(source="user"), created_at=T0 + timedelta(days=d),
                       recorded_at=T0 + timedelta(days=d), valid_from=T0 + timedelta(days=d))
                for text, d in items]
    engine.import_memories(memories)
    return [m.id for m in memories]


def test_compared_by_the_gate_rules_when_asked(engine):
    old, new = _imported(engine, ("Errors are reported to Sentry.", 0),
                         ("Error reporting moved off Sentry to Rollbar last sprint.", 40))
    query = "where are errors reported"
    assert all(r.outdated_by is None for r in engine.search(query, limit=5, now=NOW))  # default: flags only
    got = engine.search(query, limit=5, now=NOW, config=COMPARE)
    ids = [r.memory.id for r in got]
    assert ids.index(new) < ids.index(old) and got[ids.index(old)].outdated_by == new


def test_compared_look_alikes_stay_apart(engine):
    ids = _imported(engine, ("Staging uses Postgres 15.", 0), ("Production uses Postgres 16.", 20),
                    ("The API listens on port 8080.", 0), ("The API exposes Prometheus metrics on port 9100.", 20))
    for query in ("which Postgres version does staging use", "which port does the API listen on"):
        got = engine.search(query, limit=5, now=NOW, config=COMPARE)
        assert {r.memory.id for r in got} & set(ids) and all(r.outdated_by is None for r in got), query


def test_a_flag_for_a_change_of_something_else_leaves_the_order_alone(engine):
    """A flag an older gate set for a change the newer statement names of something the older one
    never mentions ("alerts now go to #x instead of #y" beside a database statement): the alerts
    line must not be pulled above the answer, nor the answer marked outdated."""
    old_id, new_id = str(uuid.uuid4()), str(uuid.uuid4())
    base = dict(kind=MemoryKind.FACT, scope=Scope.PROJECT, project="/work/proj", provenance=Provenance(source="user"))
    old = Memory(id=old_id, content="ledger-sync reads its database connection string from the LEDGER_DB_URL "
                 "environment variable.", created_at=T0, recorded_at=T0, valid_from=T0,
                 metadata={MAYBE_OUTDATED_BY: new_id}, **base)
    later = T0 + timedelta(days=30)
    new = Memory(id=new_id, content="ledger-sync alerts now route to #oncall-payments instead of #team-ledger.",
                 created_at=later, recorded_at=later, valid_from=later, **base)
    engine.import_memories([old, new])
    got = engine.search("what database does ledger-sync use", limit=5, now=NOW)
    assert got[0].memory.id == old_id and all(r.outdated_by is None for r in got)
    assert not any(w.startswith("outdated by") for r in got for w in r.why)


def _said_otherwise(engine, older: str, newer: str) -> tuple[str, str]:
    """An older statement and a newer one about much the same thing with another value and no
    word of change: both stay, the older one marked said_otherwise_by the newer one."""
    old = remember(engine, older, created_at=T0)
    new = remember(engine, newer, created_at=T0 + timedelta(days=30))
    assert new.action == WriteAction.CREATED, new.reason
    assert old.id in {c.id for c in new.candidates}  # offered to the agent, too
    assert engine.recall([old.id], touch=False)[0].metadata[SAID_OTHERWISE_BY] == [new.id]
    assert MAYBE_OUTDATED_BY not in engine.recall([old.id], touch=False)[0].metadata
    return old.id, new.id


def test_a_newer_statement_giving_another_value_without_a_cue_leads_when_both_are_found(engine):
    old, new = _said_otherwise(engine, "Feature flags in the mobile app are read from a JSON file bundled with each release.",
                               "The mobile app fetches its feature flags from LaunchDarkly at startup.")
    got = engine.search("where does the mobile app get its feature flags?", limit=5, now=NOW)
    ids = [r.memory.id for r in got]
    assert ids.index(new) < ids.index(old) and got[ids.index(old)].outdated_by == new  # never dropped
    assert any(w == f"outdated by {new} (said otherwise, later)" for w in got[ids.index(old)].why)
    off = engine.search("where does the mobile app get its feature flags?", limit=5, now=NOW,
                        config=DEFAULT.model_copy(update={"resolution_otherwise": False}))
    assert all(r.outdated_by is None for r in off)


def test_a_query_about_the_older_statements_own_subject_keeps_its_order(engine):
    """The newer statement is flagged (much the same thing, another value), but the query names
    what only the older one holds: the older one is what it asks about, left first and unmarked."""
    old, new = _said_otherwise(engine, "Thumbnail jobs run on a dedicated worker pool with 8 processes.",
                               "Webhook deliveries share the default worker pool, which has 2 processes.")
    got = engine.search("how many processes does the thumbnail worker pool have?", limit=5, now=NOW)
    assert got[0].memory.id == old and all(r.outdated_by is None for r in got)
    # nor is it told a later one may say otherwise: the newer one answers the question much less well
    assert {r.memory.id for r in got} == {old, new} and all(r.said_otherwise_by is None for r in got)


def test_a_later_statement_the_query_wording_keeps_below_is_named_beside_the_older_one(engine):
    """A question worded as the older statement was keeps it first (`asks_for_older`): no rule on
    the words tells a real update from a look-alike there. The later one answers the question
    about as well and is about the same thing by everything the rules read, so the older one
    carries `said_otherwise_by` it, and the model reading both judges; never when the later one is
    not among the results, and not with `resolution_hints` off."""
    old, new = _said_otherwise(engine, "Outbound emails from the notifier service are delivered through Postmark.",
                               "The notifier hands its mail to Amazon SES.")
    query = "Which provider delivers the notifier service's outbound emails?"
    got = engine.search(query, limit=5, now=NOW)
    assert [r.memory.id for r in got] == [old, new] and all(r.outdated_by is None for r in got)
    assert got[0].said_otherwise_by == new and got[1].said_otherwise_by is None
    assert f"later {new[:8]} may say otherwise" in render.search_text([ranked_hit(r) for r in got])
    alone = engine.search(query, limit=1, now=NOW)
    assert [r.memory.id for r in alone] == [old] and alone[0].said_otherwise_by is None  # the reader could not see it
    off = engine.search(query, limit=5, now=NOW, config=DEFAULT.model_copy(update={"resolution_hints": False}))
    assert [r.memory.id for r in off] == [old, new] and all(r.said_otherwise_by is None for r in off)


def test_a_newer_statement_that_says_it_changed_something_leads_even_for_a_query_worded_like_the_older(engine):
    """A question about a changed fact is usually worded as the fact was first written: it names
    more of the older statement's words than of the newer one's, which alone keeps the older one
    first (`asks_for_older`). When the newer one was split from a statement that says something
    changed (the copy kept by the old service, in its sibling atom: `atom_of`), it leads."""
    old_id, new_id = str(uuid.uuid4()), str(uuid.uuid4())
    base = dict(kind=MemoryKind.FACT, scope=Scope.PROJECT, project="/work/proj", provenance=Provenance(source="user"))
    old = Memory(id=old_id, content="Crash reports from the desktop app are uploaded to Bugsnag.",
                 created_at=T0, recorded_at=T0, valid_from=T0, metadata={SAID_OTHERWISE_BY: [new_id]}, **base)
    later = T0 + timedelta(days=30)
    said = "Crash reports go to Sentry first; the legacy Bugsnag project still gets a copy until the contract ends."
    new = Memory(id=new_id, content="Crash reports go to Sentry first.", created_at=later, recorded_at=later,
                 valid_from=later, metadata={ATOM_OF: said}, **base)
    engine.import_memories([old, new])
    query = "Where are desktop app crash reports uploaded?"
    got = engine.search(query, limit=5, now=NOW)
    ids = [r.memory.id for r in got]
    assert ids.index(new_id) < ids.index(old_id) and got[ids.index(old_id)].outdated_by == new_id
    # the counterfactual: without the cue the query's wording keeps the older one first
    off = engine.search(query, limit=5, now=NOW, config=DEFAULT.model_copy(update={"resolution_otherwise_cued": 1.01}))
    assert off[0].memory.id == old_id and all(r.outdated_by is None for r in off)


def test_a_newer_statement_the_search_did_not_find_is_never_brought_in_without_a_cue(engine):
    """Without a word of change the flag alone is weak evidence: the newer one must be among the
    results the search itself found before it is put above the older one."""
    old_id, new_id = str(uuid.uuid4()), str(uuid.uuid4())
    base = dict(kind=MemoryKind.FACT, scope=Scope.PROJECT, project="/work/proj", provenance=Provenance(source="user"))
    old = Memory(id=old_id, content="Invoice PDFs are rendered with WeasyPrint in the billing worker.",
                 created_at=T0, recorded_at=T0, valid_from=T0, metadata={SAID_OTHERWISE_BY: [new_id]}, **base)
    later = T0 + timedelta(days=30)
    new = Memory(id=new_id, content="The staging cluster runs three nodes in one zone.",
                 created_at=later, recorded_at=later, valid_from=later, **base)
    engine.import_memories([old, new])
    got = engine.search("how are invoice PDFs rendered", limit=5, now=NOW)
    assert got[0].memory.id == old_id and new_id not in [r.memory.id for r in got[:1]]
    assert all(r.outdated_by is None for r in got)


def test_the_statements_that_said_otherwise_are_kept(engine):
    """Later statements that each give another value do not push out the first one's mark (one id
    overwritten by the next unrelated offer lost the real update in 17 of 53 stale-first questions
    of an update set); the `SAID_OTHERWISE_KEPT` most alike are kept, oldest first."""
    old = remember(engine, "Nightly invoice exports are written as CSV files to the finance SFTP share.", created_at=T0)
    later = [remember(engine, text, created_at=T0 + timedelta(days=10 + i)).id for i, text in enumerate([
        "Invoice exports land in the finance BigQuery dataset every night.",
        "Nightly invoice exports are compressed with zstd before upload to the finance bucket.",
        "The finance team reads nightly invoice exports from the Snowflake share named FIN_EXPORTS.",
        "Nightly invoice exports run at 03:30 UTC from the billing-cron job on the finance host.",
        "Invoice exports for the finance team are encrypted with the finance PGP key exports-2026.",
    ])]
    held = engine.recall([old.id], touch=False)[0].metadata.get(SAID_OTHERWISE_BY, [])
    assert 3 <= len(held) <= SAID_OTHERWISE_KEPT and set(held) <= set(later)
    assert held[0] == later[0]  # the first one, offered before the others, is still there
    assert held == [i for i in later if i in held]  # oldest first


def test_other_facts_about_the_same_component_never_outdate_each_other(engine):
    """Facts about one component, each of another attribute, give other values and name the same
    thing, so the gate offers them to each other; a question about one attribute shares only the
    component's name with the others, and no order changes for it."""
    texts = ["ledger-sync keeps its state in Postgres.", "ledger-sync is written in Go.",
             "ledger-sync needs LEDGER_TOKEN set or it refuses to start.",
             "The ledger-sync service runs on port 7311 in dev and staging."]
    ids = [remember(engine, t, created_at=T0 + timedelta(days=10 * i)).id for i, t in enumerate(texts)]
    assert engine.recall([ids[0]], touch=False)[0].metadata.get(SAID_OTHERWISE_BY)  # the flags are there
    query = "What datastore does ledger-sync use?"
    got = engine.search(query, limit=5, now=NOW)
    assert all(r.outdated_by is None for r in got)
    off = engine.search(query, limit=5, now=NOW, config=DEFAULT.model_copy(update={"resolution_otherwise": False}))
    assert [r.memory.id for r in got] == [r.memory.id for r in off]


def test_a_line_of_conversation_outdates_no_fact(engine):
    """A flag pointing at a line the observer marked as chatter (an older gate's, or a remark that
    names a new value) never puts the remark above the fact."""
    fact_id, remark_id = str(uuid.uuid4()), str(uuid.uuid4())
    base = dict(kind=MemoryKind.FACT, scope=Scope.PROJECT, project="/work/proj", provenance=Provenance(source="user"))
    later = T0 + timedelta(days=30)
    fact = Memory(id=fact_id, content="The search indexer batches 500 documents per bulk request.",
                  created_at=T0, recorded_at=T0, valid_from=T0, metadata={SAID_OTHERWISE_BY: [remark_id]}, **base)
    remark = Memory(id=remark_id, content="ok, trying the search indexer with 200 documents per bulk request, one sec",
                    created_at=later, recorded_at=later, valid_from=later, metadata={"flags": [CHATTER]}, **base)
    engine.import_memories([fact, remark])
    got = engine.search("how many documents does the search indexer send per bulk request", limit=5, now=NOW)
    assert {fact_id, remark_id} <= {r.memory.id for r in got}
    assert got[0].memory.id == fact_id and all(r.outdated_by is None for r in got)
