"""The read path as data: a frozen `RetrievalConfig` plus named recipes.

Override per call with `DEFAULT.model_copy(update={...})`; recipes are never mutated.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class RetrievalConfig(_Frozen):
    """Which stages run and with which numbers."""

    # candidate generation
    use_dense: bool = Field(True, description="Run the dense (embedding) prefetch.")
    use_sparse: bool = Field(True, description="Run the BM25 prefetch.")
    dense_weight: float = Field(1.0, ge=0.0, description="Weight of the dense list in RRF.")
    sparse_weight: float = Field(1.0, ge=0.0, description="Weight of the BM25 list in RRF.")
    candidates: int = Field(50, ge=1, le=1000, description="Candidates per prefetch.")
    rrf_k: int = Field(60, ge=1, description="RRF constant K: score = w / (K + rank).")
    min_score: float = Field(0.0, ge=0.0, description="Drop results whose final score is below this.")


DEFAULT = RetrievalConfig()
PLAIN_RRF = RetrievalConfig()
BM25_ONLY = RetrievalConfig(use_dense=False)
DENSE_ONLY = RetrievalConfig(use_sparse=False)
