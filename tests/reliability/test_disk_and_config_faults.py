"""Faults of the machine around mnemex: a full disk, a read-only data dir, a corrupt config, a
store made by another model. Each gives a clear error (one line, non-zero exit or a tool error
that says what to do) and loses nothing that was stored before."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from mnemex.errors import DaemonError
from tests.reliability.harness import live_store

pytestmark = pytest.mark.slow

FACTS = [
    "The payments service retries webhooks five times with a one minute backoff",
    "Frontend builds use pnpm with a committed lockfile",
    "The nightly ETL job loads the warehouse from the read replica",
]


def _cli(store, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mnemex.cli", *args], env=env or store.env, cwd=store.project,
                          capture_output=True, text=True, timeout=180)


def _add_facts(store) -> list[str]:
    ids = []
    for fact in FACTS:
        done = _cli(store, "add", fact, "--json")
        assert done.returncode == 0, done.stderr
        ids.append(json.loads(done.stdout)["id"])
    return ids


def _assert_all_present(store, ids: list[str]) -> None:
    done = _cli(store, "show", *ids, "--json")
    assert done.returncode == 0, done.stderr
    assert sorted(m["content"] for m in json.loads(done.stdout)) == sorted(FACTS)


def _one_clear_line(stderr: str, *words: str) -> str:
    lines = [ln for ln in stderr.strip().splitlines() if ln.strip()]
    assert len(lines) == 1, f"expected one line, got:\n{stderr}"
    assert "Traceback" not in stderr
    for word in words:
        assert word in lines[0], (word, lines[0])
    return lines[0]


def _mount(*args: str) -> bool:
    return subprocess.run(["mount", *args], capture_output=True).returncode == 0


ROOT = os.geteuid() == 0


def test_a_nearly_full_disk_refuses_writes_clearly_and_keeps_everything(tmp_path) -> None:
    """Reserve larger than the disk's free space (any machine): the write is refused."""
    store = live_store(tmp_path)
    ids = _add_facts(store)
    full = {**store.env, "MNEMEX_LIMITS__MIN_FREE_DISK_MB": str(10**9)}
    done = _cli(store, "add", "A fact that cannot be stored now", env=full)
    assert done.returncode == 1
    _one_clear_line(done.stderr, "MB free", "nothing was written", "free disk space")
    _assert_all_present(store, ids)
    assert _cli(store, "search", "webhooks", env=full).returncode == 0  # reads still work


@pytest.mark.skipif(not ROOT, reason="mounting a small tmpfs needs root")
def test_a_really_full_disk_through_the_daemon(tmp_path) -> None:
    """A real 160 MB tmpfs filled by a ballast file: tool calls get a clear error, nothing is
    lost, the daemon survives (Qdrant Edge would die by SIGBUS writing to a full disk), and
    writes work again once space is freed."""
    mnt = Path(tempfile.mkdtemp(prefix="mnemex-full-"))
    if not _mount("-t", "tmpfs", "-o", "size=160m", "tmpfs", str(mnt)):
        pytest.skip("cannot mount a tmpfs here")
    try:
        store = live_store(mnt)
        store.start()
        ids = [store.call("memorize", {"content": f})["id"] for f in FACTS]
        ballast = mnt / "ballast"
        with open(ballast, "wb") as fh:  # leave ~20 MB: under the 64 MB reserve
            free = os.statvfs(mnt).f_bavail * os.statvfs(mnt).f_frsize
            fh.write(b"\0" * max(0, free - 20 * 2**20))
        with pytest.raises(DaemonError, match="MB free.*nothing was written"):
            store.call("memorize", {"content": "The cache warms up from the CDN logs every hour"})
        with pytest.raises(DaemonError, match="MB free"):
            store.call("update_memory", {"id": ids[0], "content": "changed while the disk is full"})
        assert [m["content"] for m in store.call("recall_memory", {"ids": ids})["memories"]] == FACTS
        ballast.unlink()
        assert store.call("memorize", {"content": "The cache warms up from the CDN logs every hour"})["action"]
        store.kill()  # and it is all on disk
        store.start()
        assert store.call("memory_stats")["memories_total"] == len(FACTS) + 1
        store.stop()
    finally:
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True)


@pytest.mark.skipif(not ROOT, reason="a read-only bind mount needs root (root ignores file modes)")
def test_a_read_only_data_dir_is_said_plainly_and_nothing_changes(tmp_path) -> None:
    store = live_store(tmp_path)
    ids = _add_facts(store)
    before = {p: p.read_bytes() for p in store.data_dir.rglob("*") if p.is_file() and not p.is_symlink()}
    if not (_mount("--bind", str(store.data_dir), str(store.data_dir))
            and _mount("-o", "remount,ro,bind", str(store.data_dir))):
        pytest.skip("cannot bind-mount read-only here")
    try:
        done = _cli(store, "add", "A fact for a read-only store")
        assert done.returncode == 1
        _one_clear_line(done.stderr, "cannot write in its data dir", "Read-only file system", "MNEMEX_DATA_DIR")
        done = _cli(store, "search", "webhooks")
        assert done.returncode == 1
        _one_clear_line(done.stderr, "cannot write in its data dir")
    finally:
        subprocess.run(["umount", str(store.data_dir)], capture_output=True)
    after = {p: p.read_bytes() for p in before}
    assert after == before
    _assert_all_present(store, ids)


