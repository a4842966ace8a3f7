"""The files of one store's daemon, and the lock that makes its owner unique.

Everything lives in `Settings.run_dir` (mode 0700): `daemon.sock` (mode 0600), `daemon.pid`,
`daemon.lock`, `daemon.log`, `server.json` (the daemon's initialize answer, which relays
replay while a daemon starts) and, once `mnemex viewer` asked for it, `viewer.json` (mode 0600:
the viewer's loopback URL and access key). Whoever opens the embedded store in-process (the daemon, a
direct server, a CLI command) first takes an exclusive `flock` on `daemon.lock` and writes
its role and pid into it, so exactly one process owns a store even when two clients start
at the same instant. The kernel drops the lock when its holder dies (even on SIGKILL), so
"the lock is free" is the exact test for "pid and socket files are stale".

Stdlib only, and lean: the stdio relay imports this module before it answers `initialize`
(named tuples, not dataclasses, which import `inspect`; `socket`, `hashlib` and `tempfile`
on first use).
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, NamedTuple

from mnemex.errors import DaemonError
from mnemex.private import cannot_write, private_dir

#: AF_UNIX paths are limited to 108 bytes on Linux and 104 on macOS (including the NUL).
MAX_SOCKET_PATH = 100


class OwnerLock(NamedTuple):
    """A held owner lock; `release()` clears the owner record and unlocks."""

    fd: int
    role: str

    def release(self) -> None:
        try:
            os.ftruncate(self.fd, 0)  # readers only trust content while the lock is held; clear anyway
        except OSError:
            pass
        try:
            fcntl.flock(self.fd, fcntl.LOCK_UN)
        finally:
            os.close(self.fd)


class RunFiles(NamedTuple):
    """Paths of one store's daemon files, and the operations on them."""

    run_dir: Path

    @classmethod
    def for_settings(cls, settings: Any) -> "RunFiles":
        return cls(Path(settings.run_dir))

    @property
    def pid_file(self) -> Path:
        return self.run_dir / "daemon.pid"

    @property
    def lock_file(self) -> Path:
        return self.run_dir / "daemon.lock"

    @property
    def log_file(self) -> Path:
        return self.run_dir / "daemon.log"

    @property
    def info_file(self) -> Path:
        return self.run_dir / "server.json"

    @property
    def viewer_file(self) -> Path:
        """`viewer.json` (mode 0600): the viewer's URL and access key, while the daemon serves it."""
        return self.run_dir / "viewer.json"

    @property
    def socket(self) -> Path:
        """`run_dir/daemon.sock`, or a short per-user path in the temp dir when that is too long."""
        path = self.run_dir / "daemon.sock"
        if len(os.fsencode(str(path))) <= MAX_SOCKET_PATH:
            return path
        import hashlib
        import tempfile

        digest = hashlib.sha256(os.fsencode(str(self.run_dir.resolve()))).hexdigest()[:20]
        return Path(tempfile.gettempdir()) / f"mnemex-{os.getuid()}" / f"{digest}.sock"

    # ---------------------------------------------------------------- directory
    def ensure_dir(self) -> None:
        """Create the run dir (and the short socket dir if used) owned by us with mode 0700."""
        for directory in {self.run_dir, self.socket.parent}:
            if not directory.parent.exists():
                private_dir(directory.parent)  # the data dir, when the run dir is made first
            directory.mkdir(mode=0o700, parents=True, exist_ok=True)
            st = directory.stat()
            if st.st_uid != os.getuid():
                raise DaemonError(f"run directory {directory} belongs to another user; refusing to use it")
            if st.st_mode & 0o077:
                os.chmod(directory, 0o700)  # older dirs or a permissive umask: no other user may connect

    # --------------------------------------------------------------------- lock
    def _open_lock(self) -> int:
        try:
            self.ensure_dir()
            return os.open(self.lock_file, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as exc:
            raise cannot_write(self.run_dir.parent, exc) from None

    def acquire_owner_lock(self, role: str) -> OwnerLock | None:
        """Take the exclusive owner lock without waiting and record `role` and our pid; None if held."""
        fd = self._open_lock()
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(fd)
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                return None
            raise
        record = json.dumps({"role": role, "pid": os.getpid(), "started": time.time()}).encode()
        os.ftruncate(fd, 0)
        os.pwrite(fd, record, 0)
        return OwnerLock(fd, role)

    @contextmanager
    def try_owner_lock(self, role: str = "cli") -> Iterator[bool]:
        """Hold the owner lock for the block if it is free (yields True), else yield False at once."""
        lock = self.acquire_owner_lock(role)
        try:
            yield lock is not None
        finally:
            if lock is not None:
                lock.release()

    def owner(self) -> dict[str, Any] | None:
        """Who holds the owner lock: {"role", "pid", "started"} (fields may be absent for a moment
        after a new owner locked); None when nobody does, after removing stale pid/socket files."""
        fd = self._open_lock()
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except OSError as exc:
                if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                    raise
                raw = os.pread(fd, 4096, 0)
                try:
                    record = json.loads(raw) if raw else {}
                except ValueError:
                    record = {}
                return record if isinstance(record, dict) else {}
            # Free: no process owns the store, so whatever a dead daemon left behind is stale.
            # (A shared lock keeps a starting daemon out while we clean; it retries.)
            self.remove_runtime_files()
            return None
        finally:
            os.close(fd)

    # ------------------------------------------------------------ pid, socket
    def write_pid(self) -> None:
        tmp = self.pid_file.with_suffix(".pid.tmp")
        tmp.write_text(f"{os.getpid()}\n")
        os.replace(tmp, self.pid_file)  # atomic: readers never see a half-written pid

    def read_pid(self) -> int | None:
        try:
            return int(self.pid_file.read_text().strip())
        except (OSError, ValueError):
            return None

    def remove_runtime_files(self) -> None:
        """Remove the pid and socket files (call only while holding the lock, or when it is free)."""
        for path in (self.pid_file, self.socket, self.viewer_file):
            try:
                path.unlink()
            except FileNotFoundError:
                pass

    def socket_answers(self, timeout: float = 1.0) -> bool:
        """True if a process accepts connections on the socket (a stale file refuses them)."""
        import socket

        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(timeout)
        try:
            sock.connect(str(self.socket))
            return True
        except OSError:
            return False
        finally:
            sock.close()


def pid_alive(pid: int | None) -> bool:
    """True if a process with this pid exists (ours or, with EPERM, another user's)."""
    if not pid or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
