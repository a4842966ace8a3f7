"""Nothing leaked, nothing left: secrets given in any field and purged memories are absent from
every byte of the data dir — store segments and WAL, journal and its WAL, vocabulary — while
the daemon still runs and after it stops. Through a real daemon and real tool calls."""

from __future__ import annotations

import json

import pytest

from mnemex.errors import DaemonError
from tests.reliability.harness import files_holding, live_store

pytestmark = pytest.mark.slow

# Each connection string's password is unique, so finding it anywhere means it leaked.
CONNECTION_STRINGS = [
    "the staging database is postgres://app:Pgpass7731xq@db:5432/app",
    "reports read from mysql://report:Mypass7731xq@10.0.0.5:3306/reports",
    "the Atlas cluster is mongodb+srv://svc:Mgpass7731xq@cluster0.abcd.mongodb.net/orders",
    "sessions live in redis://:Rdpass7731xq@cache.internal:6379/0",
    "the event bus is amqp://events:Aqpass7731xq@rabbit.internal:5672/prod",
    "mirror the wiki from https://bot:Htpass7731xq@git.example.com/team/wiki.git nightly",
    "orders use postgresql://orders:Pqpass7731xq@pg.prod.internal/orders in production",
    "the old build artefacts are on ftp://ci:Ftpass7731xq@files.example.org/pub",
]
PASSWORDS = [s.split(":")[2].split("@")[0] for s in CONNECTION_STRINGS]
TAG_TOKEN = "ghp_Q7wE9rT2yU4iO6pA8sD0fG1hJ3kL5zX7cV9b"
REASON_SECRET = "Rsn0nly7731pw"
QUERY_SECRET = "sk-proj-Qy7731Zr8Qv2LmP9xT4kW7nB1cY6dF3hJ5gA0s"
UPDATE_SECRET = "Upd4ted7731pw"
# Words nothing but the purged memory holds, in its first and in its updated wording.
PURGED_FIRST = "zanzibarite quokkaflux"
PURGED_LATER = "marmolith vexillance"


def test_secrets_in_every_field_and_purged_content_never_reach_the_disk(tmp_path) -> None:
    store = live_store(tmp_path, MNEMEX_AUDIT__LEVEL="verbose")
    store.start()
    try:
        # 1. connection strings with passwords: stored, redacted, the host kept as an entity
        for text in CONNECTION_STRINGS:
            out = store.call("memorize", {"content": text})
            assert out["action"] == "created", (text, out)
            memory = store.call("recall_memory", {"ids": [out["id"]]})["memories"][0]
            assert "[REDACTED:" in memory["content"] and any(e.startswith("host:") for e in memory["entities"])
        # 2. secrets outside content: a tag, a forget reason, an audited query, an update
        tagged = store.call("memorize", {"content": "CI pushes release images with the deploy bot token",
                                         "tags": ["ci", TAG_TOKEN]})
        forgotten = store.call("memorize", {"content": "The nightly export job writes to the analytics bucket"})
        store.call("forget", {"id": forgotten["id"], "reason": f"moved; old password={REASON_SECRET}"})
        store.call("search_memory", {"query": f"which service uses {QUERY_SECRET}"})
        store.call("update_memory", {"id": tagged["id"],
                                     "content": f"CI pushes release images; deploy password: {UPDATE_SECRET}"})
        recalled = store.call("recall_memory", {"ids": [tagged["id"], forgotten["id"]]})["memories"]
        assert "[REDACTED:high_entropy]" in recalled[0]["tags"] or any("REDACTED" in t for t in recalled[0]["tags"])
        assert "REDACTED" in recalled[1]["metadata"]["forget_reason"]

        # 3. a purged memory: written, reworded, searched for by its own words, purged by an
        #    id spelled in upper case
        doomed = store.call("memorize", {"content": f"The {PURGED_FIRST} rollout plan lives in the ops wiki"})
        store.call("update_memory", {"id": doomed["id"],
                                     "content": f"The {PURGED_LATER} rollout plan lives in the platform wiki"})
        found = store.call("search_memory", {"query": f"{PURGED_LATER} rollout plan"})
        assert doomed["id"] in [r["id"] for r in found["results"]]
        store.call("search_memory", {"query": PURGED_FIRST})
        assert store.call("forget", {"id": doomed["id"].upper(), "purge": True})["action"] == "purged"
        with pytest.raises(DaemonError, match="no memory"):
            store.call("recall_memory", {"ids": [doomed["id"]]})

        needles = [*PASSWORDS, TAG_TOKEN, REASON_SECRET, QUERY_SECRET, UPDATE_SECRET,
                   *PURGED_FIRST.split(), *PURGED_LATER.split()]
        assert files_holding(store.data_dir, needles) == [], "while the daemon runs"
        # the memories that stay are really on disk (the search is not blind)
        assert files_holding(store.data_dir, ["analytics bucket"]) != []
    finally:
        store.stop()
    assert files_holding(store.data_dir, needles) == [], "after the daemon stopped"


def test_the_search_of_the_disk_sees_inside_packed_journal_values(tmp_path) -> None:
    """The journal deflates memory JSON (`store/journal/packing.py`): a secret inside a packed value,
    in a live row or a freed page amid other bytes, is still found."""
    from mnemex.store.journal.packing import pack

    memory = {"id": "0b3c7e0e-1f9b-4c55-9d51-6a3f1f7f2b10", "content": f"deploy password {UPDATE_SECRET} " + "x" * 300}
    packed = pack(json.dumps(memory), memory)
    assert isinstance(packed, bytes) and UPDATE_SECRET.encode() not in packed
    (tmp_path / "journal.db").write_bytes(b"\x00" * 100 + packed + b"\x07" * 50)
    assert files_holding(tmp_path, [UPDATE_SECRET]) == [("journal.db", UPDATE_SECRET)]


def test_ids_in_any_spelling_reach_the_same_memory_in_every_tool(tmp_path) -> None:
    store = live_store(tmp_path)
    store.start()
    try:
        first = store.call("memorize", {"content": "Payments retries use exponential backoff capped at 30 seconds"})
        second = store.call("memorize", {"content": "Payments retries are logged to the billing audit stream"})
        store.call("link_memories", {"src": first["id"], "dst": second["id"], "relation": "elaborates"})
        plain = first["id"]
        for spelling in (plain.upper(), "{" + plain + "}", "urn:uuid:" + plain, plain.replace("-", "")):
            assert store.call("recall_memory", {"ids": [spelling]})["memories"][0]["id"] == plain
            history = store.call("memory_history", {"id": spelling})
            assert history["id"] == plain and history["versions"], spelling
            related = store.call("related_memories", {"id": spelling})
            assert [r["memory"]["id"] for r in related["results"]] == [second["id"]], spelling
            assert store.call("memory_timeline", {"id": spelling})["anchor"]["id"] == plain
        # and content that is nothing but control characters is refused the same way by both writes
        with pytest.raises(DaemonError, match="content is empty"):
            store.call("memorize", {"content": "\x00\x00"})
        with pytest.raises(DaemonError, match="content is empty"):
            store.call("update_memory", {"id": plain, "content": "\x00"})
        assert store.call("recall_memory", {"ids": [plain]})["memories"][0]["content"].startswith("Payments retries")
    finally:
        store.stop()
