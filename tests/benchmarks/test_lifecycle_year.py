"""The year harness's own bookkeeping (benchmarks/lifecycle_year.py), without an engine: which
memory holds which item, and the embedding cache. Pure logic, so a fake embedder."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from benchmarks.lifecycle_year import CachedEmbedder, Replay
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
