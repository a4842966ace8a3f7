"""Embedding provider: offline default model, identity kept with the store, lazy load, query cache."""

from __future__ import annotations

import pytest

from mnemex.embed.dense import (
    DEFAULT_MODEL_SHA256,
    FastEmbedder,
    default_model_file,
    sha256_of,
)
from mnemex.embed.sparse import SparseEncoder, expand_code_tokens
from mnemex.engine.factory import build_engine
from mnemex.engine.service import MemoryEngine
from mnemex.errors import ModelMismatchError
from mnemex.projects import detect_project
from mnemex.store.edge import EdgeStore


def test_default_model_is_the_verified_offline_file():
    assert sha256_of(default_model_file()) == DEFAULT_MODEL_SHA256


def test_model_loads_lazily_and_embeds_offline(tmp_path, settings):
    emb = FastEmbedder(cache_dir=tmp_path / "models")
    engine = build_engine(settings, default_project="/p", embedder=emb)
    try:
        assert emb.loaded is False  # opening a store does not load the model
        assert engine.upkeep.stats()["model_loaded"] is False
        vec = emb.embed_query("where is the deploy script")
        assert emb.loaded and len(vec) == 384
        assert abs(sum(x * x for x in vec) - 1.0) < 1e-3
    finally:
        engine.close()


def test_query_embeddings_are_cached(embedder, monkeypatch):
    a = embedder.embed_query("a query that is asked twice")
    calls = []
    real = embedder._model.query_embed
    monkeypatch.setattr(embedder._model, "query_embed", lambda *args, **kw: calls.append(1) or real(*args, **kw))
    b = embedder.embed_query("a query that is asked twice")
    assert b == a and calls == []  # from the cache: the model was not asked again
    embedder.embed_query("a query asked once")
    assert calls == [1]


def test_store_made_by_another_model_is_refused(tmp_path, embedder):
    store = EdgeStore(tmp_path / "s", dim=384)
    store.write_identity({"model": "BAAI/bge-small-en-v1.5", "dim": 384, "variant": ""})
    with pytest.raises(ModelMismatchError) as err:
        MemoryEngine(store=store, dense=embedder, sparse=SparseEncoder())
    assert "BAAI/bge-small-en-v1.5" in str(err.value) and "embedding.model" in str(err.value)
    store.close()


def test_new_store_records_the_identity(tmp_path, embedder):
    store = EdgeStore(tmp_path / "s", dim=384)
    MemoryEngine(store=store, dense=embedder, sparse=SparseEncoder()).close()
    again = EdgeStore(tmp_path / "s", dim=384)
    try:
        assert again.read_identity()["model"] == embedder.identity.model
    finally:
        again.close()


def test_code_tokens_are_split_like_developers_write_them():
    text = expand_code_tokens("call parseConfigFile on HTTPServer")
    for part in ("parse", "Config", "File", "HTTP", "Server"):
        assert part in text.split()


def test_project_key_is_the_git_root_else_the_directory(tmp_path):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "src" / "pkg").mkdir(parents=True)
    assert detect_project(repo / "src" / "pkg") == str(repo.resolve())
    loose = tmp_path / "loose"
    loose.mkdir()
    assert detect_project(loose) == str(loose.resolve())
