"""The SQLite journal on a real file: audit levels, versions, relations, entity hubs, purge,
WAL mode and concurrent writers."""

from __future__ import annotations

import json
import sqlite3
import threading
from datetime import datetime, timedelta, timezone

import pytest

from mnemex.errors import InvalidInputError
from mnemex.store.journal import SCHEMA_VERSION, TOMBSTONE, Journal, RelationType
from tests.helpers import FakeClock

T0 = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)


def Clock() -> FakeClock:
    """One second later at every reading, so ordering is deterministic."""
    return FakeClock(T0, step=timedelta(seconds=1))


@pytest.fixture
def journal(tmp_path):
    j = Journal(tmp_path / "journal.sqlite3", level="writes", clock=Clock())
    yield j
    j.close()


def _open(tmp_path, level="writes", **kw) -> Journal:
    return Journal(tmp_path / "journal.sqlite3", level=level, clock=Clock(), **kw)


# ------------------------------------------------------------------- schema
def test_schema_and_wal_on_open(tmp_path):
    j = _open(tmp_path)
    assert j.journal_mode() == "wal"
    assert j.schema_version() == SCHEMA_VERSION
    j.close()
    raw = sqlite3.connect(tmp_path / "journal.sqlite3")
    tables = {r[0] for r in raw.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"schema_version", "ops", "versions", "relations", "entity_index"} <= tables
    assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"  # persistent in the file
    raw.close()
    again = _open(tmp_path)  # reopening keeps one schema_version row
    assert again.schema_version() == SCHEMA_VERSION
    again.close()


def test_busy_timeout_is_set(journal):
    assert journal._conn().execute("PRAGMA busy_timeout").fetchone()[0] == 10_000


def test_unknown_level_is_rejected(tmp_path):
    with pytest.raises(InvalidInputError, match="audit level"):
        Journal(tmp_path / "j.sqlite3", level="loud")


def test_closed_journal_refuses_use(tmp_path):
    j = _open(tmp_path)
    j.close()
    with pytest.raises(InvalidInputError, match="closed"):
        j.versions("m1")


# -------------------------------------------------------------------- audit
@pytest.mark.parametrize(("level", "writes", "reads", "payloads"), [
    ("off", 0, 0, False),
    ("writes", 1, 0, False),
    ("reads", 1, 1, False),
    ("verbose", 1, 1, True),
])
def test_audit_levels(tmp_path, level, writes, reads, payloads):
    j = _open(tmp_path, level)
    write_id = j.record_op("create", "m1", "agent", None, {"id": "m1", "content": "uses tabs"}, None)
    read_id = j.record_read("search", ["m1", "m2"], detail={"query": "tabs"},
                            payloads=[{"id": "m1", "content": "uses tabs"}])
    assert (write_id is not None) == bool(writes) and (read_id is not None) == bool(reads)
    ops = j.ops()
    assert [o.op for o in ops] == (["search"] if reads else []) + (["create"] if writes else [])
    if reads:
        search = ops[0]
        assert search.detail == {"query": "tabs", "result_ids": ["m1", "m2"]}
        assert search.after == ([{"id": "m1", "content": "uses tabs"}] if payloads else None)
    j.close()


def test_ops_filters_newest_first(tmp_path):
    j = _open(tmp_path, "reads")
    j.record_op("create", "m1", "agent", None, {"content": "a"}, None)
    j.record_op("create", "m2", "agent", None, {"content": "b"}, None)
    j.record_op("update", "m1", "user", {"content": "a"}, {"content": "a2"}, {"why": "typo"})
    j.record_read("recall", ["m1"])
    assert [o.op for o in j.ops()] == ["recall", "update", "create", "create"]
    m1 = j.ops(memory_id="m1")
    assert [o.op for o in m1] == ["recall", "update", "create"]  # reads that returned it count too
    update = m1[1]
    assert (update.actor, update.before, update.after, update.detail) == ("user", {"content": "a"}, {"content": "a2"},
                                                                          {"why": "typo"})
    assert update.ts.tzinfo is not None and not update.purged
    third = j.ops()[1].ts
    assert [o.op for o in j.ops(since=third)] == ["recall", "update"]
    assert len(j.ops(limit=2)) == 2
    j.close()


