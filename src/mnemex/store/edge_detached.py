"""Optimizing a Qdrant Edge shard without stalling its process: the parts `EdgeStore` uses.

Qdrant Edge's `optimize()` holds the GIL for its whole run (45 s at 100k memories), so every
thread of the serving process waits. `EdgeStore.optimize_detached` therefore optimizes a copy
of the shard in a child process (`python -m mnemex.store.edge_detached <dir> <dim>`), replays
the writes made meanwhile onto it, and swaps it in: the serving process only waits for the
replay and the swap.

The daemon does not swap at once: the optimized copy waits, the writes made since are tracked,
and when the store closes another child process replays them onto it (`--replay`), so the serving
process never loads a shard while it serves (loading one holds the GIL: 1.6 s at 100k memories).

The shard then lives in a generation directory `<name>.gen-<n>` beside the store path, which
becomes a symlink to it, so the swap is a symlink replacement and needs no reload. After a
crash, `recover` keeps whatever the link (or the directory) names and removes the rest.
"""

from __future__ import annotations

import os
import shutil
import sys
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

GENERATION = ".gen-"


class Gate:
    """Shard calls run together; a swap waits for them to finish and holds new ones back."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._users = 0
        self._swapping = False
        self._owner: int | None = None

    @contextmanager
    def use(self) -> Iterator[None]:
        with self._cond:
            if self._owner != threading.get_ident():  # the swapping thread passes through
                while self._swapping:
                    self._cond.wait()
            self._users += 1
        try:
            yield
        finally:
            with self._cond:
                self._users -= 1
                self._cond.notify_all()

    @contextmanager
    def swap(self) -> Iterator[None]:
        with self._cond:
            while self._swapping:
                self._cond.wait()
            self._swapping, self._owner = True, threading.get_ident()
            while self._users:
                self._cond.wait()
        try:
            yield
        finally:
            with self._cond:
                self._swapping, self._owner = False, None
                self._cond.notify_all()


def copy_sparse(src: str, dst: str) -> None:
    """Copy a file keeping its holes: Qdrant preallocates WAL and storage files, and a plain
    copy would write their unused megabytes out as zeros."""
    block = 1 << 16
    with open(src, "rb") as fin, open(dst, "wb") as fout:
        while chunk := fin.read(block):
            if chunk.count(0) == len(chunk):
                fout.seek(len(chunk), os.SEEK_CUR)
            else:
                fout.write(chunk)
        fout.truncate()
    shutil.copystat(src, dst)


def copy_shard(src: Path, dst: Path) -> None:
    shutil.copytree(src, dst, copy_function=copy_sparse)


def remove_tree(path: Path) -> None:
    """Remove a shard directory, or a link to one together with the directory it names."""
    if path.is_symlink():
        target = path.parent / os.readlink(path)
        path.unlink()
        shutil.rmtree(target, ignore_errors=True)
    elif path.exists():
        shutil.rmtree(path)


def next_generation(path: Path) -> Path:
    """A fresh generation directory for the shard at `path` (a directory or a link to one)."""
    current = os.readlink(path) if path.is_symlink() else ""
    n = int(current.rsplit(GENERATION, 1)[1]) + 1 if GENERATION in current else 1
    return path.with_name(f"{path.name}{GENERATION}{n}")


def point_to(path: Path, generation: Path) -> Path | None:
    """Make `path` a link to `generation` (atomically when it is a link already); returns what
    it replaced that must now be removed: the previous generation, or the parked directory."""
    tmp = path.with_name(path.name + ".link")
    if tmp.is_symlink():
        tmp.unlink()
    os.symlink(generation.name, tmp)
    if path.is_symlink():
        previous = path.parent / os.readlink(path)
        os.replace(tmp, path)
        return previous
    parked = path.with_name(path.name + ".old")  # a crash between these renames: `recover` undoes it
    os.replace(path, parked)
    os.replace(tmp, path)
    return parked


def link_layout(path: Path) -> bool:
    """Give the store at `path` the layout a swap leaves: `path` a link to `<name>.gen-1`, moving a
    plain store directory there (or creating it empty). No shard may be open on it. Then a later
    swap or handover only replaces the link, and never has to move a directory a shard has open.
    Returns whether the store is linked now (False: this filesystem refused the link; the plain
    layout works on, only its first swap costs more). A crash between the two renames leaves a
    pending link that `recover` puts in place."""
    if path.is_symlink():
        return True
    generation = path.with_name(f"{path.name}{GENERATION}1")
    tmp = path.with_name(path.name + ".link")
    if tmp.is_symlink():
        tmp.unlink()
    try:
        os.symlink(generation.name, tmp)
    except OSError:
        return False
    if path.exists():
        os.replace(path, generation)
    else:
        generation.mkdir(parents=True, exist_ok=True)
    os.replace(tmp, path)
    return True


def recover(path: Path) -> None:
    """Remove the generations the store path does not name (an optimize cut short, or an old one);
    first finish a `link_layout` cut between its renames (the path gone, its pending link valid)."""
    pending = path.with_name(path.name + ".link")
    if not path.exists() and not path.is_symlink() and pending.is_symlink() and pending.exists():
        os.replace(pending, path)
    keep = (path.parent / os.readlink(path)).name if path.is_symlink() else None
    for leftover in path.parent.glob(path.name + GENERATION + "*"):
        if leftover.name != keep:
            shutil.rmtree(leftover, ignore_errors=True)
    link = path.with_name(path.name + ".link")
    if link.is_symlink():
        link.unlink()


def main(argv: list[str]) -> int:
    """Child process. `<dir> <dim>`: optimize the shard copy at dir (vectors of dim) and exit.
    `--replay <store> <copy> <dim> <ids.json>`: bring the optimized copy up to date with the
    closed store on the listed ids (`EdgeStore.close` swapping a waiting copy in), and exit."""
    import json

    from mnemex.store.edge import _replay, load_shard

    if argv[0] == "--replay":
        store, copy, dim, ids_file = argv[1:5]
        ids = set(json.loads(Path(ids_file).read_text()))
        old = load_shard(store, int(dim))
        try:
            fresh = load_shard(copy, int(dim))
            try:
                _replay(old, fresh, ids)
                fresh.flush()
            finally:
                fresh.close()
        finally:
            old.close()
        return 0
    try:  # the lowest CPU priority: on a small machine the indexing threads otherwise take the
        os.nice(19)  # cores a search of the serving process needs (longest search 195 ms at 10k)
    except OSError:
        pass
    shard = load_shard(argv[0], int(argv[1]))
    try:
        shard.optimize()
        shard.flush()
    finally:
        shard.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
