"""RemoteStore-only tests, on qdrant-client's in-process mode (memory or a local path).

The behaviour shared with Edge is tested on both backends in test_store.py.
"""

from __future__ import annotations

import subprocess
import sys
import uuid

import pytest
from qdrant_client import QdrantClient, models

from mnemex.errors import ConfigError, ModelMismatchError
from mnemex.models import Memory, MemoryFilter, SparseVec, ValidityMode
from mnemex.store import StoredPoint, VectorQuery, open_store
from mnemex.store.remote import IDENTITY_KEY, RemoteStore

DIM = 8
TIMELINE = MemoryFilter(validity=ValidityMode.TIMELINE)


def points(n: int) -> list[StoredPoint]:
    return [StoredPoint(Memory(id=str(uuid.UUID(int=i + 1)), content=f"point {i}", metadata={"i": i}),
                        [1.0, i / n] + [0.0] * (DIM - 2), SparseVec((i,), (1.0,))) for i in range(n)]


def test_store_package_does_not_import_qdrant_client():
    code = ("import sys, mnemex.store; "
            "assert 'qdrant_client' not in sys.modules, 'qdrant_client imported'")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stderr


def test_open_store_picks_remote_when_url_is_set(tmp_path):
    store = open_store(url=":memory:", api_key=None, path=tmp_path / "unused", collection="c1", dim=DIM)
    try:
        assert isinstance(store, RemoteStore)
        store.upsert(points(3))
        assert store.count(TIMELINE) == 3
    finally:
        store.close()
        store.close()
    assert not (tmp_path / "unused").exists()


def test_remote_store_needs_url_or_client():
    with pytest.raises(ConfigError):
        RemoteStore(None, None, "c1", DIM)


def test_collection_layout_and_foreign_metadata_kept():
    client = QdrantClient(":memory:")
    client.create_collection("mem", vectors_config={"dense": models.VectorParams(size=DIM, distance=models.Distance.COSINE)},
                             sparse_vectors_config={"bm25": models.SparseVectorParams(modifier=models.Modifier.IDF)},
                             metadata={"owner": "ops"})
    store = RemoteStore(None, None, "mem", DIM, client=client)
    store.write_identity({"model": "m", "dim": DIM})
    info = client.get_collection("mem")
    assert info.config.metadata["owner"] == "ops"
    assert IDENTITY_KEY in info.config.metadata
    assert store.count(TIMELINE) == 0  # the identity is not a point

    client2 = QdrantClient(":memory:")
    fresh = RemoteStore(None, None, "mem", DIM, client=client2)
    params = client2.get_collection("mem").config.params
    assert params.vectors["dense"].size == DIM
    assert params.vectors["dense"].distance == models.Distance.COSINE
    assert params.sparse_vectors["bm25"].modifier == models.Modifier.IDF
    fresh.close()
    store.close()


def test_existing_collection_with_another_dim_is_rejected():
    client = QdrantClient(":memory:")
    RemoteStore(None, None, "mem", DIM, client=client)
    with pytest.raises(ModelMismatchError):
        RemoteStore(None, None, "mem", DIM * 2, client=client)


def test_points_and_identity_persist_with_the_collection(tmp_path):
    client = QdrantClient(path=str(tmp_path / "local"))
    store = RemoteStore(None, None, "mem", DIM, client=client)
    store.upsert(points(5))
    store.write_identity({"model": "m", "dim": DIM})
    store.close()  # a client passed in stays open: the caller owns it
    client.close()

    client = QdrantClient(path=str(tmp_path / "local"))
    store = RemoteStore(None, None, "mem", DIM, client=client)
    try:
        assert store.read_identity() == {"model": "m", "dim": DIM}
        assert store.count(TIMELINE) == 5
        dense = store.query(VectorQuery(dense=[1.0] + [0.0] * (DIM - 1), filter=TIMELINE, limit=3))
        assert [h.memory.metadata["i"] for h in dense] == [0, 1, 2]  # nearest first
        sparse = store.query(VectorQuery(sparse=SparseVec((4,), (1.0,)), filter=TIMELINE, limit=3))
        assert [h.memory.metadata["i"] for h in sparse] == [4]  # the one point holding token 4
    finally:
        client.close()