def test_a_corrupt_config_stops_every_entry_point_with_one_line(tmp_path) -> None:
    store = live_store(tmp_path)
    ids = _add_facts(store)
    bad = tmp_path / "bad.toml"
    bad.write_text('[store\ncollection = "mnemex"\n')  # a TOML syntax error
    env = {**store.env, "MNEMEX_CONFIG": str(bad)}
    for args in (["add", "x y z"], ["search", "webhooks"], ["stats"], ["daemon", "start"]):
        done = _cli(store, *args, env=env)
        assert done.returncode != 0, args
        _one_clear_line(done.stderr, "invalid config")
    serve = subprocess.run([sys.executable, "-m", "mnemex.cli", "serve"], env=env, cwd=store.project, input="",
                           capture_output=True, text=True, timeout=60)
    assert serve.returncode != 0
    _one_clear_line(serve.stderr, "invalid config")
    bad.write_text('[limits]\nmax_results = 0\n')  # valid TOML, invalid value
    done = _cli(store, "stats", env={**store.env, "MNEMEX_CONFIG": str(bad)})
    assert done.returncode != 0
    _one_clear_line(done.stderr, "limits.max_results")
    _assert_all_present(store, ids)


def test_a_store_made_by_another_model_is_refused_and_kept(tmp_path) -> None:
    store = live_store(tmp_path)
    ids = _add_facts(store)
    identity = store.settings.store_dir / "mnemex-identity.json"
    original = identity.read_text()
    data = json.loads(original)
    identity.write_text(json.dumps({**data, "model": "BAAI/bge-small-en-v1.5"}))
    for args in (["add", "A fact that must not be mixed in"], ["search", "webhooks"]):
        done = _cli(store, *args)
        assert done.returncode == 1, args
        _one_clear_line(done.stderr, "BAAI/bge-small-en-v1.5", "embedding.model")
    with pytest.raises(DaemonError, match="bge-small"):
        store.start(timeout=60)
    identity.write_text(original)
    _assert_all_present(store, ids)


def _garble(path: Path, *, at: float, size: int) -> None:
    """Overwrite `size` bytes of `path` from `at` (a share of its length) with a constant, as a
    stray write would: the file keeps its length."""
    data = bytearray(path.read_bytes())
    start = int(len(data) * at)
    data[start:start + size] = b"\x5a" * min(size, len(data) - start)
    path.write_bytes(bytes(data))
    for suffix in ("-wal", "-shm"):
        path.with_name(path.name + suffix).unlink(missing_ok=True)


def test_a_damaged_journal_or_vocabulary_is_set_aside_and_the_memories_still_serve(tmp_path) -> None:
    """The journal's first page overwritten (no SQLite file any more), then the vocabulary cut
    short: every command still works on the memories (they live in the store), the damaged file
    is kept under a new name and named by `mnemex doctor`; nothing is deleted."""
    store = live_store(tmp_path)
    ids = _add_facts(store)
    assert _cli(store, "block", "append", "user", "Prefers small pull requests").returncode == 0
    journal = store.settings.journal_path
    _garble(journal, at=0.0, size=4096)
    done = _cli(store, "search", "webhooks", "--json")
    assert done.returncode == 0, done.stderr
    assert "is damaged" in done.stderr and "set aside as" in done.stderr and "Traceback" not in done.stderr
    assert json.loads(done.stdout)[0]["id"] == ids[0]
    aside = sorted(store.data_dir.glob("mnemex.journal.sqlite3.damaged-*"))
    assert [p.name for p in aside if not p.name.endswith(("-wal", "-shm"))], aside
    _assert_all_present(store, ids)

    vocabulary = store.settings.vocabulary_path
    vocabulary.write_bytes(vocabulary.read_bytes()[:3000])
    done = _cli(store, "search", "webhooks", "--json")
    assert done.returncode == 0, done.stderr
    assert "vocabulary" in done.stderr and "built again" in done.stderr
    assert list(store.data_dir.glob("mnemex.vocabulary.sqlite3.damaged-*"))
    doctor = _cli(store, "doctor")
    assert doctor.returncode == 0, doctor.stdout
    assert "damaged files set aside" in doctor.stdout and "mnemex.journal.sqlite3.damaged-" in doctor.stdout
    assert "mnemex.vocabulary.sqlite3.damaged-" in doctor.stdout
    assert _cli(store, "add", "A fact written after the repair").returncode == 0


