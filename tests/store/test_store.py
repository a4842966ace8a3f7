"""Store tests on real engines, no mocks.

The contract tests run on both backends through the parametrized `store` fixture:
Qdrant Edge in a temp dir and qdrant-client's in-process mode. Edge-only behaviour
(persistence, the process lock, compaction) follows; remote-only tests are in test_remote.py.
The store speaks Memory: points go in as memories with their vectors and come out as hits.
"""

from __future__ import annotations

import random
import subprocess
import sys
import textwrap
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone

import pytest

from mnemex.errors import (
    InvalidInputError,
    ModelMismatchError,
    NotFoundError,
    StoreLockedError,
)
from mnemex.models import (
    Memory,
    MemoryFilter,
    MemoryKind,
    MemoryStatus,
    Provenance,
    Scope,
    SparseVec,
    ValidityMode,
)
from mnemex.store import EdgeStore, StoredPoint, VectorQuery, open_store

DIM = 8
NOW = float(int(time.time()))  # whole seconds: datetimes round-trip it exactly


def axis(*weights: float) -> list[float]:
    """An 8-d dense vector from its first components."""
    return list(weights) + [0.0] * (DIM - len(weights))


def sparse(**tokens: float) -> SparseVec:
    """A sparse vector from t<index>=value keywords, e.g. sparse(t100=1.0)."""
    items = sorted((int(k[1:]), v) for k, v in tokens.items())
    return SparseVec(tuple(i for i, _ in items), tuple(v for _, v in items))


def pid(n: int) -> str:
    return str(uuid.UUID(int=n))


def ts(offset: float) -> float:
    return NOW + offset


def at(offset: float) -> datetime:
    return datetime.fromtimestamp(ts(offset), tz=timezone.utc)


def memory(n: int, *, content: str | None = None, kind: str = "fact", scope: str = "project",
           project: str | None = None, tags: tuple[str, ...] = (), status: str = "active", session: str = "s1",
           created: float = -100.0, valid_from: float | None = None, valid_until: float | None = None,
           recorded: float | None = None, **metadata) -> Memory:
    """Memory `n` (its number also in metadata["n"]), times as offsets from NOW in seconds."""
    return Memory(id=pid(n), content=content or f"memory number {n}", kind=MemoryKind(kind), scope=Scope(scope),
                  project=project, tags=tags, status=MemoryStatus(status), provenance=Provenance(session_id=session),
                  created_at=at(created), valid_from=at(created if valid_from is None else valid_from),
                  valid_until=None if valid_until is None else at(valid_until),
                  recorded_at=at(created if recorded is None else recorded), metadata={"n": n, **metadata})


def point(n: int, dense: list[float], sp: SparseVec | None = None, **fields) -> StoredPoint:
    return StoredPoint(memory(n, **fields), dense, sp or sparse())


def ids_of(hits) -> list[str]:
    return [h.id for h in hits]


def numbers(hits) -> list[int]:
    return [h.memory.metadata["n"] for h in hits]


def make_remote(_tmp_path):
    from qdrant_client import QdrantClient

    from mnemex.store.remote import RemoteStore

    return RemoteStore(None, None, "mem", DIM, client=QdrantClient(":memory:"))


@pytest.fixture(params=["edge", "remote"])
def store(request, tmp_path):
    s = EdgeStore(tmp_path / "shard", dim=DIM) if request.param == "edge" else make_remote(tmp_path)
    yield s
    s.close()


# -- contract: both backends ---------------------------------------------------------

def test_upsert_retrieve_round_trip(store):
    first = memory(1, kind="fact", tags=("a", "b"), nested={"x": [1, 2]})
    store.upsert([StoredPoint(first, axis(1, 0), sparse(t5=1.0)), point(2, axis(0, 1), sparse(t6=1.0), kind="note")])
    hits = store.retrieve([pid(2), pid(99), pid(1)], with_vectors=True)
    assert ids_of(hits) == [pid(2), pid(1)]
    assert hits[1].memory == first  # every field round-trips, times and metadata included
    assert hits[0].memory.kind == MemoryKind.NOTE
    assert hits[1].dense == pytest.approx(axis(1, 0))
    assert hits[1].session_id == "s1" and hits[1].content == "memory number 1"
    assert store.retrieve([pid(1)])[0].dense is None
    assert store.retrieve([]) == []