def test_payloads_with_datetimes_are_stored_as_iso(journal):
    journal.record_op("create", "m1", "agent", None, {"created_at": T0, "tags": ("a", "b")}, None)
    assert journal.ops()[0].after == {"created_at": T0.isoformat(), "tags": ["a", "b"]}


# ------------------------------------------------------------------ history
def test_versions_oldest_first(journal):
    assert journal.add_version("m1", "Postgres 15", {"kind": "fact"}, "create") == 1
    assert journal.add_version("m2", "unrelated", {}, "create") == 1
    assert journal.add_version("m1", "Postgres 16", {"kind": "fact"}, "update") == 2
    history = journal.versions("m1")
    assert [(v.version, v.content, v.reason) for v in history] == [(1, "Postgres 15", "create"), (2, "Postgres 16", "update")]
    assert history[0].payload == {"kind": "fact"} and history[0].ts < history[1].ts
    assert journal.versions("nope") == []


# ---------------------------------------------------------------- relations
def test_add_relation_validates_and_deduplicates(journal):
    rel = journal.add_relation("a", "b", "elaborates", 0.5, {"overlap": 0.4})
    assert (rel.src, rel.dst, rel.type, rel.weight, rel.detail) == ("a", "b", RelationType.ELABORATES, 0.5, {"overlap": 0.4})
    again = journal.add_relation("a", "b", RelationType.ELABORATES, 0.8)
    assert again.weight == 0.8 and len(journal.relations("a")) == 1
    with pytest.raises(InvalidInputError, match="unknown relation type"):
        journal.add_relation("a", "b", "likes")
    with pytest.raises(InvalidInputError, match="itself"):
        journal.add_relation("a", "a", "related_to")
    with pytest.raises(InvalidInputError, match="weight"):
        journal.add_relation("a", "b", "related_to", 1.5)


def test_relations_direction_and_types(journal):
    journal.add_relation("new", "old", "supersedes")
    journal.add_relation("x", "new", "elaborates", 0.6)
    journal.add_relation("new", "y", "related_to", 0.3)
    assert [(r.src, r.dst) for r in journal.relations("new", direction="out")] == [("new", "old"), ("new", "y")]
    assert [(r.src, r.dst) for r in journal.relations("new", direction="in")] == [("x", "new")]
    assert [r.type for r in journal.relations("new")] == ["supersedes", "elaborates", "related_to"]  # strongest first
    assert [r.dst for r in journal.relations("new", types=["supersedes", "related_to"])] == ["old", "y"]
    with pytest.raises(InvalidInputError, match="direction"):
        journal.relations("new", direction="sideways")


@pytest.fixture
def graph(journal):
    # a -causes-> b -elaborates-> c -related_to-> d ; a -same_entity- e ; e -causes-> f
    journal.add_relation("a", "b", "causes", 0.9)
    journal.add_relation("b", "c", "elaborates", 0.7)
    journal.add_relation("c", "d", "related_to", 0.4)
    journal.add_relation("a", "e", "same_entity", 0.5)
    journal.add_relation("e", "f", "causes", 0.8)
    return journal


def test_traverse_bfs_with_max_hops(graph):
    assert graph.traverse("a", max_hops=1) == [("b", 1, ("a", "b")), ("e", 1, ("a", "e"))]
    assert graph.traverse("a", max_hops=2) == [
        ("b", 1, ("a", "b")), ("e", 1, ("a", "e")), ("c", 2, ("a", "b", "c")), ("f", 2, ("a", "e", "f"))]
    assert [n for n, hops, _ in graph.traverse("a", max_hops=5)] == ["b", "e", "c", "f", "d"]
    assert graph.traverse("a", max_hops=0) == []


