"""The journal: one SQLite file (WAL) beside the vector store holding what vectors cannot.

* `audit`: every write op (and, at higher levels, every read) with before/after payloads;
* `history`: each content version of a memory, oldest first;
* `relations`: a typed, weighted graph between memories, with BFS traversal and pruning;
* `entities`: which memories mention an entity (entity hubs);
* `purge`: removing a memory's content from all of the above while keeping the op rows;
* `pending`: supersedes in progress, finished on the next open after a crash;
* `blocks`: core memory blocks (always in the agent's context) and every version of each;
* `capture`: the session log of the agent's captured tool use and per-project tool statistics;
* `database`: the file, its schema and migrations, connections and transactions.
"""

from mnemex.store.journal.audit import AuditLog, OpRecord
from mnemex.store.journal.blocks import BlockRecord, BlockVersion, CoreBlocks
from mnemex.store.journal.capture import CaptureEvent, CaptureLog, ToolStat
from mnemex.store.journal.database import AUDIT_LEVELS, SCHEMA_VERSION, TOMBSTONE, Database
from mnemex.store.journal.entities import EntityIndex
from mnemex.store.journal.history import VersionHistory, VersionRecord
from mnemex.store.journal.pending import PendingSupersedes
from mnemex.store.journal.purge import Purges
from mnemex.store.journal.relations import PROTECTED_RELATIONS, Relation, RelationGraph, RelationType


class Journal(CaptureLog, CoreBlocks, PendingSupersedes, Purges, VersionHistory, RelationGraph, EntityIndex, AuditLog, Database):
    """The SQLite journal at `path` (created with its schema on open); see the module docstring.

    `level` filters the audit log: off records nothing, writes records write ops, reads also
    records searches and recalls, verbose also keeps the payloads returned by reads.
    """


__all__ = [
    "AUDIT_LEVELS", "PROTECTED_RELATIONS", "SCHEMA_VERSION", "TOMBSTONE", "BlockRecord", "BlockVersion",
    "CaptureEvent", "Journal", "OpRecord", "Relation", "RelationType", "ToolStat", "VersionRecord",
]
