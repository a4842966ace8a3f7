"""EdgeStore.optimize_detached: a copy optimized in a child process, the writes made meanwhile
replayed onto it, then swapped in under a link; and what opening does after a crash midway."""

from __future__ import annotations

import os
import sys
from datetime import datetime, timezone

import pytest

from mnemex.errors import MnemexError
from mnemex.models import MemoryFilter, ValidityMode
from mnemex.store import EdgeStore, VectorQuery
from mnemex.store import edge as edge_module
from mnemex.store.edge_detached import copy_sparse
from tests.store.test_store import axis, ids_of, pid, point, sparse

EVERY = MemoryFilter(validity=ValidityMode.TIMELINE)


def filled(path) -> EdgeStore:
    store = EdgeStore(path, dim=8)
    store.upsert([point(n, axis(1.0, n / 10), sparse(t1=1.0), content=f"memory {n}") for n in range(1, 6)])
    store.write_identity({"model": "m", "dim": 8})
    return store


def writes_after_copy(monkeypatch, action) -> None:
    """Run `action` as the child starts: it optimizes a copy made without the action's effect."""
    real = edge_module.subprocess.Popen

    def write_then_start(*args, **kwargs):
        action()
        return real(*args, **kwargs)

    monkeypatch.setattr(edge_module.subprocess, "Popen", write_then_start)


def test_writes_made_while_the_copy_is_optimized_are_kept(tmp_path, monkeypatch):
    path = tmp_path / "shard"
    store = filled(path)
    try:
        def meanwhile():
            store.upsert([point(9, axis(0.0, 1.0), sparse(t9=1.0), content="written meanwhile")])
            store.mark_accessed(pid(2), 7, datetime.now(timezone.utc))
            store.delete([pid(3)])

        writes_after_copy(monkeypatch, meanwhile)
        assert store.optimize_detached() is True
        assert path.is_symlink() and os.readlink(path) == "shard.gen-1"
        assert store.count(EVERY) == 5
        assert ids_of(store.query(VectorQuery(sparse=sparse(t9=1.0), filter=EVERY))) == [pid(9)]
        assert store.retrieve([pid(3)]) == []
        assert store.retrieve([pid(2)])[0].memory.access_count == 7
        assert store.read_identity() == {"model": "m", "dim": 8}
        monkeypatch.undo()
        assert store.optimize_detached() is True  # the next one replaces the link, removes gen-1
        assert os.readlink(path) == "shard.gen-2" and not (tmp_path / "shard.gen-1").exists()
    finally:
        store.close()
    with EdgeStore(path, dim=8) as reopened:
        assert reopened.count(EVERY) == 5
        assert reopened.retrieve([pid(9)])[0].content == "written meanwhile"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["shard", "shard.gen-2"]


def test_a_failed_child_leaves_the_store_as_it_was(tmp_path, monkeypatch):
    store = filled(tmp_path / "shard")
    try:
        monkeypatch.setattr(sys, "executable", "/bin/false")
        with pytest.raises(MnemexError, match="optimizing a copy"):
            store.optimize_detached()
        assert not (tmp_path / "shard").is_symlink() and store.count(EVERY) == 5
        store.upsert([point(7, axis(1.0), sparse(t7=1.0))])  # no longer tracked, still written
        assert store.count(EVERY) == 6
    finally:
        store.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["shard"]


def test_a_compaction_meanwhile_drops_the_copy(tmp_path, monkeypatch):
    """A purge compacts the shard to remove deleted bytes: a copy taken before must not come back."""
    store = filled(tmp_path / "shard")
    try:
        def purge():
            store.delete([pid(4)])
            store.compact()

        writes_after_copy(monkeypatch, purge)
        with pytest.raises(MnemexError, match="compacted"):
            store.optimize_detached()
        assert store.count(EVERY) == 4 and store.retrieve([pid(4)]) == []
    finally:
        store.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["shard"]


def test_opening_cleans_up_after_a_crash_midway(tmp_path):
    path = tmp_path / "shard"
    store = filled(path)
    store.optimize_detached()
    store.close()
    (tmp_path / "shard.gen-2").mkdir()            # a copy being optimized when the process died
    (tmp_path / "shard.gen-2" / "half").write_text("x")
    with EdgeStore(path, dim=8) as s:
        assert s.count(EVERY) == 5
    assert sorted(p.name for p in tmp_path.iterdir()) == ["shard", "shard.gen-1"]
    # died between parking the directory and linking the new generation: the parked one comes back
    os.unlink(path)
    os.rename(tmp_path / "shard.gen-1", tmp_path / "shard.old")
    (tmp_path / "shard.gen-2").mkdir()
    with EdgeStore(path, dim=8) as s:
        assert s.count(EVERY) == 5 and s.read_identity() == {"model": "m", "dim": 8}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["shard"]


