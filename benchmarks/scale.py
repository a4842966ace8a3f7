"""Speed at the scale a team reaches: 1k, 10k and 100k synthetic coding memories.

    PYTHONPATH=src:. python benchmarks/scale.py [--sizes 1000,10000,100000] [--quick]

Each size's store is built once through the engine and cached (`benchmarks/scale_data.py`,
~/.cache/mnemex-bench/); the first run at 100k takes a long while, reruns take minutes. Each
size is then measured in its own process (so RSS is that size's alone) on a copy of the cache:

- ingest: 1,024 new memories (256 with --quick) through `memorize_many` (ungated), in docs/s
  and as a share of the raw model's own `embed_documents` throughput on the same texts;
- search p50/p95 through `MemoryEngine.search` with fresh queries (the query embedding
  included) and with the embedding cached, the query embedding alone, one Qdrant Edge hybrid
  RRF query on the same store, filter and vectors, and `search_memory` through an in-process
  MCP client (`mcp.Client(server)`, fresh queries);
- RSS of that process after the searches (psutil if installed, else /proc), disk per 1k
  memories (vector store vs journal);
- maintenance: the longest single search while the index is optimized after rewriting half
  the points (at most 50,000; 5,000 with --quick), in-process and the daemon's way (a copy optimized in a child
  process, then swapped in);
- the same queries, vectors and filter through qdrant-client local mode (dense + sparse, RRF)
  and rank-bm25 (`pip install 'mnemex[bench]'`), as ratios to mnemex's engine search.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from benchmarks import scale_data as data
from benchmarks.latency import pct


def rss_mb() -> float:
    try:
        import psutil

        return psutil.Process().memory_info().rss / 2**20
    except ImportError:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    return float("nan")


def du(path: Path) -> int:
    if path.is_file():
        return path.stat().st_blocks * 512
    return sum(p.stat().st_blocks * 512 for p in path.rglob("*") if p.is_file())


def timed(fn, items) -> list[float]:
    out = []
    for item in items:
        t0 = time.perf_counter()
        fn(item)
        out.append((time.perf_counter() - t0) * 1000)
    return out


SPARSE = None  # the engine's BM25 encoder settings, set by `measure`


def stats(ms: list[float]) -> dict:
    return {"p50": statistics.median(ms), "p95": pct(ms, 0.95), "max": max(ms), "n": len(ms)}


# ----------------------------------------------------------------------------- one size
def measure(size: int, quick: bool) -> dict:
    global SPARSE
    from mnemex import heap
    from mnemex.embed.sparse import SparseEncoder
    from mnemex.engine.factory import build_embedder, build_engine

    nq = 50 if quick else 200
    qs = data.queries(3 * nq)
    fresh, cached_qs, mcp_qs = qs[:nq], qs[nq:2 * nq], qs[2 * nq:]
    out: dict = {"size": size, "build": json.loads((data.store_dir(size) / "build.json").read_text())}
    with tempfile.TemporaryDirectory(prefix="mnemex-scale-") as tmp:
        data_dir = data.working_copy(size, Path(tmp))
        settings = data.settings_for(data_dir)
        SPARSE = SparseEncoder(settings.store.bm25_avg_len)
        embedder = build_embedder(data.settings_for(data.cache_root() / "model-cache"))
        embedder.load()
        engine = build_engine(settings, default_project=data.PROJECTS[0], embedder=embedder)
        try:
            built = data.settings_for(data.store_dir(size) / "data")  # the copy lost the files' holes
            out["disk"] = {"store": du(built.store_dir), "journal": sum(
                du(p) for p in built.journal_path.parent.glob(built.journal_path.name + "*"))}
            engine.search("warm up the store", limit=10)
            heap.settle()  # what the daemon does at its first idle second once the model is loaded
            out["search_fresh"] = stats(timed(lambda q: engine.search(q, limit=10), fresh))
            out["embed_query"] = stats(timed(embedder.embed_query, cached_qs))
            out["search_cached"] = stats(timed(lambda q: engine.search(q, limit=10), cached_qs))
            out["edge_rrf"] = stats(edge_rrf(engine, cached_qs))
            out["mcp"] = stats(mcp_searches(engine, mcp_qs))
            out["rss_mb"] = rss_mb()
            out["ingest"] = ingest(engine, embedder, size, 256 if quick else 1024, settings.journal_path)
            out["dream"] = dream_during_search(engine, cached_qs)
            out["stall"] = stall_during_optimize(engine, cached_qs, min(size // 2, 5000 if quick else 50000))
            out["baselines"] = baselines(engine, size, cached_qs[: (10 if quick else 40)])
        finally:
            started = time.perf_counter()
            engine.close()  # swaps in the copy the daemon's way left waiting
            out.setdefault("stall", {})["close_s"] = time.perf_counter() - started
    return out


def edge_rrf(engine, queries: list[str]) -> list[float]:
    """One Qdrant Edge hybrid query (dense + BM25 prefetch, RRF) per query on the engine's own
    shard, project filter, query vectors already made: the store's floor under the pipeline."""
    import qdrant_edge as qe

    from mnemex.models import MemoryFilter
    from mnemex.store.edge import DENSE_VECTOR, SPARSE_VECTOR, _sparse, edge_filter

    shard = engine.store._live()
    flt = edge_filter(MemoryFilter(project=data.PROJECTS[0]))

    def one(q: str) -> None:
        dense = engine.dense.embed_query(q)
        sparse = SPARSE.embed_query(q)
        prefetch = [qe.Prefetch(limit=50, query=qe.Query.Nearest(dense, using=DENSE_VECTOR), filter=flt)]
        if sparse.indices:
            prefetch.append(qe.Prefetch(limit=50, query=qe.Query.Nearest(_sparse(sparse), using=SPARSE_VECTOR),
                                        filter=flt))
        shard.query(qe.QueryRequest(limit=10, prefetches=prefetch, query=qe.Fusion.Rrf(k=60), filter=flt,
                                    with_payload=True))

    return timed(one, queries)


