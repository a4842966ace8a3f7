"""Query expansion through the memory vocabulary (embed/vocabulary.py), with the real model."""

from __future__ import annotations

import pytest

from mnemex.config.retrieval import DEFAULT
from mnemex.embed.sparse import SparseEncoder, plain_words
from mnemex.embed.vocabulary import Vocabulary
from mnemex.models import MemoryKind, NewMemory

MEMORIES = [
    "I applied for three jobs at design studios last month.",
    "Our cat knocked the plant off the windowsill again.",
    "The soup needs more salt and a little lemon.",
]


@pytest.fixture
def sparse() -> SparseEncoder:
    return SparseEncoder()


def test_plain_words_skip_code_names_and_short_words() -> None:
    words = plain_words("Would she pursue writing? See poll_carrier_status in api/routes.py, parseConfig, DB")
    assert words == ["would", "she", "pursue", "writing", "see"]


def test_expansion_points_at_memory_words_near_in_meaning(embedder, sparse) -> None:
    voc = Vocabulary(embedder, sparse)
    assert voc.add(MEMORIES) > 0
    assert "jobs" in voc and "career" not in voc
    jobs = sparse.word_token("jobs")
    out = voc.expand(plain_words("career plans"), floor=0.6, per_word=3, weight=0.5)
    assert jobs in out
    assert 0.3 <= out[jobs] <= 0.5                      # weight x cosine ('career'~'jobs' is about 0.75)
    assert sparse.word_token("soup") not in out          # unrelated words stay out
    assert voc.expand(plain_words("career plans"), floor=0.99, per_word=3, weight=0.5) == {}
    assert voc.expand(plain_words("career plans"), floor=0.6, per_word=3, weight=0.5, exclude=[jobs]).get(jobs) is None
    # a query word never expands to its own token, and code names are never expanded
    assert sparse.word_token("jobs") not in voc.expand(plain_words("jobs"), floor=0.0, per_word=5, weight=0.5)
    assert voc.expand(plain_words("poll_carrier_status parseConfig"), floor=0.0, per_word=5, weight=0.5) == {}


def test_at_most_per_word_expansions(embedder, sparse) -> None:
    voc = Vocabulary(embedder, sparse)
    voc.add(["jobs job career careers work working employment profession occupation"])
    out = voc.expand(plain_words("vocation"), floor=0.0, per_word=2, weight=0.5)
    assert 1 <= len(out) <= 2


def test_persisted_and_reset_for_another_model(tmp_path, embedder, sparse) -> None:
    path = tmp_path / "voc.sqlite3"
    voc = Vocabulary(embedder, sparse, path)
    voc.add(MEMORIES)
    voc.mark_complete()
    before = voc.expand(plain_words("career"), floor=0.6, per_word=3, weight=0.5)
    size = len(voc)
    voc.close()

    again = Vocabulary(embedder, sparse, path)
    assert len(again) == size and again.complete
    after = again.expand(plain_words("career"), floor=0.6, per_word=3, weight=0.5)
    assert after.keys() == before.keys()
    assert all(abs(after[k] - before[k]) < 1e-2 for k in after)   # float16 on disk
    again.close()

    class OtherModel:
        identity = type(embedder.identity)(model="other/model", dim=embedder.identity.dim)

        def embed_documents(self, texts):
            return embedder.embed_documents(texts)

    other = Vocabulary(OtherModel(), sparse, path)
    assert len(other) == 0 and not other.complete   # vectors of another model are never mixed in
    other.close()


def test_refresh_reads_what_another_process_added_or_removed(tmp_path, embedder, sparse) -> None:
    """A daemon's successor opens the vocabulary early and reads the daemon's later words at take-over."""
    path = tmp_path / "voc.sqlite3"
    writer = Vocabulary(embedder, sparse, path)
    writer.add(MEMORIES[:1])
    reader = Vocabulary(embedder, sparse, path)
    size = len(reader)
    assert size == len(writer) and "salt" not in reader
    writer.add(MEMORIES[1:])
    writer.mark_complete()
    assert "salt" not in reader and not reader.complete
    assert reader.refresh() == len(writer) - size
    assert len(reader) == len(writer) and "salt" in reader and reader.complete
    assert reader.expand(plain_words("career"), floor=0.6, per_word=3, weight=0.5).keys() == \
        writer.expand(plain_words("career"), floor=0.6, per_word=3, weight=0.5).keys()
    jobs = sparse.word_token("jobs")
    assert writer.prune([MEMORIES[0]], in_use=lambda token: token != jobs) == 1
    reader.refresh()  # a word gone: read whole again
    assert "jobs" not in reader and len(reader) == len(writer)
    assert reader.refresh() == 0
    writer.close()
    reader.close()