def test_upsert_overwrites_and_rejects_bad_points(store):
    store.upsert([point(1, axis(1), kind="fact")])
    store.upsert([point(1, axis(0, 1), kind="note")])
    assert store.retrieve([pid(1)])[0].memory.kind == MemoryKind.NOTE
    with pytest.raises(InvalidInputError):
        store.upsert([point(2, [1.0, 0.0])])
    with pytest.raises(InvalidInputError):
        store.upsert([StoredPoint(memory(3).model_copy(update={"id": "not-a-uuid"}), axis(1), sparse())])


POINTS = [
    point(1, axis(1.0), sparse(t1=1.0, t2=1.0)),              # A: semantic match only
    point(2, axis(0, 0, 0, 0, 0, 1.0), sparse(t100=1.0)),     # B: exact keyword only
    point(3, axis(0.8, 0.6), sparse(t100=0.5, t5=1.0)),        # C: second on both
    point(4, axis(0.5, 0, 1.0), sparse(t6=1.0)),               # D: third on dense
    point(5, axis(0, 0, 0, 0, 0, 0, 0, 1.0), sparse(t7=1.0)),  # E: unrelated
]
A, B, C, D, E = (pid(n) for n in range(1, 6))
EVERY = MemoryFilter(validity=ValidityMode.TIMELINE)


def test_a_query_searches_one_vector_with_raw_scores(store):
    store.upsert(POINTS)
    dense_hits = store.query(VectorQuery(dense=axis(1.0), filter=EVERY, limit=3))
    assert ids_of(dense_hits) == [A, C, D]
    assert dense_hits[0].score == pytest.approx(1.0)
    # an embedded store keeps half-precision vectors (edge.DENSE_DATATYPE): within 2^-11 relative
    assert store.query(VectorQuery(dense=axis(1.0), filter=EVERY, limit=2, with_vectors=True))[1].dense == \
        pytest.approx(axis(0.8, 0.6), abs=1e-3)
    sparse_hits = store.query(VectorQuery(sparse=sparse(t100=1.0), filter=EVERY))
    assert ids_of(sparse_hits) == [B, C]
    assert sparse_hits[0].score > sparse_hits[1].score > 0
    assert numbers(sparse_hits) == [2, 3]
    with pytest.raises(InvalidInputError):  # one vector, not none and not two
        VectorQuery(filter=EVERY)
    with pytest.raises(InvalidInputError):
        VectorQuery(dense=axis(1.0), sparse=sparse(t100=1.0))


def test_a_batch_of_queries_answers_each_as_alone(store):
    """`query_many` (Edge: ids and scores first, each payload read once) gives what each query
    gives by itself: the same hits, scores, memories, vectors where asked, empty payloads where not."""
    store.upsert(POINTS)
    batch = [VectorQuery(dense=axis(1.0), filter=EVERY, limit=3),
             VectorQuery(sparse=sparse(t100=1.0), filter=EVERY),
             VectorQuery(dense=axis(0.8, 0.6), filter=EVERY, limit=2, with_vectors=True),
             VectorQuery.term(100, EVERY)]
    together = store.query_many(batch)
    for request, hits in zip(batch, together):
        alone = store.query(request)
        assert ids_of(hits) == ids_of(alone)
        assert [h.score for h in hits] == pytest.approx([h.score for h in alone])
        assert [h.dense for h in hits] == [h.dense for h in alone]
        if request.payload:
            assert [h.memory for h in hits] == [h.memory for h in alone]
    assert ids_of(together[0]) == [A, C, D] and ids_of(together[1]) == [B, C]  # C in both lists
    assert together[0][1].memory.metadata["n"] == 3 and together[0][0].dense is None
    assert together[2][1].dense == pytest.approx(axis(1.0))
    assert store.query_many([]) == []
    vectors_only = [VectorQuery(dense=axis(1.0), filter=EVERY, limit=2, with_vectors=True, payload=False),
                    VectorQuery(sparse=sparse(t100=1.0), filter=EVERY)]
    for request, hits in zip(vectors_only, store.query_many(vectors_only)):
        alone = store.query(request)
        assert ids_of(hits) == ids_of(alone) and [h.dense for h in hits] == [h.dense for h in alone]


