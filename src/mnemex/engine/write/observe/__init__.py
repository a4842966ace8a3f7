"""The observer: one pure, deterministic reading of a text before the engine decides on it.

`observe(text)` returns what the text is (kind and confidence), what it mentions (entities),
how it looks (flags and ratios), how much it says (density), its separate claims told in the
third person (atoms), until when a plan holds (valid_until) and how important it seems
(channels and importance). Flags never drop anything: the engine reads them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from mnemex.config.observer import DEFAULT_OBSERVER, ObserverConfig
from mnemex.engine.write.observe.chatter import is_chatter
from mnemex.engine.write.observe.classify import Classification, classify
from mnemex.engine.write.observe.entities import Entity, extract_entities
from mnemex.engine.write.observe.foresight import plan_valid_until
from mnemex.engine.write.observe.rewrite import split_atoms, to_third_person
from mnemex.engine.write.observe.shape import ObserveFlag, TextShape, information_density, measure, shape_flags
from mnemex.engine.write.observe.signals import Channels, importance, priority, read_channels
from mnemex.models import MemoryKind, utcnow

#: Flags that mark a text as noise for its importance (formation uses the same set).
NOISY_FLAGS = frozenset({ObserveFlag.SYSTEM_CONTENT, ObserveFlag.PROMPT_INJECTION, ObserveFlag.LOW_DENSITY,
                         ObserveFlag.TOO_SHORT, ObserveFlag.CHATTER})
# Texts whose parts only make sense together stay one atom.
_WHOLE_KINDS = frozenset({MemoryKind.PROCEDURE})
_WHOLE_FLAGS = frozenset({ObserveFlag.CODE_HEAVY, ObserveFlag.SYSTEM_CONTENT, ObserveFlag.TOO_LONG})


@dataclass(frozen=True, slots=True)
class Atom:
    """One self-contained claim of the text."""

    text: str
    """The claim told in the third person ("User prefers tabs.")."""
    source: str
    """The claim as written."""
    kind: MemoryKind
    confidence: float
    entities: tuple[Entity, ...]
    valid_until: datetime | None


@dataclass(frozen=True, slots=True)
class Observation:
    text: str
    standalone: str
    """The whole text in the third person; quotes and code unchanged."""
    kind: MemoryKind
    confidence: float
    classification: Classification
    entities: tuple[Entity, ...]
    atoms: tuple[Atom, ...]
    flags: frozenset[ObserveFlag]
    shape: TextShape
    density: float
    valid_until: datetime | None
    """For plans: when the plan goes stale. None for every other kind."""
    channels: Channels
    novelty: float
    importance: float

    @property
    def entity_keys(self) -> tuple[str, ...]:
        return tuple(e.key for e in self.entities)

    @property
    def priority(self) -> str:
        return priority(self.importance)

    def has(self, flag: ObserveFlag | str) -> bool:
        return ObserveFlag(flag) in self.flags


def observe(text: str, config: ObserverConfig = DEFAULT_OBSERVER, *, now: datetime | None = None,
            novelty: float | None = None) -> Observation:
    """Read `text` (see module docstring). `now` anchors foresight ("tomorrow"); `novelty`
    (0..1, from the engine) feeds importance, `config.default_novelty` when not given."""
    body = text.strip()
    now = now or utcnow()
    entities = extract_entities(body, config.max_entities)
    shape = measure(body, config)
    density = information_density(body, len(entities))
    flags = shape_flags(shape, density, config) | ({ObserveFlag.CHATTER} if is_chatter(body) else frozenset())
    verdict = classify(body, entity_count=len(entities), config=config)
    channels = read_channels(body, config)
    novelty = config.default_novelty if novelty is None else max(0.0, min(1.0, novelty))
    return Observation(
        text=text,
        standalone=to_third_person(body),
        kind=verdict.kind,
        confidence=verdict.confidence,
        classification=verdict,
        entities=entities,
        atoms=_atoms(body, verdict, entities, flags, now, config),
        flags=flags,
        shape=shape,
        density=density,
        valid_until=plan_valid_until(body, now, config) if verdict.kind is MemoryKind.PLAN else None,
        channels=channels,
        novelty=novelty,
        importance=importance(channels, novelty=novelty, kind=verdict.kind, noisy=bool(flags & NOISY_FLAGS), config=config),
    )


def _atoms(body: str, verdict: Classification, entities: tuple[Entity, ...], flags: frozenset[ObserveFlag],
           now: datetime, config: ObserverConfig) -> tuple[Atom, ...]:
    whole = not config.split_atoms or verdict.kind in _WHOLE_KINDS or bool(flags & _WHOLE_FLAGS)
    parts = (body,) if whole else split_atoms(body)
    if len(parts) == 1:
        until = plan_valid_until(body, now, config) if verdict.kind is MemoryKind.PLAN else None
        return (Atom(to_third_person(body), body, verdict.kind, verdict.confidence, entities, until),)
    atoms = []
    for part in parts:
        found = extract_entities(part, config.max_entities)
        sub = classify(part, entity_count=len(found), config=config)
        until = plan_valid_until(part, now, config) if sub.kind is MemoryKind.PLAN else None
        atoms.append(Atom(to_third_person(part), part, sub.kind, sub.confidence, found, until))
    return tuple(atoms)