def test_a_store_opened_linked_moves_under_a_generation_and_keeps_everything(tmp_path):
    path = tmp_path / "shard"
    filled(path).close()
    assert not path.is_symlink()
    with EdgeStore(path, dim=8, linked=True) as store:  # what a daemon that hands over opens
        assert os.readlink(path) == "shard.gen-1" and store.count(EVERY) == 5
        assert store.optimize_detached() is True  # a swap replaces the link: no directory moves
        assert os.readlink(path) == "shard.gen-2"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["shard", "shard.gen-2"]
    with EdgeStore(tmp_path / "new", dim=8, linked=True) as fresh:  # a new store is created linked
        fresh.upsert([point(1, axis(1.0, 0.1), sparse(t1=1.0), content="memory 1")])
    assert os.readlink(tmp_path / "new") == "new.gen-1"
    with EdgeStore(tmp_path / "new", dim=8) as fresh:
        assert fresh.count(EVERY) == 1


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="mincore: Linux")
def test_fill_page_cache_reads_what_every_search_reads(tmp_path):
    from tests.test_heap import cached_share

    path = tmp_path / "shard"
    filled(path).close()  # Qdrant Edge drops a shard's pages from the page cache as it closes it
    with EdgeStore(path, dim=8, linked=True) as store:
        assert store.fill_page_cache() > 0
        hot = [p for p in path.resolve().rglob("*") if p.is_file() and p.stat().st_size
               and any(part in str(p) for part in edge_module.HOT_FILES)]
        assert any("/payload_storage/" in str(p) for p in hot)
        assert all(cached_share(p) == 1.0 for p in hot)
        assert store.count(EVERY) == 5


def test_a_crash_between_the_renames_of_linking_loses_nothing(tmp_path):
    path = tmp_path / "shard"
    filled(path).close()
    os.symlink("shard.gen-1", tmp_path / "shard.link")  # link_layout's first two steps, then a crash
    os.rename(path, tmp_path / "shard.gen-1")
    with EdgeStore(path, dim=8) as store:
        assert os.readlink(path) == "shard.gen-1" and store.count(EVERY) == 5
    assert sorted(p.name for p in tmp_path.iterdir()) == ["shard", "shard.gen-1"]


def test_compacting_a_linked_store_removes_the_old_generation(tmp_path):
    path = tmp_path / "shard"
    store = filled(path)
    try:
        store.optimize_detached()
        store.delete([pid(5)])
        store.compact()
        assert store.count(EVERY) == 4 and os.readlink(path) == "shard.gen-1"  # still linked, a fresh generation
    finally:
        store.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["shard", "shard.gen-1"]
    with EdgeStore(path, dim=8) as again:
        assert again.count(EVERY) == 4


def test_copy_sparse_keeps_content_and_holes(tmp_path):
    src, dst = tmp_path / "a", tmp_path / "b"
    with open(src, "wb") as f:
        f.write(b"head")
        f.seek(8 << 20)
        f.write(b"tail")
    copy_sparse(str(src), str(dst))
    assert dst.read_bytes() == src.read_bytes()
    assert dst.stat().st_blocks * 512 < 1 << 20


def test_a_waiting_copy_is_swapped_in_when_the_store_closes_with_every_write_made_since(tmp_path):
    """The daemon's way (`swap=False`): the serving process never loads the optimized copy; the
    writes made after the copy are replayed onto it by a child process as the store closes."""
    path = tmp_path / "shard"
    store = filled(path)
    try:
        assert store.optimize_detached(swap=False) is True
        assert not path.is_symlink() and (tmp_path / "shard.gen-1").is_dir()  # waiting, not loaded
        store.upsert([point(9, axis(0.0, 1.0), sparse(t9=1.0), content="written after the copy")])
        store.mark_accessed(pid(2), 7, datetime.now(timezone.utc))
        store.delete([pid(3)])
        assert store.count(EVERY) == 5  # served from the shard as it was, with the new writes
    finally:
        store.close()
    assert os.readlink(path) == "shard.gen-1"
    with EdgeStore(path, dim=8) as reopened:
        assert reopened.count(EVERY) == 5
        assert reopened.retrieve([pid(9)])[0].content == "written after the copy"
        assert reopened.retrieve([pid(3)]) == []
        assert reopened.retrieve([pid(2)])[0].memory.access_count == 7
        assert reopened.read_identity() == {"model": "m", "dim": 8}
        assert reopened.optimize_detached(swap=False) is True
        assert reopened.optimize_detached(swap=False) is True  # a fresh copy replaces the waiting one
        assert sorted(p.name for p in tmp_path.iterdir()) == ["shard", "shard.gen-1", "shard.gen-2"]
    assert os.readlink(path) == "shard.gen-2"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["shard", "shard.gen-2"]


