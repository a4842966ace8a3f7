"""Export then import reproduces every memory exactly: ids, content, times, status, links."""

from __future__ import annotations

import json

import qdrant_edge as qe

from mnemex.engine.factory import build_engine
from mnemex.models import Memory, MemoryKind, NewMemory, Provenance, Scope


def _fill(engine):
    engine.memorize(NewMemory(content="The API server listens on port 8080", tags=("api", "ports")))
    engine.memorize(NewMemory(content="The API server listens on port 9090"))  # supersedes the first
    made = engine.memorize(NewMemory(content="Use the staging cluster for load tests", kind=MemoryKind.CONVENTION))
    engine.forget(made.id, reason="cluster retired")
    engine.memorize(NewMemory(content="The user prefers concise answers with code first", scope=Scope.GLOBAL,
                              kind=MemoryKind.PREFERENCE, pinned=True, importance=0.9,
                              provenance=Provenance(source="user", session_id="s1", speaker="dana"),
                              metadata={"note": "ünïcode ✓"}))


def test_round_trip_is_exact(settings, embedder, tmp_path):
    first = build_engine(settings, default_project="/work/proj", embedder=embedder)
    try:
        _fill(first)
        lines = [json.dumps(m.model_dump(mode="json"), ensure_ascii=False) for m in first.export()]
    finally:
        first.close()
    assert len(lines) == 4
    second_settings = settings.model_copy(update={"data_dir": tmp_path / "other"})
    second = build_engine(second_settings, default_project="/elsewhere", embedder=embedder)
    try:
        assert second.import_memories(Memory.model_validate_json(line) for line in lines) == 4
        again = sorted(json.dumps(m.model_dump(mode="json"), ensure_ascii=False) for m in second.export())
        assert again == sorted(lines)
        stats = second.upkeep.stats()
        assert (stats["memories_total"], stats["memories_current"]) == (4, 2)
        hits = second.search("which port", filter=second.default_filter(project="/work/proj"))
        assert hits[0].memory.content.endswith("9090")
    finally:
        second.close()


def test_import_is_idempotent(settings, embedder):
    engine = build_engine(settings, default_project="/work/proj", embedder=embedder)
    try:
        _fill(engine)
        memories = list(engine.export())
        engine.import_memories(memories)
        assert engine.upkeep.stats()["memories_total"] == 4
    finally:
        engine.close()


def test_timeline_around_an_anchor(settings, embedder):
    from datetime import datetime, timedelta, timezone

    engine = build_engine(settings, default_project="/work/proj", embedder=embedder)
    t0 = datetime(2026, 3, 1, tzinfo=timezone.utc)
    try:
        outs = engine.memorize_many([NewMemory(content=f"Step {i}: ran migration batch {i} of the orders table",
                                               kind=MemoryKind.EPISODE, created_at=t0 + timedelta(hours=i))
                                     for i in range(8)])
        ids = [o.id for o in outs]
        earlier, anchor, later = engine.explore.timeline(ids[4], before=2, after=2)
        assert anchor.id == ids[4]
        assert [m.id for m in earlier] == ids[2:4]
        assert [m.id for m in later] == ids[5:7]
        earlier, _, later = engine.explore.timeline(ids[0], before=3, after=1)
        assert earlier == [] and [m.id for m in later] == [ids[1]]
    finally:
        engine.close()


def test_reindex_rebuilds_search_vectors_and_payload_layout_and_nothing_else(settings, embedder, monkeypatch):
    """A store written by an older tokenizer (no whole-name tokens) finds a pasted code name only
    after `reindex`, and a payload of the older full layout is rewritten without its defaults;
    memories, their count, their dense vectors and the journal stay as they were."""
    import uuid

    from mnemex.config.retrieval import BM25_ONLY

    engine = build_engine(settings, default_project="/work/proj", embedder=embedder)
    try:
        current = engine.writer._sparse
        monkeypatch.setattr(engine.writer, "_sparse", _OldSparse(current))
        target = Memory(id=str(uuid.uuid4()), content="The beat task poll_carrier_status runs every 5 minutes.",
                        kind=MemoryKind.FACT, project="/work/proj")
        other = Memory(id=str(uuid.uuid4()), content="Poll the carrier status page when the carrier API is down.",
                       kind=MemoryKind.FACT, project="/work/proj")
        engine.import_memories([target, other])
        monkeypatch.setattr(engine.writer, "_sparse", current)
        full = {**target.model_dump(mode="json"), **engine.store._live().retrieve(
            [target.id], with_payload=True, with_vector=False)[0].payload}  # as a store of the old layout has it
        engine.store._do("update", qe.UpdateOperation.overwrite_payload([target.id], full), dirty=[target.id])
        assert "lifecycle" in _raw_payload(engine, target.id)
        assert engine.search("pollcarrierstatus", limit=2, config=BM25_ONLY) == []  # old vectors lack the name
        before = {m.id: m for m in engine.export()}
        dense_before = {h.id: h.dense for h in engine.store.retrieve(list(before), with_vectors=True)}
        history_before = engine.explore.history(target.id)
        seen = []
        assert engine.upkeep.reindex(progress=lambda done, total: seen.append((done, total))) == 2
        assert seen[-1] == (2, 2)
        assert [r.memory.id for r in engine.search("pollcarrierstatus", limit=2, config=BM25_ONLY)] == [target.id]
        assert {m.id: m for m in engine.export()} == before
        assert not {"lifecycle", "metadata", "confidence"} & set(_raw_payload(engine, target.id))  # current layout
        assert {h.id: h.dense for h in engine.store.retrieve(list(before), with_vectors=True)} == dense_before
        assert engine.explore.history(target.id) == history_before
        assert engine.upkeep.reindex(dense=True) == 2  # re-embedding gives the same vectors for the same model
        after = {h.id: h.dense for h in engine.store.retrieve(list(before), with_vectors=True)}
        assert all(abs(x - y) < 1e-5 for k in after for x, y in zip(after[k], dense_before[k]))
    finally:
        engine.close()


