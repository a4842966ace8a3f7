"""The settings the hook needs, read without pydantic: the data dir and the `[capture]` section.

Same sources and precedence as `config.Settings` (MNEMEX_* environment, then the TOML file,
then the defaults in `config/defaults.py`), same names as `config.capture.CaptureSettings`
(a test keeps them equal). Loading the full settings model would cost the hook ~0.3 s.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Mapping, NamedTuple

from mnemex.config import defaults as d


class HookSettings(NamedTuple):
    data_dir: Path
    enabled: bool = d.CAPTURE_ENABLED
    tools: tuple[str, ...] = d.CAPTURE_TOOLS
    skip_tools: tuple[str, ...] = d.CAPTURE_SKIP_TOOLS
    max_per_minute: int = d.CAPTURE_MAX_PER_MINUTE
    max_chars: int = d.CAPTURE_MAX_CHARS
    prompts: bool = d.CAPTURE_PROMPTS

    @property
    def run_dir(self) -> Path:
        return self.data_dir / "run"

    @property
    def spool_dir(self) -> Path:
        return self.data_dir / "spool"

    def captures(self, tool: str) -> bool:
        """Is this tool's use recorded?"""
        if not self.enabled or tool in self.skip_tools:
            return False
        return "*" in self.tools or tool in self.tools


def read_hook_settings(env: Mapping[str, str] | None = None) -> HookSettings:
    """The hook's settings; a malformed value falls back to its default (the hook never fails)."""
    env = os.environ if env is None else env
    data: dict[str, Any] = {}
    path = Path(env["MNEMEX_CONFIG"]).expanduser() if env.get("MNEMEX_CONFIG") else d.default_config_file()
    try:
        text = path.read_text(encoding="utf-8")
        import tomllib  # only when there is a config file (5 ms of the hook's start)

        data = tomllib.loads(text)
    except (OSError, ValueError):
        data = {}
    section = data.get("capture") if isinstance(data.get("capture"), dict) else {}
    data_dir = env.get("MNEMEX_DATA_DIR") or data.get("data_dir") or d.default_data_dir()
    values: dict[str, Any] = {}
    for name, default in (("enabled", d.CAPTURE_ENABLED), ("tools", d.CAPTURE_TOOLS),
                          ("skip_tools", d.CAPTURE_SKIP_TOOLS), ("max_per_minute", d.CAPTURE_MAX_PER_MINUTE),
                          ("max_chars", d.CAPTURE_MAX_CHARS), ("prompts", d.CAPTURE_PROMPTS)):
        raw = env.get(f"MNEMEX_CAPTURE__{name.upper()}", section.get(name, default))
        values[name] = _coerce(raw, default)
    return HookSettings(data_dir=Path(str(data_dir)).expanduser(), **values)


def _coerce(raw: Any, default: Any) -> Any:
    if isinstance(default, bool):
        if isinstance(raw, bool):
            return raw
        return str(raw).strip().lower() in ("1", "true", "yes", "on") if str(raw).strip() else default
    if isinstance(default, int):
        try:
            return int(raw)
        except (TypeError, ValueError):
            return default
    if isinstance(default, tuple):
        if isinstance(raw, (list, tuple)):
            return tuple(str(x) for x in raw)
        text = str(raw).strip()
        if text.startswith("["):
            try:
                return tuple(str(x) for x in json.loads(text))
            except ValueError:
                return default
        return tuple(x.strip() for x in text.split(",") if x.strip())
    return raw
