"""Probes behind the fifteenth session's figures (issue 15), on a copy of a cached scale store
(`benchmarks/scale_data.py`; build it once with `benchmarks/scale.py --sizes N`):

    PYTHONPATH=src:. python benchmarks/search_probe.py loop  [--size 100000] [--queries 800] [--freeze]
    PYTHONPATH=src:. python benchmarks/search_probe.py rss   [--size 100000] [--queries 1000]
    PYTHONPATH=src:. python benchmarks/search_probe.py stall [--size 100000] [--rewrite 50000] [--flush-every N]
    PYTHONPATH=src:. python benchmarks/search_probe.py relayout --cache ~/.cache/mnemex-bench/g1-100000
    PYTHONPATH=src:. python benchmarks/search_probe.py placement [--datatype float32] [--on-disk none|all]
    PYTHONPATH=src:. python benchmarks/search_probe.py reopen [--size 100000] [--queries 40]

- loop: `MemoryEngine.search` over distinct queries with their embeddings cached, p50/p95, and
  the garbage collector's pauses meanwhile (`--freeze`: `gc.freeze()` after warm-up);
- rss: the process's resident set by mapping (libraries, anonymous memory, the store's dense
  vectors, payload pages, payload indexes, WAL) after opening and after 100, 300, ... searches;
- relayout: the search loop on the copy, then again after every memory is saved in the current
  payload layout and the store optimized (with --cache, a store built by an older layout);
- placement: the copy rebuilt (compaction, in a child process) with its dense vectors in
  `--datatype` and the payload indexes named by `--on-disk` on disk (`default`:
  `edge.ON_DISK_INDEXES`), then the shard's load time (3 loads), the search loop's p50/p95 and
  the resident set by mapping after it;
- reopen: the first search of each of `--queries` fresh queries (no embedding cached) on a store
  another engine has just closed (Qdrant Edge then drops its pages from the page cache), with the
  time the shard's `retrieve` took; then again on the same queries after the close, a reopen and
  `EdgeStore.fill_page_cache` (what a daemon does as it starts);
- stall: the longest search of a concurrent loop while `--rewrite` points are written again
  through the store, then while a copy is optimized the daemon's way
  (`optimize_detached(swap=False)`); the store flushes after every `edge.FLUSH_EVERY` points
  written, `--flush-every N` sets another bound (0: no flush until the copy, as before 2026-11-24).
"""

from __future__ import annotations

import argparse
import collections
import gc
import shutil
import statistics
import tempfile
import sys
import time
from pathlib import Path

from mnemex.store import edge

from benchmarks import scale_data as data
from benchmarks.scale import searches_during


SOURCE: Path | None = None  # --cache: another cached store directory than the current layout's


def _place(datatype: str, on_disk: str) -> None:
    """Make new shards the way `placement` asks for (this process only)."""
    from mnemex.store._payload import INDEXED_FIELDS

    default_config = edge._config
    edge._config = lambda dim, kept=None: default_config(dim, kept or datatype)
    edge.ON_DISK_INDEXES = {"default": edge.ON_DISK_INDEXES, "none": frozenset(),
                            "all": frozenset(INDEXED_FIELDS)}[on_disk]


def placement(args: argparse.Namespace, tmp: Path) -> None:
    import subprocess

    copy = data.working_copy(args.size, tmp, SOURCE)
    subprocess.run([sys.executable, __file__, "_rebuild", "--at", str(copy), "--datatype", args.datatype,
                    "--on-disk", args.on_disk], check=True)
    _place(args.datatype, args.on_disk)
    shard = data.settings_for(copy).store_dir.resolve()
    loads = []
    for _ in range(3):
        t0 = time.perf_counter()
        edge.load_shard(shard, 384).close()
        loads.append((time.perf_counter() - t0) * 1000)
    engine, embedder = _engine(args.size, tmp, copy)
    queries = data.queries(args.queries)
    for q in queries:
        embedder.embed_query(q)
    p50, p95 = _timed(engine, queries)
    print(f"{args.datatype} vectors, indexes on disk: {args.on_disk} ({edge.stored_datatype(shard)}, "
          f"{sorted(edge.ON_DISK_INDEXES)})")
    print(f"  shard load ms {', '.join(f'{x:.0f}' for x in loads)}; {len(queries)} searches p50 {p50:.2f} ms, "
          f"p95 {p95:.2f} ms; resident MB {_mapped_mb()}")
    engine.close()


def _rebuild(args: argparse.Namespace) -> None:
    from mnemex.store.edge import EdgeStore

    _place(args.datatype, args.on_disk)
    store = EdgeStore(data.settings_for(args.at).store_dir, dim=384)
    try:
        store.compact()
        store.optimize()
    finally:
        store.close()


