"""Pre-retrieval gate: trivial messages ("ok", "thanks", "/clear") skip retrieval entirely."""

from __future__ import annotations

import re

_ACKS = frozenset("""
ok okay k kk sure yes yep yeah yup no nope nah thanks thank thx ty cool great nice good fine
perfect awesome done got it hi hello hey bye goodbye lol haha hmm hm right alright continue
go ahead proceed sounds good lgtm np please merci danke cheers
you very much so a lot for it that all looks works
""".split())
_SLASH = re.compile(r"^/[\w:-]+(\s+\S+)?$")
_WORD = re.compile(r"[^\W\d_]+|\d+", re.UNICODE)


def is_trivial(query: str) -> bool:
    """True when `query` carries nothing worth looking up: greetings, acknowledgements,
    slash commands, bare punctuation or emoji."""
    text = query.strip()
    if not text or _SLASH.match(text):
        return True
    words = [w.lower() for w in _WORD.findall(text)]
    if not words:
        return True
    return len(words) <= 4 and all(w in _ACKS for w in words)
