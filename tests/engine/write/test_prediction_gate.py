"""The prediction-error gate on the real stack (real model, real Qdrant Edge): every outcome,
a contradiction chain with point-in-time queries, and racing writers."""

from __future__ import annotations

import threading
from datetime import datetime, timedelta, timezone

import pytest

from mnemex.embed.sparse import SparseEncoder
from mnemex.engine.service import MemoryEngine
from mnemex.engine.write.prediction_gate import (
    GateConfig,
    conflict_reason,
    coverage,
    decide,
    synthesize,
)
from mnemex.models import (
    Memory,
    MemoryFilter,
    MemoryKind,
    MemoryStatus,
    ValidityMode,
    WriteAction,
)
from mnemex.store.edge import EdgeStore
from tests.helpers import FakeClock, remember


def test_novel_content_is_created(engine):
    a = remember(engine, "The API server listens on port 8080")
    b = remember(engine, "The user prefers dark mode in every editor")
    assert (a.action, b.action) == (WriteAction.CREATED, WriteAction.CREATED)
    assert a.id != b.id
    assert engine.upkeep.stats()["memories_total"] == 2


def test_near_identical_is_reinforced_not_duplicated(engine):
    a = remember(engine, "The API server listens on port 8080")
    b = remember(engine, "The API server listens on port 8080.")
    assert b.action == WriteAction.REINFORCED and b.id == a.id
    assert engine.upkeep.stats()["memories_total"] == 1
    mem = engine.recall([a.id], touch=False)[0]
    assert mem.access_count == 1 and mem.metadata["reinforced"] == 1
    assert mem.lifecycle.storage == pytest.approx(1.5) and len(mem.lifecycle.recent_accesses) == 1  # strengthened


def test_overlap_with_detail_updates_by_synthesis_keeping_every_fact(engine):
    a = remember(engine, "The API is deployed with ArgoCD from the main branch.")
    b = remember(engine, "The API is deployed with ArgoCD from the main branch after a green CI run.")
    assert b.action == WriteAction.UPDATED and b.id == a.id
    mem = engine.recall([a.id], touch=False)[0]
    assert "ArgoCD" in mem.content and "green CI run" in mem.content
    assert engine.upkeep.stats()["memories_total"] == 1
    if engine.journal is not None:
        versions = engine.journal.versions(a.id)
        assert [v.content for v in versions][0] == "The API is deployed with ArgoCD from the main branch."


def test_changed_value_supersedes_and_default_search_shows_only_current(engine):
    old = remember(engine, "The API server listens on port 8080")
    new = remember(engine, "The API server listens on port 9090")
    assert new.action == WriteAction.SUPERSEDED and new.affected_ids == (old.id,)
    old_mem, new_mem = engine.recall([old.id, new.id], touch=False)
    assert old_mem.status == MemoryStatus.SUPERSEDED and old_mem.superseded_by == new.id
    assert old_mem.valid_until is not None and new_mem.supersedes == (old.id,)
    current = [r.memory.id for r in engine.search("which port does the API server listen on?")]
    assert current[0] == new.id and old.id not in current
    timeline = engine.search("API server port", filter=engine.default_filter(validity=ValidityMode.TIMELINE))
    assert {old.id, new.id} <= {r.memory.id for r in timeline}


def test_switch_statement_supersedes(engine):
    old = remember(engine, "We use Postgres for the main database")
    new = remember(engine, "We switched the main database from Postgres to MySQL")
    assert new.action == WriteAction.SUPERSEDED and new.affected_ids == (old.id,)


def test_reversed_preference_supersedes(engine):
    old = remember(engine, "The user prefers tabs over spaces", kind=MemoryKind.PREFERENCE)
    new = remember(engine, "The user prefers spaces over tabs", kind=MemoryKind.PREFERENCE)
    assert new.action == WriteAction.SUPERSEDED and new.affected_ids == (old.id,)


def test_different_subjects_are_not_merged(engine):
    a = remember(engine, "Staging deploys happen on Fridays")
    b = remember(engine, "Production deploys happen on Tuesdays")
    assert b.action in (WriteAction.CREATED, WriteAction.SUPERSEDED)
    assert b.id != a.id


