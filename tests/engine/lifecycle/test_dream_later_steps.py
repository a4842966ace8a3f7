"""The dream's later steps on the real engine (Qdrant Edge, the real model, SQLite): category
summaries made, left alone while their members stay the same, superseded when they change; concept
nodes merged and counted; the hit rate; the co-activation boost in the read path."""

from __future__ import annotations

import uuid

import pytest

from mnemex.config import Settings
from mnemex.config.dream import SummaryConfig
from mnemex.config.lifecycle import LifecycleConfig
from mnemex.engine.factory import build_engine
from mnemex.models import Memory, MemoryKind, MemoryStatus, utcnow
from tests.helpers import import_aged

PROJECT = "/work/shop"
CONVENTIONS = (
    "Use pnpm, never npm, in every workspace of the monorepo",
    "Database migrations are written with alembic and reviewed by two people",
    "Feature flags are named team_feature_yyyymm and removed after a quarter",
    "Every HTTP handler logs the request id it was given",
)


@pytest.fixture
def summarizing(tmp_path, embedder):
    settings = Settings(data_dir=tmp_path / "data",
                        lifecycle=LifecycleConfig(summaries=SummaryConfig(min_members=3)))
    eng = build_engine(settings, default_project=PROJECT, embedder=embedder)
    yield eng
    eng.close()


def _import(engine, content: str, *, kind=MemoryKind.CONVENTION, days: float = 3.0, **fields) -> str:
    return import_aged(engine, content, project=PROJECT, kind=kind, days=days, **fields)


def _summaries(engine):
    return [m for m in engine.export() if "summary_of" in m.metadata]


def test_a_large_category_gets_a_summary_that_is_superseded_when_its_members_change(summarizing):
    engine = summarizing
    members = [_import(engine, text) for text in CONVENTIONS[:3]]
    _import(engine, "The API rate limit is 300 requests per minute", kind=MemoryKind.FACT)  # a category of one

    report = engine.dream(now=utcnow())
    assert (report.summaries, report.summaries_refreshed) == (1, 0)
    (summary,) = _summaries(engine)
    assert summary.kind == MemoryKind.CONVENTION and summary.tags == ("summary",) and summary.project == PROJECT
    assert summary.content.startswith("Summary of the 3 current conventions in project shop:")
    assert all(engine.get(i).content in summary.content for i in members)
    assert all(engine.get(i).status == MemoryStatus.ACTIVE for i in members)  # members stay current
    linked = {r.dst for r in engine.journal.relations(summary.id, types=["elaborates"], direction="out")}
    assert linked == set(members)

    assert engine.dream(now=utcnow()).summaries == 0  # nothing changed: nothing rewritten

    added = _import(engine, CONVENTIONS[3], days=0.5)
    report = engine.dream(now=utcnow())
    assert (report.summaries, report.summaries_refreshed) == (1, 1)
    fresh = [m for m in _summaries(engine) if m.status == MemoryStatus.ACTIVE]
    assert len(fresh) == 1 and fresh[0].id != summary.id and fresh[0].supersedes == (summary.id,)
    assert CONVENTIONS[3] in fresh[0].content and fresh[0].metadata["members"] == 4
    old = engine.get(summary.id)
    assert old.status == MemoryStatus.SUPERSEDED and old.superseded_by == fresh[0].id  # kept, not deleted
    assert engine.get(added).status == MemoryStatus.ACTIVE


def test_a_summary_is_found_by_meaning_and_never_takes_a_members_lexical_place(summarizing):
    """A digest repeats its members' lines: as a BM25 document it matched most questions about any
    of them and pushed weak lexical matches out of the candidate pool (coding set 2 after a dream)."""
    from mnemex.config.retrieval import BM25_ONLY

    engine = summarizing
    members = [_import(engine, text) for text in CONVENTIONS[:3]]
    engine.dream(now=utcnow())
    (summary,) = _summaries(engine)
    lexical = [r.memory.id for r in engine.search("alembic migrations reviewed", limit=10, config=BM25_ONLY)]
    assert members[1] in lexical and summary.id not in lexical
    overview = [r.memory.id for r in engine.search("summary of the conventions in the shop project", limit=5)]
    assert summary.id in overview


def test_a_summary_keeps_within_its_budget_and_says_how_many_more(tmp_path, embedder):
    from mnemex.config.dream import SummaryConfig
    from mnemex.engine.lifecycle import summaries

    created = utcnow()
    members = [Memory(id=str(uuid.uuid4()), content=f"Convention {i}: " + "word " * 30, kind=MemoryKind.CONVENTION,
                      project=PROJECT, importance=0.5 + i / 100, created_at=created) for i in range(20)]
    cfg = SummaryConfig(max_chars=400, line_chars=60)
    category = summaries.category_of(members[0])
    text, listed = summaries.summary_text(category, summaries.ordered(members), max_chars=cfg.max_chars,
                                          line_chars=cfg.line_chars)
    assert len(text) <= 400 and 0 < len(listed) < 20
    assert text.endswith(f"(and {20 - len(listed)} more)") and listed[0] == members[19].id  # most important first