@pytest.mark.parametrize("tied", [12, 30])  # within the few asked beyond the limit, and past them
def test_equal_scores_at_the_cut_are_settled_by_id_whatever_the_insertion_order(store, tmp_path, tied):
    """Memories with equal scores come back in id order, so the same memories stored in another
    order (a restore, a replica, a rebuild) give the same results: BM25 ties are common (memories
    of the same length holding the same one word)."""
    numbers_ = list(range(1, tied + 1))
    random.Random(tied).shuffle(numbers_)
    top = tied + 1  # scores above the tie on both vectors
    store.upsert([point(top, axis(1.0), sparse(t7=2.0, t8=1.0))]
                 + [point(n, axis(0.6, 0.8), sparse(t7=1.0)) for n in numbers_])
    expected = [pid(top)] + [pid(n) for n in range(1, 5)]
    batch = [VectorQuery(sparse=sparse(t7=1.0), filter=EVERY, limit=5),
             VectorQuery(dense=axis(1.0), filter=EVERY, limit=5)]
    for request in batch:
        assert ids_of(store.query(request)) == expected
    assert [ids_of(hits) for hits in store.query_many(batch)] == [expected, expected]
    assert len(store.query(VectorQuery(sparse=sparse(t7=1.0), filter=EVERY, limit=tied + 5))) == tied + 1


def test_a_term_probe_says_whether_any_memory_holds_a_token(store):
    store.upsert(POINTS)
    assert ids_of(store.query(VectorQuery.term(100, EVERY))) == [B]
    assert store.query(VectorQuery.term(999, EVERY)) == []


def test_query_applies_the_filter_to_dense_and_to_sparse_searches(store):
    store.upsert([
        point(1, axis(1.0), sparse(t100=1.0), kind="fact"),
        point(2, axis(1.0), sparse(t100=1.0), kind="note"),
        point(3, axis(0.9, 0.1), sparse(t100=0.5), kind="note"),
    ])
    flt = MemoryFilter(kinds=(MemoryKind.NOTE,), validity=ValidityMode.TIMELINE)
    assert set(ids_of(store.query(VectorQuery(dense=axis(1.0), filter=flt)))) == {pid(2), pid(3)}
    assert set(ids_of(store.query(VectorQuery(sparse=sparse(t100=1.0), filter=flt)))) == {pid(2), pid(3)}


def test_dense_scores(store):
    store.upsert(POINTS)
    scores = store.dense_scores(axis(1.0), [A, C, E, pid(99)])
    assert scores == pytest.approx({A: 1.0, C: 0.8, E: 0.0}, abs=1e-3)  # half-precision vectors on edge
    assert store.dense_scores(axis(1.0), []) == {}


def stored(n: int, **fields) -> StoredPoint:
    return StoredPoint(memory(n, **fields), axis(1.0, n / 10), sparse(t1=1.0))


MEMORIES = [
    stored(1, project="/a", tags=("x",), created=-300),
    stored(2, kind="decision", project="/b", tags=("y",), session="s2", created=-200),
    stored(3, kind="preference", scope="global", tags=("x", "y"), created=-100),
    # superseded by 1: valid -1000..-250
    stored(4, project="/a", status="superseded", created=-1000, valid_until=-250),
    # expired session note: valid -500..-10
    stored(5, kind="note", scope="session", session="s2", created=-500, valid_until=-10),
    # backfilled fact: true since -1000 but recorded only at -50
    stored(6, project="/a", created=-1000, recorded=-50),
]