def mcp_searches(engine, queries: list[str]) -> list[float]:
    from mcp import Client

    from mnemex.server.app import build_server
    from mnemex.tools.runtime import ToolRuntime

    server = build_server(ToolRuntime(engine, default_project=data.PROJECTS[0]))

    async def run() -> list[float]:
        async with Client(server) as client:
            await client.call_tool("search_memory", {"query": "warm up the client"})
            out = []
            for q in queries:
                t0 = time.perf_counter()
                await client.call_tool("search_memory", {"query": q})
                out.append((time.perf_counter() - t0) * 1000)
            return out

    return asyncio.run(run())


def journal_row_bytes(path: Path, after_version_row: int = 0) -> tuple[float, int]:
    """(mean bytes a memory's create takes in the journal's op and version rows, last version
    rowid), over the version rows after `after_version_row`."""
    import sqlite3

    con = sqlite3.connect(path)
    try:
        (last,) = con.execute("SELECT COALESCE(MAX(rowid), 0) FROM versions").fetchone()
        (per,) = con.execute(
            "SELECT AVG(LENGTH(v.content) + LENGTH(v.payload) + COALESCE(LENGTH(o.after), 0)) FROM versions v "
            "LEFT JOIN ops o ON o.memory_id = v.memory_id AND o.op = 'create' WHERE v.rowid > ?",
            (after_version_row,)).fetchone()
    finally:
        con.close()
    return float(per or 0.0), int(last)


def ingest(engine, embedder, size: int, n: int, journal: Path) -> dict:
    """Raw model throughput and engine ingest on the same `n` new texts (not in the store), and
    the journal bytes per memory of the built rows and of the rows this run wrote."""
    built_bytes, last = journal_row_bytes(journal)
    items = data.memories(size + n)[size:]
    texts = [m.content for m in items]
    t0 = time.perf_counter()
    embedder.embed_documents(texts)
    model_s = time.perf_counter() - t0
    t1 = time.perf_counter()
    for start in range(0, n, 256):
        engine.memorize_many(items[start:start + 256], gated=False)
    engine_s = time.perf_counter() - t1
    return {"n": n, "model_docs_s": n / model_s, "engine_docs_s": n / engine_s, "ratio": model_s / engine_s,
            "journal_row_bytes_built": built_bytes, "journal_row_bytes_now": journal_row_bytes(journal, last)[0]}


