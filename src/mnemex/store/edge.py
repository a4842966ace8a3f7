"""`EdgeStore`: the default backend, an embedded Qdrant Edge shard in a local directory.

One process owns a shard at a time (Qdrant Edge locks its WAL); a second opener gets
`StoreLockedError`. The embedding identity is a JSON file inside the shard directory.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import threading
from datetime import datetime
from pathlib import Path
from typing import Any, Sequence

import qdrant_edge as qe

from mnemex.errors import (
    MnemexError,
    ModelMismatchError,
    NotFoundError,
    StoreLockedError,
)
from mnemex.models import Lifecycle, Memory, MemoryFilter, SparseVec
from mnemex.store._payload import INDEXED_FIELDS, access_payload, memory_to_payload
from mnemex.store.base import DENSE_VECTOR, SPARSE_VECTOR, Hit, StoredPoint, VectorQuery
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


def _config(dim: int) -> qe.EdgeConfig:
    return qe.EdgeConfig(
        vectors={DENSE_VECTOR: qe.EdgeVectorParams(size=dim, distance=qe.Distance.Cosine)},
        sparse_vectors={SPARSE_VECTOR: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)},
        wal_enabled=True,
    )


def _index_params(kind: str) -> Any:
    # Filters are applied while scanning; per-field HNSW links would only cost build time.
    if kind == "keyword":
        return qe.KeywordIndexParams(enable_hnsw=False)
    if kind == "float":
        return qe.FloatIndexParams(enable_hnsw=False)
    raise ValueError(f"unsupported index type {kind!r}")


class EdgeStore:
    """A `MemoryStore` on an embedded Qdrant Edge shard at `path` (created if absent).

    Safe to call from several threads: the shard synchronises reads and writes itself
    (checked: concurrent upserts, queries and optimize), so the lock only guards the
    shard's lifecycle and the identity file.
    """

    def __init__(self, path: Path | str, *, dim: int):
        self.path = Path(path)
        self.dim = dim
        self._lock = threading.Lock()
        self._shard: qe.EdgeShard | None = self._open()
        try:
            self._ensure_indexes()
        except BaseException:
            self.close()  # release the process lock: a failed open must not hold the store
            raise

    # -- lifecycle -------------------------------------------------------------------

    def _compaction_paths(self) -> tuple[Path, Path]:
        """Where `compact` builds the new shard, and where it parks the old one during the swap."""
        return self.path.with_name(self.path.name + ".compact"), self.path.with_name(self.path.name + ".old")

    def _recover_compaction(self) -> None:
        """Finish what a compaction killed midway left: the shard is put back if the swap was
        cut between its two renames, then the half-built and the parked copies go (the parked
        one still holds the bytes a purge wanted gone; the purge itself is resumed by the engine)."""
        tmp, old = self._compaction_paths()
        if not self.path.exists() and old.exists():
            os.replace(old, self.path)
        for leftover in (tmp, old):
            if leftover.exists():
                shutil.rmtree(leftover)

    def _open(self) -> qe.EdgeShard:
        self._recover_compaction()
        exists = (self.path / _EDGE_CONFIG_FILE).exists() or (self.path / "segments").exists()
        try:
            if exists:
                return qe.EdgeShard.load(str(self.path), _config(self.dim))
            self.path.mkdir(parents=True, exist_ok=True)
            return qe.EdgeShard.create(str(self.path), _config(self.dim))
        except Exception as exc:  # Qdrant Edge raises bare Exception; the message tells the cause
            text = str(exc)
            if "WouldBlock" in text:
                raise StoreLockedError(
                    f"store at {self.path} is owned by another process; only one process may open an "
                    "embedded store: stop the other mnemex process or reach the store through it "
                    f"(details: {text})") from exc
            if "ncompatible" in text:
                raise ModelMismatchError(
                    f"store at {self.path} was created for other vectors than dim={self.dim}; "
                    f"re-embed into a new store or configure the model it was built with (details: {text})"
                ) from exc
            raise MnemexError(f"cannot open store at {self.path}: {text}") from exc

    def _ensure_indexes(self) -> None:
        shard = self._live()
        present = set(shard.info().payload_schema)
        for name, kind in INDEXED_FIELDS.items():
            if name not in present:
                shard.update(qe.UpdateOperation.create_field_index(name, _index_params(kind)))

    def _live(self) -> qe.EdgeShard:
        shard = self._shard
        if shard is None:
            raise MnemexError(f"store at {self.path} is closed")
        return shard

    def close(self) -> None:
        """Flush and release the shard (and its process lock). Calling it again does nothing."""
        with self._lock:
            shard, self._shard = self._shard, None
        if shard is not None:
            shard.flush()
            shard.close()

    def __enter__(self) -> "EdgeStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def optimize(self) -> None:
        """Merge segments and build HNSW indexes; blocks until the optimizers have nothing left to do."""
        self._live().optimize()

    def compact(self) -> None:
        """Rewrite the shard from its live points into a fresh directory and swap it in.

        Deleting a point leaves its bytes in segment pages and in the WAL until they happen to
        be overwritten; a purge must remove them now. Cost: one pass over every point. The old
        directory is removed only after the new shard is complete and flushed; if the process
        dies in between, the next open puts things right (`_recover_compaction`).
        """
        points = self._all_points()
        tmp, old = self._compaction_paths()
        for leftover in (tmp, old):
            if leftover.exists():
                shutil.rmtree(leftover)
        fresh = qe.EdgeShard.create(str(tmp), _config(self.dim))
        for name, kind in INDEXED_FIELDS.items():
            fresh.update(qe.UpdateOperation.create_field_index(name, _index_params(kind)))
        for start in range(0, len(points), 256):
            fresh.update(qe.UpdateOperation.upsert_points(points[start:start + 256]))
        fresh.flush()
        fresh.close()
        identity = self.path / IDENTITY_FILE
        if identity.exists():
            shutil.copy2(identity, tmp / IDENTITY_FILE)
        with self._lock:
            shard, self._shard = self._shard, None
        if shard is not None:
            shard.close()
        os.replace(self.path, old)
        os.replace(tmp, self.path)
        shutil.rmtree(old)
        self._shard = self._open()

    def _all_points(self) -> list[qe.Point]:
        shard = self._live()
        out: list[qe.Point] = []
        offset = None
        while True:
            records, offset = shard.scroll(qe.ScrollRequest(offset=offset, limit=512, with_payload=True,
                                                            with_vector=True))
            out += [qe.Point(r.id, r.vector, r.payload) for r in records]
            if offset is None:
                return out

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
        self._live().update(qe.UpdateOperation.upsert_points(ops))

    def save(self, memory: Memory) -> None:
        """Replace the stored memory of an existing point (vectors unchanged); NotFoundError if absent."""
        self._set_payload(memory.id, memory_to_payload(memory))

    def mark_accessed(self, memory_id: str, access_count: int, at: datetime,
                      lifecycle: Lifecycle | None = None) -> None:
        self._set_payload(memory_id, access_payload(access_count, at, lifecycle))

    def _set_payload(self, point_id: str, payload: dict[str, Any]) -> None:
        """Merge `payload` into the point's payload; NotFoundError if the point does not exist."""
        pid = canonical_id(point_id)
        try:
            self._live().update(qe.UpdateOperation.set_payload([pid], dict(payload)))
        except Exception as exc:
            if "No point with id" in str(exc):
                raise NotFoundError(point_id) from exc
            raise

    def delete(self, ids: Sequence[str]) -> None:
        """Delete the points; ids that do not exist are ignored."""
        if ids:
            self._live().update(qe.UpdateOperation.delete_points(list(canonical_ids(ids))))

    # -- reads -----------------------------------------------------------------------

    def retrieve(self, ids: Sequence[str], *, with_vectors: bool = False) -> list[Hit]:
        if not ids:
            return []
        wanted = canonical_ids(ids)
        records = self._live().retrieve(list(dict.fromkeys(wanted)), with_payload=True,
                                        with_vector=[DENSE_VECTOR] if with_vectors else False)
        return in_asked_order((to_hit(r, 1.0, with_vectors) for r in records), wanted)

    def query(self, request: VectorQuery) -> list[Hit]:
        """Nearest points to the one vector of `request`, best first, with raw scores."""
        if request.dense is not None:
            search = qe.Query.Nearest([float(x) for x in request.dense], using=DENSE_VECTOR)
        else:
            search = qe.Query.Nearest(_sparse(request.sparse), using=SPARSE_VECTOR)
        req = qe.QueryRequest(limit=request.limit, query=search, filter=edge_filter(request.filter),
                              with_payload=True,
                              with_vector=[DENSE_VECTOR] if request.with_vectors else False)
        return [to_hit(p, p.score, request.with_vectors) for p in self._live().query(req)]

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
        return {asked[str(p.id)]: float(p.score) for p in self._live().query(req)}

    def scroll(self, filter: MemoryFilter, *, limit: int = 256, offset: str | None = None,
               with_vectors: bool = False) -> tuple[list[Hit], str | None]:
        """Points in id order from `offset` on; pass the returned offset to get the next page."""
        records, next_offset = self._live().scroll(qe.ScrollRequest(
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
        records, _ = self._live().scroll(qe.ScrollRequest(
            limit=limit, filter=edge_filter(filter), with_payload=True, with_vector=False,
            order_by=qe.OrderBy(order_field(by), direction=direction),
        ))
        return [to_hit(r, 1.0, False) for r in records]

    def count(self, filter: MemoryFilter) -> int:
        return int(self._live().count(qe.CountRequest(exact=True, filter=edge_filter(filter))))

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
