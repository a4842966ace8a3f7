"""Formation: turn a request into the claims to store (or the reason not to), and relate a new
memory to its neighbours. Deterministic and offline.

Every text is redacted first: secrets never reach the store, the journal or an embedding.
Records of what happened (episodes, tool events) are then kept verbatim, with their entities.
Everything else is observed: classified when the caller gave no kind, told in the third
person ("I prefer tabs" -> "User prefers tabs"), split into atomic claims, given an importance
from the four channels, a validity end when it is a plan, and flags. Flags never drop content:
prompt injection and system content are stored, marked, and kept out of injection; only
content below the density floor is skipped, and the caller is told.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from mnemex.config.observer import DEFAULT_OBSERVER, ObserverConfig
from mnemex.config.redaction import DEFAULT_REDACTION, RedactionConfig
from mnemex.engine.statements import ATOM_OF, read
from mnemex.engine.write.observe import NOISY_FLAGS, observe
from mnemex.engine.write.observe.entities import extract_entities
from mnemex.engine.write.observe.shape import ObserveFlag
from mnemex.engine.write.observe.signals import Channels, importance
from mnemex.engine.write.redact import redact
from mnemex.models import RECORD_KINDS, Memory, MemoryKind, NewMemory

log = logging.getLogger(__name__)

#: Flags that keep a memory out of automatic injection (it stays searchable on request).
NO_INJECT_FLAGS = frozenset({ObserveFlag.PROMPT_INJECTION, ObserveFlag.SYSTEM_CONTENT})
#: Metadata key under which a memory keeps the channels its importance was estimated from.
CHANNELS = "importance_channels"
OBSERVER_ERROR = "observer_error"


@dataclass(frozen=True, slots=True)
class Draft:
    """One claim to store. `channels` are the text's importance channels when the importance is
    an estimate (the gate refines it with novelty once the neighbours are known)."""

    content: str
    kind: MemoryKind
    importance: float
    entities: tuple[str, ...] = ()
    valid_until: datetime | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    channels: Channels | None = None
    noisy: bool = False


@dataclass(frozen=True, slots=True)
class Skip:
    """A request that is not stored, and why."""

    reason: str


def importance_with_novelty(draft_channels: Channels | None, noisy: bool, kind: MemoryKind, novelty: float,
                            config: ObserverConfig = DEFAULT_OBSERVER) -> float | None:
    """The four-channel importance once novelty (1 - similarity to the nearest stored memory) is
    known; None when the importance was not estimated (the caller gave it)."""
    if draft_channels is None:
        return None
    return importance(draft_channels, novelty=max(0.0, min(1.0, novelty)), kind=kind, noisy=noisy, config=config)


def form(new: NewMemory, *, now: datetime, observer: ObserverConfig = DEFAULT_OBSERVER,
         redaction: RedactionConfig = DEFAULT_REDACTION, whole: bool = False) -> list[Draft | Skip]:
    """What a request becomes: one draft per atomic claim (one for records, and one when `whole`:
    a statement the caller says replaces given memories is kept as written), or a skip.

    Redaction always runs; the observer's reading only refines what is stored, so a failure
    in it never fails the write: the redacted text is then stored as given (flagged)."""
    found = redact(new.content.strip(), redaction)
    text = found.text
    base: dict[str, Any] = {}
    if found.findings:
        base["redacted"] = sorted({f.kind for f in found.findings})
    try:
        return _observed(new, text, base, now, observer, whole)
    except Exception:  # a bug in a heuristic must not cost the caller their memory
        log.exception("the observer failed on a write; storing the text unobserved")
        weight = new.importance if new.importance is not None else 0.5
        return [Draft(text, new.kind or MemoryKind.NOTE, weight, (), None, {**base, "flags": [OBSERVER_ERROR]})]


def _observed(new: NewMemory, text: str, base: dict[str, Any], now: datetime,
              config: ObserverConfig, whole: bool = False) -> list[Draft | Skip]:
    if new.kind in RECORD_KINDS:
        entities = tuple(e.key for e in extract_entities(text, 32))
        weight = new.importance if new.importance is not None else 0.5
        return [Draft(text, new.kind, weight, entities, None, base)]
    obs = observe(text, config, now=now)
    # a line the caller gave a kind, a pin or an importance is what the caller says it is, not chatter
    chosen = new.kind is not None or new.pinned or new.importance is not None
    seen = obs.flags - {ObserveFlag.CHATTER} if chosen else obs.flags
    flags = sorted(str(f) for f in seen)
    if flags:
        base["flags"] = flags
    if obs.flags & NO_INJECT_FLAGS:
        base["no_inject"] = True
    explicit = chosen or whole
    if ObserveFlag.LOW_DENSITY in obs.flags and not explicit and not (obs.flags & NO_INJECT_FLAGS):
        return [Skip(f"too little information to remember (density {obs.density:.2f})")]
    weight = new.importance if new.importance is not None else obs.importance
    channels, noisy = None, bool(seen & NOISY_FLAGS)
    if new.importance is None:  # kept with the memory: what its importance was estimated from
        channels = obs.channels
        base[CHANNELS] = {"arousal": channels.arousal, "reward": channels.reward,
                          "attention": channels.attention, "noisy": noisy}
    # a statement that says something changed stays whole: the change, what it left behind and why belong together
    whole = whole or says_a_change(text)
    atoms = obs.atoms if not (obs.flags & NO_INJECT_FLAGS) and not whole else ()
    if len(atoms) <= 1:
        content = obs.standalone if not (obs.flags & NO_INJECT_FLAGS) else text
        return [Draft(content, new.kind or obs.kind, weight, obs.entity_keys, obs.valid_until,
                      {**base, "kind_confidence": round(obs.confidence, 3)}, channels, noisy)]
    return [Draft(atom.text, new.kind or atom.kind, weight, tuple(e.key for e in atom.entities), atom.valid_until,
                  {**base, "kind_confidence": round(atom.confidence, 3), ATOM_OF: text[:200]}, channels, noisy)
            for atom in atoms]


def says_a_change(text: str) -> bool:
    """Does `text` say something changed ("moved to", "now", "instead of", "renamed")?"""
    statement = read(text)
    return statement.change >= 0.5 and not statement.restating


_CAUSAL = re.compile(r"\b(because|caused by|due to|as a result of|root cause|led to|fixed by|broke(?:n)? by)\b", re.I)


def relation_between(new: Memory, other: Memory, similarity: float) -> tuple[str, float] | None:
    """A heuristic relation from `new` to an existing neighbour (seed 001's rules), or None.

    A new memory that explains a cause ("... because ...", "caused by") of something a close
    neighbour states is linked `causes`; then entity overlap and similarity decide."""
    shared = set(new.entities) & set(other.entities)
    if _CAUSAL.search(new.content) and (shared or similarity >= 0.6):
        return "causes", 0.6
    if len(shared) >= 2:
        return "same_entity", 0.7
    if similarity >= 0.6 and shared:
        return "elaborates", 0.5
    if similarity >= 0.55 and new.kind == other.kind:
        return "related_to", 0.4
    return None
