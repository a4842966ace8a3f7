"""A real daemon hands its store to a successor process after a burst of writes (`server/handoff.py`):
the successor loads the optimized copy while the daemon serves, takes over at an idle moment, and
nothing written is lost, whichever of the two processes dies at which point."""

from __future__ import annotations

import os
import re
import signal
from pathlib import Path

import pytest

from mnemex.server import daemon_client
from mnemex.server.runfiles import RunFiles
from tests.reliability.relay_harness import INIT, call, gone, wait_until
from tests.server.test_daemon import relay_process

pytestmark = pytest.mark.slow

FACTS = ["The billing worker listens on port 8125.",
         "Audit events are kept for 400 days before the archive job moves them.",
         "Feature flags are read from the flagd sidecar, never from environment variables."]
LATE = "Nightly backups of the ledger database go to the cold bucket in eu-west-1."
AFTER = "Release tags are signed with the team's sigstore identity."

#: a store small enough for a test: optimized after 3 writes, on a copy from 1 memory, and the copy
#: served at once from 3 unindexed memories (the defaults: 500, 1,000 and 5,000)
SMALL = {"MNEMEX_STORE__OPTIMIZE_EVERY": "3", "MNEMEX_STORE__DETACH_FROM": "1",
         "MNEMEX_STORE__SERVE_COPY_FROM": "3"}


def successor_pid(files: RunFiles) -> int | None:
    found = re.findall(r"a successor \(pid (\d+)\) loads the optimized store", files.log_file.read_text())
    return int(found[-1]) if found else None


def memorize(ask, i: int, text: str) -> str:
    reply = ask(call(i, "memorize", {"content": text}))
    assert "result" in reply and not reply["result"].get("isError"), reply
    return reply["result"]["structuredContent"]["id"]


def found_first(ask, i: int, query: str) -> str:
    reply = ask(call(i, "search_memory", {"query": query}))
    assert "result" in reply and not reply["result"].get("isError"), reply
    return reply["result"]["structuredContent"]["results"][0]["id"]


def all_ids(settings) -> set[str]:
    from mnemex.engine.factory import build_engine
    from mnemex.models import MemoryFilter

    engine = build_engine(settings, default_project="/work/proj")
    try:
        hits, _ = engine.store.scroll(MemoryFilter(), limit=100)
        return {h.memory.id for h in hits}
    finally:
        engine.close()


def start(daemons):
    env = {**daemon_client.daemon_env(daemons), **SMALL}
    proc, ask = relay_process(env)
    ask(INIT)
    ids = [memorize(ask, i, text) for i, text in enumerate(FACTS, 1)]
    files = RunFiles.for_settings(daemons)
    return proc, ask, ids, files, files.read_pid()


def test_the_successor_takes_over_with_every_write_and_the_relay_carries_on(daemons) -> None:
    proc, ask, ids, files, first = start(daemons)
    store = Path(daemons.store_dir)
    assert os.readlink(store) == store.name + ".gen-1"  # linked at start: no handover moves an open directory
    try:
        assert wait_until(lambda: successor_pid(files) is not None, 30), files.log_file.read_text()
        late = memorize(ask, 10, LATE)  # written while the successor loads the copy: handed over with it
        assert wait_until(lambda: "store handed over to pid" in files.log_file.read_text(), 60), \
            files.log_file.read_text()
        second = successor_pid(files)
        assert wait_until(lambda: gone(first), 20)
        assert files.read_pid() == second and files.owner()["pid"] == second
        # the relay's session died with the old daemon: it opens one with the successor, unseen
        assert found_first(ask, 11, "where do the ledger database backups go") == late
        assert found_first(ask, 12, "which port does the billing worker listen on") == ids[0]
        after = memorize(ask, 13, AFTER)
        assert os.readlink(store) == store.name + ".gen-2"
        assert wait_until(lambda: sorted(p.name for p in store.parent.iterdir())
                          == sorted([store.name, os.readlink(store)]), 10), list(store.parent.iterdir())
        log = files.log_file.read_text()
        assert "Traceback" not in log and "dropped" not in log, log
    finally:
        proc.stdin.close()
        assert proc.wait(20) == 0
    assert daemon_client.stop_daemon(daemons)
    assert wait_until(lambda: gone(second), 10) and files.owner() is None
    assert all_ids(daemons) == {*ids, late, after}


