"""Where mnemex keeps its data and config by default, as plain strings, importing only `os` and
`sys`: the hook (run at every tool use) finds the daemon's socket with these, and `pathlib`
alone would cost it ~7 ms of imports (it loads `re`). `config.defaults` wraps them in paths."""

from __future__ import annotations

import os
import sys


def user_dir(which: str) -> str:
    """platformdirs' user_data_dir ("data") / user_config_dir ("config") for "mnemex", spelled
    out for Linux and macOS (importing platformdirs costs ~8 ms; tests/config checks they agree)."""
    if sys.platform == "darwin":
        return os.path.join(os.path.expanduser("~"), "Library", "Application Support", "mnemex")
    if sys.platform.startswith(("linux", "freebsd", "openbsd", "netbsd")):
        xdg = os.environ.get("XDG_DATA_HOME" if which == "data" else "XDG_CONFIG_HOME", "").strip()
        base = xdg or os.path.join(os.path.expanduser("~"), ".local/share" if which == "data" else ".config")
        return os.path.join(base, "mnemex")
    import platformdirs

    return (platformdirs.user_data_dir("mnemex", appauthor=False) if which == "data"
            else platformdirs.user_config_dir("mnemex", appauthor=False))


def user_config_file() -> str:
    return os.path.join(user_dir("config"), "config.toml")
