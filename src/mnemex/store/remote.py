"""`RemoteStore`: the same store on a Qdrant server or cluster, through qdrant-client.

Importing this module imports qdrant_client (about a second), so `mnemex.store` only
imports it when a remote store is asked for. The embedding identity is kept in the
collection's metadata, so it travels with the collection.
"""

from __future__ import annotations

import contextlib
import json
import threading
import warnings
from datetime import datetime
from typing import Any, Sequence

from qdrant_client import QdrantClient, models

from mnemex.errors import ConfigError, ModelMismatchError, NotFoundError
from mnemex.models import Lifecycle, Memory, MemoryFilter, SparseVec
from mnemex.store._payload import INDEXED_FIELDS, access_payload, memory_to_payload
from mnemex.store.base import DENSE_VECTOR, SPARSE_VECTOR, Hit, StoredPoint, VectorQuery, cut_ties, tie_fetch
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

#: Collection metadata key holding the identity, as a JSON string: metadata updates merge
#: keys, and a string value makes a new identity replace the old one whole.
IDENTITY_KEY = "mnemex_identity"


def _render(cond: Condition) -> Any:
    """One neutral condition as a qdrant-client condition."""
    if isinstance(cond, Match):
        match = (models.MatchValue(value=cond.values[0]) if len(cond.values) == 1
                 else models.MatchAny(any=list(cond.values)))
        return models.FieldCondition(key=cond.key, match=match)
    if isinstance(cond, Range):
        return models.FieldCondition(key=cond.key, range=models.Range(gt=cond.gt, gte=cond.gte,
                                                                      lt=cond.lt, lte=cond.lte))
    if isinstance(cond, HasIds):
        return models.HasIdCondition(has_id=list(cond.ids))
    if isinstance(cond, AnyOf):
        return models.Filter(should=[_render(c) for c in cond.conditions])
    if isinstance(cond, Not):
        return models.Filter(must_not=[_render(cond.condition)])
    raise TypeError(f"unknown condition {cond!r}")


def remote_filter(flt: MemoryFilter) -> models.Filter | None:
    """`flt` as a qdrant-client filter, None when it selects everything."""
    conds = conditions_for(flt)
    return models.Filter(must=[_render(c) for c in conds]) if conds else None


def _sparse(vec: SparseVec) -> models.SparseVector:
    return models.SparseVector(indices=[int(i) for i in vec.indices], values=[float(v) for v in vec.values])


def _index_schema(kind: str) -> Any:
    # Filters are applied while scanning; per-field HNSW links would only cost build time.
    if kind == "keyword":
        return models.KeywordIndexParams(type=models.KeywordIndexType.KEYWORD, enable_hnsw=False)
    if kind == "float":
        return models.FloatIndexParams(type=models.FloatIndexType.FLOAT, enable_hnsw=False)
    raise ValueError(f"unsupported index type {kind!r}")


def _is_local(client: QdrantClient) -> bool:
    from qdrant_client.local.qdrant_local import QdrantLocal

    return isinstance(getattr(client, "_client", None), QdrantLocal)


