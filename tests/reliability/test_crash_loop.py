"""A crash loop: the daemon is SIGKILLed at random points of writes, purges, index optimization
and start-up, over and over. Afterwards every acknowledged memory is there with its content,
every acknowledged purge is complete (its words are in no file of the data dir), a purge that
was cut short is either undone or complete (never half: gone from the store but left on disk),
and exactly one daemon serves the store.

Random but reproducible: the seed is fixed (MNEMEX_CRASH_SEED overrides it) and printed."""

from __future__ import annotations

import os
import random
import string
import threading
import time

import pytest

from mnemex.errors import DaemonError
from mnemex.server.daemon_client import spawn_daemon
from tests.reliability.harness import LiveStore, files_holding, live_store

pytestmark = pytest.mark.slow

KILLS = 16  # rounds; with the kill after each check this makes 28 kills
PHASES = ("writes", "purge", "startup", "optimize", "writes", "purge", "idle", "startup")
WORDS = ("anchor basil cobalt dingo ember fjord gravel harbor indigo juniper kestrel lantern meadow nickel "
         "orchard pepper quarry raven saffron timber umber velvet walnut yarrow zephyr amber birch cedar "
         "delta egret falcon garnet heron iris jasper kelp lilac maple nectar onyx pine quill reed sage "
         "thistle umbra violet willow").split()


def _marker(rng: random.Random) -> str:
    """A word no memory but its own holds (letters only: the vocabulary learns it)."""
    return "mk" + "".join(rng.choice(string.ascii_lowercase) for _ in range(10))


