"""Handing an optimized copy of an Edge shard, with the writes made since it was taken, to another
process: the points file a daemon writes when a successor takes over its store (`server/handoff.py`).

Loading a shard holds the GIL (0.3-0.5 s at 100k memories), so the serving process never loads the
optimized copy itself: a successor process loads it while the daemon still serves, and at the
handover the daemon writes here only what changed since the copy was taken (the current points of
those ids, and the ids deleted), with its point count as a check. Plain Python values in a pickle:
Qdrant Edge's vector objects do not pickle, and a few hundred points take a few milliseconds.
"""

from __future__ import annotations

import os
import pickle
from pathlib import Path
from typing import Any, Iterable

import qdrant_edge as qe

from mnemex.errors import MnemexError

#: In the optimized copy's directory: the points a successor replays onto it (removed once replayed).
HANDOVER_FILE = "mnemex-handover.pickle"
_VERSION = 1


def _plain(vector: Any) -> Any:
    if isinstance(vector, dict):
        return {name: _plain(v) for name, v in vector.items()}
    if isinstance(vector, qe.SparseVector):
        return ("sparse", list(vector.indices), list(vector.values))
    return vector


def _edge(vector: Any) -> Any:
    if isinstance(vector, dict):
        return {name: _edge(v) for name, v in vector.items()}
    if isinstance(vector, tuple) and vector and vector[0] == "sparse":
        return qe.SparseVector(indices=vector[1], values=vector[2])
    return vector


def write_changes(shard: qe.EdgeShard, ids: Iterable[str], path: Path) -> int:
    """Write the current state of `ids` in `shard` (points kept, ids gone) and its point count to
    `path` (atomically, owner-only); returns how many ids it holds."""
    wanted = sorted(ids)
    points: list[tuple[str, Any, Any]] = []
    gone: list[str] = []
    for start in range(0, len(wanted), 512):
        chunk = wanted[start:start + 512]
        records = shard.retrieve(chunk, with_payload=True, with_vector=True)
        points.extend((str(r.id), _plain(r.vector), r.payload) for r in records)
        gone.extend(sorted(set(chunk) - {str(r.id) for r in records}))
    count = int(shard.count(qe.CountRequest(exact=True)))
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as fh:
        pickle.dump({"version": _VERSION, "points": points, "gone": gone, "count": count}, fh,
                    protocol=pickle.HIGHEST_PROTOCOL)
    os.replace(tmp, path)
    return len(wanted)


def apply_changes(shard: qe.EdgeShard, path: Path) -> set[str]:
    """Replay the changes written at `path` onto `shard` and check that it then holds as many
    points as the shard they came from; returns the ids replayed. Raises MnemexError (the copy must
    then not be used) on a count that differs or a file it cannot read."""
    try:
        with open(path, "rb") as fh:
            data = pickle.load(fh)
        if not isinstance(data, dict) or data.get("version") != _VERSION:
            raise ValueError("unknown format")
    except (OSError, ValueError, pickle.UnpicklingError, EOFError) as exc:
        raise MnemexError(f"the handover file {path} cannot be read ({exc})") from exc
    points, gone = data["points"], data["gone"]
    for start in range(0, len(points), 512):
        chunk = points[start:start + 512]
        shard.update(qe.UpdateOperation.upsert_points([qe.Point(pid, _edge(vec), payload)
                                                        for pid, vec, payload in chunk]))
    if gone:
        shard.update(qe.UpdateOperation.delete_points(list(gone)))
    have = int(shard.count(qe.CountRequest(exact=True)))
    if have != data["count"]:
        raise MnemexError(f"the optimized copy holds {have} points after the handover, the store it replaces "
                          f"{data['count']}; it is not used")
    return {pid for pid, _, _ in points} | set(gone)
