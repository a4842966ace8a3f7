"""`EdgeStore`: the default backend, an embedded Qdrant Edge shard in a local directory.

One process owns a shard at a time (Qdrant Edge locks its WAL); a second opener gets
`StoreLockedError`. The embedding identity is a JSON file inside the shard directory.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from datetime import datetime
from pathlib import Path
from typing import Any, Iterator, Sequence

import qdrant_edge as qe

from mnemex import heap
from mnemex.errors import (
    MnemexError,
    ModelMismatchError,
    NotFoundError,
    StoreLockedError,
    StoreUnavailableError,
)
from mnemex.models import Lifecycle, Memory, MemoryFilter, SparseVec
from mnemex.store._payload import INDEXED_FIELDS, access_payload, memory_to_payload
from mnemex.store.base import DENSE_VECTOR, SPARSE_VECTOR, Hit, StoredPoint, VectorQuery, cut_ties, tie_fetch
from mnemex.store.edge_detached import (Gate, copy_shard, link_layout, next_generation, point_to, recover,
                                        remove_tree)
from mnemex.store.edge_handover import HANDOVER_FILE, apply_changes, write_changes
from mnemex.store.filters import (
    AnyOf,
    Condition,
    HasIds,
    Match,
    Not,
    Range,
    canonical_id,
    canonical_ids,
    check_points,
    conditions_for,
    in_asked_order,
    order_field,
    to_hit,
)

IDENTITY_FILE = "mnemex-identity.json"
_EDGE_CONFIG_FILE = "edge_config.json"
_REPLAY_FILE = "mnemex-replay.json"  # in a waiting copy: the ids to replay onto it when it is swapped in
SWAP_TIMEOUT = 600.0  # seconds the swap of a waiting copy may take as the store closes
#: Points written since the serving shard was last optimized from which a waiting optimized copy is
#: swapped in before `close` (`swap_due`; the daemon does it when idle, since calls wait for the
#: load: 0.4-0.75 s at 100k memories): searches slow down with that many unindexed points (at
#: 100k memories, p50 17 ms with 2,000 of them, 28 ms with 10,000, 34 ms with 30,000). A day's
#: writes stay far below; a bulk import crosses it.
SWAP_AT_ONCE_FROM = 5_000
#: Points written since the last flush from which the write that crosses it also flushes the shard.
#: Qdrant Edge holds the GIL while it flushes (at 100k memories ~25 ms plus ~20 ms per 1,000
#: points written since the last flush), and the copy `optimize_detached` takes must start from a
#: flushed shard: unbounded, that flush stalled every call for a second after 50,000 writes.
FLUSH_EVERY = 1_000
#: Parts of the shard's files that searches do not read back once the store is open, so their
#: pages are let go after an open, a flush, an optimize or a swap: the WAL (its closed segments
#: are read once, to replay them) and the payload indexes (the appendable segment maps its
#: preallocated pages whole; what a filter reads comes back). 88 MB let go at 100k memories;
#: the 800 searches after read none of it back (benchmarks/RESULTS.md).
COLD_FILES = ("/wal/", "/payload_index/")
#: Parts of the shard's files every search reads: the payloads and the BM25 inverted index. Qdrant
#: Edge drops a shard's pages from the page cache when it closes it, and the inverted index's at
#: load, so a daemon started on a store another process closed read them from disk: its first
#: searches at 100k took p50 25.9 ms instead of 15.9 (`retrieve` 10.5 ms instead of 1.2;
#: benchmarks/search_probe.py reopen). Reading them into the page cache first (`fill_page_cache`,
#: 111 MB in ~0.1 s at 100k) makes the process no bigger: the pages are mapped as searches touch
#: them, as before.
HOT_FILES = ("/payload_storage/", "/vector_index-bm25/")

log = logging.getLogger(__name__)
#: What Qdrant Edge says when a segment's bytes are not what it wrote.
_DAMAGED_STORE = re.compile(r"failed to decode|decompress|corrupt|checksum|unexpected end of file", re.I)


def _render(cond: Condition) -> Any:
    """One neutral condition as a Qdrant Edge condition."""
    if isinstance(cond, Match):
        match = qe.MatchValue(cond.values[0]) if len(cond.values) == 1 else qe.MatchAny(list(cond.values))
        return qe.FieldCondition(cond.key, match=match)
    if isinstance(cond, Range):
        return qe.FieldCondition(cond.key, range=qe.RangeFloat(gt=cond.gt, gte=cond.gte, lt=cond.lt, lte=cond.lte))
    if isinstance(cond, HasIds):
        return qe.HasIdCondition(set(cond.ids))
    if isinstance(cond, AnyOf):
        return qe.Filter(should=[_render(c) for c in cond.conditions])
    if isinstance(cond, Not):
        return qe.Filter(must_not=[_render(cond.condition)])
    raise TypeError(f"unknown condition {cond!r}")


def edge_filter(flt: MemoryFilter) -> qe.Filter | None:
    """`flt` as a Qdrant Edge filter, None when it selects everything."""
    conds = conditions_for(flt)
    return qe.Filter(must=[_render(c) for c in conds]) if conds else None


def _sparse(vec: SparseVec) -> qe.SparseVector:
    return qe.SparseVector([int(i) for i in vec.indices], [float(v) for v in vec.values])


#: How a new store keeps its dense vectors: half-precision floats, half the memory and disk of
#: float32 (75 MB less resident at 100k memories). Cosines move by ~1e-4: LoCoMo, both coding sets
#: and the gate's decisions on the three update sets are unchanged; a few near-ties swap places
#: (benchmarks/RESULTS.md, seventeenth session). A store keeps the precision it was created with
#: (Qdrant Edge loads a shard only under its own); `mnemex reindex` rebuilds one in this precision.
DENSE_DATATYPE = "float16"
_DATATYPES = {"float16": qe.VectorStorageDatatype.Float16, "float32": qe.VectorStorageDatatype.Float32}


def _config(dim: int, datatype: str = DENSE_DATATYPE) -> qe.EdgeConfig:
    return qe.EdgeConfig(
        vectors={DENSE_VECTOR: qe.EdgeVectorParams(size=dim, distance=qe.Distance.Cosine,
                                                   datatype=_DATATYPES[datatype])},
        sparse_vectors={SPARSE_VECTOR: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)},
        wal_enabled=True,
    )


def stored_datatype(path: Path | str) -> str:
    """The precision the shard at `path` keeps its dense vectors in: "float32" for a store made
    before half precision (its config names none), or one whose config cannot be read."""
    try:
        config = json.loads((Path(path) / _EDGE_CONFIG_FILE).read_text())
        named = str(config["vectors"][DENSE_VECTOR].get("datatype") or "float32").lower()
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return "float32"
    return named if named in _DATATYPES else "float32"


def load_shard(path: Path | str, dim: int) -> qe.EdgeShard:
    """The existing shard at `path`, opened under the config it was created with."""
    return qe.EdgeShard.load(str(path), _config(dim, stored_datatype(path)))


#: Payload indexes kept on disk (memory-mapped, read through the page cache) instead of in RAM:
#: the fields no default search filters on. At 100k memories: 20-24 MB less anonymous memory and
#: a shard that loads in 0.26 s instead of 0.46 (an optimized copy is swapped in sooner), search
#: p50/p95 unchanged. The fields every search filters on (scope, project, status, validity,
#: marks) and `kind` stay in RAM: with every index on disk a search took ~1 ms more
#: (benchmarks/RESULTS.md, seventeenth session).
ON_DISK_INDEXES: frozenset[str] = frozenset({"tags", "session_id", "entities", "created_ts", "valid_from_ts",
                                             "recorded_ts"})


def _index_params(name: str, kind: str) -> Any:
    # Filters are applied while scanning; per-field HNSW links would only cost build time.
    on_disk = True if name in ON_DISK_INDEXES else None
    if kind == "keyword":
        return qe.KeywordIndexParams(enable_hnsw=False, on_disk=on_disk)
    if kind == "float":
        return qe.FloatIndexParams(enable_hnsw=False, on_disk=on_disk)
    raise ValueError(f"unsupported index type {kind!r}")


def _create_indexes(shard: qe.EdgeShard, skip: frozenset[str] = frozenset()) -> None:
    """The payload indexes filters use (`INDEXED_FIELDS`), placed as `ON_DISK_INDEXES` says; not those in `skip`."""
    for name, kind in INDEXED_FIELDS.items():
        if name not in skip:
            shard.update(qe.UpdateOperation.create_field_index(name, _index_params(name, kind)))


def _request(request: VectorQuery, *, bare: bool = False, limit: int | None = None) -> qe.QueryRequest:
    """`request` for the shard, asking `limit` points (default its own); `bare`: ids and scores
    only (payloads and vectors fetched apart)."""
    if request.dense is not None:
        search = qe.Query.Nearest([float(x) for x in request.dense], using=DENSE_VECTOR)
    else:
        search = qe.Query.Nearest(_sparse(request.sparse), using=SPARSE_VECTOR)
    return qe.QueryRequest(limit=request.limit if limit is None else limit, query=search,
                           filter=edge_filter(request.filter),
                           params=qe.SearchParams(exact=True) if request.exact else None,
                           with_payload=request.payload and not bare,
                           with_vector=[DENSE_VECTOR] if request.with_vectors and not bare else False)


def _replay(old: qe.EdgeShard, fresh: qe.EdgeShard, ids: set[str]) -> None:
    """Bring `fresh` (a copy of `old` taken earlier) up to date on `ids`, and check that both
    hold the same number of points: a copy that lost points is never swapped in."""
    wanted = sorted(ids)
    for start in range(0, len(wanted), 512):
        chunk = wanted[start:start + 512]
        records = old.retrieve(chunk, with_payload=True, with_vector=True)
        if records:
            fresh.update(qe.UpdateOperation.upsert_points([qe.Point(r.id, r.vector, r.payload) for r in records]))
        gone = set(chunk) - {str(r.id) for r in records}
        if gone:
            fresh.update(qe.UpdateOperation.delete_points(sorted(gone)))
    have, want = (int(s.count(qe.CountRequest(exact=True))) for s in (fresh, old))
    if have != want:
        raise MnemexError(f"an optimized copy of the store holds {have} points, the store {want}; the copy is dropped")


class EdgeStore:
    """A `MemoryStore` on an embedded Qdrant Edge shard at `path` (created if absent).

    Safe to call from several threads: the shard synchronises reads and writes itself
    (checked: concurrent upserts, queries and optimize), so the lock only guards the
    shard's lifecycle and the identity file.
    """

    def __init__(self, path: Path | str, *, dim: int, adopt: Path | None = None, linked: bool = False):
        """`adopt`: serve the store at `path` from the optimized copy at that directory, which a
        daemon is about to hand over (`hand_over` there, `take_over` here); nothing at `path` is
        touched until `take_over`. `linked`: give a plain store directory the layout a swap leaves
        first (`edge_detached.link_layout`; a daemon that hands its store over does)."""
        self.path = Path(path)
        self.dim = dim
        self._lock = threading.Lock()
        self._gate = Gate()  # shard calls vs the swap of an optimized copy (`optimize_detached`)
        self._dirty: set[str] | None = None  # ids written since a copy was taken (while optimized, or waiting)
        self._prepared: Path | None = None  # an optimized copy waiting for `close` (`optimize_detached(swap=False)`)
        self._unoptimized: set[str] = set()  # points written since the serving shard was last optimized here
        self._unflushed = 0  # points written since the shard was last flushed
        self._epoch = 0  # bumped by `compact`: an optimized copy made before it is stale
        self._detaching = threading.Lock()
        self._copying = threading.Lock()  # writes wait while the shard is flushed and copied
        self._child: subprocess.Popen | None = None
        self.writes = 0  #: writes so far (read caches compare it to know the store changed)
        self._handed_over = False  # `hand_over` done: another process serves the store now
        self.serve_copy_from: int | None = None  #: `SWAP_AT_ONCE_FROM` for this store (`store.serve_copy_from`)
        self._adopting = adopt  # the copy this store serves from once `take_over` has run
        self._shard: qe.EdgeShard | None = self._open(linked) if adopt is None else self._load(adopt)
        try:
            self._ensure_indexes()
        except BaseException:
            self.close()  # release the process lock: a failed open must not hold the store
            raise
        self._release_cold_pages()

    # -- lifecycle -------------------------------------------------------------------

    def _compaction_paths(self) -> tuple[Path, Path]:
        """Where `compact` builds the new shard, and where it parks the old one during the swap."""
        return self.path.with_name(self.path.name + ".compact"), self.path.with_name(self.path.name + ".old")

    def _recover_compaction(self) -> None:
        """Finish what a compaction killed midway left: the shard is put back if the swap was
        cut between its two renames, then the half-built and the parked copies go (the parked
        one still holds the bytes a purge wanted gone; the purge itself is resumed by the engine)."""
        tmp, old = self._compaction_paths()
        if not self.path.exists() and not self.path.is_symlink() and old.exists():
            os.replace(old, self.path)
        for leftover in (tmp, old):
            remove_tree(leftover)
        recover(self.path)

    def _open(self, linked: bool = False) -> qe.EdgeShard:
        self._recover_compaction()
        if linked:
            self._link_layout()
        exists = (self.path / _EDGE_CONFIG_FILE).exists() or (self.path / "segments").exists()
        if exists:  # by its real path: a swap re-points the link while this shard is open
            return self._load(self.path.resolve())
        try:
            self.path.mkdir(parents=True, exist_ok=True)
            return qe.EdgeShard.create(str(self.path.resolve()), _config(self.dim))
        except Exception as exc:  # Qdrant Edge raises bare Exception; the message tells the cause
            raise self._open_error(exc) from exc

    def _link_layout(self) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if link_layout(self.path):
                return
            reason = "this filesystem refused a symbolic link"
        except OSError as exc:
            reason = str(exc)
        log.warning("the store at %s stays a plain directory (%s): its first handover to a new daemon "
                    "process closes it, a call then waits about 60 ms longer", self.path, reason)

    def _load(self, directory: Path) -> qe.EdgeShard:
        try:
            return load_shard(directory, self.dim)
        except Exception as exc:
            raise self._open_error(exc) from exc

    def _open_error(self, exc: Exception) -> MnemexError:
        text = str(exc)
        if "WouldBlock" in text:
            return StoreLockedError(
                f"store at {self.path} is owned by another process; only one process may open an "
                "embedded store: stop the other mnemex process or reach the store through it "
                f"(details: {text})")
        if "ncompatible" in text:
            return ModelMismatchError(
                f"store at {self.path} was created for other vectors than dim={self.dim}; "
                f"re-embed into a new store or configure the model it was built with (details: {text})")
        return MnemexError(f"cannot open store at {self.path}: {text}")

    def _ensure_indexes(self) -> None:
        shard = self._live()
        _create_indexes(shard, skip=frozenset(shard.info().payload_schema))

    def _do(self, method: str, *args: Any, dirty: Sequence[str] = (), **kwargs: Any) -> Any:
        """Call the shard's `method`, not during a swap; `dirty`: the ids a write touches."""
        if not dirty:
            with self._gate.use():
                try:
                    return getattr(self._live(), method)(*args, **kwargs)
                except Exception as exc:
                    self._raise_if_damaged(exc)
                    raise
        flushed = False
        with self._copying, self._gate.use():
            if self._handed_over:
                raise StoreUnavailableError(
                    f"the store at {self.path} was just handed over to a new mnemex daemon process (after an "
                    "index rebuild); nothing was written: send the call again")
            if self._dirty is not None:
                self._dirty.update(dirty)
            self._unoptimized.update(dirty)
            try:
                out = getattr(self._live(), method)(*args, **kwargs)
            except Exception as exc:
                self._raise_if_damaged(exc)
                raise
            finally:
                self.writes += 1
            self._unflushed += len(dirty)
            if self._unflushed >= FLUSH_EVERY:
                self._flush()
                flushed = True
        if flushed:
            self._release_cold_pages()
        return out

    def _raise_if_damaged(self, exc: Exception) -> None:
        """Qdrant Edge failing to decode what it stored (a damaged segment file) as an error that
        says what to do, instead of a bare "Service runtime error"; any other error is left alone."""
        text = str(exc)
        if _DAMAGED_STORE.search(text):
            raise StoreUnavailableError(
                f"the store at {self.path} could not be read ({text}): its files are damaged; `mnemex recover` "
                "rebuilds it from the journal (the damaged store is kept), `mnemex doctor` checks it") from exc

    def _flush(self) -> None:
        """Flush the live shard (the caller holds `_copying`, or nothing writes)."""
        self._live().flush()
        self._unflushed = 0

    @property
    def unflushed(self) -> int:
        """Points written since the shard was last flushed."""
        return self._unflushed

    def flush_pending(self) -> int:
        """Flush the points written since the last flush; how many (0: nothing to do). For when no
        call is in flight (the daemon's idle upkeep, `IDLE_FLUSH_SECONDS`): a flush holds the GIL
        for a cost that is mostly fixed (~50-70 ms on a slow virtual disk for 5 points as for 900,
        ~20 ms when only payloads changed), so a call that meets it waits for all of it. Flushed
        when idle, the count stays far below `FLUSH_EVERY` and a lifecycle run beside calls starts
        from a flushed shard."""
        with self._copying, self._gate.use():
            pending = self._unflushed
            if not pending or self._shard is None or self._handed_over:
                return 0
            self._flush()
        self._release_cold_pages()
        return pending

    def _release_cold_pages(self) -> None:
        """Take the shard's cold file pages out of this process's resident set (`COLD_FILES`;
        they stay in the page cache and on disk, and come back if read): at 100k memories the
        closed WAL segment read once at open (32 MB) and the payload indexes' preallocated pages
        of the appendable segment (~50 MB), mapped whole. Done with no shard call in flight, so
        no mapping changes under the call (`heap.release_file_pages`)."""
        with self._gate.swap():
            if self._shard is not None:
                heap.release_file_pages(self.path, only=COLD_FILES)

    def fill_page_cache(self) -> int:
        """Read the files every search reads (`HOT_FILES`) into the page cache; the bytes read.
        Safe beside calls (only reads files); a daemon does it in a thread as it starts, its
        successor before it says ready."""
        directory = self._adopting if self._adopting is not None else self.path.resolve()
        return heap.fill_page_cache(directory, only=HOT_FILES)

    def _live(self) -> qe.EdgeShard:
        shard = self._shard
        if shard is None:
            raise MnemexError(f"store at {self.path} is closed")
        return shard

    def close(self) -> None:
        """Flush and release the shard (and its process lock). Calling it again does nothing."""
        child = self._child
        if child is not None:
            child.kill()
        with self._gate.swap(), self._lock:
            shard, self._shard = self._shard, None
            prepared, self._prepared = self._prepared, None
            dirty = self._dirty or set()
            if prepared is not None:
                self._dirty = None
        if shard is not None:
            shard.flush()
            shard.close()
            if prepared is not None:
                self._swap_in(prepared, dirty)
        elif prepared is not None:
            remove_tree(prepared)

    def _swap_in(self, generation: Path, dirty: set[str]) -> None:
        """Make the optimized copy waiting at `generation` the store, as it closes: a child process
        loads it and the closed shard, replays the writes made since the copy (`dirty`), checks the
        point counts and flushes; then the store path is pointed at it. This process loads nothing.
        On any failure the copy is dropped and the store stays as it was, with every write."""
        ids_file = generation / _REPLAY_FILE
        previous = None
        try:
            ids_file.write_text(json.dumps(sorted(dirty)))
            done = subprocess.run(
                [sys.executable, "-m", "mnemex.store.edge_detached", "--replay", str(self.path.resolve()),
                 str(generation), str(self.dim), str(ids_file)],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=SWAP_TIMEOUT)
            if done.returncode:
                tail = done.stderr.decode(errors="replace").strip().splitlines()[-1:] or [f"exit {done.returncode}"]
                raise MnemexError(tail[0])
            ids_file.unlink()
            previous = point_to(self.path, generation)
        except Exception as exc:  # the store as it was is complete: only the copy is lost
            log.warning("the optimized copy of the store at %s was not swapped in (%s); it is dropped", self.path, exc)
            remove_tree(generation)
            return
        remove_tree(previous)

    def __enter__(self) -> "EdgeStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def optimize(self) -> None:
        """Merge segments and build HNSW indexes; blocks until the optimizers have nothing left to do."""
        self._live().optimize()
        self._unoptimized = set()
        self._release_cold_pages()

    @property
    def unoptimized(self) -> int:
        """Points written (added or changed) since this process last optimized the serving shard."""
        return len(self._unoptimized)

    def optimize_detached(self, *, timeout: float = 4 * 3600, swap: bool | None = True) -> bool:
        """`optimize`, without holding this process for its run: a copy of the shard is optimized
        in a child process. With `swap`, the writes made meanwhile are replayed onto it and it is
        swapped in (reads wait for loading the copy and the swap: 0.4-0.75 s at 100k memories,
        Edge holding the GIL; writes also for the flush and the copy). With `swap=False` (the daemon's
        way) nothing is loaded here: the copy waits, the writes made since still tracked, and
        `close` swaps it in through another child process (or `swap_waiting`, when idle, after a
        burst of writes: `swap_due`); a later call replaces a waiting copy. `swap=None`: at once
        when `SWAP_AT_ONCE_FROM` points were written since the serving shard was optimized, else
        at close.
        False when another one is running; raises (the store unchanged) when the child fails or
        the store was closed or compacted meanwhile."""
        if not self._detaching.acquire(blocking=False):
            return False
        kept = False
        try:
            with self._lock:
                waiting, self._prepared = self._prepared, None
            if waiting is not None:
                remove_tree(waiting)  # a fresh copy supersedes it
            generation = next_generation(self.path)
            remove_tree(generation)
            try:
                # a consistent copy: flushed, and no write until it is made. The flush holds the GIL
                # (~25 ms plus ~20 ms per 1,000 points unflushed at 100k; `FLUSH_EVERY` bounds those)
                # but cannot be left out: a copy of unflushed files was measured to lose payloads
                # (LZ4 values that no longer decode) even though its write-ahead log was copied with it
                with self._copying:
                    self._flush()
                    self._dirty, epoch = set(), self._epoch
                    copy_shard(self.path.resolve(), generation)
                self._child = subprocess.Popen(
                    [sys.executable, "-m", "mnemex.store.edge_detached", str(generation), str(self.dim)],
                    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
                _, err = self._child.communicate(timeout=timeout)
                if epoch != self._epoch or self._shard is None:
                    raise MnemexError(f"store at {self.path} was closed or compacted while a copy was "
                                      "optimized; the copy is dropped")
                if self._child.returncode:
                    tail = err.decode(errors="replace").strip().splitlines()[-1:] or [f"exit {self._child.returncode}"]
                    raise MnemexError(f"optimizing a copy of the store at {self.path} failed: {tail[0]}")
                if swap is None:
                    swap = self.unoptimized >= self._swap_from
                if not swap:
                    with self._lock:
                        if self._shard is None or epoch != self._epoch:
                            raise MnemexError(f"store at {self.path} was closed or compacted while a copy was "
                                              "optimized; the copy is dropped")
                        self._prepared, kept = generation, True
                    return True
                kept = True  # `_swap_now` owns the copy from here, and cleans up after a failure
                self._swap_now(generation, epoch)
            finally:
                self._child = None
                if not kept:
                    self._dirty = None
                    remove_tree(generation)
            return True
        finally:
            self._detaching.release()

    @property
    def swap_due(self) -> bool:
        """An optimized copy waits for `close` while so many points were written since the serving
        shard was optimized (`SWAP_AT_ONCE_FROM`) that searches are slowed: `swap_waiting` now."""
        return self._prepared is not None and self.unoptimized >= self._swap_from

    @property
    def _swap_from(self) -> int:
        return self.serve_copy_from if self.serve_copy_from is not None else SWAP_AT_ONCE_FROM

    def swap_waiting(self) -> bool:
        """Swap in now the optimized copy waiting for `close`, with the writes made since it was
        taken. Calls wait for its load (0.4-0.75 s at 100k memories, Edge holding the GIL): the
        daemon does it only when idle. False when no copy waits or an optimize is running; raises (the
        store unchanged, the copy dropped) when the swap fails."""
        if not self._detaching.acquire(blocking=False):
            return False
        try:
            with self._lock:
                generation, self._prepared = self._prepared, None
                epoch = self._epoch
            if generation is None:
                return False
            self._swap_now(generation, epoch)
            return True
        finally:
            self._detaching.release()

    @property
    def waiting_copy(self) -> Path | None:
        """The optimized copy waiting to be swapped in (`optimize_detached(swap=False)`), if any."""
        return self._prepared

    def prepare_hand_over(self) -> None:
        """What can be done before `hand_over` while calls are still served: when the store path is
        still a directory (never swapped), `hand_over` must close the shard, so flush it now and
        that close has little left to write."""
        if not self.path.is_symlink():
            with self._copying:
                self._flush()

    def hand_over(self) -> Path:
        """Give the store to a successor process serving it from the waiting optimized copy
        (`server/handoff.py`): the writes made since the copy was taken are written into it
        (`edge_handover.HANDOVER_FILE`), and from now on this store refuses writes
        (StoreUnavailableError; reads still work) and closes without touching the copy. Returns the
        copy's directory. Raises (nothing changed) when no copy waits or an optimize is running."""
        if not self._detaching.acquire(blocking=False):
            raise MnemexError(f"an optimize of the store at {self.path} is running; it is not handed over")
        try:
            with self._copying, self._gate.swap(), self._lock:
                generation = self._prepared
                if generation is None or self._shard is None:
                    raise MnemexError(f"no optimized copy of the store at {self.path} waits to be handed over")
                write_changes(self._shard, self._dirty or set(), generation / HANDOVER_FILE)
                self._prepared, self._dirty, self._handed_over = None, None, True
                if not self.path.is_symlink():
                    # the successor moves this directory aside to link the path to the copy; the shard
                    # reopens its files by path as it flushes, so it must be closed before that
                    shard, self._shard = self._shard, None
                    shard.flush()
                    shard.close()
            return generation
        finally:
            self._detaching.release()

    def take_over(self) -> Path | None:
        """In the successor (a store opened with `adopt`), once the daemon handed the store over:
        replay the writes it handed over onto the copy, check the point count, and point the store
        path at the copy. Returns what the path named before (the old generation, still open in the
        old daemon: remove it once that has exited). Raises (the store path unchanged) on failure."""
        generation = self._adopting
        if generation is None:
            raise MnemexError(f"the store at {self.path} was not opened to take over a copy")
        with self._gate.swap(), self._lock:
            changed = apply_changes(self._live(), generation / HANDOVER_FILE)
            (generation / HANDOVER_FILE).unlink()
            previous = point_to(self.path, generation)
            self._adopting = None
            self._unoptimized = changed
            self._unflushed = len(changed)
            self.writes += 1
        return previous

    def _swap_now(self, generation: Path, epoch: int) -> None:
        """Load the optimized copy at `generation`, replay onto it the writes made since it was taken
        (`_dirty`) and serve it. On failure the copy is removed and the store stays as it was."""
        fresh = previous = None
        try:
            fresh = load_shard(generation, self.dim)
            with self._gate.swap():
                if self._shard is None or epoch != self._epoch:
                    raise MnemexError(f"store at {self.path} was closed or compacted while a copy was "
                                      "optimized; the copy is dropped")
                _replay(self._shard, fresh, self._dirty or set())
                old, self._shard = self._shard, fresh
                fresh = None
                previous = point_to(self.path, generation)
                self._unoptimized = set(self._dirty or ())
            old.close()  # nothing uses it any more (the gate saw to that)
        finally:
            self._dirty = None
            if fresh is not None:
                fresh.close()
            if previous is None:
                remove_tree(generation)
        remove_tree(previous)
        self._release_cold_pages()

    def compact(self) -> None:
        """Rewrite the shard from its live points into a fresh directory and swap it in.

        Deleting a point leaves its bytes in segment pages and in the WAL until they happen to
        be overwritten; a purge must remove them now. Cost: one pass over every point. The old
        directory is removed only after the new shard is complete and flushed; if the process
        dies in between, the next open puts things right (`_recover_compaction`).
        """
        tmp, old = self._compaction_paths()
        for leftover in (tmp, old):
            if leftover.exists():
                shutil.rmtree(leftover)
        fresh = qe.EdgeShard.create(str(tmp), _config(self.dim))
        _create_indexes(fresh)
        for page in self._pages_of_points():  # a page at a time: 100k points at once took ~900 MB
            if page:
                fresh.update(qe.UpdateOperation.upsert_points(page))
        fresh.flush()
        fresh.close()
        identity = self.path / IDENTITY_FILE
        if identity.exists():
            shutil.copy2(identity, tmp / IDENTITY_FILE)
        with self._gate.swap():
            with self._lock:
                shard, self._shard = self._shard, None
                self._epoch += 1
                waiting, self._prepared = self._prepared, None
                self._dirty = None
            if waiting is not None:
                remove_tree(waiting)  # taken before the compaction: it holds what was purged
            if shard is not None:
                shard.close()
            linked = self.path.is_symlink()
            os.replace(self.path, old)
            os.replace(tmp, self.path)
            remove_tree(old)
            self._shard = self._open(linked)  # a linked store stays linked (its next handover closes nothing)
        self._release_cold_pages()

    def outdated(self) -> bool:
        """Whether the shard keeps its vectors or payload indexes otherwise than a new store would
        (`DENSE_DATATYPE`, `ON_DISK_INDEXES`): a store made by an older version."""
        if stored_datatype(self.path.resolve()) != DENSE_DATATYPE:
            return True
        schema = self._do("info").payload_schema
        return any(bool(getattr(info.params, "on_disk", None)) != (name in ON_DISK_INDEXES)
                   for name, info in schema.items() if name in INDEXED_FIELDS)

    def rebuild_outdated(self) -> bool:
        """Rebuild the shard (`compact`) when it is `outdated`; True when it did."""
        if not self.outdated():
            return False
        self.compact()
        return True

    def _pages_of_points(self) -> Iterator[list[qe.Point]]:
        shard = self._live()
        offset = None
        while True:
            records, offset = shard.scroll(qe.ScrollRequest(offset=offset, limit=512, with_payload=True,
                                                            with_vector=True))
            yield [qe.Point(r.id, r.vector, r.payload) for r in records]
            if offset is None:
                return

    # -- writes ----------------------------------------------------------------------

    def upsert(self, points: Sequence[StoredPoint]) -> None:
        if not points:
            return
        check_points(points, self.dim)
        ops = [
            qe.Point(canonical_id(p.memory.id),
                     {DENSE_VECTOR: [float(x) for x in p.dense], SPARSE_VECTOR: _sparse(p.sparse)},
                     memory_to_payload(p.memory))
            for p in points
        ]
        self._do("update", qe.UpdateOperation.upsert_points(ops), dirty=[canonical_id(p.memory.id) for p in points])

    def save(self, memory: Memory) -> None:
        """Replace the stored memory of an existing point (vectors unchanged); NotFoundError if absent."""
        self._set_payload(memory.id, memory_to_payload(memory), whole=True)

    def mark_accessed(self, memory_id: str, access_count: int, at: datetime,
                      lifecycle: Lifecycle | None = None) -> None:
        self._set_payload(memory_id, access_payload(access_count, at, lifecycle))

    def _set_payload(self, point_id: str, payload: dict[str, Any], *, whole: bool = False) -> None:
        """Merge `payload` into the point's payload (`whole`: replace it, as a payload leaves out
        fields at their default); NotFoundError if the point does not exist."""
        pid = canonical_id(point_id)
        try:
            op = qe.UpdateOperation.overwrite_payload if whole else qe.UpdateOperation.set_payload
            self._do("update", op([pid], dict(payload)), dirty=[pid])
        except Exception as exc:
            if "No point with id" in str(exc):
                raise NotFoundError(point_id) from exc
            raise

    def delete(self, ids: Sequence[str]) -> None:
        """Delete the points; ids that do not exist are ignored."""
        if ids:
            gone = list(canonical_ids(ids))
            self._do("update", qe.UpdateOperation.delete_points(gone), dirty=gone)

    # -- reads -----------------------------------------------------------------------

    def retrieve(self, ids: Sequence[str], *, with_vectors: bool = False) -> list[Hit]:
        if not ids:
            return []
        wanted = canonical_ids(ids)
        records = self._do("retrieve", list(dict.fromkeys(wanted)), with_payload=True,
                           with_vector=[DENSE_VECTOR] if with_vectors else False)
        return in_asked_order((to_hit(r, 1.0, with_vectors) for r in records), wanted)

    def query(self, request: VectorQuery) -> list[Hit]:
        """Nearest points to the one vector of `request`, best first, with raw scores."""
        return [to_hit(p, p.score, request.with_vectors) for p in self._points([request], bare=False)[0]]

    def query_many(self, requests: Sequence[VectorQuery]) -> list[list[Hit]]:
        """`query` for each request, as one planned batch (one call into the shard)."""
        if not requests:
            return []
        if len(requests) == 1:
            return [self.query(requests[0])]
        if any(r.with_vectors and not r.payload for r in requests):  # vectors without payloads: as asked
            out = self._points(requests, bare=False)
            return [[to_hit(p, p.score, r.with_vectors) for p in points] for r, points in zip(requests, out)]
        # Ids and scores first, then each payload once: the lists of a search overlap (a memory
        # found by its meaning and by its words), and reading and converting payloads is most of
        # a query's cost at 100k memories (py-spy: ~60% of `query_many`).
        out = self._points(requests, bare=True)
        vectors = any(r.with_vectors for r in requests)
        scored = [[(str(p.id), float(p.score)) for p in points] for points in out]
        wanted = list(dict.fromkeys(key for r, pairs in zip(requests, scored) if r.payload for key, _ in pairs))
        found = {hit.id: hit for hit in (to_hit(rec, 0.0, vectors) for rec in self._do(
            "retrieve", wanted, with_payload=True, with_vector=[DENSE_VECTOR] if vectors else False))} if wanted else {}
        hits: list[list[Hit]] = []
        for r, pairs in zip(requests, scored):
            if not r.payload:
                hits.append([Hit(key, score, {}) for key, score in pairs])
                continue
            # a point deleted between the two calls is left out, as if the query had come after it
            hits.append([one.scored(score, dense=r.with_vectors)
                         for key, score in pairs if (one := found.get(key)) is not None])
        return hits

    def _points(self, requests: Sequence[VectorQuery], *, bare: bool) -> list[list[Any]]:
        """The shard's points for each request (one call for all), cut at its limit with equal
        scores in id order (`store.base.cut_ties`)."""
        def ask(r: VectorQuery) -> Any:
            return lambda n: self._do("query", _request(r, bare=bare, limit=n))

        if len(requests) == 1:
            out = [ask(requests[0])(tie_fetch(requests[0].limit))]
        else:
            out = self._do("query_batch", qe.QueryBatchRequest(
                [_request(r, bare=bare, limit=tie_fetch(r.limit)) for r in requests]))
        return [cut_ties(points, r.limit, ask(r)) for r, points in zip(requests, out)]

    def dense_scores(self, dense: Sequence[float], ids: Sequence[str]) -> dict[str, float]:
        """Cosine of `dense` to each existing point of `ids`, keyed by the ids as given."""
        if not ids:
            return {}
        asked = {canonical_id(i): i for i in ids}
        req = qe.QueryRequest(
            limit=len(asked),
            query=qe.Query.Nearest([float(x) for x in dense], using=DENSE_VECTOR),
            filter=qe.Filter(must=[qe.HasIdCondition(set(asked))]),
            params=qe.SearchParams(exact=True),
            with_payload=False, with_vector=False,
        )
        return {asked[str(p.id)]: float(p.score) for p in self._do("query", req)}

    def scroll(self, filter: MemoryFilter, *, limit: int = 256, offset: str | None = None,
               with_vectors: bool = False) -> tuple[list[Hit], str | None]:
        """Points in id order from `offset` on; pass the returned offset to get the next page."""
        records, next_offset = self._do("scroll", qe.ScrollRequest(
            offset=canonical_id(offset) if offset is not None else None,
            limit=limit, filter=edge_filter(filter), with_payload=True,
            with_vector=[DENSE_VECTOR] if with_vectors else False,
        ))
        hits = [to_hit(r, 1.0, with_vectors) for r in records]
        return hits, (str(next_offset) if next_offset is not None else None)

    def ordered(self, filter: MemoryFilter, *, by: str = "created_at", descending: bool = False,
                limit: int = 20) -> list[Hit]:
        """Up to `limit` points matching `filter`, sorted by the memory field `by`."""
        direction = qe.Direction.Desc if descending else qe.Direction.Asc
        records, _ = self._do("scroll", qe.ScrollRequest(
            limit=limit, filter=edge_filter(filter), with_payload=True, with_vector=False,
            order_by=qe.OrderBy(order_field(by), direction=direction),
        ))
        return [to_hit(r, 1.0, False) for r in records]

    def count(self, filter: MemoryFilter) -> int:
        return int(self._do("count", qe.CountRequest(exact=True, filter=edge_filter(filter))))

    # -- identity --------------------------------------------------------------------

    def read_identity(self) -> dict[str, Any] | None:
        try:
            return json.loads((self.path / IDENTITY_FILE).read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None

    def write_identity(self, identity: dict[str, Any]) -> None:
        """Replace the identity atomically: a crash leaves the old file or the new one, never half."""
        self._live()
        target = self.path / IDENTITY_FILE
        with self._lock:
            fd, tmp = tempfile.mkstemp(dir=self.path, prefix=".identity-", suffix=".tmp")
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as fh:
                    json.dump(identity, fh, sort_keys=True)
                    fh.flush()
                    os.fsync(fh.fileno())
                os.replace(tmp, target)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
