"""Memories are private: every directory mnemex makes is 0700 and every file 0600.

Entry points call `private_umask()` before they create anything, so files are owner-only from
creation (SQLite's WAL and shared-memory files, Qdrant Edge's segments and WAL, the daemon's
files). Opening a store made by an older mnemex, or under a looser umask, tightens it
(`tighten`); `mnemex doctor` reports what was loose (`loose_paths`) and fixes it.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from mnemex.errors import StoreUnavailableError

PRIVATE_UMASK = 0o077
DIR_MODE = 0o700
FILE_MODE = 0o600


def cannot_write(where: Path, exc: OSError) -> StoreUnavailableError:
    """The one way to say that mnemex cannot write where it keeps its data."""
    return StoreUnavailableError(
        f"mnemex cannot write in its data dir {where} ({exc.strerror or exc}): make it writable "
        "(remount read-write, fix its owner) or point data_dir (MNEMEX_DATA_DIR) elsewhere; nothing was changed")


def private_umask() -> int:
    """Add group and other to the process umask (nothing mnemex writes is theirs); returns the old one."""
    old = os.umask(PRIVATE_UMASK)
    os.umask(old | PRIVATE_UMASK)
    return old


def private_dir(path: Path) -> Path:
    """Create `path` (and missing parents) as 0700; tighten it if it exists with looser bits."""
    path.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
    _tighten_one(path)
    return path


def loose_paths(root: Path) -> list[Path]:
    """`root` and everything under it that another user could read, write or enter, that we own."""
    return [p for p in _walk(root) if _loose(p)]


def tighten(root: Path) -> list[Path]:
    """Make `root` and everything under it owner-only (dirs 0700, files 0600); the paths changed."""
    return [p for p in _walk(root) if _tighten_one(p)]


def _walk(root: Path):
    if not root.exists():
        return
    yield root
    for dirpath, dirnames, filenames in os.walk(root, onerror=lambda exc: None):
        base = Path(dirpath)
        for name in dirnames + filenames:
            yield base / name


def _loose(path: Path) -> bool:
    try:
        st = path.lstat()
    except OSError:
        return False
    if stat.S_ISLNK(st.st_mode) or st.st_uid != os.getuid():
        return False
    return bool(stat.S_IMODE(st.st_mode) & 0o077)


def _tighten_one(path: Path) -> bool:
    if not _loose(path):
        return False
    owner_bits = stat.S_IMODE(path.lstat().st_mode) & 0o700  # an executable stays executable
    try:
        os.chmod(path, owner_bits | (DIR_MODE if path.is_dir() else FILE_MODE))
    except OSError:  # a file vanishing under us (a WAL checkpoint) is not a reason to fail
        return False
    return True
