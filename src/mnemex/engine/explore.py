"""What is around a memory: its neighbours in time, its history (versions, supersede chain,
audit trail), its relations, and everything about an entity — progressive disclosure past
the search index. Reads only, except `link`, which records a relation in the journal."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Callable, Sequence

from mnemex.errors import InvalidInputError
from mnemex.models import Memory, MemoryFilter, ValidityMode
from mnemex.store.base import MemoryStore


#: Most memories one listing returns (`recent`: the list_memories tool, `mnemex list`).
MAX_LISTED = 200


class Explorer:
    """`get` and `recall` are the engine's own (ids in any spelling, reads audited)."""

    def __init__(self, *, store: MemoryStore, journal: Any, clock: Callable[[], datetime],
                 get: Callable[[str], Memory], recall: Callable[..., list[Memory]],
                 before_write: Callable[[], None]):
        self._store = store
        self._journal = journal
        self._clock = clock
        self._get = get
        self._recall = recall
        self._before_write = before_write

    def timeline(self, anchor_id: str, *, before: int = 3, after: int = 3,
                 include_history: bool = False) -> tuple[list[Memory], Memory, list[Memory]]:
        """The memories just before and after an anchor in time, in its project: (earlier, anchor, later)."""
        if not (0 <= before <= 50 and 0 <= after <= 50):
            raise InvalidInputError("before and after must be between 0 and 50")
        anchor = self._get(anchor_id)
        validity = ValidityMode.TIMELINE if include_history else ValidityMode.CURRENT
        base = dict(project=anchor.project, validity=validity)
        earlier = self._store.ordered(MemoryFilter(created_before=anchor.created_at, **base),
                                      by="created_at", descending=True, limit=before) if before else []
        later = self._store.ordered(MemoryFilter(created_after=anchor.created_at, **base),
                                    by="created_at", limit=after + 1) if after else []
        earlier_m = [h.memory for h in reversed(earlier)]
        later_m = [h.memory for h in later if h.id != anchor.id][:after]
        return earlier_m, anchor, later_m

    def recent(self, filter: MemoryFilter, *, limit: int = 20) -> list[Memory]:
        """Up to `limit` memories matching `filter`, newest first (by created_at): `mnemex list`."""
        if not 1 <= limit <= MAX_LISTED:
            raise InvalidInputError(f"limit must be between 1 and {MAX_LISTED}")
        return [h.memory for h in self._store.ordered(filter, by="created_at", descending=True, limit=limit)]

    def _require_journal(self) -> Any:
        if self._journal is None:
            raise InvalidInputError("this engine runs without a journal: history and relations are unavailable")
        return self._journal

    def link(self, src: str, dst: str, relation: str, *, weight: float = 1.0, actor: str = "agent") -> None:
        """Record a typed relation between two existing memories."""
        journal = self._require_journal()
        self._before_write()
        src, dst = (m.id for m in self._recall([src, dst], touch=False))
        journal.add_relation(src, dst, relation, weight, {"by": actor})
        journal.record_op("link", src, actor, None, None, {"dst": dst, "type": relation, "weight": weight})

    def related(self, memory_id: str, *, max_hops: int = 2, types: Sequence[str] | None = None,
                ) -> list[tuple[Memory, int, tuple[str, ...], str]]:
        """Memories reachable from `memory_id` over relations (BFS): (memory, hops, path, type of the last edge)."""
        if not 1 <= max_hops <= 5:
            raise InvalidInputError("max_hops must be between 1 and 5")
        journal = self._require_journal()
        memory_id = self._get(memory_id).id
        found = journal.traverse(memory_id, max_hops=max_hops, types=types or None)
        memories = {h.id: h.memory for h in self._store.retrieve([f[0] for f in found])}
        edges: dict[str, list[Any]] = {}  # relations of each parent on a path, read once
        out = []
        for other, hops, path in found:
            if other in memories:
                parent = path[-2]
                if parent not in edges:
                    edges[parent] = journal.relations(parent, types=types or None)
                rel = next((r.type.value for r in edges[parent] if other in (r.src, r.dst)), "related_to")
                out.append((memories[other], hops, path, rel))
        return out

    def about_entity(self, entity: str, *, include_history: bool = False) -> list[Memory]:
        """Every memory that mentions `entity` (file, module, tool, service...), newest first."""
        if not entity.strip():
            raise InvalidInputError("entity is empty")
        ids = self._require_journal().entity_hub(entity)
        memories = [h.memory for h in self._store.retrieve(ids)]
        if not include_history:
            memories = [m for m in memories if m.is_current(self._clock())]
        return sorted(memories, key=lambda m: m.created_at, reverse=True)

    def history(self, memory_id: str) -> dict[str, Any]:
        """A memory's content versions, its supersede chain (oldest to newest) and its audit trail."""
        journal = self._require_journal()
        memory = self._get(memory_id)
        chain = [memory]
        seen = {memory.id}
        while chain[0].supersedes and chain[0].supersedes[0] not in seen:
            hits = self._store.retrieve([chain[0].supersedes[0]])
            if not hits:
                break
            chain.insert(0, hits[0].memory)
            seen.add(chain[0].id)
        while chain[-1].superseded_by and chain[-1].superseded_by not in seen:
            hits = self._store.retrieve([chain[-1].superseded_by])
            if not hits:
                break
            chain.append(hits[0].memory)
            seen.add(chain[-1].id)
        return {"memory": memory, "versions": journal.versions(memory.id), "chain": chain,
                "ops": journal.ops(memory_id=memory.id, limit=50)}
