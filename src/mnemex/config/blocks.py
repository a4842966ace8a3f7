"""Core memory blocks (MemGPT/Letta style): how large each block may grow, how many an agent may make.

Blocks are always in the agent's context, so every character counts against its window: the
limits keep them short enough to be worth their place there.
"""

from __future__ import annotations

from pydantic import Field, model_validator

from mnemex.config.base import Frozen

#: The highest limit any block may have: the tools' input schema states the same number.
MAX_BLOCK_CHARS = 20_000


class BlocksConfig(Frozen):
    """Core memory blocks, always in the agent's context: their character limits and how many a project may have."""

    user_limit: int = Field(2_000, ge=100, le=MAX_BLOCK_CHARS, description="Characters the global `user` block (facts about the user) may hold.")
    project_limit: int = Field(4_000, ge=100, le=MAX_BLOCK_CHARS, description="Characters each project's `project` block (its durable context) may hold.")
    persona_limit: int = Field(1_000, ge=100, le=MAX_BLOCK_CHARS, description="Characters the global `persona` block (how the agent should behave) may hold.")
    custom_limit: int = Field(2_000, ge=100, le=MAX_BLOCK_CHARS, description="Characters a block the agent creates holds when it names no limit.")
    max_custom_limit: int = Field(8_000, ge=100, le=MAX_BLOCK_CHARS, description="The highest limit an agent may give a block it creates.")
    max_custom_blocks: int = Field(20, ge=0, le=200, description="Blocks an agent may create per project (an emptied block no longer counts).")

    @model_validator(mode="after")
    def _check(self) -> "BlocksConfig":
        if self.custom_limit > self.max_custom_limit:
            raise ValueError(f"custom_limit ({self.custom_limit}) is over max_custom_limit ({self.max_custom_limit})")
        return self


DEFAULT_BLOCKS = BlocksConfig()
