"""The year harness's own bookkeeping (benchmarks/lifecycle_year.py), without an engine: which
memory holds which item, the embedding cache and the lifecycle step. Pure logic, so fakes."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from benchmarks.lifecycle_year import CachedEmbedder, Replay, lifecycle_step, row_line
from benchmarks.year_data import Item
from mnemex.models import WriteAction, WriteOutcome

T0 = datetime(2026, 3, 1, tzinfo=UTC)


class CountingEmbedder:
    identity = "fake"

    def __init__(self) -> None:
        self.calls: list[str] = []

    def embed_documents(self, texts):
        self.calls += list(texts)
        return [[float(len(t)), 1.0] for t in texts]

    def embed_query(self, text):
        self.calls.append(text)
        return [0.5, float(len(text))]


def test_labels_follow_the_item_that_last_wrote_a_memory() -> None:
    old = Item("i0", T0, "billing-api listens on port 8080.", "fact", "s", "port:billing-api", "8080",
               ends=T0 + timedelta(days=30))
    new = Item("i1", T0 + timedelta(days=30), "billing-api moved to port 8123.", "fact", "s",
               "port:billing-api", "8123")
    chat = Item("i2", T0, "ok, thanks", "noise", "s")
    replay = Replay({i.key: i for i in (old, new, chat)})
    replay.record(old, WriteOutcome(action=WriteAction.CREATED, id="m1"))
    replay.record(chat, WriteOutcome(action=WriteAction.CREATED, id="m2"))
    assert replay.label("m1", T0 + timedelta(days=1)) == "valid"
    assert replay.label("m1", T0 + timedelta(days=31)) == "stale"
    replay.record(new, WriteOutcome(action=WriteAction.UPDATED, id="m1"))  # rewritten in place: now the new fact
    assert replay.label("m1", T0 + timedelta(days=31)) == "valid"
    replay.record(chat, WriteOutcome(action=WriteAction.SKIPPED, affected_ids=("m1",)))  # a skip changes no content
    assert replay.label("m1", T0 + timedelta(days=31)) == "valid" and replay.ids["i2"] == ["m1"]
    assert replay.label("m2", T0) == "noise" and replay.label("theme", T0) == "engine"
    assert replay.actions == {"created": 2, "updated": 1, "skipped": 1}


def test_the_embedding_cache_survives_a_restart_and_keeps_documents_and_queries_apart(tmp_path: Path) -> None:
    inner = CountingEmbedder()
    cache = CachedEmbedder(inner, tmp_path / "v.npz")
    cache.prefill(["alpha", "beta", "alpha"], ["alpha?"])
    assert sorted(inner.calls) == ["alpha", "alpha?", "beta"]
    again = CachedEmbedder(CountingEmbedder(), tmp_path / "v.npz")
    assert again.embed_documents(["beta", "alpha"]) == [[4.0, 1.0], [5.0, 1.0]]
    assert again.embed_query("alpha?") == [0.5, 6.0]
    assert again.inner.calls == [] and again.misses == 0
    assert again.embed_query("alpha") == [0.5, 5.0] and again.misses == 1  # a query is not a document


class FakeEngine:
    """Just what the lifecycle step calls: search, sweep and, when given, dream."""

    def __init__(self, dream=None):
        self.searched = 0
        self.swept = 0
        if dream is not None:
            self.dream = dream

    def search(self, query, *, limit, now):
        self.searched += 1
        time.sleep(0.001)
        return []

    def sweep(self):
        self.swept += 1
        time.sleep(0.02)
        return "swept"


def test_the_lifecycle_step_says_when_dream_is_missing_and_survives_a_failing_dream() -> None:
    plain = FakeEngine()
    none = lifecycle_step(plain, "none", T0, ["q"], alone_s=0.01)
    assert plain.swept == 0 and "cycle_s" not in none and none["alone"]["searches"] > 0
    missing = lifecycle_step(plain, "dream", T0, ["q"], alone_s=0.01)
    assert missing["dream"] == "not available" and plain.swept == 1 and missing["during"]["searches"] > 0

    def broken(*, now):
        assert now == T0
        raise RuntimeError("cluster step failed")

    failing = FakeEngine(dream=broken)
    out = lifecycle_step(failing, "dream", T0, ["q"], alone_s=0.01)
    assert out["dream_error"] == "RuntimeError: cluster step failed" and failing.swept == 1
    assert "dream: not available" not in row_line({"at": "2026-03-31", "memorized": 1, "before": COUNTS,
                                                   "ask_before": ASKED, "step": out})
    assert "cluster step failed" in row_line({"at": "2026-03-31", "memorized": 1, "before": COUNTS,
                                              "ask_before": ASKED, "step": out})


def test_the_lifecycle_step_starts_from_a_flushed_store_and_counts_what_it_writes(tmp_path) -> None:
    """As the daemon flushes when no call comes before it dreams, the step flushes what the replay
    left unflushed before its timed part (reported apart), and reports the points the run wrote."""
    from mnemex.store.edge import EdgeStore
    from tests.store.test_store import axis, point, sparse

    store = EdgeStore(tmp_path / "shard", dim=8)
    calls = []

    class Upkeep:
        def flush_pending(self):
            calls.append(("flush", store.unflushed))
            return store.flush_pending()

    def dream(*, now):
        calls.append(("dream", store.unflushed))
        store.upsert([point(n, axis(1.0, n / 10), sparse(t1=1.0)) for n in (3, 4, 5)])

    engine = FakeEngine(dream=dream)
    engine.upkeep, engine.store = Upkeep(), store
    try:
        store.upsert([point(n, axis(1.0, n / 10), sparse(t1=1.0)) for n in (1, 2)])
        out = lifecycle_step(engine, "dream", T0, ["q"], alone_s=0.01)
    finally:
        store.close()
    assert calls == [("flush", 2), ("dream", 0)]
    assert out["idle_flush"]["points"] == 2 and out["written"] == 3 and out["flush_ms"] == []
    line = row_line({"at": "2026-03-31", "memorized": 1, "before": COUNTS, "ask_before": ASKED, "step": out})
    assert "3 points written" in line and "idle flush before: 2 points" in line


COUNTS = {"store": 1, "valid": 1, "active": 1, "active_holds": {"stale": 0, "noise": 0, "tool": 0}}
ASKED = {"questions": 1, "recall5": 1.0, "stale5": 0.0, "noise5": 0.0}


def test_the_lifecycle_also_runs_every_few_days_between_checkpoints_never_beside_one() -> None:
    from datetime import datetime, timezone

    from benchmarks.lifecycle_year import between

    ends = [datetime(2026, 1, 31, 23, 59, tzinfo=timezone.utc), datetime(2026, 2, 28, 23, 59, tzinfo=timezone.utc)]
    days = [t.day for t in between(ends, 7)]
    assert days == [7, 14, 21, 28, 4, 11, 18, 25]  # Feb 28 is the checkpoint itself
    assert between(ends, 0) == []


def test_each_cycle_counts_noise_and_answers_and_says_what_a_dream_moved() -> None:
    from types import SimpleNamespace

    from benchmarks.lifecycle_year import _next, cycle_changes, cycle_view, noise5
    from benchmarks.year_data import Question

    items = [Item("i0", T0, "billing-api listens on port 8080.", "fact", "s", "port:billing-api", "8080"),
             Item("i1", T0, "ok, thanks", "noise", "s"), Item("i2", T0, "pytest -q passed", "tool", "s")]
    replay = Replay({i.key: i for i in items})
    for n, item in enumerate(items):
        replay.record(item, WriteOutcome(action=WriteAction.CREATED, id=f"m{n}"))
    text = {f"m{n}": item.text for n, item in enumerate(items)}
    shown = {"port": ["m0", "m1", "m2"], "chat": ["m1"]}
    memory = lambda i: SimpleNamespace(id=i, content=text[i], status=SimpleNamespace(value="active"),  # noqa: E731
                                       lifecycle=SimpleNamespace(dormant=i == "m0", tier=None))

    class Engine:
        def search(self, text, limit, now):
            return [SimpleNamespace(memory=memory(i)) for i in shown[text][:limit]]

        def recall(self, ids, touch):
            return [memory(i) for i in ids]

    questions = [Question(T0, text, "billing-api", "8080", ("i0",), "fact") for text in ("port", "chat")]
    assert noise5(Engine(), questions, T0, replay) == 3 / 4  # m1 twice and m2, of four shown
    assert noise5(Engine(), [], T0, replay) == 0.0
    before = cycle_view(Engine(), questions, T0, replay)
    assert before["hits"] == 1 and before["found"] == {"port": True, "chat": False}
    # a dream puts the answer to sleep and a chatter line takes its place
    shown["port"] = ["m1", "m2"]
    after = cycle_view(Engine(), questions, T0, replay)
    assert after["hits"] == 0 and after["noise5"] == 1.0
    changes = cycle_changes(Engine(), before, after)
    assert changes == [{"question": "port", "lost_answer": True,
                        "left": ["[valid] billing-api listens on port 8080. (dormant)"], "came": []}]
    checkpoints = [T0 + timedelta(days=30), T0 + timedelta(days=60)]
    assert _next(checkpoints, T0 + timedelta(days=31)) == checkpoints[1]
    assert _next(checkpoints, T0 + timedelta(days=90)) == checkpoints[1]  # past the last: the last
