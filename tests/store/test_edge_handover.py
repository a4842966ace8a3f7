"""Handing a store over to another process: the old store writes what changed since the optimized
copy was taken, the new one (opened on the copy beforehand) replays it and points the store at it."""

from __future__ import annotations

import os
import pickle

import pytest

from mnemex.errors import MnemexError, StoreUnavailableError
from mnemex.models import MemoryFilter
from mnemex.store.base import StoredPoint
from mnemex.store.edge import EdgeStore
from mnemex.store.edge_handover import HANDOVER_FILE
from tests.store.test_store import axis, sparse
from tests.store.test_store import point as make_point

DIM = 8


def point(i: int, content: str | None = None) -> StoredPoint:
    return make_point(i, axis(1.0, (i % 10) / 10, 0.5), sparse(t1=1.0, **{f"t{i + 10}": 0.5}),
                      content=content or f"memory number {i}")


def contents(store: EdgeStore) -> dict[str, str]:
    out = {}
    offset = None
    while True:
        hits, offset = store.scroll(MemoryFilter(), limit=256, offset=offset)
        out.update({h.memory.id: h.memory.content for h in hits})
        if offset is None:
            return out


def with_waiting_copy(path, layout: str) -> tuple[EdgeStore, list[StoredPoint]]:
    if layout == "linked-at-open":  # as a daemon that hands over opens its store
        EdgeStore(path, dim=DIM).close()
    store = EdgeStore(path, dim=DIM, linked=layout == "linked-at-open")
    points = [point(i) for i in range(12)]
    store.upsert(points)
    if layout == "linked-store":  # a store swapped once already: its path is a link to a generation
        assert store.optimize_detached(swap=True)
    assert path.is_symlink() == (layout != "first-copy")
    assert store.optimize_detached(swap=False) and store.waiting_copy is not None
    return store, points


@pytest.mark.parametrize("layout", ["first-copy", "linked-store", "linked-at-open"])
def test_a_successor_serves_the_copy_with_every_write_made_since(tmp_path, layout):
    path = tmp_path / "store"
    linked = layout != "first-copy"
    old, points = with_waiting_copy(path, layout)
    copy = old.waiting_copy
    new = EdgeStore(path, dim=DIM, adopt=copy)  # loaded while the old one still serves
    try:
        # written after the copy was taken: a new point, a changed one, a deleted one
        old.upsert([point(100, "the billing worker listens on port 8125")])
        changed = points[3].memory.model_copy(update={"content": "changed after the copy"})
        old.save(changed)
        old.delete([points[5].memory.id])
        expected = contents(old)
        assert os.readlink(path) if linked else not path.is_symlink()
        assert old.hand_over() == copy
        with pytest.raises(StoreUnavailableError, match="handed over"):
            old.upsert([point(101)])  # refused, not lost silently
        previous = new.take_over()
        assert path.is_symlink() and path.resolve() == copy.resolve()
        assert not (copy / HANDOVER_FILE).exists()
        assert contents(new) == expected
        assert new.unoptimized == 3  # the replayed points are not indexed yet
        old.close()  # closing the old store touches neither the copy nor the link
        assert contents(new) == expected and path.resolve() == copy.resolve()
        assert previous is not None and previous.exists()
        new.upsert([point(102, "written by the successor")])
        expected = contents(new)
    finally:
        new.close()
    from mnemex.store.edge_detached import remove_tree

    remove_tree(previous)
    reopened = EdgeStore(path, dim=DIM)
    try:
        assert contents(reopened) == expected
        assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["store", copy.name])
    finally:
        reopened.close()


def test_a_handover_that_does_not_add_up_leaves_the_store_as_it_was(tmp_path):
    path = tmp_path / "store"
    old, points = with_waiting_copy(path, "linked-store")
    copy = old.waiting_copy
    link = os.readlink(path)
    new = EdgeStore(path, dim=DIM, adopt=copy)
    try:
        old.upsert([point(100)])
        old.hand_over()
        data = pickle.loads((copy / HANDOVER_FILE).read_bytes())
        data["count"] += 1  # the copy would not hold what the store holds
        (copy / HANDOVER_FILE).write_bytes(pickle.dumps(data))
        with pytest.raises(MnemexError, match="not used"):
            new.take_over()
        assert os.readlink(path) == link
    finally:
        new.close()
        old.close()
    reopened = EdgeStore(path, dim=DIM)  # the old store, complete: the copy is cleaned up
    try:
        assert len(contents(reopened)) == 13
        assert not copy.exists()
    finally:
        reopened.close()


def test_nothing_is_handed_over_without_a_waiting_copy(tmp_path):
    store = EdgeStore(tmp_path / "store", dim=DIM)
    try:
        store.upsert([point(1)])
        with pytest.raises(MnemexError, match="no optimized copy"):
            store.hand_over()
        store.upsert([point(2)])  # still writable
        assert len(contents(store)) == 2
        with pytest.raises(MnemexError, match="not opened to take over"):
            store.take_over()
    finally:
        store.close()
