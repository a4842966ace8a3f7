"""Capture of the agent's tool use through the Claude Code hooks (seed 000's capture controls).

The hook process reads these without pydantic (`capture/settings.py`, same names and defaults);
this model documents and validates them for everything else."""

from __future__ import annotations

from pydantic import Field

from mnemex.config import defaults as d
from mnemex.config.base import Frozen


class CaptureSettings(Frozen):
    """What `mnemex hook` records of the agent's work. Nothing is captured unless the hooks are
    installed (`mnemex init claude-code`); `enabled = false` stops capture and keeps injection."""

    enabled: bool = Field(d.CAPTURE_ENABLED, description="Record tool events (MNEMEX_CAPTURE__ENABLED).")
    tools: tuple[str, ...] = Field(d.CAPTURE_TOOLS, description=(
        "Tools whose use is recorded (MNEMEX_CAPTURE__TOOLS, a JSON list). "
        "`*` records every tool not skipped."))
    skip_tools: tuple[str, ...] = Field(d.CAPTURE_SKIP_TOOLS, description="Tools never recorded, even with `*`.")
    max_per_minute: int = Field(d.CAPTURE_MAX_PER_MINUTE, ge=0, description=(
        "Most events recorded per minute (across sessions); the rest are dropped and counted. 0 = no limit."))
    max_chars: int = Field(d.CAPTURE_MAX_CHARS, ge=100, le=20_000, description=(
        "Longest text kept of one event (a command's error output, an edit's summary)."))
    prompts: bool = Field(d.CAPTURE_PROMPTS, description=(
        "Keep the user's prompts (redacted, capped) in the session log, for the session's episode summary; "
        "they are never stored as memories."))
