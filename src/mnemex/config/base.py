"""The one base of every configuration model: frozen (derive a variant with
`model_copy(update=...)`), unknown keys refused (a typo in the config file is an error)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
