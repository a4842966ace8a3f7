"""Text that can be stored: lone UTF-16 surrogates (valid in a JSON string, not encodable as
UTF-8 — SQLite and the store would reject them) become U+FFFD, and NUL and the other C0 control
characters except tab and line breaks are dropped."""

from __future__ import annotations

import re

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_SURROGATE = re.compile(r"[\ud800-\udfff]")


def clean_text(text: str) -> str:
    """`text` without lone surrogates (replaced by U+FFFD) and non-whitespace control characters."""
    if _SURROGATE.search(text):
        text = _SURROGATE.sub("\ufffd", text)
    return _CONTROL.sub("", text)
