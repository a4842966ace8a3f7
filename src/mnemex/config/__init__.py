"""mnemex's configuration: one settings tree (`Settings`), read from a TOML file and `MNEMEX_*`
environment variables by the entry points alone. Each section is a frozen model of its own
module; every tunable number has one default, written once, with its description —
`python -m mnemex.config.reference` prints the documented file (`configs/mnemex.toml`).

Importing this package is cheap: the settings models (pydantic) load on first use of a name
below, so stdlib-only readers (the hook, the relay) can use `mnemex.config.defaults`.
"""

from __future__ import annotations

from typing import Any

from mnemex.config.defaults import (
    DEFAULT_MODEL,
    MAX_CONTENT_CHARS,
    MAX_RESULTS,
    config_file_path,
    default_config_file,
    default_data_dir,
)

_FROM_SETTINGS = frozenset({
    "AuditSettings", "EmbeddingSettings", "LimitSettings", "ServerSettings", "Settings", "StoreSettings",
    "load_settings",
})

__all__ = ["DEFAULT_MODEL", "MAX_CONTENT_CHARS", "MAX_RESULTS", "config_file_path", "default_config_file",
           "default_data_dir", *sorted(_FROM_SETTINGS)]


def __getattr__(name: str) -> Any:
    if name in _FROM_SETTINGS:
        from mnemex.config import settings

        return getattr(settings, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
