"""mnemex's configuration: one settings tree (`Settings`), read from a TOML file and `MNEMEX_*`
environment variables by the entry points alone. Each section is a frozen model of its own
module; every tunable number has one default, written once, with its description —
`python -m mnemex.config.reference` prints the documented file (`configs/mnemex.toml`)."""

from mnemex.config.settings import (
    DEFAULT_MODEL,
    MAX_CONTENT_CHARS,
    MAX_RESULTS,
    AuditSettings,
    EmbeddingSettings,
    LimitSettings,
    ServerSettings,
    Settings,
    StoreSettings,
    config_file_path,
    default_config_file,
    default_data_dir,
    load_settings,
)

__all__ = [
    "DEFAULT_MODEL", "MAX_CONTENT_CHARS", "MAX_RESULTS", "AuditSettings", "EmbeddingSettings", "LimitSettings",
    "ServerSettings", "Settings", "StoreSettings", "config_file_path", "default_config_file", "default_data_dir", "load_settings",
]