def test_near_identical_entity_names_make_one_concept_and_frequent_ones_are_schematic(engine):
    for i, entity in enumerate(("service:redis", "Redis", "redis", "service:Redis", "REDIS", "webhooks")):
        _import(engine, f"Note {i} about the cache and its eviction policy number {i}", kind=MemoryKind.NOTE,
                entities=(entity, "Web-Hook") if entity == "webhooks" else (entity,))
    _import(engine, "Python 3.12 is what CI runs", kind=MemoryKind.FACT, entities=("python 3.12",))
    _import(engine, "Python 3.11 is what production runs", kind=MemoryKind.FACT, entities=("python 3.11",))

    report = engine.dream(now=utcnow())
    # redis (5 memories, five spellings), webhooks + Web-Hook (one memory), python 3.12, python 3.11
    assert (report.concepts, report.concepts_merged, report.schematic) == (4, 5, 1)
    stats = engine.lifecycle_stats()["concepts"]
    assert stats["schematic_count"] == 1 and stats["schematic"][0]["memories"] == 5
    assert set(stats["schematic"][0]["names"]) == {"service:redis", "Redis", "redis", "service:Redis", "REDIS"}
    assert engine.journal.last_op("concepts").detail["schematic"] == stats["schematic"]


def test_concept_merging_is_by_normalised_name_and_keeps_different_numbers_apart():
    from mnemex.engine.lifecycle.concepts import concepts, normalised

    assert normalised("service:Web_Hooks") == normalised("web-hook") == "web hook"
    assert normalised("class") == "class"  # a double s is no plural
    found = concepts([("a", "PostgreSQL"), ("b", "Postgresql"), ("c", "postgres sql"), ("d", "svc8"), ("e", "svc9"),
                      ("f", "kubernetes"), ("g", "kubernetees")], merge_similarity=0.9, schematic_min=3)
    by_name = {c.name: c for c in found}
    assert len(found) == 4 and [c.memories for c in found] == [3, 2, 1, 1]
    assert found[0].schematic and not found[1].schematic
    assert {"svc8", "svc9"} <= set(by_name)  # 8 and 9: two services, however similar the strings
    paths = concepts([("a", "file:src/cart.py"), ("b", "file:src/carts.py"), ("c", "src/cart.py")],
                     merge_similarity=0.9, schematic_min=3)
    assert sorted(c.memories for c in paths) == [1, 2]  # one file under two keys; another file stays apart


def test_the_hit_rate_counts_recalls_that_followed_a_search_or_an_injection(summarizing):
    from mnemex.config.injection import InjectionSettings
    from mnemex.strategies import ContextStrategy
    from mnemex.strategies.context import ContextBuilder

    engine = summarizing
    a = _import(engine, "The payments service retries webhooks three times", kind=MemoryKind.FACT)
    b = _import(engine, "Staging deploys run from the release branch", kind=MemoryKind.FACT)
    found = engine.search("how often are webhooks retried?", limit=1)
    assert found[0].memory.id == a
    engine.recall([a])  # followed the search
    engine.recall([b])  # never offered
    builder = ContextBuilder(engine, InjectionSettings(), blocks=engine.blocks.render)
    packed = ContextStrategy().prompt_context(builder, project=PROJECT, session_id="s1",
                                             prompt="Which branch do staging deploys run from?", budget=400)
    assert b in packed.ids
    engine.recall([b])  # followed the injection
    hits = engine.lifecycle_stats()["hits"]
    assert hits == {"searches": 1, "injections": 1, "recalls": 3, "followed_recalls": 2, "hit_rate": 1.0}


def test_memories_recalled_together_lift_each_other_in_search_when_the_boost_is_on(summarizing):
    engine = summarizing
    top = _import(engine, "The payments service retries failed webhooks three times", kind=MemoryKind.FACT)
    others = [_import(engine, text, kind=MemoryKind.FACT) for text in (
        "Webhook signatures are checked with the shared secret from the vault",
        "The payments dashboard shows failed charges of the last week")]
    query = "payments webhooks retries"
    off = engine.retriever.config
    on = off.model_copy(update={"coactivation_boost": 1.0})
    before = [r.memory.id for r in engine.search(query, limit=3, config=on)]  # nothing wired yet: as if off
    assert before == [r.memory.id for r in engine.search(query, limit=3, config=off)] and before[0] == top
    low = before[2]
    # what a dream writes after ten recalls of the two together (test_dream.py shows it writing one)
    engine.journal.add_relation(top, low, "related_to", 0.65, {"co_activations": 10})
    assert [r.memory.id for r in engine.search(query, limit=3, config=off)] == before  # off: unchanged
    boosted = engine.search(query, limit=3, config=on)
    assert [r.memory.id for r in boosted] == [top, low, before[1]]
    assert any("co-activated" in why for why in boosted[1].why)