def selected(store, **filter_args) -> set[int]:
    flt = MemoryFilter(**filter_args)
    hits, _ = store.scroll(flt, limit=100)
    assert store.count(flt) == len(hits)
    return set(numbers(hits))


def test_filters_on_fields(store):
    store.upsert(MEMORIES)
    tl = {"validity": ValidityMode.TIMELINE}
    assert selected(store, **tl) == {1, 2, 3, 4, 5, 6}
    assert selected(store, scopes=(Scope.GLOBAL,), **tl) == {3}
    assert selected(store, scopes=(Scope.GLOBAL, Scope.SESSION), **tl) == {3, 5}
    # project: other projects' memories disappear, non-project scopes stay
    assert selected(store, project="/a", **tl) == {1, 3, 4, 5, 6}
    assert selected(store, project="/a", scopes=(Scope.PROJECT,), **tl) == {1, 4, 6}
    assert selected(store, project="/c", **tl) == {3, 5}
    assert selected(store, kinds=(MemoryKind.DECISION, MemoryKind.PREFERENCE), **tl) == {2, 3}
    assert selected(store, tags=("x",), **tl) == {1, 3}
    assert selected(store, tags=("y", "z"), **tl) == {2, 3}
    assert selected(store, session_id="s2", **tl) == {2, 5}
    assert selected(store, created_after=at(-300), **tl) == {1, 2, 3}
    assert selected(store, created_before=at(-300), **tl) == {4, 5, 6}
    assert selected(store, created_after=at(-600), created_before=at(-150), **tl) == {1, 2, 5}
    assert selected(store, ids=(pid(2), pid(5), pid(99)), **tl) == {2, 5}


def test_validity_modes(store):
    store.upsert(MEMORIES)
    assert selected(store) == {1, 2, 3, 6}  # CURRENT is the default
    assert selected(store, validity=ValidityMode.AS_OF, as_of=at(-400)) == {4, 5}
    assert selected(store, validity=ValidityMode.AS_OF, as_of=at(-240)) == {1, 5}
    assert selected(store, validity=ValidityMode.AS_OF, as_of=at(-30)) == {1, 2, 3, 5, 6}
    assert selected(store, validity=ValidityMode.AS_OF) == {1, 2, 3, 6}  # as_of None = now
    assert selected(store, validity=ValidityMode.CURRENT, project="/a") == {1, 3, 6}


def test_scroll_pages_cover_every_point_once(store):
    store.upsert([point(n, axis(1.0, n / 30)) for n in range(25)])
    seen, offset, pages = [], None, 0
    while True:
        hits, offset = store.scroll(EVERY, limit=7, offset=offset, with_vectors=pages == 0)
        seen += ids_of(hits)
        pages += 1
        if offset is None:
            break
    assert pages == 4
    assert sorted(seen) == sorted(pid(n) for n in range(25))
    assert len(seen) == 25


def test_count_save_mark_accessed_and_delete(store):
    store.upsert([point(n, axis(1.0)) for n in range(5)])
    assert store.count(MemoryFilter()) == 5
    changed = memory(1).model_copy(update={"status": MemoryStatus.SUPERSEDED, "metadata": {"n": 1, "extra": [1]}})
    store.save(changed)
    assert store.retrieve([pid(1)], with_vectors=True)[0].memory == changed
    assert store.retrieve([pid(1)], with_vectors=True)[0].dense == pytest.approx(axis(1.0))  # vectors kept
    assert store.count(MemoryFilter()) == 4
    store.mark_accessed(pid(2), 7, at(-5))
    touched = store.retrieve([pid(2)])[0].memory
    assert touched.access_count == 7 and touched.last_accessed_at == at(-5)
    assert touched.model_copy(update={"access_count": 0, "last_accessed_at": None}) == memory(2)
    with pytest.raises(NotFoundError):
        store.save(memory(99))
    with pytest.raises(NotFoundError):
        store.mark_accessed(pid(99), 1, at(0))
    store.delete([pid(2), pid(3), pid(99)])
    store.delete([])
    assert store.count(EVERY) == 3
    assert ids_of(store.retrieve([pid(2), pid(4)])) == [pid(4)]


