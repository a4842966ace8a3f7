"""The capture spool: hooks append events to a local file and return; the daemon ingests them.

A hook appends one JSON line to `events.jsonl` (O_APPEND, under a shared `flock`, after checking
that the file it opened is still the one at that path). The ingester renames the file to a
batch (`batch-<ns>.jsonl`; new events go to a fresh `events.jsonl`), takes the batch's lock
exclusively — so an append that began before the rename finishes first — and reads it. A batch
is deleted only once every event of it is in the store, so a daemon killed mid-batch reads it
again; events carry ids, and the ingester skips the ones it already has (never twice).

Everything is 0600 in a 0700 folder. Stdlib only.
"""

from __future__ import annotations

import fcntl
import json
import os
import time
from pathlib import Path
from typing import Any, Iterator

CURRENT = "events.jsonl"
RATE = "rate"
#: Longest line read back; a longer one (a corrupt file) is skipped.
MAX_LINE = 1_000_000


class Spool:
    def __init__(self, directory: Path):
        self.dir = Path(directory)

    @property
    def current(self) -> Path:
        return self.dir / CURRENT

    def _ensure(self) -> None:
        self.dir.mkdir(mode=0o700, parents=True, exist_ok=True)

    # ---------------------------------------------------------------- writing
    def append(self, record: dict[str, Any]) -> None:
        """Add one event (one line, written in one call, durable once this returns)."""
        self._ensure()
        line = (json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
        for _ in range(5):
            fd = os.open(self.current, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_SH)
                try:
                    same = os.fstat(fd).st_ino == os.stat(self.current).st_ino
                except FileNotFoundError:
                    same = False
                if not same:  # the ingester took this file away between our open and our lock
                    continue
                os.write(fd, line)
                return
            finally:
                os.close(fd)
        raise OSError(f"could not append to the capture spool {self.current}")

    def allow(self, max_per_minute: int) -> bool:
        """Count one event against the per-minute cap; False (and the event counted as dropped)
        when the cap is reached. The `rate` file holds: minute, events this minute, dropped ever."""
        if max_per_minute <= 0:
            return True
        self._ensure()
        minute = int(time.time() // 60)
        fd = os.open(self.dir / RATE, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            seen_minute, count, dropped = _rate(os.pread(fd, 96, 0))
            if seen_minute != minute:
                seen_minute, count = minute, 0
            allowed = count < max_per_minute
            data = f"{seen_minute} {count + allowed} {dropped + (not allowed)}".encode("ascii")
            os.ftruncate(fd, 0)
            os.pwrite(fd, data, 0)
            return allowed
        finally:
            os.close(fd)

    def dropped(self) -> int:
        """Events dropped by the per-minute cap, ever."""
        try:
            return _rate((self.dir / RATE).read_bytes()[:96])[2]
        except OSError:
            return 0

    # ---------------------------------------------------------------- reading
    def take(self) -> list[Path]:
        """Move the current file aside as a new batch (if it holds anything); every batch waiting
        to be ingested, oldest first (including ones a killed ingester left)."""
        if not self.dir.exists():
            return []
        try:
            if self.current.stat().st_size > 0:
                os.replace(self.current, self.dir / f"batch-{time.time_ns():020d}.jsonl")
        except FileNotFoundError:
            pass
        return sorted(self.dir.glob("batch-*.jsonl"))

    def read(self, batch: Path) -> Iterator[dict[str, Any]]:
        """The events of a batch, in order; malformed lines (a crash mid-append) are skipped."""
        fd = os.open(batch, os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)  # appends that began before the rename are done
            with os.fdopen(os.dup(fd), "rb") as fh:
                for raw in fh:
                    if len(raw) > MAX_LINE or not raw.endswith(b"\n"):
                        continue
                    try:
                        record = json.loads(raw)
                    except ValueError:
                        continue
                    if isinstance(record, dict) and isinstance(record.get("id"), str):
                        yield record
        finally:
            os.close(fd)

    def done(self, batch: Path) -> None:
        batch.unlink(missing_ok=True)

    def pending(self) -> bool:
        """Is anything waiting to be ingested?"""
        try:
            if self.current.stat().st_size > 0:
                return True
        except FileNotFoundError:
            pass
        return any(self.dir.glob("batch-*.jsonl")) if self.dir.exists() else False


def _rate(raw: bytes) -> tuple[int, int, int]:
    words = raw.decode("ascii", "replace").split()
    numbers = [int(w) for w in words if w.isdigit()]
    return (numbers + [0, 0, 0])[:3] if len(numbers) == len(words) else (0, 0, 0)