def rewrite_points(engine, n: int) -> None:
    """Upsert `n` stored points again as they are (what a reindex or payload upgrade does), so
    the optimizer has segments to merge and index; the memories themselves stay the same."""
    import qdrant_edge as qe

    store = engine.store
    records, _ = store._live().scroll(qe.ScrollRequest(limit=n, with_payload=True, with_vector=True))
    for start in range(0, len(records), 512):  # through the store's write path: it counts and flushes
        chunk = records[start:start + 512]
        store._do("update", qe.UpdateOperation.upsert_points([qe.Point(r.id, r.vector, r.payload) for r in chunk]),
                  dirty=[str(r.id) for r in chunk])


def searches_during(engine, queries: list[str], work, *, alone_s: float = 2.0) -> tuple[float, dict]:
    """Run `work()` while another thread searches (cached embeddings) one query after another; the
    work's time and the searches that overlapped it (longest, p50, count), and the same loop run
    alone for `alone_s` seconds first (0: not run)."""
    def loop(seconds: float | None, stop: threading.Event) -> list[tuple[float, float]]:
        lat, i, end = [], 0, (time.perf_counter() + seconds) if seconds else None
        while not stop.is_set() and (end is None or time.perf_counter() < end):
            t0 = time.perf_counter()
            engine.search(queries[i % len(queries)], limit=10)
            lat.append((t0, (time.perf_counter() - t0) * 1000))
            i += 1
        return lat

    alone = [ms for _, ms in loop(alone_s, threading.Event())] if alone_s else []
    lat: list[tuple[float, float]] = []
    stop = threading.Event()
    thread = threading.Thread(target=lambda: lat.extend(loop(None, stop)))
    thread.start()
    time.sleep(0.2)
    t0 = time.perf_counter()
    work()
    t1 = time.perf_counter()
    stop.set()
    thread.join()
    during = [ms for start, ms in lat if start + ms / 1000 >= t0 and start <= t1] or [float("nan")]
    out = {"longest_ms": max(during), "p50_ms": statistics.median(during), "searches": len(during)}
    if alone:
        out |= {"alone_longest_ms": max(alone), "alone_p50_ms": statistics.median(alone)}
    return t1 - t0, out


def dream_during_search(engine, queries: list[str]) -> dict:
    """One dream cycle (default settings, its bounded work) while a search loop runs."""
    report = {}
    took, out = searches_during(engine, queries, lambda: report.setdefault("r", engine.dream()))
    return {"dream_s": took, "scanned": report["r"].scanned, "changed": report["r"].changed, **out}


def stall_during_optimize(engine, queries: list[str], rewrite: int) -> dict:
    """The longest search while maintenance runs, each after rewriting `rewrite` points; searches
    use cached embeddings, one after another, from another thread. Three ways: in-process
    (`upkeep.optimize()`); a copy optimized in a child and swapped in at once (`swap`: the load
    the daemon does after a burst of `edge.SWAP_AT_ONCE_FROM` writes, since 2026-11-24 only when
    idle); the daemon's usual way (the copy waits and is swapped in as the store closes, timed by
    the caller as `close_s`)."""
    out = {"rewritten": rewrite}
    ways = {"inprocess": lambda: engine.upkeep.optimize(),
            "swap": lambda: engine.store.optimize_detached(swap=True),
            "detached": lambda: engine.store.optimize_detached(swap=False)}
    for mode, work in ways.items():
        rewrite_points(engine, rewrite)
        took, during = searches_during(engine, queries, work, alone_s=0)
        out[mode] = {"optimize_s": took, **during}
    return out