def _engine(size: int, tmp: Path, data_dir: Path | None = None):
    """An engine on `data_dir`, or on a fresh working copy of the cached store of `size`."""
    from mnemex.engine.factory import build_embedder, build_engine

    embedder = build_embedder(data.settings_for(data.cache_root() / "model-cache"))
    embedder.load()
    engine = build_engine(data.settings_for(data_dir or data.working_copy(size, tmp, SOURCE)),
                          default_project=data.PROJECTS[0], embedder=embedder)
    return engine, embedder


def _pct(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))]


def _timed(engine, queries: list[str]) -> tuple[float, float]:
    """p50 and p95 of the queries, after one untimed pass (first touches of the store's pages)."""
    for q in queries:
        engine.search(q, limit=10)
    took = []
    for q in queries:
        t0 = time.perf_counter()
        engine.search(q, limit=10)
        took.append((time.perf_counter() - t0) * 1000)
    return statistics.median(took), _pct(took, 0.95)


def _first_searches(engine, embedder, queries: list[str]) -> tuple[float, float]:
    """Median ms of one search per query with no embedding cached, and median ms of `retrieve`."""
    store, spent = engine.store, []
    real = store._do

    def timed_do(method, *args, **kwargs):
        t0 = time.perf_counter()
        try:
            return real(method, *args, **kwargs)
        finally:
            if method == "retrieve":
                spent[-1] += (time.perf_counter() - t0) * 1000

    store._do = timed_do
    took = []
    try:
        for q in queries:
            embedder._cache.clear()
            spent.append(0.0)
            t0 = time.perf_counter()
            engine.search(q, limit=10)
            took.append((time.perf_counter() - t0) * 1000)
    finally:
        del store._do
    return statistics.median(took), statistics.median(spent)


def reopen(args: argparse.Namespace, tmp: Path) -> None:
    from mnemex.engine.factory import build_engine

    engine, embedder = _engine(args.size, tmp)
    settings = data.settings_for(tmp / "data")
    queries = data.queries(args.queries + 5)
    engine.search(queries[-1], limit=10)  # the model's first inference, untimed
    engine.close()  # the pages of its files leave the page cache here
    for label, fill in (("reopened", False), ("reopened, page cache filled", True)):
        engine = build_engine(settings, default_project=data.PROJECTS[0], embedder=embedder)
        try:
            if fill:
                t0 = time.perf_counter()
                done = engine.store.fill_page_cache()
                print(f"fill_page_cache: {done / 1e6:.0f} MB in {(time.perf_counter() - t0) * 1000:.0f} ms")
            median, retrieve = _first_searches(engine, embedder, queries[:args.queries])
            print(f"{label}: first search of {args.queries} fresh queries p50 {median:.1f} ms, "
                  f"retrieve p50 {retrieve:.1f} ms")
        finally:
            engine.close()


def relayout(args: argparse.Namespace, tmp: Path) -> None:
    """The search loop on the copy as cached, then again after every memory was saved in the
    current payload layout and the store optimized: what `mnemex reindex` gives a store written
    before (run it with --cache on a store of an older layout)."""
    import json

    from mnemex.models import MemoryFilter, ValidityMode

    engine, embedder = _engine(args.size, tmp)
    queries = data.queries(args.queries)
    for q in queries:
        embedder.embed_query(q)
    store = engine.store
    before = _timed(engine, queries)
    sizes: list[int] = []
    offset, started = None, time.perf_counter()
    every = MemoryFilter(validity=ValidityMode.TIMELINE)
    while True:
        hits, offset = store.scroll(every, limit=1000, offset=offset)
        for hit in hits:
            sizes.append(len(json.dumps(hit._payload)))
            store.save(hit.memory)
        if offset is None:
            break
    rewrote = time.perf_counter() - started
    after_bytes = [len(json.dumps(h._payload)) for h in store.scroll(every, limit=1000)[0]]
    store.optimize()
    after = _timed(engine, queries)
    engine.close()
    print(f"{len(sizes):,} payloads saved again in {rewrote:.0f} s; JSON bytes per payload "
          f"{statistics.mean(sizes):.0f} -> {statistics.mean(after_bytes):.0f} (the first 1,000 after)")
    print(f"{len(queries)} searches at {args.size:,}, p50 / p95 ms: as cached {before[0]:.2f} / {before[1]:.2f}, "
          f"saved again {after[0]:.2f} / {after[1]:.2f}")


def loop(args: argparse.Namespace, tmp: Path) -> None:
    engine, embedder = _engine(args.size, tmp)
    queries = data.queries(args.queries)
    for q in queries:
        embedder.embed_query(q)
    engine.search("warm up the store", limit=10)
    if args.freeze:
        gc.freeze()
    pauses: list[float] = []
    started = [0.0]

    def watch(phase: str, info: dict) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
        else:
            pauses.append((time.perf_counter() - started[0]) * 1000)

    gc.callbacks.append(watch)
    took = []
    for q in queries:
        t0 = time.perf_counter()
        engine.search(q, limit=10)
        took.append((time.perf_counter() - t0) * 1000)
    gc.callbacks.remove(watch)
    engine.close()
    print(f"{len(queries)} searches at {args.size:,}: p50 {statistics.median(took):.2f} ms, "
          f"p95 {_pct(took, 0.95):.2f} ms; garbage collections {len(pauses)}, longest pause "
          f"{max(pauses, default=0.0):.2f} ms, all pauses {sum(pauses):.0f} ms")