def test_borderline_low_importance_is_skipped_and_reported():
    best = Memory(id="00000000-0000-4000-8000-000000000001", content="Use ruff for linting the backend")
    d = decide("Lint backend code using ruff", MemoryKind.FACT, 0.2, [(best, 0.72)])
    assert d.action == WriteAction.SKIPPED and d.target == best and "borderline" in d.reason and best.id in d.reason
    d = decide("Lint backend code using ruff", MemoryKind.FACT, 0.9, [(best, 0.72)])
    assert d.action == WriteAction.CREATED


def test_a_borderline_restatement_reinforces_the_memory_it_restates():
    """Before issue 12 "Lint with ruff please" beside "Use ruff for linting" (0.72, unimportant) was
    skipped; it says nothing new, so now it reinforces the memory that holds it, named in the reason."""
    best = Memory(id="00000000-0000-4000-8000-000000000001", content="Use ruff for linting")
    d = decide("Lint with ruff please", MemoryKind.FACT, 0.2, [(best, 0.72)])
    assert d.action == WriteAction.REINFORCED and d.target == best and best.id in d.reason


@pytest.mark.parametrize("new", [
    "Lint the backend with ruff 0.6.9",            # a version the neighbour does not hold
    "Lint the backend with ruff and mypy --strict",  # a name
    "Lint the backend with ruff on 3 workers",      # a number
])
def test_similarity_is_not_redundancy_a_new_value_is_never_skipped(new):
    best = Memory(id="00000000-0000-4000-8000-000000000001", content="Use ruff for linting the backend")
    d = decide(new, MemoryKind.FACT, 0.1, [(best, 0.73)])
    assert d.action not in (WriteAction.SKIPPED, WriteAction.REINFORCED), d.reason


def test_pinned_and_immutable_memories_are_never_superseded_or_merged():
    pinned = Memory(id="00000000-0000-4000-8000-000000000002", content="The API listens on port 8080", pinned=True)
    frozen = Memory(id="00000000-0000-4000-8000-000000000003", content="Deploy with ArgoCD", immutable=True)
    assert decide("The API listens on port 9090", None, 0.5, [(pinned, 0.8)]).action != WriteAction.SUPERSEDED
    assert decide("Deploy with ArgoCD from main", None, 0.5, [(frozen, 0.8)]).action == WriteAction.CREATED


def test_gate_helpers():
    assert conflict_reason("Node 18 is required", "Node 20 is required").startswith("value changed")
    assert conflict_reason("Run tests with pytest", "Run the tests with pytest") is None
    assert coverage("a b c", "") == 0.0
    assert synthesize("Deploy with ArgoCD.", "Deploy with ArgoCD. Only from main.") == "Deploy with ArgoCD. Only from main."
    assert synthesize("Deploy with ArgoCD.", "deploy with argocd") == "Deploy with ArgoCD."
    assert GateConfig().reinforce_at > GateConfig().update_at > GateConfig().gap_low


def test_contradiction_chain_timeline_and_point_in_time(tmp_path, embedder):
    t0 = datetime(2026, 1, 1, tzinfo=timezone.utc)
    clock = FakeClock(t0)
    engine = MemoryEngine(store=EdgeStore(tmp_path / "s", dim=384), dense=embedder, sparse=SparseEncoder(),
                          default_project="/p", clock=clock)
    try:
        ids = []
        for day, port in [(0, 8080), (10, 9090), (20, 7070)]:
            clock.now = t0 + timedelta(days=day)
            out = remember(engine, f"The API server listens on port {port}")
            ids.append(out.id)
            if day:
                assert out.action == WriteAction.SUPERSEDED and out.affected_ids == (ids[-2],)
        clock.now = t0 + timedelta(days=30)
        q = "What port does the API server listen on?"
        current = engine.search(q, now=clock.now)
        assert [r.memory.id for r in current] == [ids[2]]
        timeline = engine.search(q, filter=engine.default_filter(validity=ValidityMode.TIMELINE))
        assert {r.memory.id for r in timeline} == set(ids)
        for day, expected in [(5, ids[0]), (15, ids[1]), (25, ids[2])]:
            at = t0 + timedelta(days=day)
            hits = engine.search(q, filter=engine.default_filter(validity=ValidityMode.AS_OF, as_of=at))
            assert [r.memory.id for r in hits] == [expected], day
        chain = engine.recall(ids, touch=False)
        assert chain[0].superseded_by == ids[1] and chain[1].superseded_by == ids[2]
        assert chain[2].supersedes == (ids[1],) and chain[2].status == MemoryStatus.ACTIVE
    finally:
        engine.close()