# ----------------------------------------------------------------------------- baselines
def baselines(engine, size: int, queries: list[str]) -> dict:
    """qdrant-client local mode (dense + sparse RRF) and rank-bm25 on the stored points and the
    engine's own query vectors, with the same project filter; missing packages are skipped."""
    points, dense = data.load_points(size)
    out: dict = {}
    qvecs = [(engine.dense.embed_query(q), SPARSE.embed_query(q)) for q in queries]
    try:
        out["qdrant_client"] = qdrant_client_run(engine, points, dense, qvecs)
    except ImportError as exc:
        out["qdrant_client"] = {"skipped": str(exc)}
    try:
        out["rank_bm25"] = bm25_run(points, queries)
    except ImportError as exc:
        out["rank_bm25"] = {"skipped": str(exc)}
    return out


def qdrant_client_run(engine, points: list[dict], dense, qvecs) -> dict:
    from qdrant_client import QdrantClient, models

    client = QdrantClient(":memory:")
    client.create_collection("bench", vectors_config={"dense": models.VectorParams(
        size=dense.shape[1], distance=models.Distance.COSINE)}, sparse_vectors_config={
        "bm25": models.SparseVectorParams(modifier=models.Modifier.IDF)})
    t0 = time.perf_counter()
    for start in range(0, len(points), 1024):
        batch = []
        for j, p in enumerate(points[start:start + 1024], start):
            sv = SPARSE.embed_document(p["content"])
            batch.append(models.PointStruct(id=p["id"], payload={"project": p["project"]}, vector={
                "dense": dense[j].tolist(),
                "bm25": models.SparseVector(indices=list(sv.indices), values=list(sv.values))}))
        client.upsert("bench", batch, wait=True)
    load_s = time.perf_counter() - t0
    flt = models.Filter(must=[models.FieldCondition(key="project", match=models.MatchValue(value=data.PROJECTS[0]))])

    def one(vecs) -> None:
        dv, sv = vecs
        client.query_points("bench", prefetch=[
            models.Prefetch(query=dv, using="dense", limit=50, filter=flt),
            models.Prefetch(query=models.SparseVector(indices=list(sv.indices), values=list(sv.values)),
                            using="bm25", limit=50, filter=flt)],
            query=models.FusionQuery(fusion=models.Fusion.RRF), query_filter=flt, limit=10)

    lat = timed(one, qvecs)
    client.close()
    return {"load_s": load_s, **stats(lat)}


def bm25_run(points: list[dict], queries: list[str]) -> dict:
    import re

    import numpy as np
    from rank_bm25 import BM25Okapi

    def tok(text: str) -> list[str]:
        return re.findall(r"\w+", text.lower())

    t0 = time.perf_counter()
    bm25 = BM25Okapi([tok(p["content"]) for p in points])
    load_s = time.perf_counter() - t0
    mask = np.array([p["project"] == data.PROJECTS[0] for p in points])

    def one(q: str) -> None:
        scores = np.where(mask, bm25.get_scores(tok(q)), -np.inf)
        np.argpartition(-scores, 10)[:10]

    return {"load_s": load_s, **stats(timed(one, queries))}


