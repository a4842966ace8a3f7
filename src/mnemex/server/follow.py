"""What a foreground daemon becomes once it handed its store over: a small process that keeps its
pid alive for as long as a daemon owns the store, and passes its stop signals on.

`mnemex daemon run` (in a terminal, or as a service manager's main process) hands its store to a
successor process after a burst of writes, as a detached daemon does (`handoff.py`). Ending there
would tell a service manager the service stopped, and a terminal that the daemon is gone while a
detached process serves on. So the handed-over daemon execs `python -m mnemex.server.follow
<daemon.lock>` (same pid, a few MB): it waits while the owner lock is held, by the successor or by
the successors after it, and sends SIGTERM, SIGINT or SIGHUP it receives to the pid the owner record
names (that daemon stops gracefully). When the lock is free, the daemons are gone: it exits 0.
"""

from __future__ import annotations

import fcntl
import json
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

POLL_SECONDS = 0.25
#: Passed on to the daemon that owns the store. The handed-over daemon blocks them before it execs
#: this module, and they are unblocked once the handlers are in place: none is lost meanwhile.
STOP_SIGNALS = {signal.SIGTERM, signal.SIGINT, signal.SIGHUP}


def owner_pid(lock_file: Path) -> int | None:
    try:
        record = json.loads(lock_file.read_text() or "{}")
    except (OSError, ValueError):
        return None
    pid = record.get("pid") if isinstance(record, dict) else None
    return pid if isinstance(pid, int) and pid != os.getpid() else None


def lock_free(lock_file: Path) -> bool:
    """Whether no process holds the owner lock (taken and dropped at once to tell)."""
    try:
        fd = os.open(lock_file, os.O_RDWR)
    except FileNotFoundError:
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    finally:
        os.close(fd)  # unlocks, if it was taken
    return True


def follow(lock_file: Path) -> int:
    def pass_on(signum: int, frame: Any) -> None:
        pid = owner_pid(lock_file)
        if pid is not None:
            try:
                os.kill(pid, signum)
            except ProcessLookupError:
                pass

    for sig in STOP_SIGNALS:
        signal.signal(sig, pass_on)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
    while not lock_free(lock_file):
        time.sleep(POLL_SECONDS)
    return 0


if __name__ == "__main__":
    sys.exit(follow(Path(sys.argv[1])))