def test_a_swap_that_fails_as_the_store_closes_drops_only_the_copy(tmp_path, monkeypatch, caplog):
    path = tmp_path / "shard"
    store = filled(path)
    assert store.optimize_detached(swap=False) is True
    store.upsert([point(8, axis(1.0, 0.5), sparse(t8=1.0), content="written after the copy")])
    monkeypatch.setattr(sys, "executable", "/bin/false")
    store.close()
    monkeypatch.undo()
    assert "not swapped in" in caplog.text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["shard"] and not path.is_symlink()
    with EdgeStore(path, dim=8) as reopened:
        assert reopened.count(EVERY) == 6 and reopened.retrieve([pid(8)])[0].content == "written after the copy"


def test_a_compaction_drops_a_waiting_copy(tmp_path):
    """A purge compacts the shard: a copy taken before it still holds the purged bytes."""
    path = tmp_path / "shard"
    store = filled(path)
    try:
        assert store.optimize_detached(swap=False) is True
        store.delete([pid(4)])
        store.compact()
        assert sorted(p.name for p in tmp_path.iterdir()) == ["shard"]
    finally:
        store.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["shard"] and not path.is_symlink()
    with EdgeStore(path, dim=8) as reopened:
        assert reopened.count(EVERY) == 4 and reopened.retrieve([pid(4)]) == []


def test_the_daemons_optimize_detaches_only_from_a_size_on_and_swaps_at_close(tmp_path, embedder, monkeypatch):
    from mnemex.config import Settings
    from mnemex.engine import upkeep
    from mnemex.engine.factory import build_engine
    from mnemex.models import NewMemory

    settings = Settings(data_dir=tmp_path / "data")
    engine = build_engine(settings, default_project="/work/proj", embedder=embedder)
    try:
        engine.memorize(NewMemory(content="The billing worker listens on port 8125."))
        engine.upkeep.optimize(detached=True)  # one memory: in-process, the store path untouched
        assert not settings.store_dir.is_symlink() and engine.upkeep.writes_since_optimize == 0
        monkeypatch.setattr(upkeep, "DETACH_FROM_POINTS", 1)
        engine.memorize(NewMemory(content="The auth service logs to /var/log/auth.log."))
        engine.upkeep.optimize(detached=True)
        assert not settings.store_dir.is_symlink() and engine.upkeep.writes_since_optimize == 0  # waiting
        engine.memorize(NewMemory(content="Nightly backups of the ledger database go to the cold bucket."))
        assert [r.memory.content for r in engine.search("which port does the billing worker use", limit=1)] == [
            "The billing worker listens on port 8125."]
    finally:
        engine.close()
    assert settings.store_dir.is_symlink()
    reopened = build_engine(settings, default_project="/work/proj", embedder=embedder)
    try:  # after a burst of writes (a bulk import) the copy is swapped in before close, when the
        # daemon is idle: searching that many unindexed points costs more than the one wait for the load
        monkeypatch.setattr(upkeep, "DETACH_FROM_POINTS", 1)
        monkeypatch.setattr(edge_module, "SWAP_AT_ONCE_FROM", 2)
        link = os.readlink(settings.store_dir)
        # (unlike the others: a statement giving another value about a neighbour marks it, a second write)
        reopened.memorize(NewMemory(content="Release notes are drafted in the team wiki before each tag."))
        assert reopened.store.unoptimized == 1
        reopened.upkeep.optimize(detached=True)
        assert os.readlink(settings.store_dir) == link  # one point written: the copy waits
        assert not reopened.upkeep.swap_due()
        reopened.memorize(NewMemory(content="Feature flags are read from the flagd sidecar."))
        assert reopened.store.unoptimized == 2
        reopened.upkeep.optimize(detached=True)
        assert os.readlink(settings.store_dir) == link and reopened.upkeep.swap_due()  # waiting still
        reopened.memorize(NewMemory(content="Audit events are kept for 400 days."))  # written meanwhile
        assert reopened.upkeep.swap_waiting() is True
        assert os.readlink(settings.store_dir) != link and reopened.store.unoptimized == 1
        assert not reopened.upkeep.swap_due() and reopened.upkeep.swap_waiting() is False
        assert [r.memory.content for r in reopened.search("how long are audit events kept", limit=1)] == [
            "Audit events are kept for 400 days."]
        assert [r.memory.content for r in reopened.search("where are feature flags read from", limit=1)] == [
            "Feature flags are read from the flagd sidecar."]
    finally:
        reopened.close()
    reopened = build_engine(settings, default_project="/work/proj", embedder=embedder)
    try:
        assert [r.memory.content for r in reopened.search("where do ledger backups go", limit=1)] == [
            "Nightly backups of the ledger database go to the cold bucket."]
    finally:
        reopened.close()