# ----------------------------------------------------------------------------- report
def report(rows: list[dict], quick: bool) -> str:
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")),
               platform.processor())
    lines = [f"CPU: {cpu}, {os.cpu_count()} cores; Python {platform.python_version()}; "
             f"generator v{data.GENERATOR_VERSION}{'; --quick' if quick else ''}", ""]
    lines += ["| memories (points) | build docs/s | ingest docs/s (share of model) | search fresh p50/p95 | "
              "search cached p50/p95 | query embed p50 | Edge RRF p50/p95 | MCP p50/p95 | RSS MB | "
              "store / journal KB per 1k | journal bytes per memory's rows: as built / written now |",
              "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        b, i = r["build"], r["ingest"]
        f = lambda s: f"{r[s]['p50']:.1f} / {r[s]['p95']:.1f}"  # noqa: E731
        k = r["build"]["points"] / 1000
        lines.append(
            f"| {r['size']:,} ({b['points']:,}) | {b['docs_per_s']:.0f} | {i['engine_docs_s']:.0f} of "
            f"{i['model_docs_s']:.0f} ({i['ratio']:.0%}) | {f('search_fresh')} | {f('search_cached')} | "
            f"{r['embed_query']['p50']:.1f} | {f('edge_rrf')} | {f('mcp')} | {r['rss_mb']:.0f} | "
            f"{r['disk']['store'] / 1024 / k:,.0f} / {r['disk']['journal'] / 1024 / k:,.0f} | "
            f"{i['journal_row_bytes_built']:,.0f} / {i['journal_row_bytes_now']:,.0f} |")
    lines += ["", "Maintenance: the longest search (cached embedding) while the index is optimized after "
              "rewriting points (ms; optimize run in s; searches completed meanwhile):", "",
              "| memories | points rewritten | in-process: run / longest search (searches) | "
              "copy swapped in at once (after a burst; the daemon waits until idle): run / longest search (searches) | "
              "the daemon's way, copy swapped in at close: run / longest search (searches) | "
              "close with the swap (s) |", "|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        st = r["stall"]
        cell = lambda m: (f"{st[m]['optimize_s']:.1f} s / {st[m]['longest_ms']:,.0f} ms "  # noqa: E731
                          f"({st[m]['searches']}, p50 {st[m]['p50_ms']:.0f} ms)")
        lines.append(f"| {r['size']:,} | {st['rewritten']:,} | {cell('inprocess')} | "
                     f"{cell('swap') if 'swap' in st else '–'} | {cell('detached')} | {st.get('close_s', float('nan')):.1f} |")
    lines += ["", "A dream cycle (default bounds) while a search loop runs (cached embeddings):", "",
              "| memories | dream s (scanned, changed) | longest search during / alone (ms) | p50 during / alone |",
              "|---:|---:|---:|---:|"]
    for r in rows:
        d = r.get("dream")
        if d:
            lines.append(f"| {r['size']:,} | {d['dream_s']:.1f} ({d['scanned']:,}, {d['changed']}) | "
                         f"{d['longest_ms']:,.0f} / {d['alone_longest_ms']:,.0f} | {d['p50_ms']:.1f} / {d['alone_p50_ms']:.1f} |")
    lines += ["", "Same queries, vectors and project filter "
              "(ms; ratio = baseline p50 / mnemex cached-embedding p50):", "",
              "| memories | mnemex engine p50 | Edge RRF p50 | qdrant-client local RRF p50/p95 (load s) | ratio | "
              "rank-bm25 p50/p95 (load s) | ratio |", "|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        m = r["search_cached"]["p50"]
        cells = []
        for name in ("qdrant_client", "rank_bm25"):
            b = r["baselines"][name]
            cells.append("skipped | –" if "skipped" in b else
                         f"{b['p50']:.1f} / {b['p95']:.1f} ({b['load_s']:.0f}) | {_times(b['p50'] / m)}")
        lines.append(f"| {r['size']:,} | {m:.1f} | {r['edge_rrf']['p50']:.1f} | {cells[0]} | {cells[1]} |")
    return "\n".join(lines)


def _times(ratio: float) -> str:
    """A ratio as "691×", or "0.15×" when the baseline is the faster one."""
    return f"{ratio:.0f}×" if ratio >= 10 else f"{ratio:.2f}×"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--quick", action="store_true", help="fewer queries and a smaller ingest sample")
    ap.add_argument("--json", type=Path, help="also write the raw figures here")
    ap.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        print(json.dumps(measure(args.one, args.quick)))
        return
    sizes = [int(s) for s in args.sizes.split(",")]
    missing = [s for s in sizes if not (data.store_dir(s) / "build.json").exists()]
    if missing:
        from mnemex.engine.factory import build_embedder

        embedder = build_embedder(data.settings_for(data.cache_root() / "model-cache"))
        for size in missing:
            print(f"building the {size:,}-memory store once (cached in {data.store_dir(size)})", file=sys.stderr)
            data.build(size, embedder, log=lambda m: print(m, file=sys.stderr))
    rows = []
    for size in sizes:
        cmd = [sys.executable, __file__, "--one", str(size)] + (["--quick"] if args.quick else [])
        done = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if done.returncode:
            sys.exit(f"measuring {size:,} failed: {done.stderr.strip().splitlines()[-1:]}")
        rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
        print(f"measured {size:,}", file=sys.stderr)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    print(report(rows, args.quick))


if __name__ == "__main__":
    main()
