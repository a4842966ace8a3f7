"""Prediction-error gate: decide what a new memory does to what is already stored.

Similarity bands (cosine of the new content to its nearest current neighbours in the same
scope), from the cognitive-memory design (seed 001), all configurable (`config.gate`):

    >= reinforce_at (0.92)          near-identical   -> REINFORCE the neighbour
    update_at..reinforce_at (0.75)  overlapping      -> UPDATE it by write-time synthesis
    gap_low..update_at (0.70)       borderline       -> SKIP if it adds nothing and is unimportant
    < gap_low                       novel            -> CREATE

A change overrides the bands. With the default `subject` rules each neighbour (dense and BM25
neighbours alike) is compared with the new statement by what the two are about and how the new
one says something changed (`engine/statements/compare.py`): a sure replacement SUPERSEDES the
neighbour; a possible one is reported as a candidate (the caller, or the optional judge, may
confirm it); a restatement in other words REINFORCES the memory it restates. Similarity is not
redundancy: a statement holding a value, name, number or negation its neighbour lacks is never
skipped and never reinforced away. Truth anchors (pinned, immutable) are never superseded: the
newcomer is stored beside them with a `contradicts` link. The `seed` rules (`SEED_GATE`) keep
the first version of the gate. Pure logic, no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from mnemex.config.gate import DEFAULT_GATE, GateConfig
from mnemex.engine.statements import (
    Relation,
    Statement,
    Thresholds,
    adds_nothing,
    compare,
    conflict,
    evidence,
    holds_all,
    read,
    swaps_words,
)
from mnemex.models import RECORD_KINDS, Memory, MemoryKind, WriteAction


@dataclass(frozen=True, slots=True)
class Candidate:
    """A stored memory the new statement may replace, and why the gate thinks so."""

    memory: Memory
    similarity: float
    reason: str
    cued: bool
    """The new statement itself says something changed ("now", "moved", "instead of"), of
    something this memory holds (not a change it names of something else: `Verdict.elsewhere`)."""
    marks: bool = True
    """An uncued candidate marks the memory `said_otherwise_by` the new statement (read-time
    resolution weighs it); one offered below `gate.mark_otherwise_at` only reaches the caller."""


@dataclass(frozen=True, slots=True)
class GateDecision:
    action: WriteAction
    target: Memory | None = None
    similarity: float = 0.0
    reason: str = ""
    contradicts: Memory | None = None  # a truth anchor (pinned/immutable) the new content conflicts with
    also_replaced: tuple[Memory, ...] = ()  # further memories a supersede replaces (duplicates of the old fact)
    candidates: tuple[Candidate, ...] = ()  # possible replacements the gate was not sure of


# ---------------------------------------------------------------- the seed rules (SEED_GATE)
_VALUE = re.compile(
    r"`[^`]+`|\"[^\"]+\"|'[^']{2,}'"            # quoted / code spans
    r"|\b\d+(?:[.:/]\d+)*(?:[a-z]{1,3})?\b"    # numbers, versions, ports, times, 10ms
    r"|\b[A-Za-z_]+[0-9][A-Za-z0-9_.-]*\b"     # python3, py311, v2, node20
    r"|\b[\w-]+(?:\.[\w-]+)+\b"                # dotted names, hosts, files
    r"|\b[a-z]+(?:_[a-z0-9]+)+\b"              # snake_case identifiers
    r"|\b[a-z]+[A-Z]\w*\b"                     # camelCase identifiers
)
_NEGATION = re.compile(r"\b(not|never|no longer|don't|doesn't|do not|does not|isn't|aren't|won't|stop(?:ped)?)\b", re.I)
_SWITCH = re.compile(r"\b(instead of|no longer|switch(?:ed|ing)?|mov(?:ed|ing) (?:to|from)|migrat(?:ed|ing)|replac(?:ed|ing)|"
                     r"now uses?|changed to|from now on|actually|anymore|rather than|deprecated)\b", re.I)
_WORD = re.compile(r"[a-z][a-z0-9+#-]*")
_STOP = frozenset("the a an and or of to in on at for with is are was were be been it this that we our i you "
                  "use uses used using by from as".split())


def values_of(text: str) -> set[str]:
    return {v.strip("`\"'").lower() for v in _VALUE.findall(text)}


def content_words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP and len(w) > 2}


def share(part: set[str], whole: set[str]) -> float:
    """Fraction of `part` found in `whole` (0 when `part` is empty)."""
    return len(part & whole) / len(part) if part else 0.0


def conflict_reason(old: str, new: str, config: "GateConfig | None" = None) -> str | None:
    """Why `new` contradicts `old` about the same subject, or None.

    Each rule first checks that `new` talks about what `old` says (most of old's words, its
    values aside, appear in new), so a new fact about another subject never replaces it.
    """
    cfg = config or DEFAULT_GATE
    old_vals, new_vals = values_of(old), values_of(new)
    old_words = content_words(old) - _value_words(old_vals)
    new_words = content_words(new) - _value_words(new_vals)
    same_subject = share(old_words, new_words)
    gone, came = old_vals - new_vals, new_vals - old_vals
    if gone and came and same_subject >= cfg.same_subject:
        return f"value changed: {', '.join(sorted(gone))} -> {', '.join(sorted(came))}"
    if bool(_NEGATION.search(old)) != bool(_NEGATION.search(new)) and same_subject >= cfg.same_subject:
        return "negation flipped"
    old_seq, new_seq = _content_sequence(old), _content_sequence(new)
    if old_seq != new_seq and sorted(old_seq) == sorted(new_seq):
        return "same words in another order (a reversal)"
    if _SWITCH.search(new) and same_subject >= cfg.switch_subject:
        added = new_words - old_words - {w for m in _SWITCH.findall(new) for w in m.lower().split()}
        if added:
            return "replaced by: " + ", ".join(sorted(added)[:4])
    return None


def _value_words(values: set[str]) -> set[str]:
    return {w for v in values for w in _WORD.findall(v)}


#: Among several memories a change would replace, the one it replaces is the likeliest same thing:
#: the cosine plus this share of the subject words both statements hold (a rewording that still
#: names the component beats a look-alike the embedding puts a little closer).
SUBJECT_WEIGHT = 0.25
#: ... plus this when the name swapped has the very same shape (a URL for a URL).
SHAPE_WEIGHT = 0.15


def thresholds(config: GateConfig) -> Thresholds:
    return Thresholds(left_behind=config.left_behind, left_similarity=config.left_similarity,
                      named_again=config.named_again, same_head=config.same_head,
                      min_similarity=config.min_similarity, strong_cue_change=config.strong_cue_change,
                      cued_change=config.cued_change, parallel=config.parallel, negation=config.negation,
                      maybe=config.maybe, off_similarity=config.off_similarity)


def decide(new_text: str, new_kind: MemoryKind | None, importance: float,
           neighbours: Sequence[tuple[Memory, float]], config: GateConfig = DEFAULT_GATE, *,
           entities: Sequence[str] = (), lexical: frozenset[str] = frozenset()) -> GateDecision:
    """The gate's decision for `new_text` (with the entity keys the observer found in it) given its
    nearest current neighbours (memory, cosine), best first. `lexical` holds the ids of neighbours
    found by BM25 (shared names or rare words): they are compared whatever their cosine."""
    if config.rules == "seed":
        return seed_decide(new_text, new_kind, importance, neighbours, config)
    candidates = sorted(neighbours, key=lambda ms: -ms[1])
    if not candidates:
        return GateDecision(WriteAction.CREATED, reason="novel: nothing similar stored")
    new = read(new_text, tuple(entities))
    limits = thresholds(config)
    replaced: list[tuple[Memory, float, str]] = []
    maybe: list[Candidate] = []
    restated: list[tuple[Memory, float]] = []
    related: list[Candidate] = []  # no change seen, but another value: the caller may know better
    anchor: tuple[Memory, str] | None = None
    for memory, sim in candidates:
        if sim < config.compare_floor and memory.id not in lexical:
            continue
        old = read(memory.content, tuple(memory.entities))
        verdict = compare(old, new, sim, limits)
        relation = verdict.relation
        if relation is Relation.MAY_REPLACE and new_kind == MemoryKind.CORRECTION:
            relation = Relation.REPLACES  # the writer says it corrects something: the likeliest thing is it
        if relation is Relation.REPLACES:
            if memory.immutable or memory.pinned:  # truth anchors are never superseded: record the conflict
                anchor = anchor or (memory, verdict.reason)
            else:  # how surely the same thing: the cosine, and the share of subject words both hold
                surely = sim + SUBJECT_WEIGHT * verdict.shared + SHAPE_WEIGHT * verdict.same_shape
                replaced.append((memory, surely, sim, verdict.reason))
        elif relation is Relation.MAY_REPLACE and len(maybe) < config.max_candidates:
            maybe.append(Candidate(memory, sim, verdict.reason, new.change >= 0.5 and not verdict.elsewhere))
        elif relation is Relation.RESTATES and sim >= config.restate_at:
            restated.append((memory, sim))
        elif relation is Relation.NONE and memory.kind not in RECORD_KINDS:
            if sim >= config.offer_at:
                why = _gives_otherwise(old, new, sim, config)
                if not why and _resumes(old, new):
                    why = AFTER_A_STOP
            elif sim >= config.offer_strong_cue_at:  # far in the embedding, but found by a shared rare
                # word, and a change said outright, or what a stop said earlier left open
                why = CHANGE_SAID_FAR if new.change >= 0.9 and not conflict(old, new) \
                    else AFTER_A_STOP if _resumes(old, new) else _leeway_far(old, new)
            else:
                why = ""
            if why:  # a word of change alone is the weakest evidence: it reaches the caller, it marks nothing
                marks = sim >= config.mark_otherwise_at and not why.startswith(_ONLY_OFFERED)
                related.append(Candidate(memory, sim, why, False, marks))
    best, sim = candidates[0]
    holder = read(best.content, tuple(best.entities))
    changed = {r[0].id for r in replaced} | ({anchor[0].id} if anchor else set())
    if (sim >= config.reinforce_at and best.id not in changed and adds_nothing(holder, new)
            and not swaps_words(holder, new)):  # said again
        return GateDecision(WriteAction.REINFORCED, best, sim, f"near-identical (similarity {sim:.2f})")
    if replaced:
        # what a change replaces is the statement most surely about the same thing; the others
        # it would also replace are only candidates (a wrong supersede hides a true fact)
        replaced.sort(key=lambda r: -r[1])
        (target, _, s, why), rest = replaced[0], replaced[1:]
        others = [Candidate(m, sim_, f"{reason} (less surely the same thing than {target.id})", new.change >= 0.5)
                  for m, _, sim_, reason in rest]
        return GateDecision(WriteAction.SUPERSEDED, target, s, why,
                            candidates=tuple(others + maybe)[: config.max_candidates])
    if anchor is not None:
        return GateDecision(WriteAction.CREATED, None, sim,
                            f"conflicts with pinned/immutable memory {anchor[0].id} ({anchor[1]}); both kept",
                            contradicts=anchor[0], candidates=tuple(maybe))
    if maybe:  # a possible replacement is never merged into, reinforced or skipped: both stay, the caller is told
        return GateDecision(WriteAction.CREATED, None, sim,
                            f"stored beside {len(maybe)} memor{'y' if len(maybe) == 1 else 'ies'} it may replace",
                            candidates=_stops_first(maybe + related, new, config.max_candidates))
    if restated:
        memory, s = restated[0]
        return GateDecision(WriteAction.REINFORCED, memory, s,
                            f"restates {memory.id} in other words (similarity {s:.2f})")
    if (sim >= config.update_at and not best.immutable and _same_thing(holder, new)
            and share(content_words(best.content), content_words(new_text)) >= config.update_coverage):
        return GateDecision(WriteAction.UPDATED, best, sim, f"overlaps and adds detail (similarity {sim:.2f})")
    if (config.gap_low <= sim < config.update_at and importance < config.gap_min_importance
            and adds_nothing(holder, new) and not swaps_words(holder, new)
            and share(content_words(new_text), content_words(best.content)) >= 0.5):
        return GateDecision(WriteAction.SKIPPED, best, sim,
                            f"borderline duplicate of {best.id} (similarity {sim:.2f}): adds nothing it lacks, "
                            "low importance")
    return GateDecision(WriteAction.CREATED, None, sim, f"novel (closest similarity {sim:.2f})",
                        candidates=_stops_first(related, new, config.max_candidates))


CHANGE_SAID = "about much the same thing, a change said"
#: A change said outright beside a neighbour BM25 found, under `offer_at` in the embedding.
CHANGE_SAID_FAR = "shares a rare word, a change said"
#: Each gives a word that is no English word the other lacks: likely one tool's name for another's.
WORD_SWAPPED = "about much the same thing, another name"
#: Much the same thing in other words, with nothing the rules read as a change.
SAID_NEAR = "about much the same thing in other words: an update said plainly, or a reminder"
#: A first word read as a name only by being no English word: weaker than a name read as such.
OPENS_WITH = "about much the same thing, opens with another name"
#: The older one says a practice stopped or waits; the newer one, about much the same thing, says none.
AFTER_A_STOP = "about what was stopped: how it is done now, or something else"
#: The weakest reasons, which only reach the caller and never mark the older memory said_otherwise_by.
#: The newer one says a practice stopped or waits, of much the same thing the older one says is done.
STOP_SAID = "about much the same thing, a stop or a wait said"
#: Far in the embedding, found by a shared rare word, and the newer one lets less (or more) happen.
LEEWAY_FAR = "shares a rare word, lets {} happen"
_ONLY_OFFERED = (CHANGE_SAID, CHANGE_SAID_FAR, SAID_NEAR, OPENS_WITH, WORD_SWAPPED, AFTER_A_STOP, STOP_SAID,
                 LEEWAY_FAR.split("{")[0])


def _leeway_turned(old: Statement, new: Statement) -> str:
    """"less" or "more" when the newer statement lets less or more happen than the older one
    (`Statement.leeway` turned around), else ""."""
    return ("less" if new.leeway < 0 else "more") if old.leeway and new.leeway == -old.leeway else ""


def _leeway_far(old: Statement, new: Statement) -> str:
    """A neighbour BM25 found under `offer_at` that the newer statement lets less or more happen than
    ("Anyone on the team can tag a release" / "only two maintainers can push tags"): the rule
    changed in other words, or another rule; the caller judges."""
    turned = _leeway_turned(old, new)
    return LEEWAY_FAR.format(turned) if turned and not conflict(old, new) else ""


def _stops_first(offers: list[Candidate], new: Statement, cap: int) -> tuple[Candidate, ...]:
    """The first `cap` of `offers` (possible replacements, then the nearest other offers), a stop said
    earlier among the rest taking the place of the last one that marks nothing (or, when all of them
    mark, added as one more), and the stops first: what replaced a stop is said later in other words,
    far in the embedding. The ones that mark are kept as they were."""
    stops = {c.memory.id for c in offers if _resumes(read(c.memory.content, tuple(c.memory.entities)), new)}
    kept = offers[:cap]
    extra = 1
    for late in (c for c in offers[cap:] if c.memory.id in stops):
        spare = [c for c in kept if not (c.marks or c.cued) and c.memory.id not in stops]
        if spare:
            kept.remove(spare[-1])
        elif extra:
            extra -= 1
        else:
            break
        kept.append(late)
    return tuple(sorted(kept, key=lambda c: c.memory.id not in stops))


def _resumes(old: Statement, new: Statement) -> bool:
    """The older statement says a practice stopped or waits ("Local apply is frozen until ..."), the
    newer one says nothing stopped, and they are not about another place or component: it may say how
    the thing is done now ("Changes are applied through Atlantis ..."), which rarely shares its words."""
    return old.halted and not new.halted and not conflict(old, new)


def _gives_otherwise(old: Statement, new: Statement, sim: float, config: GateConfig) -> str:
    """What the newer statement gives that the older one, about much the same thing, does not (a
    value, a name, the opposite polarity, less or more allowed, something switched off, a first word
    that is no English word and that the older one never says (`Statement.opens_with`), from
    `offer_cued_at` up a word that something changed, or, from `offer_near_at` up, words of its own
    about much the same thing), or "" (nothing, or it is about another environment or component)."""
    if conflict(old, new):
        return ""
    e = evidence(old, new)
    if e.negation_flip:
        return "about the same thing, the opposite said"
    if e.came_values or e.came_names or e.typed_change or e.swapped:
        told = sorted([v.text for v in e.came_values] + sorted(e.came_names))[:2]
        return "about the same thing, another value" + (f": {', '.join(told)}" if told else "")
    if new.off:  # "Turned off per-PR fuzzing": whether it was this one's, the caller can judge
        return "about the same thing, something switched off"
    if new.halted and not old.halted:  # "..., so releases are on hold this week" of how releases are made
        return STOP_SAID
    if turned := _leeway_turned(old, new):  # "E-bikes can be parked anywhere" / "must now end at a station"
        return f"about the same thing, {turned} allowed"
    if new.opens_with and new.opens_with not in old.text.lower():  # "Tomasz owns ...", "Dependabot PRs get ..."
        return f"{OPENS_WITH}: {new.opens_with}"
    came = sorted(w for w in new.unknown if w not in old.text.lower())
    if came and any(w not in new.text.lower() for w in old.unknown):  # "cppcheck" ... / "clang-tidy ..."
        return f"{WORD_SWAPPED}: {came[0]}"
    if new.change >= 0.5 and sim >= config.offer_cued_at:
        return CHANGE_SAID
    if sim >= config.offer_near_at and not holds_all(old, new):
        return SAID_NEAR
    return ""


def _same_thing(old, new) -> bool:
    """May `new` be merged into `old`: no name swapped for another, no value changed, not about
    another environment or component, no word of `old` traded for another (then it is a look-alike,
    kept apart)."""
    e = evidence(old, new)
    return not (e.swapped or e.typed_change or e.negation_flip or conflict(old, new) or swaps_words(old, new))


def seed_decide(new_text: str, new_kind: MemoryKind | None, importance: float,
           neighbours: Sequence[tuple[Memory, float]], config: GateConfig = DEFAULT_GATE) -> GateDecision:
    """The first gate (`SEED_GATE`): bands, and `conflict_reason` for a supersede."""
    candidates = list(neighbours)
    if not candidates:
        return GateDecision(WriteAction.CREATED, reason="novel: nothing similar stored")
    best, sim = candidates[0]
    if sim >= config.reinforce_at and conflict_reason(best.content, new_text, config) is None:
        return GateDecision(WriteAction.REINFORCED, best, sim, f"near-identical (similarity {sim:.2f})")
    anchor_conflict: Memory | None = None
    for memory, s in candidates:
        threshold = config.correction_at if new_kind == MemoryKind.CORRECTION else config.conflict_at
        if s < threshold:
            continue
        why = conflict_reason(memory.content, new_text, config)
        if why is None and new_kind == MemoryKind.CORRECTION and s >= config.update_at:
            why = "user correction"
        if not why:
            continue
        if memory.immutable or memory.pinned:  # truth anchors are never superseded: record the conflict
            anchor_conflict = anchor_conflict or memory
            continue
        return GateDecision(WriteAction.SUPERSEDED, memory, s, why)
    if anchor_conflict is not None:
        return GateDecision(WriteAction.CREATED, None, sim,
                            f"conflicts with pinned/immutable memory {anchor_conflict.id}; both kept",
                            contradicts=anchor_conflict)
    if sim >= config.reinforce_at:
        return GateDecision(WriteAction.REINFORCED, best, sim, f"near-identical (similarity {sim:.2f})")
    if (sim >= config.update_at and not best.immutable
            and share(content_words(best.content), content_words(new_text)) >= config.update_coverage):
        return GateDecision(WriteAction.UPDATED, best, sim, f"overlaps and adds detail (similarity {sim:.2f})")
    if config.gap_low <= sim < config.update_at and importance < config.gap_min_importance:
        return GateDecision(WriteAction.SKIPPED, best, sim,
                            f"borderline duplicate of {best.id} (similarity {sim:.2f}) and low importance")
    return GateDecision(WriteAction.CREATED, None, sim, f"novel (closest similarity {sim:.2f})")


def coverage(old: str, new: str) -> float:
    """How much one text contains the other: max share of either's content words found in the other."""
    a, b = content_words(old), content_words(new)
    if not a or not b:
        return 0.0
    common = len(a & b)
    return max(common / len(a), common / len(b))


def _content_sequence(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.lower()) if w not in _STOP and len(w) > 2]


_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9`\"'])")


def synthesize(old: str, new: str) -> str:
    """Merge `new` into `old` keeping every fact: old text, then the new sentences it lacks."""
    have = {_norm(s) for s in _SENTENCE.split(old)}
    extra = [s for s in _SENTENCE.split(new) if _norm(s) and _norm(s) not in have
             and not content_words(s) <= content_words(old)]
    if not extra:
        return old
    joiner = " " if old.rstrip().endswith((".", "!", "?")) else ". "
    return old.rstrip() + joiner + " ".join(extra)


def _norm(sentence: str) -> str:
    return " ".join(_WORD.findall(sentence.lower()))
