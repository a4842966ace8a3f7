"""The prediction-error gate's bands and rules (seed 001), as configuration.

Similarity bands are cosines of a new statement to its nearest current neighbour in the same
scope; see `engine/write/prediction_gate.py` for how they are applied.
"""

from __future__ import annotations

from pydantic import Field

from mnemex.config.base import Frozen


class GateConfig(Frozen):
    """The prediction-error gate: what a new statement does to its nearest stored neighbours (seed 001)."""

    reinforce_at: float = Field(0.92, ge=0, le=1, description="At or above: near-identical, the neighbour is reinforced.")
    update_at: float = Field(0.75, ge=0, le=1, description="At or above (and below reinforce_at): overlapping, merged into the neighbour when it repeats most of it.")
    gap_low: float = Field(0.70, ge=0, le=1, description="From here up to update_at: borderline; skipped when of low importance.")
    gap_min_importance: float = Field(0.5, ge=0, le=1, description="Borderline statements at least this important are stored anyway.")
    conflict_at: float = Field(0.62, ge=0, le=1, description="At or above: a changed value about the same subject supersedes the neighbour.")
    correction_at: float = Field(0.50, ge=0, le=1, description="The conflict threshold for statements classified as corrections.")
    update_coverage: float = Field(0.75, ge=0, le=1, description="Share of the old text's content words the new one must hold to merge into it.")
    same_subject: float = Field(0.7, ge=0, le=1, description="Share of the old statement's non-value words the new one must repeat for a value change.")
    switch_subject: float = Field(0.5, ge=0, le=1, description="The same share for 'switched to' / 'instead of' statements.")


DEFAULT_GATE = GateConfig()
