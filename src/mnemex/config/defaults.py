"""Defaults that processes without pydantic need too (the hook, the relay, the redaction rules),
as plain constants: each written once here and used by the settings models and by those readers."""

from __future__ import annotations

import os
from pathlib import Path

from mnemex.userdirs import user_config_file, user_dir


def default_data_dir() -> Path:
    return Path(user_dir("data"))


def default_config_file() -> Path:
    return Path(user_config_file())


def config_file_path() -> Path | None:
    """The config file in use: MNEMEX_CONFIG, else the platform's default location."""
    explicit = os.environ.get("MNEMEX_CONFIG")
    if explicit:
        return Path(explicit).expanduser()
    return default_config_file()

DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
#: The content limit's default: the tools' input schema states the same number.
MAX_CONTENT_CHARS = 20_000
#: Results per search: the default ceiling, which the tools' schema also states.
MAX_RESULTS = 50

# -- redaction (the contextual rules' thresholds)
REDACTION_MIN_TOKEN_LENGTH = 20
REDACTION_MIN_ENTROPY = 3.5
REDACTION_MIN_HEX_ENTROPY = 3.0
REDACTION_CONTEXT_WINDOW = 40

# -- capture of the agent's tool use by the Claude Code hooks
CAPTURE_ENABLED = True
CAPTURE_TOOLS = ("Read", "Edit", "MultiEdit", "Write", "Bash")
CAPTURE_SKIP_TOOLS = ("Grep", "Glob", "LS", "TodoWrite")
CAPTURE_MAX_PER_MINUTE = 120
CAPTURE_MAX_CHARS = 2000
CAPTURE_PROMPTS = True