def test_fields_back_at_their_default_read_back_as_default(store):
    """A payload leaves out fields at their default, so saving replaces the whole payload: a memory
    unpinned, un-superseded or stripped of its metadata must not keep what it had."""
    from mnemex.models import Lifecycle

    marked = memory(1).model_copy(update={
        "pinned": True, "importance": 0.9, "superseded_by": pid(7), "valid_until": at(-1), "access_count": 3,
        "supersedes": (pid(8),), "lifecycle": Lifecycle(tier="semantic", storage=2.5, helped=2)})
    store.upsert([StoredPoint(marked, axis(1.0), sparse(t1=1.0))])
    assert store.retrieve([pid(1)])[0].memory == marked
    plain = Memory(id=pid(1), content="memory number 1", created_at=at(-100), recorded_at=at(-100),
                   valid_from=at(-100))
    store.save(plain)
    assert store.retrieve([pid(1)])[0].memory == plain
    assert store.count(MemoryFilter(pinned=False)) == 1  # the mark went with the field
    store.mark_accessed(pid(1), 1, at(-5), Lifecycle(storage=1.5))
    back = store.retrieve([pid(1)])[0].memory
    assert back.lifecycle == Lifecycle(storage=1.5) and back.access_count == 1 and back.content == plain.content


def test_a_payload_leaves_out_fields_at_their_default():
    from mnemex.store._payload import memory_to_payload, payload_to_memory

    plain = Memory(id=pid(1), content="memory number 1", project="/work/p")
    payload = memory_to_payload(plain)
    assert not {"confidence", "importance", "pinned", "metadata", "lifecycle", "provenance", "supersedes"} & set(payload)
    assert {"kind", "scope", "status", "project", "tags", "entities", "session_id", "marks", "valid_until_ts"} <= set(payload)
    assert payload_to_memory(payload) == plain
    full = memory(2, content="x", tags=("a",)).model_copy(update={"importance": 0.7, "pinned": True})
    assert payload_to_memory(memory_to_payload(full)) == full
    assert memory_to_payload(full)["provenance"] == {"session_id": "s1"}


def test_identity_round_trip(store):
    assert store.read_identity() is None
    store.write_identity({"model": "m1", "dim": 8, "extra": True})
    store.write_identity({"model": "m2", "dim": 8})
    assert store.read_identity() == {"model": "m2", "dim": 8}
    store.upsert(POINTS)
    assert store.count(EVERY) == len(POINTS)


def test_optimize_keeps_results(store):
    store.upsert(POINTS)
    store.optimize()
    assert ids_of(store.query(VectorQuery(dense=axis(1.0), filter=EVERY, limit=3))) == [A, C, D]
    assert ids_of(store.query(VectorQuery(sparse=sparse(t100=1.0), filter=EVERY))) == [B, C]


def test_concurrent_calls_from_threads(store):
    def work(t: int) -> None:
        for k in range(10):
            n = 1000 + t * 100 + k
            store.upsert([point(n, axis(1.0, k / 10), sparse(t1=1.0))])
            store.query(VectorQuery(sparse=sparse(t1=1.0), filter=EVERY))
            store.mark_accessed(pid(n), 1, at(0))
            store.count(EVERY)

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(work, range(4)))
    assert store.count(EVERY) == 40
    hits, _ = store.scroll(EVERY, limit=100)
    assert all(h.memory.access_count == 1 for h in hits)


def test_ordered_sorts_by_a_memory_time_within_the_filter(store):
    store.upsert(MEMORIES)
    asc = numbers(store.ordered(EVERY, by="created_at", limit=10))
    assert asc[:2] == [4, 6] or asc[:2] == [6, 4]  # both created at -1000
    assert asc[2:] == [5, 1, 2, 3]
    assert numbers(store.ordered(EVERY, by="created_at", descending=True, limit=2)) == [3, 2]
    only_a = numbers(store.ordered(MemoryFilter(project="/a", scopes=(Scope.PROJECT,)), by="created_at", limit=10))
    assert only_a == [6, 1]
    assert numbers(store.ordered(EVERY, by="recorded_at", descending=True, limit=2)) == [6, 3]
    with pytest.raises(InvalidInputError, match="cannot order by"):
        store.ordered(EVERY, by="created_ts")


