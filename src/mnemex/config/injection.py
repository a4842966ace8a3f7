"""What the injection strategies put in front of the agent, and within which budget.

The strategy itself is chosen by `retrieval.strategy`; these numbers shape the context it packs
(seed 002: rank, minimum relevance, non-inferable filter, confidence gate, token budget)."""

from __future__ import annotations

from pydantic import Field

from mnemex.config.base import Frozen


class InjectionSettings(Frozen):
    """The packed context of the context strategy (SessionStart, each prompt, the `memory_context`
    prompt and resource), and the relevance floor of `search_memory` results."""

    session_budget: int = Field(1500, ge=100, le=20_000, description="Tokens (tiktoken cl100k) of context at session start.")
    prompt_budget: int = Field(600, ge=0, le=20_000, description="Tokens of context added to each prompt (0 = none).")
    candidates: int = Field(40, ge=1, le=200, description="Memories retrieved before ranking and packing.")
    recency_weight: float = Field(0.15, ge=0, le=1, description="Weight of recency against relevance in the ranking (seed 002's linear combination).")
    recency_half_life_days: float = Field(90.0, gt=0, description="Age at which a memory's recency counts half.")
    min_relevance: float = Field(0.3, ge=0, le=1, description="Ranked score under which a memory is left out (and logged).")
    full_text_at: float = Field(0.5, ge=0, le=1, description="Confidence from which a memory is shown whole with its date and kind; below it, one line.")
    line_chars: int = Field(160, ge=40, le=1000, description="Longest one-line preview of a middle-confidence memory.")
    recent_sessions: int = Field(2, ge=0, le=10, description=(
        "Episodes of the project's latest captured sessions shown at session start (what was done last time)."))
    skip_kinds: tuple[str, ...] = Field(("tool_event",), description=(
        "Kinds never injected (what reading the code or the shell shows again); they stay searchable."))
    search_min_confidence: float = Field(0.3, ge=0, le=1, description=(
        "search_memory leaves out hits under this confidence and says how many (min_confidence=0 shows all)."))
