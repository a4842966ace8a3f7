"""After a burst of writes, how long does a call wait while the optimized store is put to use?

    PYTHONPATH=src:. python benchmarks/handover.py [--size 100000] [--burst 1200] [--no-baseline] [--json F]

On a copy of the cached store of `--size` synthetic coding memories (`benchmarks/scale_data.py`),
a real daemon (`python -m mnemex.server.daemon`, as relays start it; it links the plain store
directory under a generation at start) takes a burst of `--burst`
memories through `memorize` calls. With `store.serve_copy_from` set to half the burst (the write gate merges some of it), the
daemon optimizes a copy when idle and hands the store to a successor process that loads it
(`server/handoff.py`). Measured, through the daemon's socket as a client meets it:

- search_memory calls while the successor loads (it takes CPU beside the daemon): p50 / longest;
- the call fired the moment the daemon logs that it hands over (the worst moment to arrive: it
  waits in the socket's queue until the successor accepts), against the same call warm and idle;
- the handover window from the two processes' logs: the daemon stopping accepting → the
  successor serving.

Then, on the same store in this process, the in-process swap it replaces (`EdgeStore.swap_waiting`
after the same burst: the load holds the GIL), with a search loop beside it: the longest search.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime
from pathlib import Path

from benchmarks import scale_data as data

PROJECT = data.PROJECTS[0]


def cpu_name() -> str:
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=False).stdout
        return next((ln.split(":", 1)[1].strip() for ln in out.splitlines() if ln.startswith("Model name")),
                    platform.processor())
    except OSError:
        return platform.processor()


def log_times(text: str, pattern: str) -> list[float]:
    """Wall-clock times (s) of the log lines matching `pattern`."""
    out = []
    for line in text.splitlines():
        if re.search(pattern, line):
            stamp = datetime.strptime(line[:23], "%Y-%m-%d %H:%M:%S,%f")
            out.append(stamp.timestamp())
    return out


def wait_log(path: Path, pattern: str, timeout: float, step: float = 0.05) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if re.search(pattern, path.read_text(errors="replace")):
            return True
        time.sleep(step)
    return False


def search_ms(settings, query: str) -> float:
    from mnemex.server import daemon_client

    t0 = time.perf_counter()
    daemon_client.call_tool(settings, "search_memory", {"query": query, "limit": 10}, project=PROJECT)
    return (time.perf_counter() - t0) * 1000


def through_daemon(size: int, burst: int, tmp: Path, queries: list[str]) -> dict:
    from mnemex.server import daemon_client
    from mnemex.server.runfiles import RunFiles

    data_dir = data.working_copy(size, tmp)
    os.environ["MNEMEX_DATA_DIR"] = str(data_dir)
    os.environ["MNEMEX_STORE__SERVE_COPY_FROM"] = str(max(burst // 2, 1))  # some of the burst merges
    # no scheduled dream or sweep: the first idle moment of a daemon on this never-swept store would
    # start one, and the calls measured here would share the cores with it (its own pauses:
    # benchmarks/lifecycle.py)
    os.environ["MNEMEX_LIFECYCLE__DREAM__EVERY_HOURS"] = "0"
    os.environ["MNEMEX_LIFECYCLE__SWEEP_EVERY_HOURS"] = "0"
    settings = data.settings_for(data_dir)
    files = RunFiles.for_settings(settings)
    out: dict = {}
    try:
        for q in queries[:5]:
            search_ms(settings, q)  # starts the daemon and warms it
        time.sleep(3)  # its start-up work done (the page cache filled, its heap settled)
        out["idle_ms"] = statistics.median(search_ms(settings, q) for q in queries[5:25])
        items = data.memories(size + burst)[size:]
        t0 = time.perf_counter()
        for item in items:
            daemon_client.call_tool(settings, "memorize", {"content": item.content}, project=PROJECT)
        out["burst_s"] = time.perf_counter() - t0
        print(f"  burst of {burst} memorized in {out['burst_s']:.0f} s; waiting for the optimize and the successor",
              flush=True)
        if not wait_log(files.log_file, r"a successor \(pid \d+\) loads", 3600, 0.5):
            raise SystemExit(f"no successor started; log: {files.log_file}")
        loading, i = [], 25
        while not re.search(r"successor: ready", files.log_file.read_text(errors="replace")):
            loading.append(search_ms(settings, queries[i % len(queries)]))  # the successor loads meanwhile
            i += 1
            time.sleep(0.05)
            if len(loading) > 20000:
                raise SystemExit("the successor never got ready")
        out["while_loading"] = {"calls": len(loading), "p50_ms": statistics.median(loading) if loading else None,
                                "longest_ms": max(loading) if loading else None}
        if not wait_log(files.log_file, r"handing the store over", 60, 0.0005):
            raise SystemExit("the daemon did not hand over")
        out["arriving_ms"] = search_ms(settings, queries[i % len(queries)])  # the worst moment to arrive
        wait_log(files.log_file, r"successor pid \d+ took the store over", 30)
        wait_log(files.log_file, r"mnemex daemon pid \d+ serving", 30)
        text = files.log_file.read_text(errors="replace")
        start = log_times(text, r"handing the store over")[-1]
        serving = [t for t in log_times(text, r"mnemex daemon pid \d+ serving") if t >= start]
        out["window_ms"] = (serving[0] - start) * 1000 if serving else None
        after = [search_ms(settings, q) for q in queries[i + 1:i + 21]]
        out["after_ms"], out["after_first_ms"] = statistics.median(after), [round(ms, 1) for ms in after[:8]]
        time.sleep(5)  # the old daemon gone, its generation removed: the successor on its own
        out["settled_ms"] = statistics.median(search_ms(settings, q) for q in queries[5:25])  # the idle ones
        daemon_client.stop_daemon(settings, timeout=60)  # the same store, served by a daemon started afresh
        for q in queries[:5]:
            search_ms(settings, q)
        out["restarted_ms"] = statistics.median(search_ms(settings, q) for q in queries[5:25])  # the idle ones
        out["log_tail"] = [ln for ln in text.splitlines() if "handing" in ln or "handed" in ln or "successor" in ln]
    finally:
        daemon_client.stop_daemon(settings, timeout=60)
        if files.log_file.exists():
            keep = Path(tempfile.gettempdir()) / f"mnemex-handover-{size}.log"
            keep.write_text(files.log_file.read_text(errors="replace"))
            out["log"] = str(keep)
    return out


def in_process(size: int, burst: int, tmp: Path, queries: list[str]) -> dict:
    """The way it replaces, on the same store: the burst, a copy optimized in a child, then the
    copy loaded in this process (`swap_waiting`) while another thread searches."""
    from benchmarks.scale import searches_during
    from mnemex.engine.factory import build_embedder, build_engine

    data_dir = data.working_copy(size, tmp)
    embedder = build_embedder(data.settings_for(data.cache_root() / "model-cache"))
    engine = build_engine(data.settings_for(data_dir), default_project=PROJECT, embedder=embedder)
    try:
        engine.memorize_many(data.memories(size + burst)[size:], gated=False)
        engine.store.optimize_detached(swap=False)
        for q in queries:
            engine.search(q, limit=10)  # the embeddings cached, as the loop's
        took, during = searches_during(engine, queries, engine.upkeep.swap_waiting, alone_s=2.0)
        return {"swap_s": took, **during}
    finally:
        engine.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--burst", type=int, default=1_200)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--no-baseline", action="store_true", help="skip the in-process swap")
    args = parser.parse_args()
    from mnemex.engine.factory import build_embedder

    embedder = build_embedder(data.settings_for(data.cache_root() / "model-cache"))
    embedder.load()
    data.build(args.size, embedder)
    queries = data.queries(400)
    result = {"size": args.size, "burst": args.burst, "cpu": cpu_name(),
              "cores": os.cpu_count()}
    with tempfile.TemporaryDirectory(prefix="mnemex-handover-") as tmp:
        result["daemon"] = through_daemon(args.size, args.burst, Path(tmp) / "a", queries)
    if not args.no_baseline:
        with tempfile.TemporaryDirectory(prefix="mnemex-handover-") as tmp:
            result["in_process"] = in_process(args.size, args.burst, Path(tmp) / "b", queries[:200])
    d, p = result["daemon"], result.get("in_process", {"longest_ms": float("nan"), "alone_longest_ms": float("nan")})
    print(json.dumps(result, indent=1))
    print(f"\n{args.size:,} memories, burst {args.burst}: call idle {d['idle_ms']:.1f} ms; while the successor loads "
          f"p50 {d['while_loading']['p50_ms']:.1f} / longest {d['while_loading']['longest_ms']:.1f} ms; arriving as the "
          f"daemon hands over {d['arriving_ms']:.1f} ms; window {d['window_ms']:.0f} ms; after {d['after_ms']:.1f} ms "
          f"(first ones {d['after_first_ms']}), 5 s later {d['settled_ms']:.1f} ms, "
          f"a daemon started afresh on it {d['restarted_ms']:.1f} ms. "
          f"In-process swap: longest search {p['longest_ms']:.0f} ms (alone {p['alone_longest_ms']:.1f}).")
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    main()
