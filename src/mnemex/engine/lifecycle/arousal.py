"""Arousal: how charged an event is (seed 001's emotional memory), read from the words of a coding
project's alarms — production incidents, outages, security findings, data loss. Pure, no model.

A memory whose arousal reaches `dream.flashbulb_arousal` is a flashbulb memory: the dream keeps it
vivid (importance floor, storage boost) and forgetting and demotion never touch it."""

from __future__ import annotations

import re

#: (pattern, arousal it adds): one strong cue alone reaches the seed's 0.8; weak cues need company.
CUES: tuple[tuple[re.Pattern[str], float], ...] = tuple((re.compile(p, re.I), w) for p, w in (
    (r"\b(?:production|prod|live)\s+(?:incident|outage|is\s+down|went\s+down|was\s+down|down)\b", 0.9),
    (r"\boutages?\b", 0.8),
    (r"\bsecurity\s+(?:finding|incident|issue|vulnerability|hole|breach|advisory|bug)s?\b", 0.9),
    (r"\b(?:vulnerabilit(?:y|ies)|exploit(?:ed)?|breach(?:ed)?|CVE-\d{4}-\d+)\b", 0.8),
    (r"\b(?:data\s+loss|lost\s+(?:customer\s+)?data|data\s+(?:was\s+)?(?:corrupted|deleted))\b", 0.9),
    (r"\b(?:leaked|exposed)\s+(?:\w+\s+)?(?:secrets?|credentials?|keys?|tokens?|passwords?)\b", 0.9),
    (r"\b(?:sev[- ]?[0-2]|p0|p1)\s+(?:incident|outage|bug)?", 0.8),
    (r"\bpost-?mortem\b", 0.8),
    (r"\bincidents?\b", 0.4),
    (r"\b(?:urgent|critical|emergency|hotfix|rolled\s+back|rollback)\b", 0.3),
    (r"\b(?:crash(?:ed|es)?|paged|on-?call)\b", 0.2),
    (r"!{2,}", 0.1),
))


def arousal(text: str) -> float:
    """0..1: the sum of the cues found (each counted once), capped at 1."""
    return min(1.0, sum(weight for pattern, weight in CUES if pattern.search(text)))