def test_two_writers_racing_on_near_duplicates_make_one_memory(engine):
    barrier = threading.Barrier(2)
    outcomes = []

    def writer(text):
        barrier.wait()
        outcomes.append(remember(engine, text))

    threads = [threading.Thread(target=writer, args=(t,)) for t in
               ("Integration tests need Docker running locally", "Integration tests need Docker running locally.")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(o.action for o in outcomes) == [WriteAction.CREATED, WriteAction.REINFORCED]
    assert outcomes[0].id == outcomes[1].id
    assert engine.upkeep.stats()["memories_total"] == 1


def test_episodes_are_recorded_verbatim_never_merged(engine):
    a = remember(engine, "Ran pytest: 3 failed in test_api.py", kind=MemoryKind.EPISODE)
    b = remember(engine, "Ran pytest: 3 failed in test_api.py", kind=MemoryKind.EPISODE)
    assert (a.action, b.action) == (WriteAction.CREATED, WriteAction.CREATED) and a.id != b.id


def test_scopes_do_not_gate_each_other(engine):
    a = remember(engine, "The API server listens on port 8080")
    b = remember(engine, "The API server listens on port 8080", project="/other/project")
    assert b.action == WriteAction.CREATED and b.id != a.id
    assert engine.store.count(MemoryFilter(validity=ValidityMode.TIMELINE)) == 2


@pytest.mark.parametrize("old,new", [
    ("The API server listens on port 8080", "The worker listens on port 9090"),
    ("Search runs on a 3-node cluster in eu-west-1", "Elasticsearch was replaced by OpenSearch after the licence change."),
    ("We use Postgres for the main database", "The analytics team switched their dashboards to Metabase"),
])
def test_a_new_fact_about_another_subject_is_no_conflict(old, new):
    assert conflict_reason(old, new) is None


def test_of_several_replaceable_memories_a_url_swapped_for_a_url_is_the_likelier_same_thing():
    """Both neighbours lose a name to the move; the address the UI had (a URL for a URL) is what it
    replaces, though the alert channel (a channel for a URL) is a little closer by cosine. The
    other stays current and is reported as a candidate."""
    channel = Memory(id="00000000-0000-4000-8000-00000000000a",
                     content="Admin console alerts post to #admin-ops on Slack, with a link to the log.")
    address = Memory(id="00000000-0000-4000-8000-00000000000b",
                     content="The admin console is reachable at `http://10.1.2.3:8000` from the office VPN.")
    d = decide("Admin UI moved to `https://admin.acme.internal` behind SSO; the raw IP does not answer anymore.",
               None, 0.5, [(channel, 0.63), (address, 0.57)])
    assert d.action == WriteAction.SUPERSEDED and d.target == address
    assert [c.memory.id for c in d.candidates] == [channel.id]



@pytest.mark.parametrize("first,second", [
    ("Aiko is the on-call owner of the metrics-cron service's database.",
     "Aiko is the on-call owner of the search-sdk service's dashboards."),
    ("Ravi prefers small, separate PRs for integration tests.", "Priya prefers small, separate PRs for integration tests."),
    ("Jonas is the on-call owner of the scheduler-sdk service's database.",
     "Jonas is the on-call owner of the returns-worker service's database."),
    ("The audit-db service uses httpx rather than requests because the team already knows it.",
     "The audit-api service uses OpenTelemetry rather than StatsD because it integrates with our SSO."),
    ("The profile-api service uses ruff rather than flake8 because the old one leaked connections under load.",
     "The profile-api service uses GitHub Actions rather than Jenkins because the old one leaked connections under load."),
])
def test_like_rows_about_different_things_both_stay_current(engine, first, second):
    """From a bulk import of templated rows (`benchmarks/importing.py`), where the gate reinforced, merged or
    superseded like rows about something else into each other: each pair is two facts."""
    a, b = remember(engine, first), remember(engine, second)
    assert (a.action, b.action) == (WriteAction.CREATED, WriteAction.CREATED), b.reason
    assert engine.store.count(MemoryFilter()) == 2