def test_traverse_type_filter_and_direction(graph):
    assert graph.traverse("a", max_hops=3, types=["causes"]) == [("b", 1, ("a", "b"))]
    assert graph.traverse("f", max_hops=3, types=["causes", "same_entity"]) == [
        ("e", 1, ("f", "e")), ("a", 2, ("f", "e", "a")), ("b", 3, ("f", "e", "a", "b"))]
    assert graph.traverse("f", max_hops=3, direction="out") == []
    assert graph.traverse("d", max_hops=2, direction="in") == [("c", 1, ("d", "c")), ("b", 2, ("d", "c", "b"))]


def test_traverse_handles_cycles(journal):
    journal.add_relation("a", "b", "related_to")
    journal.add_relation("b", "c", "related_to")
    journal.add_relation("c", "a", "related_to")
    assert sorted(n for n, _, _ in journal.traverse("a", max_hops=10)) == ["b", "c"]


def test_prune_never_drops_protected_types(journal):
    journal.add_relation("m", "s1", "supersedes", 0.1)
    journal.add_relation("c1", "m", "contradicts", 0.1)
    journal.add_relation("m", "k1", "causes", 0.1)
    journal.add_relation("m", "r1", "related_to", 0.9)
    journal.add_relation("m", "r2", "related_to", 0.2)
    journal.add_relation("m", "e1", "same_entity", 0.3)
    journal.add_relation("m", "l1", "elaborates", 0.1)
    assert journal.prune_relations("m", cap=5) == 2
    assert {r.dst for r in journal.relations("m", direction="out")} == {"s1", "k1", "e1", "l1"}  # both related_to went
    assert journal.prune_relations("m", cap=0) == 2  # same_entity, then elaborates
    assert sorted(r.type for r in journal.relations("m")) == ["causes", "contradicts", "supersedes"]
    assert journal.prune_relations("m", cap=0) == 0  # protected edges stay over the cap
    assert journal.prune_relations("m", cap=10) == 0


def test_prune_removes_weakest_within_a_type(journal):
    for i, w in enumerate([0.9, 0.1, 0.5, 0.3]):
        journal.add_relation("m", f"r{i}", "related_to", w)
    assert journal.prune_relations("m", cap=2) == 2
    assert [r.weight for r in journal.relations("m")] == [0.9, 0.5]


# ----------------------------------------------------------- entity index
def test_entity_hub(journal):
    journal.index_entities("m1", ["service:postgres", "tool:docker", ""])
    journal.index_entities("m2", ["Service:Postgres"])
    journal.index_entities("m3", ["file:src/app.py"])
    assert journal.entity_hub("service:postgres") == ["m1", "m2"]  # case-insensitive
    assert journal.entity_hub("tool:docker") == ["m1"]
    journal.index_entities("m1", ["tool:docker"])  # re-indexing replaces
    assert journal.entity_hub("service:postgres") == ["m2"]
    assert journal.entity_hub("nothing") == []


def test_entity_hub_by_untyped_name(journal):
    journal.index_entities("m1", ["file:src/billing/invoice.py", "service:redis"])
    journal.index_entities("m2", ["tool:redis-cli", "package:redis", "C:\\work\\app.py"])
    assert journal.entity_hub("src/billing/invoice.py") == ["m1"]
    assert journal.entity_hub("redis") == ["m1", "m2"]  # a service and a package of that name
    assert journal.entity_hub("service:redis") == ["m1"]
    assert journal.entity_hub("C:\\work\\app.py") == ["m2"]  # a drive letter is no type