class RemoteStore:
    """A `MemoryStore` on the collection `collection` of a Qdrant server (created if absent).

    `url=":memory:"` or a `client` built on a local path gives qdrant-client's in-process
    mode (tests, tooling). A `client` passed in is used as is and is not closed by `close()`.
    """

    def __init__(self, url: str | None, api_key: str | None, collection: str, dim: int, *,
                 client: QdrantClient | None = None):
        self.collection = collection
        self.dim = dim
        self._owns_client = client is None
        if client is None:
            if not url:
                raise ConfigError("a remote store needs a Qdrant url (or a client)")
            client = QdrantClient(location=url, api_key=api_key)
        self._client = client
        self._local = _is_local(client)
        # The in-process mode mutates plain dicts unguarded; a server client is thread-safe.
        self._lock: Any = threading.RLock() if self._local else contextlib.nullcontext()
        self._closed = False
        with self._lock:
            self._ensure_collection()

    def _ensure_collection(self) -> None:
        c, name = self._client, self.collection
        if not c.collection_exists(name):
            c.create_collection(
                name,
                vectors_config={DENSE_VECTOR: models.VectorParams(size=self.dim, distance=models.Distance.COSINE)},
                sparse_vectors_config={SPARSE_VECTOR: models.SparseVectorParams(modifier=models.Modifier.IDF)},
            )
        else:
            vectors = c.get_collection(name).config.params.vectors
            params = vectors.get(DENSE_VECTOR) if isinstance(vectors, dict) else None
            if params is None or params.size != self.dim:
                raise ModelMismatchError(
                    f"collection {name!r} has no {DENSE_VECTOR!r} vector of dim={self.dim} "
                    f"(found {vectors!r}); use another collection or the model it was built with")
        present = set(c.get_collection(name).payload_schema or {})
        with warnings.catch_warnings():
            # The in-process mode warns that it ignores payload indexes; servers use them.
            warnings.filterwarnings("ignore", message="Payload indexes have no effect")
            for field, kind in INDEXED_FIELDS.items():
                if field not in present:
                    c.create_payload_index(name, field, field_schema=_index_schema(kind), wait=True)

    def close(self) -> None:
        """Close the client if this store created it. Calling it again does nothing."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            if self._owns_client:
                self._client.close()

    def __enter__(self) -> "RemoteStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def optimize(self) -> None:
        """Nothing to do: a Qdrant server runs its optimizers in the background by itself."""

    # -- writes ----------------------------------------------------------------------

    def upsert(self, points: Sequence[StoredPoint]) -> None:
        if not points:
            return
        check_points(points, self.dim)
        structs = [
            models.PointStruct(
                id=canonical_id(p.memory.id),
                vector={DENSE_VECTOR: [float(x) for x in p.dense], SPARSE_VECTOR: _sparse(p.sparse)},
                payload=memory_to_payload(p.memory),
            )
            for p in points
        ]
        with self._lock:
            self._client.upsert(self.collection, points=structs, wait=True)

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
        with self._lock:
            # Servers answer 404 and the in-process mode a KeyError; asking first is the same for both.
            if not self._client.retrieve(self.collection, [pid], with_payload=False, with_vectors=False):
                raise NotFoundError(point_id)
            put = self._client.overwrite_payload if whole else self._client.set_payload
            put(self.collection, payload=dict(payload), points=[pid], wait=True)

    def delete(self, ids: Sequence[str]) -> None:
        """Delete the points; ids that do not exist are ignored."""
        if not ids:
            return
        selector = models.PointIdsList(points=list(canonical_ids(ids)))
        with self._lock:
            self._client.delete(self.collection, points_selector=selector, wait=True)

    # -- reads -----------------------------------------------------------------------

    def retrieve(self, ids: Sequence[str], *, with_vectors: bool = False) -> list[Hit]:
        if not ids:
            return []
        wanted = canonical_ids(ids)
        with self._lock:
            records = self._client.retrieve(self.collection, list(dict.fromkeys(wanted)), with_payload=True,
                                            with_vectors=[DENSE_VECTOR] if with_vectors else False)
        return in_asked_order((to_hit(r, 1.0, with_vectors) for r in records), wanted)

    def query(self, request: VectorQuery) -> list[Hit]:
        """Nearest points to the one vector of `request`, best first, with raw scores."""
        if request.dense is not None:
            vector, using = [float(x) for x in request.dense], DENSE_VECTOR
        else:
            vector, using = _sparse(request.sparse), SPARSE_VECTOR
        def ask(limit: int) -> list[Any]:
            with self._lock:
                return self._client.query_points(
                    self.collection, query=vector, using=using, query_filter=remote_filter(request.filter),
                    search_params=models.SearchParams(exact=True) if request.exact and not self._local else None,
                    limit=limit, with_payload=request.payload,
                    with_vectors=[DENSE_VECTOR] if request.with_vectors else False).points

        # a few more than the limit, cut with equal scores in id order
        points = cut_ties(ask(tie_fetch(request.limit)), request.limit, ask)
        return [to_hit(p, p.score, request.with_vectors) for p in points]

    def query_many(self, requests: Sequence[VectorQuery]) -> list[list[Hit]]:
        """`query` for each request (one at a time)."""
        return [self.query(r) for r in requests]

    def dense_scores(self, dense: Sequence[float], ids: Sequence[str]) -> dict[str, float]:
        """Cosine of `dense` to each existing point of `ids`, keyed by the ids as given."""
        if not ids:
            return {}
        asked = {canonical_id(i): i for i in ids}
        with self._lock:
            points = self._client.query_points(
                self.collection, query=[float(x) for x in dense], using=DENSE_VECTOR,
                query_filter=models.Filter(must=[models.HasIdCondition(has_id=list(asked))]),
                # The in-process mode is always exact and warns about search params.
                search_params=None if self._local else models.SearchParams(exact=True), limit=len(asked),
                with_payload=False, with_vectors=False,
            ).points
        return {asked[str(p.id)]: float(p.score) for p in points}

    def scroll(self, filter: MemoryFilter, *, limit: int = 256, offset: str | None = None,
               with_vectors: bool = False) -> tuple[list[Hit], str | None]:
        """Points in id order from `offset` on; pass the returned offset to get the next page."""
        with self._lock:
            records, next_offset = self._client.scroll(
                self.collection, scroll_filter=remote_filter(filter), limit=limit,
                offset=canonical_id(offset) if offset is not None else None, with_payload=True,
                with_vectors=[DENSE_VECTOR] if with_vectors else False,
            )
        hits = [to_hit(r, 1.0, with_vectors) for r in records]
        return hits, (str(next_offset) if next_offset is not None else None)

    def compact(self) -> None:
        """Nothing to do from the client: a Qdrant server drops deleted points when it optimizes
        its segments and its WAL retention expires (see the server's configuration)."""

    def outdated(self) -> bool:
        """A collection's storage format is the server's business."""
        return False

    def rebuild_outdated(self) -> bool:
        """A collection's storage format is the server's business: nothing to rebuild."""
        return False

    def ordered(self, filter: MemoryFilter, *, by: str = "created_at", descending: bool = False,
                limit: int = 20) -> list[Hit]:
        """Up to `limit` points matching `filter`, sorted by the memory field `by`."""
        order = models.OrderBy(key=order_field(by),
                               direction=models.Direction.DESC if descending else models.Direction.ASC)
        with self._lock:
            records, _ = self._client.scroll(self.collection, scroll_filter=remote_filter(filter), limit=limit,
                                             with_payload=True, with_vectors=False, order_by=order)
        return [to_hit(r, 1.0, False) for r in records]

    def count(self, filter: MemoryFilter) -> int:
        with self._lock:
            return int(self._client.count(self.collection, count_filter=remote_filter(filter), exact=True).count)

    # -- identity --------------------------------------------------------------------

    def read_identity(self) -> dict[str, Any] | None:
        with self._lock:
            metadata = self._client.get_collection(self.collection).config.metadata or {}
        raw = metadata.get(IDENTITY_KEY)
        return json.loads(raw) if raw else None

    def write_identity(self, identity: dict[str, Any]) -> None:
        with self._lock:
            self._client.update_collection(self.collection, metadata={IDENTITY_KEY: json.dumps(identity, sort_keys=True)})