class Ledger:
    """What the client was told: acknowledged memories, acknowledged and interrupted purges."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.acked: dict[str, str] = {}      # id -> the marker its content holds
        self.purged: dict[str, str] = {}     # id -> marker, purge acknowledged
        self.cut: dict[str, str] = {}        # id -> marker, purge sent, no answer (killed)
        self.unanswered = 0                  # calls cut by a kill (answered with an error)

    def write(self, store: LiveStore, rng: random.Random, **extra) -> str | None:
        mark = _marker(rng)
        text = f"{' '.join(rng.sample(WORDS, 7)).capitalize()} {mark} recorded on shift {rng.randint(1, 999)}"
        try:
            out = store.call("memorize", {"content": text, **extra}, timeout=30)
        except DaemonError:
            with self.lock:
                self.unanswered += 1
            return None
        if out.get("action") == "created":
            with self.lock:
                self.acked[out["id"]] = mark
            return out["id"]
        return None


def _wait_for(condition, limit: float) -> None:
    """Progress, not wall time, decides when to kill: a loaded machine writes slower."""
    deadline = time.monotonic() + limit
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.01)


def _write_until(store: LiveStore, ledger: Ledger, rng: random.Random, stop: threading.Event) -> None:
    """Write until the daemon is killed under this writer (its call is cut) or told to stop."""
    while not stop.is_set():
        cut = ledger.unanswered
        ledger.write(store, rng, **({"kind": "episode"} if rng.random() < 0.3 else {}))
        if ledger.unanswered > cut:
            return


def _kill_after(store: LiveStore, seconds: float) -> None:
    time.sleep(seconds)
    store.kill()


def _round(store: LiveStore, ledger: Ledger, rng: random.Random, phase: str, n: int) -> None:
    if phase == "startup":  # killed while it imports, loads the model, opens or recovers the store
        proc = spawn_daemon(store.files, store.env)
        time.sleep(rng.uniform(0.05, 1.5))
        proc.kill()
        proc.wait(10)
        return
    store.start()
    if phase == "writes":
        stop = threading.Event()
        writers = [threading.Thread(target=_write_until, args=(store, ledger, random.Random(rng.random()), stop))
                   for _ in range(3)]
        for w in writers:
            w.start()
        before = len(ledger.acked)
        _wait_for(lambda: len(ledger.acked) >= before + 4, 30)
        _kill_after(store, rng.uniform(0.0, 1.5))
        stop.set()
        for w in writers:
            w.join(40)
    elif phase == "purge":
        victims = [v for v in (ledger.write(store, rng) for _ in range(2)) if v]
        for victim in victims:
            mark = ledger.acked[victim]
            try:
                store.call("search_memory", {"query": f"what was recorded with {mark}"})  # the audit log holds it
            except DaemonError:
                pass
        outcome: dict[str, str] = {}
        sent = threading.Event()

        def purge_all() -> None:
            for victim in victims:
                try:
                    sent.set()
                    store.call("forget", {"id": victim, "purge": True}, timeout=30)
                    outcome[victim] = "done"
                except DaemonError:
                    outcome[victim] = "cut"
                    return

        worker = threading.Thread(target=purge_all)
        worker.start()
        sent.wait(30)
        if n % 16 < 8:  # once the first purge is acknowledged, somewhere in the second
            _wait_for(lambda: bool(outcome), 30)
            _kill_after(store, rng.uniform(0.0, 0.5))
        else:  # while the first purge runs
            _kill_after(store, rng.uniform(0.0, 0.05))
        worker.join(40)
        with ledger.lock:
            for victim in victims:
                mark = ledger.acked.pop(victim)
                (ledger.purged if outcome.get(victim) == "done" else ledger.cut)[victim] = mark
    elif phase == "optimize":  # enough writes for the idle optimizer, then kill when it starts
        for _ in range(12):
            ledger.write(store, rng)
        log = store.files.log_file
        seen = log.read_text(errors="replace").count("optimizing") if log.exists() else 0
        deadline = time.monotonic() + 8
        while time.monotonic() < deadline:
            if log.read_text(errors="replace").count("optimizing") > seen:
                break
            time.sleep(0.01)
        store.kill()
    else:  # idle
        time.sleep(rng.uniform(0.0, 0.5))
        store.kill()


def _check(store: LiveStore, ledger: Ledger) -> None:
    ids = list(ledger.acked)
    for start in range(0, len(ids), 50):
        batch = ids[start:start + 50]
        got = {m["id"]: m["content"] for m in store.call("recall_memory", {"ids": batch})["memories"]}
        for memory_id in batch:
            assert ledger.acked[memory_id] in got[memory_id], memory_id
    for memory_id in ledger.purged:
        with pytest.raises(DaemonError, match="no memory"):
            store.call("recall_memory", {"ids": [memory_id]})


def test_crash_loop_loses_no_acknowledged_memory_and_leaves_no_half_purge(tmp_path) -> None:
    seed = int(os.environ.get("MNEMEX_CRASH_SEED", "20261122"))
    print(f"crash loop seed {seed}")
    rng = random.Random(seed)
    store = live_store(tmp_path, MNEMEX_STORE__OPTIMIZE_EVERY="10", MNEMEX_AUDIT__LEVEL="verbose")
    ledger = Ledger()
    kills = 0
    try:
        for n in range(KILLS):
            phase = PHASES[n % len(PHASES)]
            _round(store, ledger, rng, phase, n)
            kills += 1
            if phase != "startup":
                store.start()
                _check(store, ledger)
                store.kill()
                kills += 1
        store.start()
        _check(store, ledger)
        for memory_id, mark in ledger.cut.items():
            try:
                store.call("recall_memory", {"ids": [memory_id]})
                survived = True
            except DaemonError:
                survived = False
            if not survived:  # gone from the store: then gone from every file too
                assert files_holding(store.data_dir, [mark]) == [], f"half purge of {memory_id}"
        assert files_holding(store.data_dir, list(ledger.purged.values())) == []
        owner = store.files.owner()
        assert owner and owner["role"] == "daemon"
        stats = store.call("memory_stats")
        assert stats["memories_total"] >= len(ledger.acked)
    finally:
        store.stop()
    assert files_holding(store.data_dir, list(ledger.purged.values())) == []
    print(f"kills {kills}, acknowledged {len(ledger.acked)}, purged {len(ledger.purged)}, "
          f"purges cut {len(ledger.cut)}, calls cut by a kill {ledger.unanswered}")
    assert kills >= 20 and len(ledger.acked) >= 40 and ledger.purged and ledger.cut