def test_a_successor_that_dies_before_it_is_ready_leaves_the_daemon_serving(daemons) -> None:
    proc, ask, ids, files, first = start(daemons)
    try:
        assert wait_until(lambda: successor_pid(files) is not None, 30, step=0.01)
        os.kill(successor_pid(files), signal.SIGKILL)
        late = memorize(ask, 10, LATE)
        assert wait_until(lambda: "successor process was dropped" in files.log_file.read_text(), 20)
        assert files.read_pid() == first and files.owner()["pid"] == first
        assert found_first(ask, 11, "where do the ledger database backups go") == late
    finally:
        proc.stdin.close()
        assert proc.wait(20) == 0
    assert daemon_client.stop_daemon(daemons)
    assert all_ids(daemons) == {*ids, late}  # the waiting copy was swapped in at close, with the late write


def test_a_daemon_that_dies_before_handing_over_takes_its_successor_with_it(daemons) -> None:
    proc, ask, ids, files, first = start(daemons)
    try:
        assert wait_until(lambda: successor_pid(files) is not None, 30, step=0.01)
        second = successor_pid(files)
        os.kill(first, signal.SIGKILL)
        assert wait_until(lambda: gone(second), 20), "the successor must exit when its daemon is gone"
        assert "gone before handing the store over" in files.log_file.read_text()
        late = memorize(ask, 10, LATE)  # the relay starts a new daemon on the store as it was
        assert files.read_pid() not in (first, second)
        assert found_first(ask, 11, "which port does the billing worker listen on") == ids[0]
    finally:
        proc.stdin.close()
        assert proc.wait(20) == 0
    assert daemon_client.stop_daemon(daemons)
    assert all_ids(daemons) == {*ids, late}


def test_a_successor_carries_the_dream_and_sweep_schedules_on(engine) -> None:
    assert engine.timers() == {"dream": None, "sweep": None} and engine.dreamer.due()
    engine.carry_timers({"dream": 60.0, "sweep": None})  # what the daemon's "go" says
    assert not engine.dreamer.due()  # dreams every_hours after the old daemon's dream, not at once
    assert 60.0 <= engine.timers()["dream"] < 120.0 and engine.timers()["sweep"] is None


def test_a_daemon_in_the_foreground_keeps_its_pid_while_its_successor_serves(daemons, tmp_path) -> None:
    import subprocess
    import sys

    env = {**daemon_client.daemon_env(daemons), **SMALL}
    files = RunFiles.for_settings(daemons)
    log = tmp_path / "foreground.log"
    with open(log, "wb") as err:
        fg = subprocess.Popen([sys.executable, "-m", "mnemex", "daemon", "run"], env=env, stderr=err,
                              stdin=subprocess.DEVNULL)
    proc = None
    try:
        assert wait_until(lambda: files.read_pid() == fg.pid, 60), log.read_text()
        proc, ask = relay_process(env)  # a client of the daemon running in the foreground
        ask(INIT)
        ids = [memorize(ask, i, text) for i, text in enumerate(FACTS, 1)]
        assert wait_until(lambda: "took the store over" in log.read_text(), 60), log.read_text()
        assert wait_until(lambda: b"mnemex.server.follow" in Path(f"/proc/{fg.pid}/cmdline").read_bytes(), 10)
        assert fg.poll() is None  # the pid a terminal or a service manager waits on lives on
        successor = files.read_pid()
        assert successor != fg.pid and files.owner()["pid"] == successor
        assert found_first(ask, 10, "which port does the billing worker listen on") == ids[0]
        fg.send_signal(signal.SIGTERM)  # `systemctl stop`, Ctrl-C: passed on to the serving daemon
        assert fg.wait(20) == 0  # once the lock is free: the successor closed the store
        assert files.owner() is None and wait_until(lambda: gone(successor), 10)
        assert "Traceback" not in log.read_text(), log.read_text()
    finally:
        if proc is not None:
            proc.stdin.close()
            proc.wait(20)
        if fg.poll() is None:
            fg.kill()
    assert all_ids(daemons) == set(ids)
