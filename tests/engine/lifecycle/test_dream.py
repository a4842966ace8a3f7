"""The dream cycle on the real engine (Qdrant Edge, the real model, SQLite), time given by `now`:
a cluster of near-duplicates becomes one theme memory that supersedes them, a plan past its
validity and an unhelpful idle memory go dormant, a scope over its cap is trimmed, pinned and
flashbulb memories are kept, recalls together strengthen a relation, every change is audited
and nothing is ever deleted."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta

import pytest

from mnemex.config import Settings
from mnemex.config.dream import ForgettingConfig
from mnemex.config.lifecycle import LifecycleConfig
from mnemex.engine.factory import build_engine
from mnemex.errors import InvalidInputError
from mnemex.models import Lifecycle, Memory, MemoryKind, MemoryStatus, utcnow
from tests.helpers import import_aged

PROJECT = "/work/proj"
DUPLICATES = (
    "The staging database is reset every Sunday night by the reset-staging cron job.",
    "Every Sunday night the reset-staging cron job resets the staging database.",
    "The reset-staging cron job wipes the staging database each Sunday night; back up fixtures first.",
)
CHATTER = ("Thanks, that looks good to me", "Let me think about the sidebar colours for a moment",
           "Lunch was great today at the new ramen place", "The coffee machine on floor two is fixed",
           "I will be out on Friday afternoon", "Nice weather for the team offsite",
           "The standup moved to ten thirty", "Someone left an umbrella in room four")


@pytest.fixture
def capped(tmp_path, embedder):
    """An engine whose project holds at most 6 active memories (trimmed to 5)."""
    settings = Settings(data_dir=tmp_path / "data",
                        lifecycle=LifecycleConfig(forgetting=ForgettingConfig(capacity=6, trim_to=0.9)))
    eng = build_engine(settings, default_project=PROJECT, embedder=embedder)
    yield eng
    eng.close()


def _import(engine, content: str, *, kind=MemoryKind.FACT, days: float = 20.0, **fields) -> str:
    return import_aged(engine, content, project=PROJECT, kind=kind, days=days, **fields)


def test_older_repeats_of_a_routine_run_go_dormant_and_the_newest_failures_and_recalled_ones_stay(tmp_path, embedder):
    engine = build_engine(Settings(data_dir=tmp_path / "data"), default_project=PROJECT, embedder=embedder)
    try:
        def event(text: str, days: float, **fields) -> str:
            return _import(engine, text, kind=MemoryKind.TOOL_EVENT, days=days, **fields)

        passes = [event(f"CI pipeline #{n} for billing-api: passed", days) for n, days in
                  ((8811, 40), (8840, 7), (8872, 4), (8901, 1))]
        failed = event("CI pipeline #8855 for billing-api: failed at unit stage", 5)
        once = event("CI pipeline #8860 for search-api: passed", 6)
        runs = [event(f"Ran `pytest -q` → exit 0 ({n} passed)", days, metadata={"command": "pytest -q", "exit": 0})
                for n, days in ((118, 5), (120, 2))]
        fact = _import(engine, "billing-api deploys with `make ship` after CI passes", days=10)
        engine.recall([passes[1]])  # read since the newest was recorded: somebody wanted that one
        before = {m.id: m for m in engine.export(include_all=True)}

        report = engine.dream(now=utcnow())

        # the oldest is past records expiry (30 days unrecalled): that rule sends it, and it still folds into the newest
        assert (report.forgotten["records"], report.forgotten["repeats"]) == (1, 2)
        asleep = {i for i in before if engine.get(i).lifecycle.dormant}
        assert asleep == {passes[0], passes[2], runs[0]}
        for kept in (passes[3], passes[1], failed, once, runs[1], fact):
            assert not engine.get(kept).lifecycle.dormant, engine.get(kept).content
        reasons = [o.detail["reason"] for o in engine.journal.ops(limit=100) if o.op == "dormant"]
        assert len(reasons) == 3 and sum(r.startswith("repeats: a routine run recorded again") for r in reasons) == 2
        assert passes[3] in " ".join(reasons)  # names the newer record that says the same
        # dormant, not gone: a search that asks for dormant memories finds them
        found = {r.memory.id for r in engine.search("billing-api CI pipeline passed", limit=10, dormant=True)}
        assert {passes[0], passes[2]} <= found
        assert set(before) <= {m.id for m in engine.export(include_all=True)}
        # the survivors stand for the runs folded into them, and still weigh as routine runs when alone in view
        assert engine.get(passes[3]).metadata["runs"] == 3 and engine.get(runs[1]).metadata["runs"] == 2
        assert "runs" not in engine.get(passes[1]).metadata and "runs" not in engine.get(once).metadata
        (hit,) = [r for r in engine.search("billing-api CI pipeline", limit=10) if r.memory.id == passes[3]]
        assert "routine" in hit.why
        assert engine.dream(now=utcnow()).forgotten["repeats"] == 0  # nothing new: nothing more to do
        newer = event("CI pipeline #8950 for billing-api: passed", 0.1)
        assert engine.dream(now=utcnow()).forgotten["repeats"] == 1  # passes[3] folds into the newer record
        assert engine.get(passes[3]).lifecycle.dormant and engine.get(newer).metadata["runs"] == 4
        assert not engine.get(passes[1]).lifecycle.dormant  # its recall came after even `newer` was recorded
    finally:
        engine.close()


def test_a_new_record_of_a_run_whose_records_all_went_dormant_still_weighs_as_routine(tmp_path, embedder):
    """Records expiry sends a whole run dormant; the next record of it, alone in view, takes over its
    tally (without it the fresh record ranks as a one-off while the store without a lifecycle still
    sees the pile as routine), and later dreams do not count the same dormant runs again."""
    engine = build_engine(Settings(data_dir=tmp_path / "data"), default_project=PROJECT, embedder=embedder)
    try:
        def event(text: str, days: float) -> str:
            return _import(engine, text, kind=MemoryKind.TOOL_EVENT, days=days)

        old = [event(f"docker build api:1.4.{n} finished in {secs}s", days) for n, secs, days in ((1, 212, 45), (2, 198, 40))]
        once = event("docker build worker:0.9.0 finished in 88s", 50)
        engine.dream(now=utcnow())
        assert all(engine.get(i).lifecycle.dormant for i in [*old, once])
        assert engine.get(old[1]).metadata["runs"] == 2
        new = event("docker build api:1.4.3 finished in 205s", 0.5)
        lone = event("docker build worker:0.9.1 finished in 91s", 0.5)
        engine.dream(now=utcnow())
        assert not engine.get(new).lifecycle.dormant and engine.get(new).metadata["runs"] == 3
        assert engine.get(lone).metadata["runs"] == 2  # its one dormant predecessor
        (hit,) = [r for r in engine.search("docker build api", limit=10) if r.memory.id == new]
        assert "routine" in hit.why
        engine.dream(now=utcnow())
        assert engine.get(new).metadata["runs"] == 3  # the same dormant runs count once
        tallies = [o for o in engine.journal.ops(new, limit=20) if o.op == "tally"]
        assert len(tallies) == 1 and "dormant ones standing for 2" in tallies[0].detail["reason"]
    finally:
        engine.close()


def test_a_dream_merges_expires_keeps_pinned_trims_audits_and_never_deletes(capped):
    engine = capped
    duplicates = [_import(engine, text) for text in DUPLICATES]
    plan = _import(engine, "We plan to move the CI to GitHub Actions by Friday", kind=MemoryKind.PLAN,
                   valid_until=utcnow() - timedelta(days=2))
    unhelpful = Lifecycle(utility=0.05, utility_at=utcnow() - timedelta(days=60), misled=12)
    pinned = _import(engine, "Never force-push to the main branch of the deploy repository", kind=MemoryKind.NOTE,
                     days=200, pinned=True, lifecycle=unhelpful)
    stale = _import(engine, "The linter config lives in an old tox.ini section", kind=MemoryKind.NOTE, days=200,
                    lifecycle=unhelpful)
    chatter = [_import(engine, text, kind=MemoryKind.NOTE, days=30) for text in CHATTER]
    before = {m.id: m for m in engine.export()}

    report = engine.dream(now=utcnow())

    assert (report.clusters, report.themes, report.merged) == (1, 1, 3)
    themes = [m for m in engine.export() if m.metadata.get("theme_of")]
    assert len(themes) == 1
    theme = themes[0]
    assert set(theme.supersedes) == set(duplicates) and theme.status == MemoryStatus.ACTIVE
    assert "back up fixtures first" in theme.content.lower()
    for memory_id in duplicates:
        old = engine.get(memory_id)
        assert old.status == MemoryStatus.SUPERSEDED and old.superseded_by == theme.id
    found = engine.search("when is the staging database reset?", limit=3)
    assert found[0].memory.id == theme.id

    assert report.forgotten == {"contradiction": 0, "foresight": 1, "records": 0, "repeats": 0, "utility_floor": 1,
                                "redundancy": 0, "capacity": 4}
    assert engine.get(plan).lifecycle.dormant and engine.get(stale).lifecycle.dormant
    assert engine.get(pinned) == before[pinned]  # pinned: untouched, whatever its utility
    trimmed = [i for i in chatter if engine.get(i).lifecycle.dormant]
    assert len(trimmed) == 4  # 9 active (the pinned one, 8 notes) over the cap of 6: down to 6 x 0.9 = 5
    assert engine.store.count(engine.default_filter()) == 6  # the new theme, the pinned one, 4 notes

    after = {m.id: m for m in engine.export()}
    assert set(before) <= set(after) and len(after) == len(before) + 1  # nothing deleted; one theme added
    ops = engine.journal.ops(limit=200)
    dormant = [o for o in ops if o.op == "dormant"]
    assert sorted(o.detail["reason"].split(":")[0] for o in dormant) == [
        "capacity", "capacity", "capacity", "capacity", "foresight", "utility_floor"]
    assert all(o.actor == "dream" for o in dormant)
    assert sum(o.op == "supersede" for o in ops) == 3 and any(o.op == "dream" for o in ops)


def test_a_dream_changes_at_most_its_limit_and_the_next_one_finishes(capped):
    for text in CHATTER:
        _import(capped, text, kind=MemoryKind.NOTE, days=30)
    first = capped.dream(now=utcnow(), limit=1)
    assert first.changed == 1 and first.deferred > 0
    second = capped.dream(now=utcnow())
    assert second.deferred == 0
    assert first.forgotten["capacity"] + second.forgotten["capacity"] == 3  # 8 over a cap of 6: down to 5
    assert capped.store.count(capped.default_filter()) == 5


def test_recalled_together_strengthens_a_relation_and_flashbulbs_stay_vivid(engine):
    a = _import(engine, "The payments service retries webhooks three times")
    b = _import(engine, "Webhook retries use exponential backoff starting at two seconds")
    outage = _import(engine, "Production outage: the payments service went down after the Redis failover",
                     kind=MemoryKind.NOTE, days=1)  # too fresh to need rehearsal
    listing = _import(engine, "Summary of the 12 current notes:\n- Production outage: the payments service went down",
                      kind=MemoryKind.NOTE, days=1, metadata={"summary_of": "project:/work/proj:note"})
    engine.recall([a, b])
    report = engine.dream(now=utcnow())
    assert report.coactivated == 1 and report.flashbulbs == 1
    edge = next(r for r in engine.journal.relations(min(a, b), types=["related_to"]) if max(a, b) in (r.src, r.dst))
    assert edge.weight == pytest.approx(0.1) and edge.detail["co_activations"] == 1
    vivid = engine.get(outage)
    assert vivid.metadata["flashbulb"] is True and vivid.importance >= 0.9 and vivid.lifecycle.storage == 1.5
    assert "flashbulb" not in engine.get(listing).metadata  # a category summary lists incidents, it is none
    assert engine.dream(now=utcnow()).flashbulbs == 0  # once


def test_the_agent_consolidates_a_cluster_it_was_handed(engine):
    ids = [_import(engine, text) for text in DUPLICATES]
    clusters = engine.memory_clusters(project=PROJECT)
    assert [sorted(m.id for m in group) for group in clusters] == [sorted(ids)]
    theme = engine.consolidate(ids, "The reset-staging cron job resets the staging database every Sunday night; "
                                    "back up fixtures first.")
    assert set(theme.supersedes) == set(ids) and theme.provenance.source == "agent"
    assert engine.memory_clusters(project=PROJECT) == []
    with pytest.raises(InvalidInputError):
        engine.consolidate(ids, "again")  # they are superseded now
    with pytest.raises(InvalidInputError):
        engine.consolidate([theme.id], "alone")


@pytest.mark.parametrize("answer,expected", [
    ("The reset-staging cron job resets the staging database every Sunday night; back up fixtures first.", "llm"),
    (None, "deterministic"),  # the endpoint fails: the deterministic merge
])
def test_a_language_model_may_write_the_theme_within_its_caps(tmp_path, embedder, answer, expected):
    import httpx

    from mnemex.config.dream import DreamConfig
    from mnemex.config.judge import JudgeConfig
    from mnemex.engine.lifecycle.summarizer import HttpSummarizer

    asked: list[dict] = []

    def reply(request: httpx.Request) -> httpx.Response:
        asked.append(__import__("json").loads(request.content))
        if answer is None:
            return httpx.Response(503)
        return httpx.Response(200, json={"choices": [{"message": {"content": answer}}], "usage": {"total_tokens": 90}})

    settings = Settings(data_dir=tmp_path / "data",
                        lifecycle=LifecycleConfig(dream=DreamConfig(consolidation="llm", llm_max_calls=1)))
    engine = build_engine(settings, default_project=PROJECT, embedder=embedder)
    try:
        judge = JudgeConfig(url="http://127.0.0.1:9/v1", model="local")
        engine.dreamer.summarizer = HttpSummarizer(judge, transport=httpx.MockTransport(reply))
        for text in DUPLICATES:
            _import(engine, text)
        report = engine.dream(now=utcnow())
        theme = next(m for m in engine.export() if m.metadata.get("theme_of"))
    finally:
        engine.close()
    assert report.themes == 1 and len(asked) == 1 and asked[0]["model"] == "local"
    assert all(text.split()[1] in asked[0]["messages"][1]["content"] for text in DUPLICATES)
    assert theme.metadata["consolidated"] == expected
    if answer is not None:
        assert theme.content == answer


@pytest.mark.parametrize("mode", ["propose", "promote"])
def test_a_project_convention_confirmed_often_enough_goes_global_with_its_thresholds_audited(tmp_path, embedder, mode):
    from mnemex.config.dream import ScopePromotionConfig
    from mnemex.models import Scope

    settings = Settings(data_dir=tmp_path / "data",
                        lifecycle=LifecycleConfig(scope_promotion=ScopePromotionConfig(mode=mode)))
    engine = build_engine(settings, default_project=PROJECT, embedder=embedder)
    try:
        confirmed = _import(engine, "Use pnpm, never npm, in every workspace", kind=MemoryKind.CONVENTION,
                            confidence=0.9, access_count=5, metadata={"reinforced": 1})
        once = _import(engine, "Use ruff for linting Python code", kind=MemoryKind.CONVENTION, confidence=0.9,
                       access_count=5)  # stated in one conversation only
        report = engine.dream(now=utcnow())
        promoted, kept = engine.get(confirmed), engine.get(once)
        op = engine.journal.ops(memory_id=confirmed, limit=5)[0]
    finally:
        engine.close()
    assert (report.scope_proposed, report.scope_promoted) == ((1, 0) if mode == "propose" else (0, 1))
    assert promoted.metadata["promoted_from"] == PROJECT and kept.scope == Scope.PROJECT
    assert promoted.scope == (Scope.PROJECT if mode == "propose" else Scope.GLOBAL)
    assert op.op == f"{mode}-global" and op.detail["reason"] == "confidence >= 0.85, recalls >= 5, sessions >= 2"


def test_a_write_waits_for_one_small_batch_of_the_dream_not_the_whole_dream(tmp_path, embedder, monkeypatch):
    import threading
    import time

    from mnemex.config.dream import DreamConfig
    from mnemex.models import NewMemory

    settings = Settings(data_dir=tmp_path / "data", lifecycle=LifecycleConfig(
        dream=DreamConfig(batch=2, rehearse_max=0), forgetting=ForgettingConfig(capacity=1, trim_to=1.0)))
    engine = build_engine(settings, default_project=PROJECT, embedder=embedder)
    try:
        created = utcnow() - timedelta(days=30)
        engine.import_memories([Memory(id=str(uuid.uuid4()), content=text, kind=MemoryKind.NOTE, project=PROJECT,
                                       created_at=created, recorded_at=created, valid_from=created) for text in CHATTER])
        replace = engine.writer.replace
        changes: list[float] = []
        written: list[float] = []

        def slow_replace(*args, **kwargs):  # each dream change takes 60 ms
            if not changes:
                threading.Thread(target=lambda: (engine.memorize(NewMemory(content="CI runs on two cores", kind="fact")),
                                                 written.append(time.perf_counter()))).start()
            time.sleep(0.06)
            changes.append(time.perf_counter())
            return replace(*args, **kwargs)

        monkeypatch.setattr(engine.writer, "replace", slow_replace)
        report = engine.dream(now=utcnow())
    finally:
        engine.close()
    assert report.forgotten["capacity"] == 7 and len(changes) == 7  # 8 notes over a cap of 1
    assert written and written[0] < changes[-1] - 0.1  # it got in between batches, well before the dream ended


def test_a_dream_takes_a_naive_now_and_naive_stored_times_as_utc(engine):
    from mnemex.models import NewMemory

    plan = engine.memorize(NewMemory(content="We plan to rotate the staging certificates by Friday", kind="plan",
                                     created_at=datetime(2027, 1, 4, 9), valid_until=datetime(2027, 1, 8, 17))).id
    report = engine.dream(now=datetime(2027, 2, 1, 9))  # naive, as a simulation may pass it
    assert report.now == "2027-02-01T09:00:00+00:00" and report.forgotten["foresight"] == 1
    assert engine.get(plan).lifecycle.dormant


def test_what_a_session_writes_enters_its_working_memory_and_an_evicted_useful_item_is_promoted(engine):
    from mnemex.models import NewMemory, Provenance

    written = engine.memorize(NewMemory(content="The deploy script needs AWS_PROFILE=prod set", kind="fact",
                                        provenance=Provenance(session_id="s1"))).id
    assert engine.working.items("s1", utcnow()) == [written]
    created = utcnow() - timedelta(days=3)
    memories = [Memory(id=str(uuid.uuid4()), content=f"Fact number {i} about the billing service", project=PROJECT,
                       created_at=created, recorded_at=created, valid_from=created, importance=0.9 if i == 0 else 0.5)
                for i in range(10)]
    engine.import_memories(memories)
    engine.attend("s2", memories[:1], now=utcnow() - timedelta(hours=3))  # important, but long unused
    engine.attend("s2", memories[1:], now=utcnow())  # the tenth arrival evicts it: a promotion candidate
    assert memories[0].id not in engine.working.items("s2", utcnow())
    report = engine.dream(now=utcnow())
    assert report.working_promoted == 1 and engine.get(memories[0].id).lifecycle.tier == "semantic"
    assert engine.end_session("s2") == 9 and engine.working.items("s2", utcnow()) == []


def test_the_older_side_of_a_contradiction_goes_dormant_unless_it_is_a_truth_anchor(engine):
    older = _import(engine, "The API rate limit is 100 requests per minute", days=40)
    newer = _import(engine, "The API rate limit is 300 requests per minute", days=2)
    anchor = _import(engine, "Payments are always processed in EUR", days=60, pinned=True)
    rival = _import(engine, "Payments are processed in USD", days=1)
    engine.journal.add_relation(newer, older, "contradicts", 1.0)
    engine.journal.add_relation(rival, anchor, "contradicts", 1.0)
    report = engine.dream(now=utcnow())
    assert report.forgotten["contradiction"] == 1
    assert engine.get(older).lifecycle.dormant and not engine.get(newer).lifecycle.dormant
    assert not engine.get(anchor).lifecycle.dormant and not engine.get(rival).lifecycle.dormant
    op = next(o for o in engine.journal.ops(memory_id=older) if o.op == "dormant")
    assert op.detail["reason"] == f"contradiction: contradicted by the newer {newer}"


def test_a_strong_memory_captures_the_weak_ones_its_session_tagged_hours_before(engine):
    """Synaptic tagging and capture (seed 001): a weak memory (importance < 0.5) is tagged for 4 hours;
    a strong one (>= 0.7) stored in the same session within them raises its storage strength x1.3, once."""
    from mnemex.models import Provenance

    def note(text: str, hours: float, importance: float, session: str) -> str:
        return _import(engine, text, days=hours / 24, importance=importance,
                       provenance=Provenance(source="agent", session_id=session))

    weak = note("The flaky checkout test reads the TZ environment variable", 10, 0.3, "s1")
    too_early = note("Opened the checkout module to look around", 20, 0.3, "s1")
    elsewhere = note("The cart test also reads TZ", 9, 0.3, "s2")
    strong = note("Decision: every test runs with TZ=UTC, set in conftest.py", 8, 0.8, "s1")
    report = engine.dream(now=utcnow())
    assert report.captured == 1
    captured = engine.get(weak)
    assert captured.metadata["captured_by"] == strong and captured.lifecycle.storage == pytest.approx(1.3)
    assert all(engine.get(i).lifecycle.storage == 1.0 for i in (too_early, elsewhere, strong))
    assert any(o.op == "capture" and o.memory_id == weak for o in engine.journal.ops(limit=50))
    assert engine.dream(now=utcnow()).captured == 0  # once


def test_a_dream_and_a_sweep_run_with_the_cyclic_collector_held_off(engine, monkeypatch):
    """A full collection walks every object the process holds with the GIL held (up to 234 ms during a
    dream over 8,000 memories): the lifecycle's runs hold the collector off and give it back as it was."""
    import gc

    from mnemex.engine.lifecycle.quiet import background_run

    _import(engine, "The staging database is reset every Sunday night")
    seen = []
    scan, plan = engine.dreamer._scan, engine.lifecycle._scan
    monkeypatch.setattr(engine.dreamer, "_scan", lambda: seen.append(gc.isenabled()) or scan())
    monkeypatch.setattr(engine.lifecycle, "_scan", lambda now: seen.append(gc.isenabled()) or plan(now))
    assert gc.isenabled()
    engine.dream(now=utcnow())
    engine.sweep()
    assert seen and not any(seen) and gc.isenabled()
    with background_run():
        with background_run():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the outer hold still holds
    assert gc.isenabled()
    gc.disable()
    try:
        with background_run():
            pass
        assert not gc.isenabled()  # left as it was found
    finally:
        gc.enable()
