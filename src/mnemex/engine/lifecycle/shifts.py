"""Semantic-shift episode boundaries (seed 003, after GAM): where a session's topic changed. Pure
(vectors in, window indices out; the caller embeds).

A session's events are cut into windows of `window` consecutive events, aligned from its first
event, complete windows only (so events added later never move an earlier boundary). Each window
is compared with the running centroid of its episode so far (the "last consolidated state"): a
cosine under `shift_similarity` ends the episode there, provided it already spans `min_windows`
windows. Windows past `max_windows` join the last episode (a bound on the embedding work).
"""

from __future__ import annotations

import math
from typing import Sequence, TypeVar

T = TypeVar("T")


def windows(items: Sequence[T], size: int) -> list[list[T]]:
    """The complete windows of `size` consecutive items, from the first."""
    return [list(items[i:i + size]) for i in range(0, len(items) - size + 1, size)]


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b))
    na, nb = math.sqrt(sum(x * x for x in a)), math.sqrt(sum(y * y for y in b))
    return dot / (na * nb) if na and nb else 0.0


def boundaries(vectors: Sequence[Sequence[float]], *, threshold: float, min_windows: int) -> list[int]:
    """The indices of the windows that start a new episode (never 0): a window whose cosine with the
    centroid of the current episode is under `threshold`, once that episode holds `min_windows`."""
    out: list[int] = []
    if not vectors:
        return out
    centroid = list(vectors[0])
    held = 1
    for i in range(1, len(vectors)):
        vector = vectors[i]
        if held >= min_windows and cosine(vector, centroid) < threshold:
            out.append(i)
            centroid, held = list(vector), 1
            continue
        centroid = [(c * held + v) / (held + 1) for c, v in zip(centroid, vector)]
        held += 1
    return out


def split_at(items: Sequence[T], starts: Sequence[int]) -> list[list[T]]:
    """`items` cut before each index of `starts` (ascending, within range)."""
    cuts = [0, *[s for s in starts if 0 < s < len(items)], len(items)]
    return [list(items[a:b]) for a, b in zip(cuts, cuts[1:]) if b > a]
