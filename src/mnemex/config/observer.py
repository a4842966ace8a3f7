"""The observer's knobs, with the numbers of the design notes as defaults.

Frozen: derive a variant with `DEFAULT_OBSERVER.model_copy(update={...})`.
"""

from __future__ import annotations

from pydantic import Field

from mnemex.config.base import Frozen
from mnemex.models import MemoryKind


class ImportanceWeights(Frozen):
    """importance = novelty*0.25 + arousal*0.30 + reward*0.25 + attention*0.20 (design notes)."""

    novelty: float = Field(0.25, ge=0, le=1, description="Weight of novelty (1 - similarity to the nearest stored memory).")
    arousal: float = Field(0.30, ge=0, le=1, description="Weight of arousal (urgency, incidents, strong words).")
    reward: float = Field(0.25, ge=0, le=1, description="Weight of reward (what worked, what helped).")
    attention: float = Field(0.20, ge=0, le=1, description="Weight of attention (explicit 'remember', 'always', 'never').")


class ChannelFloors(Frozen):
    """Each channel's value when no cue fires. Reward starts near the neutral prior because
    "how useful was similar information" is unknown, not zero; arousal starts low."""

    arousal: float = Field(0.1, ge=0, le=1, description="Arousal with no cue.")
    reward: float = Field(0.3, ge=0, le=1, description="Reward with no cue.")
    attention: float = Field(0.2, ge=0, le=1, description="Attention with no cue.")


class PerKind(Frozen):
    """One number for each kind the observer classifies into (frozen, unlike a dict)."""

    correction: float = Field(ge=0, description="For corrections.")
    preference: float = Field(ge=0, description="For preferences.")
    decision: float = Field(ge=0, description="For decisions.")
    convention: float = Field(ge=0, description="For conventions.")
    procedure: float = Field(ge=0, description="For procedures.")
    plan: float = Field(ge=0, description="For plans.")
    entity: float = Field(ge=0, description="For entities.")
    fact: float = Field(ge=0, description="For facts.")

    def of(self, kind: MemoryKind, default: float = 1.0) -> float:
        return getattr(self, kind.value, default)


# correction .40, preference .30, decision .35, entity .30, fact .25 come from the design
# notes; convention, procedure and plan are ours, set beside decision.
KIND_BASE = PerKind(correction=0.40, preference=0.30, decision=0.35, convention=0.35, procedure=0.35,
                    plan=0.30, entity=0.30, fact=0.25)
# The notes' encoding boost (0.7-1.3): what a coding agent is told to do or not to do
# (corrections, preferences, conventions) matters more than a passing fact.
KIND_BOOST = PerKind(correction=1.25, preference=1.15, decision=1.1, convention=1.15, procedure=1.05,
                     plan=1.0, entity=1.0, fact=1.0)


class ObserverConfig(Frozen):
    """The observer: the deterministic reading of a new text (kind, entities, flags, atoms, importance)."""

    min_chars: int = Field(10, ge=0, description="Text of at most this many characters is too short.")
    max_chars: int = Field(5000, ge=1, description="Text of at least this many characters is too long.")
    code_heavy_ratio: float = Field(0.5, ge=0, le=1, description="Share of code characters that makes text code-heavy.")
    markdown_heavy_lines: int = Field(5, ge=1, description="Markdown lines (bullets, headings, bold) that make text markdown-heavy.")
    emoji_heavy_count: int = Field(3, ge=0, description="More emoji than this makes text emoji-heavy.")
    instruction_lines: int = Field(3, ge=1, description="Lines addressing 'you' with orders that make text a system prompt.")
    min_density: float = Field(0.3, ge=0, le=1, description="Below this information density the text is flagged low-density.")
    max_entities: int = Field(8, ge=0, description="Entities kept per observation.")
    entity_rich_count: int = Field(2, ge=1, description="Entities that make text entity-rich (an entity cue).")
    kind_base: PerKind = Field(KIND_BASE, description="Confidence of a kind when its weakest cue fires (design notes; convention, procedure and plan set beside decision).")
    fallback_kind: MemoryKind = Field(MemoryKind.FACT, description="Kind when no cue fires.")
    fallback_confidence: float = Field(0.2, ge=0, le=1, description="Confidence of the fallback kind.")
    kind_boost: PerKind = Field(KIND_BOOST, description="Encoding boost multiplier by kind (0.7-1.3).")
    noise_boost: float = Field(0.7, ge=0, le=1.3, description="Encoding boost of system, injected or low-density text.")
    weights: ImportanceWeights = Field(ImportanceWeights(), description="The four importance channels' weights.")
    floors: ChannelFloors = Field(ChannelFloors(), description="Each channel's value when no cue fires.")
    default_novelty: float = Field(0.5, ge=0, le=1, description="Novelty assumed when the engine gives none.")
    plan_default_days: int = Field(7, ge=1, description="valid_until of a plan with no date: now + this many days.")
    sprint_days: int = Field(14, ge=1, description="Length of 'next sprint'.")
    split_atoms: bool = Field(True, description="Split compound statements into atoms.")


DEFAULT_OBSERVER = ObserverConfig()
