"""Importance channels read from the text: arousal, reward, attention.

Novelty needs the store, so the engine supplies it; `importance` combines all four with the
design notes' weights (0.25/0.30/0.25/0.20) and the kind's encoding boost. A channel with no
cue sits at its floor; each cue closes part of the gap to 1 (`1 - (1-floor) * prod(1-w)`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mnemex.config.observer import DEFAULT_OBSERVER, ObserverConfig
from mnemex.models import MemoryKind


def _cues(*rows: tuple[str, str, float]) -> tuple[tuple[str, re.Pattern[str], float], ...]:
    return tuple((label, re.compile(rx, re.IGNORECASE), w) for label, rx, w in rows)


AROUSAL = _cues(
    ("failure", r"\b(?:errors?|exceptions?|traceback|stack ?trace|fail(?:ed|ure|ures|ing|s)?|crash(?:ed|es|ing)?|broken|"
                r"bugs?|outage|incident|regression|panic|segfault|timed out|OOM(?:Killed)?)\b", 0.4),
    ("security", r"\b(?:security|vulnerab\w*|CVE-\d|leak(?:ed|s)?|exploit\w*|injection|xss|csrf|breach|credentials?|"
                 r"unauthori[sz]ed)\b|\[REDACTED:", 0.5),
    ("deadline", r"\b(?:deadline|urgent(?:ly)?|asap|blocker|blocking|due (?:today|tomorrow)|by (?:eod|tomorrow|today))\b", 0.4),
    ("critical", r"\b(?:critical|severe|data loss|P0|sev ?1|hotfix|roll ?back|prod(?:uction)? (?:is )?(?:down|outage))\b", 0.5),
    ("rule", r"\b(?:never|always|must)\b", 0.25),
)
REWARD = _cues(
    ("works", r"\b(?:works|worked|working now|it runs|runs fine)\b", 0.4),
    ("fixed", r"\b(?:fixed|solved|resolved|that did it|did the trick)\b", 0.5),
    ("thanks that worked", r"\bthanks?,? (?:that|it) (?:worked|works|fixed it)\b|\bperfect\b|\bexactly (?:right|what)\b", 0.5),
    ("success", r"\b(?:tests? pass(?:es|ed)?|all green|success(?:ful(?:ly)?)?|lgtm|shipped|deployed successfully)\b", 0.35),
)
ATTENTION = _cues(
    ("remember", r"\b(?:remember|don'?t forget|do not forget|never forget|keep in mind|for future reference|"
                 r"take note|note that|note:|fyi|heads[- ]up)\b", 0.5),
    ("important", r"\b(?:important(?:ly)?|pay attention|make sure|going forward|from now on)\b", 0.45),
    ("store this", r"\b(?:save|store|memori[sz]e|record) (?:this|that)\b", 0.6),
)
_SHOUT = re.compile(r"\b[A-Z]{4,}\b")
_ACRONYMS = frozenset({"HTTP", "HTTPS", "JSON", "YAML", "TOML", "HTML", "UUID", "AWS", "GCP", "REST", "GRPC", "SQL",
                       "CRUD", "JWT", "TODO", "README", "FIXME", "NOTE", "UTF", "ASCII", "CPU", "GPU", "RAM", "SSH",
                       "PATH", "HEAD", "POST", "REDACTED", "PATCH", "DELETE", "OAUTH", "CORS", "SAML", "LDAP", "ONNX", "WASM"})


@dataclass(frozen=True, slots=True)
class Channels:
    """The three text-borne importance channels (0..1) and which cues raised them."""

    arousal: float
    reward: float
    attention: float
    cues: tuple[str, ...]


def _channel(text: str, floor: float, cues, extra: list[tuple[str, float]]) -> tuple[float, list[str]]:
    fired = [(label, w) for label, rx, w in cues if rx.search(text)] + extra
    gap = 1.0 - floor
    for _label, w in fired:
        gap *= 1.0 - w
    return round(1.0 - gap, 3), [label for label, _ in fired]


def read_channels(text: str, config: ObserverConfig = DEFAULT_OBSERVER) -> Channels:
    """Arousal (errors, security, deadlines, critical, never/always, "!" and shouting),
    reward (works, fixed, solved, thanks that worked), attention (remember, important, note that)."""
    extra: list[tuple[str, float]] = []
    bangs = min(2, text.count("!"))
    if bangs:
        extra.append((f"exclamation x{bangs}", 0.15 * bangs))
    if any(w not in _ACRONYMS for w in _SHOUT.findall(text)):
        extra.append(("shouting", 0.2))
    arousal, a_cues = _channel(text, config.floors.arousal, AROUSAL, extra)
    reward, r_cues = _channel(text, config.floors.reward, REWARD, [])
    attention, t_cues = _channel(text, config.floors.attention, ATTENTION, [])
    cues = tuple(f"arousal:{c}" for c in a_cues) + tuple(f"reward:{c}" for c in r_cues) + \
        tuple(f"attention:{c}" for c in t_cues)
    return Channels(arousal, reward, attention, cues)


def importance(channels: Channels, *, novelty: float, kind: MemoryKind, noisy: bool,
               config: ObserverConfig = DEFAULT_OBSERVER) -> float:
    """The weighted sum of novelty and the three channels, times the encoding boost of the
    kind (or the noise boost for system, injected or low-density text), clipped to 0..1."""
    w = config.weights
    raw = (w.novelty * novelty + w.arousal * channels.arousal + w.reward * channels.reward
           + w.attention * channels.attention)
    boost = config.noise_boost if noisy else config.kind_boost.of(kind)
    return round(max(0.0, min(1.0, raw * boost)), 3)


def priority(value: float) -> str:
    """The notes' priority bands: critical >= 0.8, high >= 0.6, normal >= 0.4, else low."""
    return "critical" if value >= 0.8 else "high" if value >= 0.6 else "normal" if value >= 0.4 else "low"