class CountingShard:
    """The real shard, with its flushes counted."""

    def __init__(self, shard):
        self._shard, self.flushes = shard, 0

    def flush(self):
        self.flushes += 1
        return self._shard.flush()

    def __getattr__(self, name):
        return getattr(self._shard, name)


def test_pending_writes_flush_on_demand_and_the_bound_counts_from_there(tmp_path, monkeypatch):
    """`flush_pending` (the daemon's idle flush) flushes what was written, once; nothing to flush
    is no flush; the bound counts again from it."""
    monkeypatch.setattr(edge_module, "FLUSH_EVERY", 3)
    store = EdgeStore(tmp_path / "shard", dim=8)
    try:
        store._shard = counting = CountingShard(store._shard)
        assert (store.unflushed, store.flush_pending(), counting.flushes) == (0, 0, 0)
        store.upsert([point(n, axis(1.0, n / 10), sparse(t1=1.0)) for n in (1, 2)])
        assert store.unflushed == 2
        assert store.flush_pending() == 2 and counting.flushes == 1 and store.unflushed == 0
        assert store.flush_pending() == 0 and counting.flushes == 1
        store.upsert([point(n, axis(1.0, n / 10), sparse(t1=1.0)) for n in (3, 4)])
        assert counting.flushes == 1  # 2 since the flush: under the bound
        store.upsert([point(5, axis(1.0, 0.5), sparse(t1=1.0))])
        assert counting.flushes == 2 and store.unflushed == 0
    finally:
        store.close()
    assert store.flush_pending() == 0  # closed: nothing to flush, no error
    with EdgeStore(tmp_path / "shard", dim=8) as reopened:
        assert reopened.count(EVERY) == 5


def test_the_store_flushes_as_written_points_reach_the_bound(tmp_path, monkeypatch):
    """The flush before a copy (which holds the GIL) stays small: writes flush every FLUSH_EVERY points."""
    monkeypatch.setattr(edge_module, "FLUSH_EVERY", 3)
    store = EdgeStore(tmp_path / "shard", dim=8)
    try:
        store._shard = counting = CountingShard(store._shard)
        store.upsert([point(n, axis(1.0, n / 10), sparse(t1=1.0)) for n in (1, 2)])
        store.query(VectorQuery(dense=axis(1.0, 0.1), filter=EVERY))  # reads count nothing
        assert counting.flushes == 0
        store.upsert([point(3, axis(1.0, 0.3), sparse(t1=1.0))])
        assert counting.flushes == 1
        store.upsert([point(n, axis(1.0, n / 10), sparse(t1=1.0)) for n in (4, 5)])
        store.delete([pid(1)])
        assert counting.flushes == 2  # a delete counts the points it removes
        store.upsert([point(6, axis(1.0, 0.6), sparse(t1=1.0))])
        store._flush()  # what the copy of `optimize_detached` starts with: the count starts again
        store.upsert([point(n, axis(1.0, n / 10), sparse(t1=1.0)) for n in (7, 8)])
        assert counting.flushes == 3
        assert store.count(EVERY) == 7
    finally:
        store.close()
    with EdgeStore(tmp_path / "shard", dim=8) as reopened:
        assert reopened.count(EVERY) == 7


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/smaps")
def test_the_stores_cold_pages_leave_the_resident_set_and_every_point_stays(tmp_path, monkeypatch):
    from tests.test_heap import _resident_kb

    def cold_kb(store: EdgeStore) -> int:
        root = store.path.resolve()
        return sum(_resident_kb(path) for path in root.rglob("*")
                   if path.is_file() and any(part in str(path) for part in edge_module.COLD_FILES))

    monkeypatch.setattr(edge_module, "FLUSH_EVERY", 50)
    store = EdgeStore(tmp_path / "shard", dim=8)
    store.upsert([point(n, axis(1.0, n / 1000), sparse(t1=1.0), content=f"memory {n} " * 20) for n in range(1, 40)])
    store.close()
    released = []
    real = edge_module.heap.release_file_pages
    monkeypatch.setattr(edge_module.heap, "release_file_pages", lambda *a, **k: released.append(real(*a, **k)))
    store = EdgeStore(tmp_path / "shard", dim=8)  # replays its WAL: read at open
    try:
        assert released and released[-1] > 0
        assert cold_kb(store) < 200
        store.upsert([point(n, axis(1.0, n / 1000), sparse(t1=1.0), content=f"memory {n} " * 20) for n in range(40, 100)])
        assert len(released) == 2  # the write that crossed FLUSH_EVERY flushed, then let go
        assert store.count(EVERY) == 99
        hits = store.query(VectorQuery(dense=axis(1.0, 0.05), filter=EVERY, limit=3))
        assert [h.id for h in hits] and all(h.memory.content.startswith("memory ") for h in hits)
        store.optimize()
        assert len(released) == 3
        assert cold_kb(store) < 200
    finally:
        store.close()
    with EdgeStore(tmp_path / "shard", dim=8) as reopened:
        assert reopened.count(EVERY) == 99


