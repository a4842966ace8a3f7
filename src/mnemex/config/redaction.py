"""Thresholds of the contextual secret-redaction rules (the provider-specific rules need none)."""

from __future__ import annotations

from pydantic import Field

from mnemex.config import defaults as d
from mnemex.config.base import Frozen


class RedactionConfig(Frozen):
    """Secret redaction, applied to every text before it is stored: the contextual rules' thresholds."""

    min_token_length: int = Field(d.REDACTION_MIN_TOKEN_LENGTH, ge=8, description="Shortest run of characters the entropy rule considers a token.")
    min_entropy: float = Field(d.REDACTION_MIN_ENTROPY, ge=0, description="Bits per character a base62/base64 token needs (random 20+ char tokens score 4 and up).")
    min_hex_entropy: float = Field(d.REDACTION_MIN_HEX_ENTROPY, ge=0, description="Bits per character a hex token needs (random hex scores about 3.7-4).")
    context_window: int = Field(d.REDACTION_CONTEXT_WINDOW, ge=0, description="How far after a secret-ish word ('token', 'key', 'password') the entropy rule looks.")


DEFAULT_REDACTION = RedactionConfig()
