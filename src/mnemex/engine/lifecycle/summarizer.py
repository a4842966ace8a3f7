"""The optional language model of consolidation: a cluster of near-duplicates in, one statement out.

It is the write gate's judge endpoint (`gate.judge`: any OpenAI-compatible `/chat/completions`,
its timeout and its hourly call and token caps), asked at most `dream.llm_max_calls` times per
dream for at most `dream.llm_max_tokens` each. Any failure (over a cap, a timeout, an HTTP error,
an empty or overlong answer) is no answer: the deterministic merge is used instead. The content
it sees was redacted when it was written."""

from __future__ import annotations

import logging
from typing import Protocol, Sequence

from mnemex.engine.write.judge import HttpJudge, _estimate_tokens

log = logging.getLogger(__name__)

SYSTEM = ("You maintain the memory of a software project. Merge the numbered notes, which say nearly the same "
          "thing, into one self-contained statement that keeps every fact, name, number and reason they hold and "
          "adds nothing. Answer with the statement only.")


class Summarizer(Protocol):
    def summarize(self, texts: Sequence[str], *, max_chars: int) -> str | None:
        """One statement for `texts`, or None (use the deterministic merge)."""


class HttpSummarizer(HttpJudge):
    """The judge's endpoint and budget, asked for a summary instead of a yes or no."""

    def __init__(self, config, *, max_tokens: int = 200, **options):  # type: ignore[no-untyped-def]
        super().__init__(config, **options)
        self._max_tokens = max_tokens

    def summarize(self, texts: Sequence[str], *, max_chars: int) -> str | None:
        prompt = "\n".join(f"{i + 1}. {' '.join(t.split())}" for i, t in enumerate(texts))
        estimate = _estimate_tokens(SYSTEM + prompt) + self._max_tokens
        if not self._admit(estimate):
            log.info("consolidation: the model's hourly budget is spent; merging deterministically")
            return None
        body = {"model": self._config.model, "temperature": 0, "max_tokens": self._max_tokens,
                "messages": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": prompt}]}
        try:
            response = self._http.post(self._url, json=body)
            response.raise_for_status()
            data = response.json()
            answer = str(data["choices"][0]["message"]["content"]).strip()
            used = int((data.get("usage") or {}).get("total_tokens") or 0)
        except self.failures as exc:
            log.warning("consolidation: no answer from the model (%s); merging deterministically", exc.__class__.__name__)
            return None
        self._settle(estimate, used or _estimate_tokens(SYSTEM + prompt + answer))
        text = " ".join(answer.split())
        return text if text and len(text) <= max_chars else None
