"""The observer's knobs, with the numbers of the design notes as defaults.

Frozen: derive a variant with `DEFAULT_OBSERVER.model_copy(update={...})`.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from mnemex.models import MemoryKind


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ImportanceWeights(_Frozen):
    """importance = novelty*0.25 + arousal*0.30 + reward*0.25 + attention*0.20 (design notes)."""

    novelty: float = Field(0.25, ge=0, le=1)
    arousal: float = Field(0.30, ge=0, le=1)
    reward: float = Field(0.25, ge=0, le=1)
    attention: float = Field(0.20, ge=0, le=1)


class ChannelFloors(_Frozen):
    """Each channel's value when no cue fires. Reward starts near the neutral prior because
    "how useful was similar information" is unknown, not zero; arousal starts low."""

    arousal: float = Field(0.1, ge=0, le=1)
    reward: float = Field(0.3, ge=0, le=1)
    attention: float = Field(0.2, ge=0, le=1)


def _kind_base() -> dict[MemoryKind, float]:
    # correction .40, preference .30, decision .35, entity .30, fact .25 come from the design
    # notes; convention, procedure and plan are ours, set beside decision.
    return {
        MemoryKind.CORRECTION: 0.40, MemoryKind.PREFERENCE: 0.30, MemoryKind.DECISION: 0.35,
        MemoryKind.CONVENTION: 0.35, MemoryKind.PROCEDURE: 0.35, MemoryKind.PLAN: 0.30,
        MemoryKind.ENTITY: 0.30, MemoryKind.FACT: 0.25,
    }


def _kind_boost() -> dict[MemoryKind, float]:
    # The notes' encoding boost (0.7-1.3): what a coding agent is told to do or not to do
    # (corrections, preferences, conventions) matters more than a passing fact.
    return {
        MemoryKind.CORRECTION: 1.25, MemoryKind.PREFERENCE: 1.15, MemoryKind.CONVENTION: 1.15,
        MemoryKind.DECISION: 1.1, MemoryKind.PROCEDURE: 1.05, MemoryKind.PLAN: 1.0,
        MemoryKind.ENTITY: 1.0, MemoryKind.FACT: 1.0,
    }


class ObserverConfig(_Frozen):
    min_chars: int = Field(10, ge=0, description="Text of at most this many characters is too short.")
    max_chars: int = Field(5000, ge=1, description="Text of at least this many characters is too long.")
    code_heavy_ratio: float = Field(0.5, ge=0, le=1, description="Share of code characters that makes text code-heavy.")
    markdown_heavy_lines: int = Field(5, ge=1, description="Markdown lines (bullets, headings, bold) that make text markdown-heavy.")
    emoji_heavy_count: int = Field(3, ge=0, description="More emoji than this makes text emoji-heavy.")
    instruction_lines: int = Field(3, ge=1, description="Lines addressing 'you' with orders that make text a system prompt.")
    min_density: float = Field(0.3, ge=0, le=1, description="Below this information density the text is flagged low-density.")
    max_entities: int = Field(8, ge=0, description="Entities kept per observation.")
    entity_rich_count: int = Field(2, ge=1, description="Entities that make text entity-rich (an entity cue).")
    kind_base: dict[MemoryKind, float] = Field(default_factory=_kind_base,
                                               description="Confidence of a kind when its weakest cue fires.")
    fallback_kind: MemoryKind = Field(MemoryKind.FACT, description="Kind when no cue fires.")
    fallback_confidence: float = Field(0.2, ge=0, le=1)
    kind_boost: dict[MemoryKind, float] = Field(default_factory=_kind_boost,
                                                description="Encoding boost multiplier by kind (0.7-1.3).")
    noise_boost: float = Field(0.7, ge=0, le=1.3, description="Encoding boost of system, injected or low-density text.")
    weights: ImportanceWeights = ImportanceWeights()
    floors: ChannelFloors = ChannelFloors()
    default_novelty: float = Field(0.5, ge=0, le=1, description="Novelty assumed when the engine gives none.")
    plan_default_days: int = Field(7, ge=1, description="valid_until of a plan with no date: now + this many days.")
    sprint_days: int = Field(14, ge=1, description="Length of 'next sprint'.")
    split_atoms: bool = Field(True, description="Split compound statements into atoms.")


DEFAULT_OBSERVER = ObserverConfig()