def test_close_is_idempotent(store):
    store.close()
    store.close()


# -- Edge only ------------------------------------------------------------------------

def test_edge_persists_points_identity_and_indexes(tmp_path):
    path = tmp_path / "shard"
    with EdgeStore(path, dim=DIM) as s:
        s.upsert(MEMORIES)
        s.write_identity({"model": "m", "dim": DIM})
    with EdgeStore(path, dim=DIM) as s:
        assert s.read_identity() == {"model": "m", "dim": DIM}
        assert selected(s) == {1, 2, 3, 6}
        assert s.retrieve([pid(3)])[0].memory.kind == MemoryKind.PREFERENCE
        assert set(s._live().info().payload_schema) >= {"scope", "valid_until_ts", "tags"}


def test_edge_rejects_another_dimension(tmp_path):
    EdgeStore(tmp_path / "shard", dim=DIM).close()
    with pytest.raises(ModelMismatchError):
        EdgeStore(tmp_path / "shard", dim=DIM * 2)


def test_edge_closed_store_raises(tmp_path):
    s = EdgeStore(tmp_path / "shard", dim=DIM)
    s.close()
    with pytest.raises(Exception, match="closed"):
        s.count(MemoryFilter())


def test_open_store_picks_edge(tmp_path):
    s = open_store(url=None, api_key=None, path=tmp_path / "shard", collection="mnemex", dim=DIM)
    try:
        assert isinstance(s, EdgeStore)
    finally:
        s.close()


def test_second_process_gets_store_locked_error(tmp_path):
    path = tmp_path / "shard"
    with EdgeStore(path, dim=DIM) as s:
        s.upsert(POINTS)
        code = textwrap.dedent(f"""
            from mnemex.errors import StoreLockedError
            from mnemex.store import EdgeStore
            try:
                EdgeStore({str(path)!r}, dim={DIM})
            except StoreLockedError as exc:
                raise SystemExit("locked: " + str(exc))
            raise SystemExit("opened")
        """)
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30)
        with pytest.raises(StoreLockedError):  # the lock also holds within one process
            EdgeStore(path, dim=DIM)
    assert proc.returncode == 1
    assert proc.stderr.startswith(f"locked: store at {path} is owned by another process")
    # Once the owner closed it, another process opens it fine.
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30)
    assert proc.stderr.strip() == "opened"


def test_edge_compact_drops_deleted_bytes_and_keeps_everything_else(tmp_path):
    store = EdgeStore(tmp_path / "shard", dim=8)
    try:
        store.upsert([point(1, axis(1.0), sparse(t1=1.0), content="keep-me-77"),
                      point(2, axis(0.0, 1.0), sparse(t2=1.0), content="secret-zz-4412")])
        store.write_identity({"model": "m", "dim": 8})
        store.delete([pid(2)])
        store.compact()
        blob = b"".join(p.read_bytes() for p in (tmp_path / "shard").rglob("*") if p.is_file())
        assert b"secret-zz-4412" not in blob and b"keep-me-77" in blob
        assert ids_of(store.query(VectorQuery(dense=axis(1.0), filter=EVERY))) == [pid(1)]
        assert ids_of(store.query(VectorQuery(sparse=sparse(t1=1.0), filter=EVERY))) == [pid(1)]
        assert store.read_identity() == {"model": "m", "dim": 8}
        assert store.count(EVERY) == 1
    finally:
        store.close()
    reopened = EdgeStore(tmp_path / "shard", dim=8)
    try:
        assert ids_of(reopened.retrieve([pid(1), pid(2)])) == [pid(1)]
        assert not (tmp_path / "shard.old").exists() and not (tmp_path / "shard.compact").exists()
    finally:
        reopened.close()


