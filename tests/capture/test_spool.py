"""The spool never loses or doubles an event: hooks append while the ingester takes batches, and
an ingester SIGKILLed mid-batch leaves a batch that the next run ingests exactly once."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from mnemex.capture.spool import Spool
from mnemex.models import MemoryFilter, MemoryKind, ValidityMode

WRITER = textwrap.dedent("""
    import sys
    from pathlib import Path
    from mnemex.capture.spool import Spool
    spool = Spool(Path(sys.argv[1]))
    for i in range(int(sys.argv[3])):
        spool.append({"id": f"{sys.argv[2]}-{i:05d}", "kind": "tool"})
""")


def test_appends_racing_the_ingester_are_each_read_once(tmp_path: Path) -> None:
    spool = Spool(tmp_path / "spool")
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, str(spool.dir), f"w{n}", "400"]) for n in range(4)]
    seen: list[str] = []
    while any(w.poll() is None for w in writers):
        for batch in spool.take():
            seen += [r["id"] for r in spool.read(batch)]
            spool.done(batch)
        time.sleep(0.002)
    for batch in spool.take():
        seen += [r["id"] for r in spool.read(batch)]
        spool.done(batch)
    assert all(w.returncode == 0 for w in writers)
    assert len(seen) == len(set(seen)) == 1600
    assert not spool.pending()


def test_a_torn_last_line_is_skipped_not_fatal(tmp_path: Path) -> None:
    spool = Spool(tmp_path / "spool")
    spool.append({"id": "first-event", "kind": "tool"})
    with open(spool.current, "ab") as fh:
        fh.write(b'{"id": "torn-event", "ki')  # a writer killed mid-line
    [batch] = spool.take()
    assert [r["id"] for r in spool.read(batch)] == ["first-event"]


INGEST = textwrap.dedent("""
    import sys
    from mnemex.config import load_settings
    from mnemex.engine.factory import build_engine
    from mnemex.capture.ingest import Ingester
    settings = load_settings()
    engine = build_engine(settings)
    engine.dense.load()
    print("ready", flush=True)
    Ingester.for_settings(engine, settings).run()
    engine.close()
    print("done", flush=True)
""")


def _session(n_events: int, session: str) -> list[dict]:
    """A long session: reads, failing and passing runs, edits, then its end."""
    out = []
    for i in range(n_events):
        kind = i % 4
        rec = {"v": 1, "id": f"{session}-{i:05d}", "at": f"2026-11-22T10:{i // 60 % 60:02d}:{i % 60:02d}+00:00",
               "kind": "tool", "event": "PostToolUse", "session": session, "project": "/home/dev/shop"}
        if kind == 0:
            rec.update(tool="Read", ref=f"/home/dev/shop/src/m{i}.py", text=f"Read /home/dev/shop/src/m{i}.py")
        elif kind == 1:
            rec.update(tool="Bash", ref=f"pytest -q tests/t{i % 7}.py", key=f"pytest tests/t{i % 7}.py", failed=True,
                       exit=1, duration_ms=900 + i, error=f"AssertionError: case {i}",
                       text=f"Ran `pytest -q tests/t{i % 7}.py` → exit 1; error: AssertionError: case {i}")
        elif kind == 2:
            rec.update(tool="Edit", ref=f"/home/dev/shop/src/m{i}.py", files=[f"/home/dev/shop/src/m{i}.py"],
                       text=f"Edited /home/dev/shop/src/m{i}.py: `a{i}` → `b{i}`")
        else:
            rec.update(tool="Bash", ref=f"pytest -q tests/t{(i - 2) % 7}.py", key=f"pytest tests/t{(i - 2) % 7}.py",
                       failed=False, exit=0, duration_ms=800 + i, text=f"Ran `pytest -q tests/t{(i - 2) % 7}.py` → ok")
        out.append(rec)
    out.append({"v": 1, "id": f"{session}-end-marker", "at": "2026-11-22T11:00:00+00:00", "kind": "end", "event": "SessionEnd",
                "session": session, "project": "/home/dev/shop"})
    return out


COUNT = textwrap.dedent("""
    from mnemex.config import load_settings
    from mnemex.engine.factory import build_engine
    from mnemex.models import MemoryFilter, MemoryKind, ValidityMode
    engine = build_engine(load_settings())
    print(engine.store.count(MemoryFilter(kinds=(MemoryKind.TOOL_EVENT,), validity=ValidityMode.TIMELINE)))
    engine.close()
""")


@pytest.mark.slow
def test_an_ingester_killed_mid_batch_loses_and_doubles_nothing(settings, tmp_path: Path) -> None:
    rng = random.Random(int(os.environ.get("MNEMEX_CRASH_SEED", "20261122")))
    env = {**os.environ, "MNEMEX_DATA_DIR": str(settings.data_dir)}
    spool = Spool(settings.data_dir / "spool")
    sessions = [_session(240, f"s{n}") for n in range(3)]
    for records in sessions:
        for r in records:
            spool.append(r)
    kills = 0
    for attempt in range(3):  # three runs killed at random points after the engine is up
        proc = subprocess.Popen([sys.executable, "-c", INGEST], env=env, stdout=subprocess.PIPE, text=True)
        assert proc.stdout.readline().strip() == "ready"
        time.sleep(rng.uniform(0.05, 1.5))
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            kills += 1
        proc.wait(30)
    partial = subprocess.run([sys.executable, "-c", COUNT], env=env, capture_output=True, text=True, timeout=120)
    print(f"after {kills} kills: {partial.stdout.strip()} tool events of 720 stored")
    done = subprocess.run([sys.executable, "-c", INGEST], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.split() == ["ready", "done"], done.stderr[-2000:]
    assert not spool.pending()

    from mnemex.engine.factory import build_engine

    engine = build_engine(settings)
    try:
        tool_ids = [r["id"] for records in sessions for r in records if r["kind"] == "tool"]
        hits, _ = engine.store.scroll(MemoryFilter(kinds=(MemoryKind.TOOL_EVENT,), validity=ValidityMode.TIMELINE),
                                      limit=2000)
        events = [h.memory.metadata["event"] for h in hits]
        assert sorted(events) == sorted(tool_ids)  # every event, once
        assert len(engine.journal.known_events(tool_ids + [f"s{n}-end-marker" for n in range(3)])) == len(tool_ids) + 3
        runs = sum(t.runs for t in engine.journal.tool_stats("/home/dev/shop", limit=500))
        assert runs == len(tool_ids)  # counted once each
        for kind, expected in ((MemoryKind.EPISODE, 3),):
            assert engine.store.count(MemoryFilter(kinds=(kind,), validity=ValidityMode.TIMELINE)) == expected
        procedures = engine.store.count(MemoryFilter(kinds=(MemoryKind.PROCEDURE,), validity=ValidityMode.TIMELINE))
        assert procedures == len({engine.journal.learnt(k) for k in _procedure_sources(engine)})
    finally:
        engine.close()
    assert json.dumps(kills)  # the runs were killed, or finished first on a fast machine: both are fine


def _procedure_sources(engine) -> list[str]:
    rows = engine.journal._conn().execute("SELECT source FROM capture_learnt WHERE source LIKE 'procedure:%'")
    return [r[0] for r in rows]