def test_a_damaged_page_inside_the_journal_is_one_line_then_doctor_salvages_what_it_can(tmp_path) -> None:
    """A page in the middle of the journal overwritten: the file still opens, a command that reads
    that page says so in one line; `mnemex doctor` reads the whole file, sets it aside and keeps
    every row still readable (here the core memory block); the daemon then serves as before."""
    store = live_store(tmp_path)
    ids = _add_facts(store)
    assert _cli(store, "block", "append", "user", "Prefers small pull requests").returncode == 0
    journal = store.settings.journal_path
    con = sqlite3.connect(journal)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    page_size = con.execute("PRAGMA page_size").fetchone()[0]
    root = con.execute("SELECT rootpage FROM sqlite_master WHERE name = 'ops'").fetchone()[0]
    con.close()
    data = bytearray(journal.read_bytes())  # the audit rows' root page, as a stray write would leave it
    data[(root - 1) * page_size:root * page_size] = b"\x5a" * page_size
    journal.write_bytes(bytes(data))
    broken = _cli(store, "history", ids[0])
    assert broken.returncode == 1
    _one_clear_line(broken.stderr, "damaged", "mnemex doctor")
    store.start()  # the daemon opens it too, and a tool that reads the page says what to do
    try:
        with pytest.raises(DaemonError, match="damaged.*mnemex doctor"):
            store.call("memory_history", {"id": ids[0]})
        assert store.call("search_memory", {"query": "how are webhooks retried?"})["results"][0]["id"] == ids[0]
    finally:
        store.stop()
    doctor = _cli(store, "doctor")
    assert doctor.returncode == 0, doctor.stdout
    assert "the journal was damaged" in doctor.stdout and "rows still readable" in doctor.stdout
    blocks = _cli(store, "blocks")
    assert blocks.returncode == 0 and "Prefers small pull requests" in blocks.stdout
    store.start()
    try:
        found = store.call("search_memory", {"query": "how are webhooks retried?"})
        assert found["results"][0]["id"] == ids[0]
    finally:
        store.stop()
    _assert_all_present(store, ids)


@pytest.mark.parametrize("damage", ["a payload page overwritten", "the id tracker cut short"])
def test_a_damaged_store_is_said_plainly_and_recover_rebuilds_it_from_the_journal(tmp_path, damage) -> None:
    """Qdrant Edge either fails to read what it stored, or loads fewer points than it holds without
    a word. A command says so in one line; doctor finds it (every payload read back, counted against
    the journal); `mnemex recover` sets the store aside and rebuilds it from the journal: every
    memory back, a superseded one still superseded by its successor."""
    store = live_store(tmp_path)
    ids = _add_facts(store)
    old = json.loads(_cli(store, "add", "The billing service listens on port 8443.", "--json").stdout)
    new = json.loads(_cli(store, "add", "Billing moved to port 9443 because 8443 clashed with the admin proxy.",
                          "--json").stdout)
    assert new["action"] == "superseded" and new["affected_ids"] == [old["id"]]
    segments = sorted((store.settings.store_dir / "segments").iterdir(), key=lambda p: p.stat().st_mtime)
    assert segments
    for segment in segments:
        if damage.startswith("a payload"):
            page = segment / "payload_storage" / "page_0.dat"
            data = bytearray(page.read_bytes())
            data[:4096] = b"\x5a" * 4096
            page.write_bytes(bytes(data))
        else:
            tracker = segment / "mutable_id_tracker.mappings"
            tracker.write_bytes(tracker.read_bytes()[:10])
    doctor = _cli(store, "doctor")
    assert doctor.returncode == 1 and "mnemex recover" in doctor.stdout, doctor.stdout
    if damage.startswith("a payload"):
        done = _cli(store, "search", "webhooks")
        assert done.returncode == 1
        _one_clear_line(done.stderr, "could not be read", "mnemex recover")
    else:
        assert "missing from the store" in doctor.stdout
    dry = _cli(store, "recover", "--dry-run", "--json")
    assert dry.returncode == 0 and json.loads(dry.stdout)["memories"] == len(FACTS) + 2
    done = _cli(store, "recover", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["restored"] == len(FACTS) + 2 and Path(report["set_aside"]).is_dir()
    _assert_all_present(store, ids)
    shown = {m["id"]: m for m in json.loads(_cli(store, "show", old["id"], new["id"], "--json").stdout)}
    assert shown[old["id"]]["status"] == "superseded" and shown[old["id"]]["superseded_by"] == new["id"]
    found = json.loads(_cli(store, "search", "which port does billing listen on?", "--json").stdout)
    assert found[0]["id"] == new["id"] and old["id"] not in [m["id"] for m in found]
    assert _cli(store, "doctor").returncode == 0