def test_version_1_journal_is_migrated(tmp_path):
    path = tmp_path / "journal.sqlite3"
    raw = sqlite3.connect(path)
    raw.executescript("""
        CREATE TABLE schema_version (version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at TEXT NOT NULL);
        INSERT INTO schema_version VALUES (1, 'v1', '2026-01-01T00:00:00+00:00');
        CREATE TABLE entity_index (entity TEXT NOT NULL COLLATE NOCASE, memory_id TEXT NOT NULL,
                                   PRIMARY KEY (entity, memory_id));
        INSERT INTO entity_index VALUES ('service:postgres', 'm1');
    """)
    raw.close()
    j = Journal(path, clock=Clock())
    assert j.schema_version() == SCHEMA_VERSION == 6
    assert j.pending_purges() == []  # version 3: the purges table exists
    assert j.pending_supersedes() == []  # version 6: supersedes in progress
    assert j.blocks([""]) == []  # version 4: the blocks tables exist
    assert j.entity_hub("postgres") == ["m1"] and j.entity_hub("service:postgres") == ["m1"]
    j.close()


# -------------------------------------------------------------------- purge
SECRET = "the launch codes are 7731-alpha-tango"


def test_purge_removes_content_everywhere(tmp_path):
    j = _open(tmp_path, "verbose")
    j.record_op("create", "m1", "agent", None, {"id": "m1", "content": SECRET}, {"note": SECRET})
    j.add_version("m1", SECRET, {"id": "m1", "content": SECRET}, "create")
    j.record_op("update", "m1", "agent", {"content": SECRET}, {"content": SECRET + "!"}, None)
    j.add_version("m1", SECRET + "!", {"content": SECRET + "!"}, "update")
    j.record_read("search", ["m1", "m2"], detail={"query": "launch"},
                  payloads=[{"id": "m1", "content": SECRET}, {"id": "m2", "content": "keep me"}])
    j.record_op("merge", "m2", "agent", None, {"id": "m2", "merged": [{"id": "m1", "content": SECRET}]}, None)
    j.index_entities("m1", ["topic:launch"])
    j.add_relation("m1", "m2", "elaborates", 0.5, {"excerpt": SECRET})
    j.record_op("create", "m2", "agent", None, {"id": "m2", "content": "keep me"}, None)

    counts = j.purge("m1", actor="user")
    assert counts == {"versions": 2, "ops": 2, "other_ops": 2, "queries": 1}

    assert [(v.content, v.purged) for v in j.versions("m1")] == [(TOMBSTONE, True), (TOMBSTONE, True)]
    own = [o for o in j.ops(memory_id="m1") if o.memory_id == "m1"]
    assert [o.op for o in own] == ["purge", "update", "create"]  # op rows are kept
    assert all(o.purged for o in own[1:]) and not own[0].purged
    assert own[0].actor == "user" and own[0].detail == counts
    search = next(o for o in j.ops() if o.op == "search")
    assert search.after == [{"id": "m1", "purged": True}, {"id": "m2", "content": "keep me"}]
    assert search.detail["query"] == TOMBSTONE  # the query found it: it may have quoted it
    merge = next(o for o in j.ops() if o.op == "merge")
    assert merge.after == {"id": "m2", "merged": [{"id": "m1", "purged": True}]}
    assert j.entity_hub("topic:launch") == []
    assert j.relations("m1")[0].detail is None  # the edge stays, its excerpt goes

    for o in j.ops():
        assert SECRET not in repr(o)
    # and not on disk either: not in the database file, the WAL, or freed pages; while the
    # journal is still open (the WAL was folded back) and after it is closed
    for path in tmp_path.iterdir():
        assert b"launch codes" not in path.read_bytes(), path.name
    j.close()
    for path in tmp_path.iterdir():
        assert b"launch codes" not in path.read_bytes(), path.name
    assert b"keep me" in (tmp_path / "journal.sqlite3").read_bytes()


def test_purge_at_audit_off_records_nothing_but_scrubs(tmp_path):
    j = _open(tmp_path, "off")
    j.add_version("m1", SECRET, {}, "create")
    assert j.purge("m1") == {"versions": 1, "ops": 0, "other_ops": 0, "queries": 0}
    assert j.ops() == [] and j.versions("m1")[0].content == TOMBSTONE
    j.close()


