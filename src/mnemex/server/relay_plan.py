"""What the stdio relay needs before it answers `initialize` — the data dir and a configured
project — read from the environment and the config file without pydantic (the settings model
costs ~300 ms of imports, the whole budget of a handshake).

It reads the settings as `Settings` does (env `MNEMEX_*` over the TOML file over defaults), but
only the keys the relay uses. Whenever the quick reading cannot be sure — the config file
does not parse, it or the environment touches `server` (transport, daemon), a value has an
unexpected type or spelling — there is no plan and `mnemex serve` loads the full settings first,
as before. The rest of the config is checked by the daemon, which refuses to start on a bad
one; the relay passes its one-line reason on to the client's requests.
"""

from __future__ import annotations

import os
from typing import Any, Mapping, NamedTuple

from mnemex.userdirs import user_config_file, user_dir

DATA_DIR_ENV = "MNEMEX_DATA_DIR"
PROJECT_ENV = "MNEMEX_PROJECT"
#: Environment keys that may make `serve` something else than a relay (the server table as JSON,
#: server.transport, server.daemon): any of them leaves the decision to the full settings.
SERVE_ENV = ("MNEMEX_SERVER", "MNEMEX_SERVER__TRANSPORT", "MNEMEX_SERVER__DAEMON")


class RelayPlan(NamedTuple):
    """The settings fields `run_relay` reads, with the same names (`Settings` quacks the same)."""

    data_dir: str
    project: str | None

    @property
    def run_dir(self) -> str:
        return os.path.join(self.data_dir, "run")


def relay_plan(environ: Mapping[str, str]) -> RelayPlan | None:
    """The relay's settings when the environment and config file say them plainly; None when
    only the full settings can tell (or say what is wrong)."""
    data_dir = project = None
    for key, value in environ.items():
        upper = key.upper()
        if not upper.startswith("MNEMEX_"):
            continue
        if upper in SERVE_ENV:
            return None  # the transport or the daemon may be switched: the full settings decide
        if upper in (DATA_DIR_ENV, PROJECT_ENV) and key != upper:
            return None  # pydantic reads env keys case-insensitively; do not guess which one wins
        if key == DATA_DIR_ENV:
            data_dir = value
        elif key == PROJECT_ENV:
            project = value
    config = _config(environ)
    if config is None:
        return None
    server = config.get("server", {})
    if not isinstance(server, dict) or server.get("transport", "stdio") != "stdio" \
            or server.get("daemon", True) is not True:
        return None
    if data_dir is None:
        data_dir = config.get("data_dir", user_dir("data"))
    if project is None:
        project = config.get("project")
    if not isinstance(data_dir, str) or not data_dir or not isinstance(project, (str, type(None))):
        return None
    return RelayPlan(data_dir=os.path.abspath(data_dir), project=project)


def _config(environ: Mapping[str, str]) -> dict[str, Any] | None:
    """The config file's top-level table ({} when there is no file); None when it cannot be read."""
    explicit = environ.get("MNEMEX_CONFIG")
    path = os.path.expanduser(explicit) if explicit else user_config_file()
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except FileNotFoundError:
        return None if explicit else {}  # a named file that is missing is an error the settings report
    except OSError:
        return None
    if not raw.strip():
        return {}
    import tomllib

    try:
        return tomllib.loads(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        return None
