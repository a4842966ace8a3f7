"""The optional language-model judge of the write gate, as configuration (off by default).

When the gate's rules are unsure whether a new statement replaces a stored one, a judge — any
OpenAI-compatible `/v1/chat/completions` endpoint (a local server, a hosted API) — may be asked;
its yes supersedes, anything else (no, an error, a timeout, the hourly budget spent) leaves the
deterministic decision in place. mnemex never needs it for its default figures.
"""

from __future__ import annotations

from pydantic import Field, model_validator

from mnemex.config.base import Frozen


class JudgeConfig(Frozen):
    """An OpenAI-compatible model asked only about the replacements the gate's rules were unsure of."""

    enabled: bool = Field(False, description="Ask the judge (MNEMEX_JUDGE__ENABLED); needs url and model.")
    url: str | None = Field(None, examples=["http://127.0.0.1:8080/v1"], description=(
        "Base URL of an OpenAI-compatible API (…/v1); /chat/completions is added unless given. Content sent to it "
        "is already redacted."))
    model: str = Field("", description="Model name passed to the endpoint.")
    api_key: str | None = Field(None, examples=["..."], description="Bearer key for the endpoint (MNEMEX_JUDGE__API_KEY).")
    timeout_seconds: float = Field(10.0, gt=0, le=120, description="Longest wait for one answer; then the rules decide.")
    max_calls_per_hour: int = Field(60, ge=0, description="Calls allowed in any hour; over it the rules decide.")
    max_tokens_per_hour: int = Field(30_000, ge=0, description="Prompt and answer tokens allowed in any hour (as the endpoint reports them, else estimated).")
    max_answer_tokens: int = Field(5, ge=1, le=64, description="The answer is one word: yes or no.")

    @model_validator(mode="after")
    def _check(self) -> "JudgeConfig":
        if self.enabled and not (self.url and self.model):
            raise ValueError("judge.enabled needs judge.url and judge.model")
        return self


DEFAULT_JUDGE = JudgeConfig()