def test_a_new_store_keeps_half_precision_and_an_older_float32_store_keeps_its_own(tmp_path):
    import qdrant_edge as qe

    with EdgeStore(tmp_path / "new", dim=8) as store:
        store.upsert([point(1, axis(0.8, 0.6), sparse(t1=1.0))])
    assert edge_module.stored_datatype(tmp_path / "new") == "float16"
    # a store made before half precision: its config names no datatype
    old = qe.EdgeShard.create(str(tmp_path / "old"), edge_module._config(8, "float32"))
    old.close()
    assert edge_module.stored_datatype(tmp_path / "old") == "float32"
    with pytest.raises(Exception, match="atatype"):  # why the store's own precision is needed
        qe.EdgeShard.load(str(tmp_path / "old"), edge_module._config(8, "float16"))
    with EdgeStore(tmp_path / "old", dim=8) as store:
        store.upsert([point(n, axis(0.8, n / 10), sparse(t1=1.0)) for n in range(1, 6)])
        exact = store.retrieve([pid(1)], with_vectors=True)[0].dense
        assert exact[:2] == pytest.approx([0.8 / (0.64 + 0.01) ** 0.5, 0.1 / (0.64 + 0.01) ** 0.5], abs=1e-7)
        assert store.optimize_detached() is True  # the child opens the copy under its own config
        store.optimize()
    with EdgeStore(tmp_path / "old", dim=8) as store:  # and so does every later open
        assert store.count(EVERY) == 5
        store.compact()  # a rebuild is made in the current precision
        assert store.count(EVERY) == 5
    assert edge_module.stored_datatype(tmp_path / "old") == "float16"
    with EdgeStore(tmp_path / "old", dim=8) as store:
        assert store.retrieve([pid(1)], with_vectors=True)[0].dense[:2] == pytest.approx(exact[:2], abs=1e-3)


def test_an_unreadable_config_reads_as_float32(tmp_path):
    assert edge_module.stored_datatype(tmp_path / "missing") == "float32"
    (tmp_path / edge_module._EDGE_CONFIG_FILE).write_text("{not json")
    assert edge_module.stored_datatype(tmp_path) == "float32"
    (tmp_path / edge_module._EDGE_CONFIG_FILE).write_text('{"vectors": {"dense": {"datatype": "uint8"}}}')
    assert edge_module.stored_datatype(tmp_path) == "float32"


def test_a_store_with_its_indexes_in_ram_is_outdated_until_rebuilt(tmp_path):
    import qdrant_edge as qe

    from mnemex.store._payload import INDEXED_FIELDS

    with EdgeStore(tmp_path / "new", dim=8) as store:
        assert store.outdated() is False and store.rebuild_outdated() is False
        schema = store._live().info().payload_schema
        assert {name for name, info in schema.items() if info.params.on_disk} == edge_module.ON_DISK_INDEXES
    old = qe.EdgeShard.create(str(tmp_path / "old"), edge_module._config(8))
    for name, kind in INDEXED_FIELDS.items():  # as a store made before some indexes moved to disk
        params = qe.KeywordIndexParams(enable_hnsw=False) if kind == "keyword" else qe.FloatIndexParams(enable_hnsw=False)
        old.update(qe.UpdateOperation.create_field_index(name, params))
    old.close()
    with EdgeStore(tmp_path / "old", dim=8) as store:
        store.upsert([point(n, axis(0.8, n / 10), sparse(t1=1.0), session=f"s{n}") for n in range(1, 6)])
        assert store.outdated() is True
        assert store.rebuild_outdated() is True
        assert store.outdated() is False
        assert store.count(MemoryFilter(session_id="s3", validity=ValidityMode.TIMELINE)) == 1  # on-disk index
        assert store.count(EVERY) == 5