def _raw_payload(engine, memory_id: str) -> dict:
    return dict(engine.store._live().retrieve([memory_id], with_payload=True, with_vector=False)[0].payload)


class _OldSparse:
    """The sparse encoder as it was before whole-name tokens: camelCase parts only."""

    def __init__(self, current):
        self._current = current

    def embed_document(self, text):
        from mnemex.embed.sparse import code_names
        from mnemex.store.base import SparseVec

        parts, _ = code_names(text)
        vec = self._current._bm25.embed_document(f"{text} {' '.join(parts)}" if parts else text)
        return SparseVec(tuple(vec.indices), tuple(vec.values))


def test_a_store_of_the_older_payload_layout_is_upgraded_in_the_background(settings, embedder):
    """Stores written before payload layout 2 have pinned memories without their `marks`: the
    engine rewrites them once, in the background, and records the new layout."""
    from mnemex.engine.factory import build_engine
    from mnemex.models import MemoryFilter, NewMemory

    engine = build_engine(settings, default_project="/p", embedder=embedder)
    kept = engine.memorize(NewMemory(content="Releases are cut from the release branch only", pinned=True))
    engine.memorize(NewMemory(content="The staging cluster runs in the Frankfurt region"))
    payload = engine.store._live().retrieve([kept.id], with_payload=True, with_vector=False)[0].payload
    import qdrant_edge as qe
    engine.store._live().update(qe.UpdateOperation.set_payload([kept.id], {**payload, "marks": []}))  # as layout 1 left it
    engine.store.write_identity({**engine.store.read_identity(), "payload": 1})
    assert engine.store.count(MemoryFilter(pinned=True)) == 0
    engine.close()
    engine = build_engine(settings, default_project="/p", embedder=embedder)
    try:
        engine.upkeep._payload_upgrade.join(30)
        assert [h.id for h in engine.store.scroll(MemoryFilter(pinned=True))[0]] == [kept.id]
        assert engine.store.read_identity()["payload"] == 2
    finally:
        engine.close()


def test_reindex_rebuilds_a_float32_store_in_half_precision_and_keeps_every_memory(settings, embedder):
    """A store made before half-precision vectors opens and serves as it is; `rebuild_outdated`
    (what `mnemex reindex` ends with) rebuilds it in the current precision, memories unchanged."""
    from mnemex.store import edge as edge_module

    settings.store_dir.parent.mkdir(parents=True, exist_ok=True)
    qe.EdgeShard.create(str(settings.store_dir), edge_module._config(embedder.identity.dim, "float32")).close()
    engine = build_engine(settings, default_project="/work/proj", embedder=embedder)
    try:
        for text in ("Deploys go through ArgoCD from the main branch.", "The billing worker retries three times."):
            engine.memorize(NewMemory(content=text, kind=MemoryKind.FACT))
        before = {m.id: m for m in engine.export()}
        assert edge_module.stored_datatype(settings.store_dir) == "float32"
        assert engine.upkeep.rebuild_outdated() is True
        assert edge_module.stored_datatype(settings.store_dir) == "float16"
        assert engine.upkeep.rebuild_outdated() is False  # nothing left to do
        assert {m.id: m for m in engine.export()} == before
        assert engine.search("how do we deploy", limit=1)[0].memory.content.startswith("Deploys go through ArgoCD")
    finally:
        engine.close()