def test_prune_drops_words_no_memory_holds(embedder, sparse) -> None:
    voc = Vocabulary(embedder, sparse)
    voc.add(MEMORIES)
    jobs = sparse.word_token("jobs")
    removed = voc.prune([MEMORIES[0]], in_use=lambda token: token != jobs)
    assert removed == 1 and "jobs" not in voc and "salt" in voc
    assert jobs not in voc.expand(plain_words("career"), floor=0.6, per_word=3, weight=0.5)


def test_search_finds_a_memory_sharing_no_word_with_the_query(engine) -> None:
    for text in MEMORIES:
        engine.memorize(NewMemory(content=text, kind=MemoryKind.EPISODE))
    target = "jobs at design studios"
    on = engine.search("what career moves", limit=3)
    off = engine.search("what career moves", limit=3, config=DEFAULT.model_copy(update={"expansion": False}))
    hit_on = next(r for r in on if target in r.memory.content)
    assert "bm25" in hit_on.why                       # BM25 matched it through "jobs"
    hit_off = next((r for r in off if target in r.memory.content), None)
    assert hit_off is None or "bm25" not in hit_off.why
    assert on[0].memory.content.startswith("I applied")


def test_purge_removes_the_words_of_purged_content(engine) -> None:
    kept = engine.memorize(NewMemory(content="The invoice importer runs nightly.", kind=MemoryKind.EPISODE))
    gone = engine.memorize(NewMemory(content="Zanzibar holiday plans with the cousins.", kind=MemoryKind.EPISODE))
    assert "zanzibar" in engine.vocabulary and "cousins" in engine.vocabulary
    engine.forget(gone.id, purge=True)
    assert "zanzibar" not in engine.vocabulary and "cousins" not in engine.vocabulary
    assert "invoice" in engine.vocabulary and kept.id


def test_an_existing_store_gets_its_vocabulary_built(settings, embedder) -> None:
    from mnemex.engine.factory import build_engine

    eng = build_engine(settings, default_project="/p", embedder=embedder)
    for text in MEMORIES:
        eng.memorize(NewMemory(content=text, kind=MemoryKind.EPISODE))
    eng.close()
    settings.vocabulary_path.unlink()                 # as a store from before the vocabulary existed
    for suffix in ("-wal", "-shm"):
        settings.vocabulary_path.with_name(settings.vocabulary_path.name + suffix).unlink(missing_ok=True)

    eng = build_engine(settings, default_project="/p", embedder=embedder)
    try:
        assert eng.upkeep.wait_vocabulary(timeout=60)
        assert eng.vocabulary.complete and "jobs" in eng.vocabulary and "windowsill" in eng.vocabulary
    finally:
        eng.close()
    eng = build_engine(settings, default_project="/p", embedder=embedder)   # no rebuild the next time
    try:
        assert eng.upkeep._vocabulary_build is None and "jobs" in eng.vocabulary
    finally:
        eng.close()


def test_reindex_relearns_the_vocabulary(engine) -> None:
    for text in MEMORIES:
        engine.memorize(NewMemory(content=text, kind=MemoryKind.EPISODE))
    engine.vocabulary.clear()
    assert "jobs" not in engine.vocabulary
    engine.upkeep.reindex()
    assert "jobs" in engine.vocabulary and engine.vocabulary.complete
    stats = engine.upkeep.stats()
    assert stats["vocabulary_words"] == len(engine.vocabulary) > 0 and stats["vocabulary_complete"]


def test_a_failing_vocabulary_never_fails_a_write(engine, monkeypatch) -> None:
    def broken(texts):
        raise OSError("disk full")

    monkeypatch.setattr(engine.vocabulary, "add", broken)
    out = engine.memorize(NewMemory(content="The billing worker retries webhooks five times.", kind=MemoryKind.EPISODE))
    assert out.id is not None
    assert engine.search("billing webhooks retries", limit=1)[0].memory.id == out.id