def _mapped_mb() -> dict[str, int]:
    out: collections.Counter = collections.Counter()
    part = "libraries"
    with open("/proc/self/smaps") as f:
        for line in f:
            fields = line.split()
            if len(fields) >= 5 and "-" in fields[0] and not fields[0].endswith(":"):
                name = fields[5] if len(fields) > 5 else "[anon]"
                part = ("dense vectors" if "matrix.dat" in name else "payloads" if "payload_storage" in name
                        else "wal" if "/wal/" in name else "indexes" if "/segments/" in name
                        else "anonymous" if name in ("[anon]", "[heap]") else "libraries")
            elif fields[0] == "Rss:":
                out[part] += int(fields[1])
    mb = {k: v // 1024 for k, v in sorted(out.items())}
    mb["total"] = sum(mb.values())
    return mb


def rss(args: argparse.Namespace, tmp: Path) -> None:
    engine, embedder = _engine(args.size, tmp)
    print("store open", _mapped_mb(), flush=True)
    queries = data.queries(args.queries)
    done = 0
    for upto in sorted({n for n in (100, 300, args.queries) if n <= args.queries}):
        for q in queries[done:upto]:
            engine.search(q, limit=10)
        done = upto
        print(f"{upto} searches", _mapped_mb(), flush=True)
    engine.close()


def stall(args: argparse.Namespace, tmp: Path) -> None:
    import qdrant_edge as qe

    engine, embedder = _engine(args.size, tmp)
    store = engine.store
    queries = data.queries(300)
    for q in queries:
        embedder.embed_query(q)
    records, _ = store._live().scroll(qe.ScrollRequest(limit=args.rewrite, with_payload=True, with_vector=True))

    if args.flush_every is not None:  # the store flushes as writes accumulate; 0: only before the copy
        edge.FLUSH_EVERY = args.flush_every or sys.maxsize

    def rewrite() -> None:
        for start in range(0, len(records), 256):
            chunk = records[start:start + 256]
            store._do("update", qe.UpdateOperation.upsert_points([qe.Point(r.id, r.vector, r.payload) for r in chunk]),
                      dirty=[str(r.id) for r in chunk])

    def during(work) -> str:
        took, out = searches_during(engine, queries, work, alone_s=0)
        return (f"{took:.1f} s, longest search {out['longest_ms']:.0f} ms "
                f"(p50 {out['p50_ms']:.1f}, {out['searches']} searches)")

    print(f"rewriting {len(records):,} points (flush every {edge.FLUSH_EVERY if edge.FLUSH_EVERY < sys.maxsize else 'never'}):", during(rewrite), flush=True)
    print("optimizing a copy, the daemon's way:", during(lambda: store.optimize_detached(swap=False)), flush=True)
    engine.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("probe", choices=("loop", "rss", "stall", "relayout", "placement", "reopen", "_rebuild"))
    ap.add_argument("--cache", type=Path, help="another cached store directory to copy (e.g. one of an older "
                    "layout: ~/.cache/mnemex-bench/g1-100000)")
    ap.add_argument("--size", type=int, default=100_000, help="the cached scale store to copy")
    ap.add_argument("--queries", type=int, default=800)
    ap.add_argument("--freeze", action="store_true", help="loop: gc.freeze() after warm-up")
    ap.add_argument("--rewrite", type=int, default=50_000, help="stall: points written again")
    ap.add_argument("--flush-every", type=int, default=None,
                    help="stall: the store flushes after this many written points (default: edge.FLUSH_EVERY; 0: never)")
    ap.add_argument("--datatype", choices=("float16", "float32"), default=edge.DENSE_DATATYPE,
                    help="placement: the dense vectors' precision")
    ap.add_argument("--on-disk", choices=("default", "none", "all"), default="default",
                    help="placement: the payload indexes kept on disk")
    ap.add_argument("--at", type=Path, help=argparse.SUPPRESS)  # _rebuild: the data dir
    args = ap.parse_args()
    if args.probe == "_rebuild":
        return _rebuild(args)
    global SOURCE
    SOURCE = args.cache
    if not ((args.cache or data.store_dir(args.size)) / "build.json").exists():
        raise SystemExit(f"no cached store of {args.size:,} memories: run benchmarks/scale.py --sizes {args.size} first")
    tmp = Path(tempfile.mkdtemp(prefix="mnemex-probe-"))
    try:
        {"loop": loop, "rss": rss, "stall": stall, "relayout": relayout, "placement": placement,
         "reopen": reopen}[args.probe](args, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