# -------------------------------------------------------------- concurrency
def test_two_threads_writing_concurrently_lose_nothing(tmp_path):
    """Two journals (two connections) on one file, each written from its own thread."""
    first, second = _open(tmp_path), _open(tmp_path)
    n = 150
    barrier = threading.Barrier(2)
    errors: list[BaseException] = []

    def write(j: Journal, name: str) -> None:
        try:
            barrier.wait()
            for i in range(n):
                j.record_op("create", f"{name}-{i}", name, None, {"i": i}, None)
                j.add_version(f"{name}-shared", f"{name} {i}", {"i": i}, "update")
                j.add_relation(f"{name}-{i}", "hub", "related_to", 0.5)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(first, "t1")), threading.Thread(target=write, args=(second, "t2"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    check = _open(tmp_path)
    assert len(check.ops(limit=10_000)) == 2 * n
    assert [v.version for v in check.versions("t1-shared")] == list(range(1, n + 1))
    assert len(check.relations("hub")) == 2 * n
    for j in (first, second, check):
        j.close()


def test_one_journal_shared_by_threads_uses_a_connection_each(journal):
    seen: set[int] = set()
    lock = threading.Lock()

    def work(k: int) -> None:
        con = journal._conn()
        with lock:
            seen.add(id(con))
        for i in range(50):
            journal.add_version("shared", f"{k}-{i}", {}, "update")

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(seen) == 4
    assert [v.version for v in journal.versions("shared")] == list(range(1, 201))


def test_long_payloads_are_packed_and_read_back_and_a_purge_still_finds_them(tmp_path):
    """Whole memories are stored deflated (about a sixth of their JSON), with the ids they
    carry in plain text so a purge's LIKE still finds a merge op that embeds another memory."""
    import sqlite3

    from mnemex.store.journal.packing import unpack

    journal = Journal(tmp_path / "j.sqlite3")
    try:
        big = {"id": "m1", "content": "uses tabs " * 10, "tags": ["a"] * 30, "metadata": {"k": "v" * 50}}
        journal.add_version("m1", big["content"], big)
        journal.record_op("merge", "m2", "agent", None, {"id": "m2", "merged": [big]})
        journal.record_op("update", "m3", "agent", {"content": "a"}, {"content": "a2"})
        raw = sqlite3.connect(tmp_path / "j.sqlite3")
        (payload,) = raw.execute("SELECT payload FROM versions").fetchone()
        assert isinstance(payload, bytes) and len(payload) < len(json.dumps(big)) / 2
        assert json.loads(unpack(payload)) == big
        assert raw.execute("SELECT after FROM ops WHERE memory_id = 'm3'").fetchone() == ('{"content": "a2"}',)
        raw.close()
        assert journal.versions("m1")[0].payload == big
        journal.purge("m1")
        merge = next(op for op in journal.ops() if op.op == "merge")
        assert merge.after == {"id": "m2", "merged": [{"id": "m1", "purged": True}]}
    finally:
        journal.close()


def test_writers_of_one_process_take_turns_instead_of_failing_or_sleeping_on_the_lock(tmp_path):
    """A search records its read while a dream writes: this process's writers queue on a lock
    (woken in turn) rather than on SQLite's busy handler, which sleeps up to 100 ms between tries
    and, with no busy timeout at all, fails at once ("database is locked")."""
    import threading

    journal = Journal(tmp_path / "j.sqlite3", level="reads", busy_timeout_ms=0)
    errors: list[BaseException] = []

    def write(n: int) -> None:
        try:
            for i in range(60):
                journal.record_op("update", f"m-{n}-{i}", "agent", None, {"i": i}, None)
                journal.record_read("search", [f"m-{n}-{i}"], actor="agent")
        except BaseException as exc:  # noqa: BLE001 - collected for the assertion
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    try:
        assert errors == []
        ops = journal._conn().execute("SELECT COUNT(*) FROM ops").fetchone()[0]
        assert ops >= 4 * 60 * 2
    finally:
        journal.close()
