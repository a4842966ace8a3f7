"""The optional judge: a language model asked whether a new statement replaces a stored one.

Asked only for the candidates the gate's rules were unsure of, one call per candidate, through
any OpenAI-compatible `/chat/completions` endpoint (`config.judge`). It has hard limits — calls
and tokens per rolling hour, a timeout per call — and every failure (over budget, timeout, HTTP
error, an answer that is neither yes nor no) is "no answer": the deterministic decision stands.
The content it sees has already been redacted. Calls happen inside the engine's write lock, so
a slow endpoint slows writes, never corrupts them.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from typing import TYPE_CHECKING, Callable, Protocol

from mnemex.config.judge import JudgeConfig

if TYPE_CHECKING:
    import httpx

log = logging.getLogger(__name__)

SYSTEM = ("You maintain the memory of a software project. You decide whether a newer note makes an older note "
          "outdated: the older note is no longer the current answer about the same thing (a renamed function, a "
          "replaced tool, a moved port, a changed number or policy). A note about another component, another "
          "setting or another environment, or one that only adds detail, does not replace it. "
          "Answer with one word: yes or no.")


class Judge(Protocol):
    def replaces(self, older: str, newer: str) -> bool | None:
        """True: `newer` makes `older` outdated; False: it does not; None: no answer (use the rules)."""


def _estimate_tokens(text: str) -> int:
    return max(1, len(text) // 4)


class HttpJudge:
    """A judge behind an OpenAI-compatible endpoint, with an hourly budget of calls and tokens."""

    def __init__(self, config: JudgeConfig, *, clock: Callable[[], float] = time.monotonic,
                 transport: httpx.BaseTransport | None = None):
        if not (config.url and config.model):
            raise ValueError("a judge needs a url and a model")
        url = config.url.rstrip("/")
        self._url = url if url.endswith("/chat/completions") else url + "/chat/completions"
        self._config = config
        self._clock = clock
        self._calls: deque[float] = deque()
        self._tokens: deque[tuple[float, int]] = deque()
        self._lock = threading.Lock()
        import httpx  # only with a judge configured: httpx's import costs a cold start ~50-100 ms

        headers = {"Authorization": f"Bearer {config.api_key}"} if config.api_key else {}
        #: what a call may raise that means "no answer"
        self.failures: tuple[type[BaseException], ...] = (httpx.HTTPError, ValueError, KeyError, IndexError, TypeError)
        self._http = httpx.Client(timeout=config.timeout_seconds, headers=headers, transport=transport)

    # ---------------------------------------------------------------- budget
    def _spent(self, now: float) -> tuple[int, int]:
        hour_ago = now - 3600.0
        while self._calls and self._calls[0] <= hour_ago:
            self._calls.popleft()
        while self._tokens and self._tokens[0][0] <= hour_ago:
            self._tokens.popleft()
        return len(self._calls), sum(n for _, n in self._tokens)

    def _admit(self, estimate: int) -> bool:
        with self._lock:
            now = self._clock()
            calls, tokens = self._spent(now)
            if calls >= self._config.max_calls_per_hour or tokens + estimate > self._config.max_tokens_per_hour:
                return False
            self._calls.append(now)
            self._tokens.append((now, estimate))  # corrected once the endpoint reports its usage
            return True

    def _settle(self, estimate: int, used: int) -> None:
        with self._lock:
            for i in range(len(self._tokens) - 1, -1, -1):
                at, n = self._tokens[i]
                if n == estimate:
                    self._tokens[i] = (at, used)
                    break

    @property
    def budget(self) -> dict[str, int]:
        """Calls and tokens spent in the last hour."""
        with self._lock:
            calls, tokens = self._spent(self._clock())
        return {"calls": calls, "tokens": tokens}

    # ------------------------------------------------------------------ ask
    def replaces(self, older: str, newer: str) -> bool | None:
        prompt = (f"Older note: {older}\nNewer note: {newer}\n"
                  "Does the newer note make the older note outdated? Answer yes or no.")
        estimate = _estimate_tokens(SYSTEM + prompt) + self._config.max_answer_tokens
        if not self._admit(estimate):
            log.info("judge: hourly budget spent; the rules decide")
            return None
        body = {"model": self._config.model, "temperature": 0, "max_tokens": self._config.max_answer_tokens,
                "messages": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": prompt}]}
        try:
            response = self._http.post(self._url, json=body)
            response.raise_for_status()
            data = response.json()
            answer = str(data["choices"][0]["message"]["content"])
            usage = data.get("usage") or {}
            used = int(usage.get("total_tokens") or 0)
        except self.failures as exc:
            log.warning("judge: no answer (%s); the rules decide", exc.__class__.__name__)
            return None
        self._settle(estimate, used or _estimate_tokens(SYSTEM + prompt + answer))
        word = answer.strip().strip(".!\"'`*").lower().split()
        if not word:
            return None
        if word[0].startswith("yes"):
            return True
        if word[0].startswith("no"):
            return False
        return None

    def close(self) -> None:
        self._http.close()


def build_judge(config: JudgeConfig) -> HttpJudge | None:
    """The judge `config` describes, or None when it is off."""
    return HttpJudge(config) if config.enabled else None