def test_edge_recovers_a_compaction_cut_short(tmp_path):
    """A compaction killed between its two renames leaves the shard only under `.old`; one
    killed while building leaves a half `.compact`. Opening puts the shard back and removes both."""
    path = tmp_path / "shard"
    with EdgeStore(path, dim=DIM) as s:
        s.upsert(POINTS)
    path.rename(tmp_path / "shard.old")                        # cut between the renames
    (tmp_path / "shard.compact").mkdir()
    (tmp_path / "shard.compact" / "half-built").write_text("x")  # and a half-built copy
    with EdgeStore(path, dim=DIM) as s:
        assert s.count(EVERY) == len(POINTS)
    assert not (tmp_path / "shard.old").exists() and not (tmp_path / "shard.compact").exists()
    (tmp_path / "shard.old").mkdir()                            # the swap done, the old copy not yet removed
    (tmp_path / "shard.old" / "deleted-bytes").write_text("secret")
    with EdgeStore(path, dim=DIM) as s:
        assert s.count(EVERY) == len(POINTS)
    assert not (tmp_path / "shard.old").exists()


def test_pinned_memories_are_found_by_filter(store):
    """Qdrant Edge cannot match booleans: pinned/immutable ride in a keyword field of the payload."""
    store.upsert([StoredPoint(memory(n).model_copy(update={"pinned": n % 2 == 0}), axis(1.0), sparse()) for n in range(1, 5)])
    assert set(numbers(store.scroll(MemoryFilter(pinned=True), limit=10)[0])) == {2, 4}
    assert set(numbers(store.scroll(MemoryFilter(pinned=False), limit=10)[0])) == {1, 3}
    store.save(memory(1).model_copy(update={"pinned": True}))
    assert store.count(MemoryFilter(pinned=True)) == 3
    assert store.retrieve([pid(1)])[0].memory.pinned is True


def test_ids_come_back_canonical_however_they_are_read():
    """A hit's id is the point's canonical id: read from the payload when the memory's own id is
    canonical (no UUID made and printed), from the point otherwise."""
    from types import SimpleNamespace

    from mnemex.store.filters import canonical_id, to_hit

    point = uuid.UUID("12345678-9abc-4def-8123-456789abcdef")
    assert canonical_id(str(point)) == str(point)
    assert canonical_id(str(point).upper()) == str(point)
    assert canonical_id("{" + str(point) + "}") == str(point)
    with pytest.raises(InvalidInputError):
        canonical_id("12345678-9abc-4def-8123-456789abcdeg")
    for payload_id in (str(point), str(point).upper(), None, 42):
        record = SimpleNamespace(id=point, payload={"id": payload_id, "content": "x"}, vector=None)
        hit = to_hit(record, 0.5, False)
        assert hit.id == str(point) and hit.score == 0.5 and hit.content == "x"


def test_the_history_filter_selects_superseded_and_dormant_memories_never_forgotten_ones(store):
    """`MemoryFilter(history=True)`: what default retrieval no longer sees but a changed fact's
    successor is found through (`engine/retrieval/stages/successors.py`)."""
    asleep = memory(3, project="/a").model_copy(update={"lifecycle": memory(3).lifecycle.model_copy(update={"dormant": True})})
    gone = memory(5, status="forgotten")
    store.upsert([stored(1, project="/a"), stored(2, project="/a", status="superseded", valid_until=-50),
                  StoredPoint(asleep, axis(1.0), sparse(t1=1.0)), stored(4, project="/b", status="superseded"),
                  StoredPoint(gone.model_copy(update={"lifecycle": asleep.lifecycle}), axis(1.0), sparse(t1=1.0))])
    assert selected(store, history=True) == {2, 3, 4}
    assert selected(store, history=True, project="/a") == {2, 3}
    assert selected(store, history=True, dormant=False) == {2, 3, 4}  # `dormant` is ignored
    assert numbers(store.query(VectorQuery(sparse=sparse(t1=1.0), filter=MemoryFilter(history=True), limit=10))) != []
    assert selected(store, dormant=False) == {1} and selected(store) == {1, 3}  # current ones only
