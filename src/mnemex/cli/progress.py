"""Progress bars for long commands (tqdm): drawn on stderr only when it is a terminal; when it is
not (a script, a pipe, CI) nothing is drawn and the command's summary is the only output."""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from typing import Any, Iterator


class Progress:
    """What a long command reports: `advance(n)` as work is done, `total(n)` once it is known."""

    def __init__(self, bar: Any = None):
        self._bar = bar

    def total(self, total: int) -> None:
        if self._bar is not None:
            self._bar.total = total
            self._bar.refresh()

    def advance(self, n: int = 1) -> None:
        if self._bar is not None and n:
            self._bar.update(n)

    def to(self, done: int, total: int | None = None) -> None:
        """Set the count itself (callbacks that report `done of total`)."""
        if self._bar is not None:
            if total is not None and self._bar.total != total:
                self._bar.total = total
            self._bar.update(done - self._bar.n)


def interactive() -> bool:
    return sys.stderr.isatty()


@contextmanager
def progress(label: str, *, total: int | None = None, unit: str = "memories") -> Iterator[Progress]:
    if not interactive():
        yield Progress()
        return
    from tqdm import tqdm

    try:
        width, height = os.get_terminal_size(sys.stderr.fileno())
    except OSError:
        width, height = 0, 0
    # a terminal that reports no size (a fresh pty) gets 80x24: tqdm would hide a bar on row 0 of 0
    bar = tqdm(total=total, desc=label, unit=f" {unit}", file=sys.stderr, ncols=min(width or 80, 120),
               nrows=height or 24, leave=False)
    try:
        yield Progress(bar)
    finally:
        bar.close()
