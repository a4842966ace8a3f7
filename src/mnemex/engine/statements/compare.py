"""Does a newer statement replace an older one, restate it, or neither?

`compare(old, new)` reads both statements (`reading.py`) and weighs what links them — the share
of what the older one is about that the newer one repeats (code names, paths and proper names
count double) — against what sets them apart, then looks for a change:

* the newer one names something the older one asserts as left behind ("replaced nose with",
  "instead of Alembic", "`fetch_user` was renamed", "moved off Sentry");
* a value of the same kind changed (a port, a duration, a version, a count, a time), or a name
  was swapped for another (a tool, a function, an endpoint), with a change cue ("moved to",
  "bumped", "now") or in a near-parallel sentence;
* a negation flipped about the same subject ("runs on every PR" / "no longer runs on PRs").

A wrong supersede hides a true fact, so the rules keep look-alikes apart: a newer statement
that brings its own component or setting words (the worker beside the API, the metrics port
beside the service port, audit logs beside application logs) is at most a *possible*
replacement, which the write path reports and the read path resolves, never a sure one.
Restatements (a reminder in other words, no new value, name or negation) are recognised too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from enum import StrEnum

from mnemex.engine.statements.apart import conflict
from mnemex.engine.statements.reading import (STOP, Statement, Value, compatible, normalise_name, shapes_compatible,
                                              stem)

#: Words a reminder is made of: they add nothing to what it restates.
_RESTATE_WORDS = frozenset({"reminder", "remind", "note", "still", "again", "always", "remember", "important",
                            "fyi", "just", "confirm", "confirmed", "indeed", "yes", "ever", "direct", "directly"})


class Relation(StrEnum):
    REPLACES = "replaces"
    """Sure: the newer statement makes the older one outdated."""
    MAY_REPLACE = "may_replace"
    """Some evidence of a change about the same subject, not enough to hide the older one."""
    RESTATES = "restates"
    """The newer statement says nothing the older one does not (a reminder in other words)."""
    NONE = "none"


@dataclass(frozen=True, slots=True)
class Verdict:
    relation: Relation
    reason: str = ""
    subject: float = 0.0
    """How surely both are about the same thing (`aboutness`): shared subject or embedding cosine."""
    shared: float = 0.0
    """The share of the older one's subject words the newer one holds (`Evidence.subject`), for a
    sure replacement: which of several replaceable memories is the likeliest same thing."""
    same_shape: bool = False
    """A name the older one gives was swapped for one of the very same specific shape (a URL for a
    URL, a path for a path, code for code): likelier the same thing than a name of a looser kind."""
    elsewhere: bool = False
    """The change the newer one tells is of something the older one does not hold: it names the
    alternative it replaces ("now route to #oncall instead of #team-cdn") and the older one
    mentions none of it (`tells_other_change`). Still a candidate the caller may judge, never
    flagged as outdating the older one."""


@dataclass(frozen=True, slots=True)
class Thresholds:
    """How sure each kind of evidence must be (`config.gate.GateConfig` holds the same numbers)."""

    left_behind: float = 0.3
    """Least aboutness when the newer statement names the older one's value as left behind."""
    left_similarity: float = 0.35
    """... and least cosine for it."""
    named_again: float = 0.25
    """Least aboutness when the newer statement names the older one's value again beside a new
    value of the same kind, with a change cue (the old value named is the strongest sign)."""
    same_head: float = 0.35
    """Least cosine when the newer statement's subject is something the older one is about and it
    says, with a change cue, that a name was swapped or a value changed."""
    min_similarity: float = 0.45
    """Least cosine for a change cue to count (farther, it is about something else)."""
    strong_cue_change: float = 0.35
    """Least aboutness for a changed value or swapped name with a strong cue ("moved to", "renamed")."""
    cued_change: float = 0.5
    """The same with a weaker cue ("now", "changed")."""
    parallel: float = 0.7
    """Least shared subject, both ways, for a changed value without a cue ("X is 8080" -> "X is 9090")."""
    negation: float = 0.7
    """Least shared subject for a negation flip without a cue."""
    maybe: float = 0.4
    """Least aboutness for a possible replacement."""
    off_similarity: float = 0.25
    """Least cosine when the newer statement says a job, workflow or habit the older one describes was
    switched off, removed or stopped (`switched_off`): the name is the evidence, and the rest of the
    wording moves on to why."""


DEFAULT_THRESHOLDS = Thresholds()


def _weight(term: str, old: Statement, new: Statement) -> float:
    return 2.0 if term in old.names or term in new.names else 1.0


def _share(part: frozenset[str], whole: frozenset[str], old: Statement, new: Statement) -> float:
    total = sum(_weight(t, old, new) for t in whole)
    return sum(_weight(t, old, new) for t in part & whole) / total if total else 0.0


@dataclass(frozen=True, slots=True)
class Evidence:
    """What the comparison found, named so a verdict can say why."""

    subject: float
    reverse: float
    left_hit: frozenset[str]
    gone_values: frozenset[Value]
    came_values: frozenset[Value]
    typed_change: bool
    swapped: bool
    came_names: frozenset[str]
    extra: frozenset[str]
    missing: frozenset[str]
    negation_flip: bool
    named_again: frozenset[Value] = frozenset()
    """Values the older one gives that the newer one names again (in a reason, as the old one)
    beside a new value of the same kind: "moved to 8600 because 8000 clashes"."""
    same_shape: bool = False
    """A gone name and a new one of the very same shape, other than a plain name (implies `swapped`)."""


def evidence(old: Statement, new: Statement) -> Evidence:
    """The features `compare` decides on."""
    old_keys = old.keys
    old_terms = old_keys | old.value_texts
    new_keys = new.keys | new.left
    new_own = new.keys - new.left
    old_vals = {v for v in old.values if v.text not in old.left}
    new_vals = {v for v in new.values if v.text not in new.left}
    new_texts = {v.text for v in new_vals}
    gone = frozenset(v for v in old_vals if v.text not in new_texts)
    came = frozenset(v for v in new_vals if v.text not in old.value_texts)
    typed = any(compatible(g, c) for g in gone for c in came)
    old_settings, new_settings = dict(old.settings), dict(new.settings)
    typed = typed or any(new_settings[k] != v for k, v in old_settings.items() if k in new_settings)
    # (a name the newer one keeps as a piece of one of its own is not gone: `encard` in
    # `Matroid.eRk_le_encard`)
    kept = (old.names - new.names) & new.parts - new.left
    gone_names = (old.names - new.names - kept) | (old.names & new.left)
    # a thing said to be switched off is left behind, not a new value ("Turned off migrate-on-startup")
    came_names = new.names - old_keys - new.left - {t for terms, whole in new.off for t in terms | {whole}}
    missing = frozenset(old_keys - new_keys)
    old_shapes, new_shapes = dict(old.shapes), dict(new.shapes)
    # a name replaced by another of the same kind (a tool by a tool, a path by a path, a function by a function)
    pairs = [(old_shapes.get(g, "name"), new_shapes.get(c, "name")) for g in gone_names for c in came_names]
    swapped = any(shapes_compatible(a, b) for a, b in pairs)
    same_shape = any(a == b != "name" for a, b in pairs)
    # the subject is what remains once a swapped name (the old value) is set aside
    about = old_keys - gone_names if swapped and old_keys - gone_names else old_keys
    about = about - kept or about  # a name kept only as a piece of a new one is neither gone nor shared
    subject = _share(new_keys, about, old, new)
    # and what the newer one is about, once its new value is set aside
    reverse = _share(old_terms, new_own - came_names if swapped and new_own - came_names else new_own, old, new)
    # a phrase named as left behind hits when it is something the older statement holds
    # ("Docker Hub", "nose"), not merely shares a word with it ("its Redis lock"), and not
    # something the older statement already left behind itself (the same change said again)
    named_terms = old_terms | old.parts
    # nor a piece of a component's name both statements give ("the old API" beside billing-api)
    shared = frozenset(stem(p) for k in old.kebabs & new.kebabs for p in k.split("-") if p)
    # nor what the older statement itself refuses ("Never use `initial` blocks ..." / "..., not
    # initial blocks": the same rule again)
    left_hit = frozenset(t for terms, whole in new.left_spans
                         if whole in old_terms or terms <= named_terms
                         for t in (terms & named_terms) - old.left - shared - old.refused)
    extra = frozenset(new.words - old_keys - new.left)
    mentioned = new.value_texts | new.reason | new.left
    named_again = frozenset(v for v in old_vals if v.text in mentioned and len(v.text) >= 2
                            and any(compatible(v, c) for c in came))
    return Evidence(named_again=named_again, same_shape=same_shape, subject=subject, reverse=reverse, left_hit=left_hit, gone_values=gone,
                    came_values=came, typed_change=typed, swapped=swapped, came_names=frozenset(came_names),
                    extra=extra, missing=frozenset(missing - gone_names),
                    negation_flip=old.negated != new.negated and _denies(old, new, shared))


#: Platforms (`reading._PLACE`): "Android" alone is no thing a statement is about.
_PLATFORMS = frozenset({"ios", "android", "web", "desktop", "windows", "macos", "linux", "chrome", "firefox", "safari",
                        "edge"})


#: Where a thing runs (`reading._PLACE`): like a platform, no thing by itself ("Prod runs on Fly.io
#: now" is not about what "To reproduce a prod bug locally, download ..." says).
_PLACES = frozenset(stem(w) for w in ("prod", "production", "staging", "stage", "stg", "dev", "development", "local",
                                      "ci", "qa"))


def _heads_apart(old: Statement, new: Statement) -> bool:
    """Each opens with a subject the other never mentions: "Full-size screenshots are memory-mapped
    ... instead of being cached" / "Thumbnails in the library sidebar are cached in an `NSCache`";
    "The team changed the bundle identifier to `app.x.mac`" / "Betas ship through Sparkle's beta
    channel". Two things, whatever names or manner the newer one swaps."""
    if not old.head or not new.head or old.agent and new.agent:
        return False  # two people: who does it changed ("Ola Nordby is responsible for ... these days")
    return not _meet(new.head, old.keys | old.parts) and not _meet(old.head, new.keys | new.parts)


def _about_a_qualifier(old: Statement, new: Statement) -> bool:
    """The newer one's subject is only what qualifies the older one's named thing, which it never
    mentions: "QC is double-programmed in R these days" beside "RStudio Server for the QC programmers
    is at ..."."""
    named = (old.head - old.head_tail) & old.names
    return bool(old.head_tail) and new.head <= old.head_tail and bool(named - new.keys - new.parts - new.left)


def _heads_differ(old: Statement, new: Statement) -> bool:
    """Each one's subject holds a word the other never mentions: "Substation controllers" / "The
    plant's differential-pressure controller"."""
    if not old.head or not new.head:
        return False
    return any(not _meet(frozenset({w}), new.keys | new.parts) for w in old.head) and any(
        not _meet(frozenset({w}), old.keys | old.parts) for w in new.head)


def _meet(these: frozenset[str], those: frozenset[str]) -> bool:
    """A stem of `these` is one of `those`, or one begins the other ("classifi" / "classification",
    "fail" / "failur": the stemmer leaves a word's forms apart)."""
    return bool(these & those) or any(
        len(a) >= 4 and len(b) >= 4 and (a.startswith(b) or b.startswith(a) or a[:6] == b[:6] and len(a[:6]) == 6)
        for a in these for b in those)


def _manner_left(new: Statement, e: "Evidence") -> bool:
    """What it names as left behind is a way of doing ("instead of being cached", "rather than getting
    copied"): a verb the older statement may use of anything, not a thing of it."""
    held = [whole for terms, whole in new.left_spans if terms & e.left_hit]
    return bool(held) and all(whole.startswith(("being", "getting")) for whole in held)


def _denies(old: Statement, new: Statement, kebab_parts: frozenset[str]) -> bool:
    """The negation is about what the other one says: its negated clause names something the other
    holds ("No claimant PII in logs at any level" after "fine to log claimant names at Debug level"),
    or the two share more than a name both give. Not when that name is all they share
    ("nobody deploys permits-api from a laptop anymore" says nothing of "permits-api runs on :4010
    in local dev")."""
    no, yes = (old, new) if old.negated else (new, old)
    if no.denied & yes.refused:  # both say it does not hold ("never floats" / "not decimals and not floats")
        return False
    # the name both give (a kebab name both give is read as words: permits-api -> `kebab_parts`)
    both = (old.names & new.names) | kebab_parts
    held = yes.words | yes.parts | yes.names
    return bool((no.denied - both) & held) or bool((old.keys & new.keys) - both)


def aboutness(subject: float, similarity: float | None) -> float:
    """How surely two statements are about the same thing: the shared subject, or their embedding
    cosine mapped to 0..1 (0.35 → 0, 0.7 → 1: real updates reword the subject, the meaning stays)."""
    if similarity is None:
        return subject
    return max(subject, min(1.0, max(0.0, (similarity - 0.35) / 0.35)))


def _beyond_swap(old: Statement, new: Statement) -> bool:
    """The newer statement says again a word of the older one, or a piece of one of its names, other
    than the names it no longer gives: a swap under a weak cue ("now", "since") needs that much of
    the same thing. "Results land in #team-dev" shares only a kind of name with "After the 0.8.2
    build only two people push tags, each needs a thumbs-up in #team-release" ("team" is a piece of
    both channels); "RMW is Fast DDS (rmw_fastrtps_cpp)" shares "rmw" with "RMW_IMPLEMENTATION=
    rmw_cyclonedds_cpp is set fleet-wide" besides the swapped names."""
    gone = old.names - new.names
    pieces = {p for p in old.parts if any(p in g for g in gone)}
    return bool(((old.words - gone) | (old.parts - pieces)) & (new.words | new.parts))


def _other_lead(old: Statement, new: Statement) -> bool:
    """Each opens with a code name the other does not hold ("The `GWEditorTools` module loads at ..." /
    "The `GWEditorWidgets` module loads at ..."; "In silver, `sales_lines` dedups on ..." / "Silver
    `returns_lines` dedups on ... instead"): two things of a kind, unless a word of change says one
    became the other (`compare` asks this only below a cue of 0.9)."""
    return bool(new.lead and old.lead and new.lead != old.lead
                and new.lead not in old.keys | old.left and old.lead not in new.keys | new.left)


def _other_subject(old: Statement, new: Statement) -> bool:
    """Without a cue, two parallel sentences that start with different names are about different
    things ("cards-service publishes ..." / "ledger-service publishes ...")."""
    if _other_lead(old, new):
        return True
    return bool(new.head & new.names - old.keys - old.left) and bool(old.head & old.names - new.keys - new.left)


def compare(old: Statement, new: Statement, similarity: float | None = None,
            limits: Thresholds = DEFAULT_THRESHOLDS) -> Verdict:
    """What `new` (the later statement) does to `old`; `similarity` is their embedding cosine
    when known (real updates reword what they are about; the embedding still sees it)."""
    if _reversed(old.text, new.text):
        return Verdict(Relation.REPLACES, "same words in another order (a reversal)", 1.0, 1.0)
    e = evidence(old, new)
    cue = new.change
    if off_elsewhere(old, new):
        # what it says was switched off is something the older statement does not hold: that cue,
        # and the negation that comes with it, are about that other thing
        cue = max((s for label, s in new.cues if label not in _OFF_CUES), default=0.0)
        e = replace(e, negation_flip=False)
    about = aboutness(e.subject, similarity)
    # the newer sentence is about what the older one is about ("Bundling moved to Vite" after
    # "The extension is bundled with webpack"): its cue is about that thing however far the wording
    # (a platform alone is no thing: "Android now requires API 26" is not about what "Femi turned on
    # Hermes for Android" is)
    # (nor the place the older one says it holds in: "TestFlight builds come from Xcode Cloud" is not
    # about "On TestFlight, the paywall uses the StoreKit sandbox")
    same_head = bool(new.head - _PLATFORMS - _PLACES - old.scope) and new.head <= old.keys | old.parts and (similarity is None or similarity >= limits.same_head)
    if similarity is not None and similarity < limits.min_similarity:
        cue = 0.0  # a change cue about something this far from the older statement is about something else
    changed = e.typed_change or e.swapped
    what = _what(e)
    sure = ""
    resets = sorted(k for k, v in new.settings if dict(old.settings).get(k, v) != v)
    holds = _still_holds(old, new, e)  # a switch-off of what the older statement says about itself, or of part of its places
    # a swap about another subject: under a weak cue, or a manner left behind ("instead of being cached")
    apart = not e.typed_change and not e.named_again and _heads_apart(old, new)
    if new.restating and not e.left_hit and not (e.came_names or e.came_values):
        cue = 0.0  # "as before", "still", "nothing changed": it says what holds, not what changed
        # (not when it brings a name or value of its own: "... to Slack; the list still gets a copy")
    if resets and about >= limits.maybe and not (cue < 0.5 and _heads_differ(old, new)):
        # one key holds one value: KEY=redis after KEY=database (but "The plant's differential-pressure
        # controller uses k=0.1" beside "Substation controllers are PI with k=0.5": with no word of
        # change, a like key of another thing)
        sure = f"setting {resets[0]} changed"
    elif (off := switched_off(old, new)) and (similarity is None or similarity >= limits.off_similarity):
        sure = f"{off} switched off"
    elif e.left_hit and about >= limits.left_behind and (similarity is None or similarity >= limits.left_similarity) \
            and not (new.contrasts and not e.left_hit & (old.names | old.value_texts | old.parts)) \
            and not holds and not _other_lead(old, new) and not (apart and _manner_left(new, e)):  # "`FeeMath` uses X instead of Solady" / "`StreamMath` ... Solady's"
        sure = f"names {', '.join(sorted(e.left_hit)[:3])} as left behind"
    elif e.named_again and cue >= 0.5 and about >= limits.named_again \
            and (similarity is None or similarity >= limits.left_similarity):
        g = sorted(e.named_again, key=lambda v: v.text)[0]
        c = sorted((v for v in e.came_values if compatible(g, v)), key=lambda v: v.text)[0]
        sure = f"{g.kind.split(':')[0]} changed: {g.text} -> {c.text} (the old one named, {_cue_label(new)})"
    elif e.typed_change and cue >= 0.8 and about >= limits.strong_cue_change:  # "bumped", "moved to"
        sure = f"{what} ({_cue_label(new)})"
    elif (e.swapped or new.left_spans and e.came_names and e.missing and e.subject > 0) and cue >= 0.9 \
            and about >= limits.cued_change and not (new.left_spans and _other_lead(old, new)) \
            and not (apart and _manner_left(new, e)):
        # names are many: a swap needs more of the same subject; and a sibling that opens with a code
        # name of its own and leaves behind something else than the older one's ("`TaxMath` uses big.js
        # instead of Decimal.js" beside "`InvoiceMath` rounds with Decimal.js") replaces nothing of it
        sure = f"{what} ({_cue_label(new)})"
    elif changed and cue >= 0.5 and about >= limits.cued_change \
            and not (apart and (_manner_left(new, e) or cue < 0.9 and not e.left_hit)) \
            and not ((cue < 0.9 or new.left_spans) and _other_lead(old, new)) \
            and (e.subject > 0 or e.typed_change or cue >= 0.9 or _beyond_swap(old, new)):
        sure = f"{what} ({_cue_label(new)})"
    elif (e.swapped or any(g.kind == c.kind for g in e.gone_values | e.named_again for c in e.came_values)) and same_head \
            and new.change >= 0.5 and not _about_a_qualifier(old, new):
        # a value of the very same kind (not a bare number for a count)
        sure = f"{what} ({_cue_label(new)}; about the same {sorted(new.head)[0]})"
    elif e.negation_flip and cue >= 0.5 and about >= limits.cued_change and not holds \
            and (not e.came_names or about >= limits.parallel):  # a new name: only about the very same thing
        sure = f"negation flipped ({_cue_label(new)})"
    elif ((e.typed_change or e.swapped and len(e.came_names) <= 2) and e.subject >= limits.parallel
          and e.reverse >= limits.parallel and not e.extra and not _other_subject(old, new) and not new.restating):
        sure = what
    elif (e.negation_flip and e.subject >= limits.negation and e.reverse >= limits.negation - 0.1
          and not e.came_names and not new.restating and not holds):  # "just to restate: clients never pick IDs" changes nothing
        sure = "negation flipped"
    elsewhere = _left_elsewhere(old, new, e, new.left_bare)  # the alternative it names is not the older one's
    if sure and _left_elsewhere(old, new, e, _left_named(new)):
        return Verdict(Relation.MAY_REPLACE, f"{sure}, but it leaves behind {_left_names(new)}, which the older "
                       "one does not mention", about, elsewhere=elsewhere)
    if sure:
        why_not = conflict(old, new)
        if why_not:
            return Verdict(Relation.MAY_REPLACE, f"{sure}, but {why_not}", about)
        return Verdict(Relation.REPLACES, sure, about, e.subject, e.same_shape)
    if _restates(old, new, e, similarity):
        return Verdict(Relation.RESTATES, "adds nothing new", about)
    if cue >= 0.5 and about >= limits.maybe and (changed or e.negation_flip or e.came_values or e.left_hit):
        if elsewhere:
            return Verdict(Relation.MAY_REPLACE, f"{what} ({_cue_label(new)}), but it leaves behind "
                           f"{_listed(new.left_bare)}, which the older one does not mention", about, elsewhere=True)
        return Verdict(Relation.MAY_REPLACE, f"{what} ({_cue_label(new)})", about)
    if e.typed_change and about >= limits.maybe + 0.1 and e.reverse >= limits.maybe + 0.1:
        return Verdict(Relation.MAY_REPLACE, what, about)
    if e.negation_flip and about >= limits.maybe + 0.1 and not new.restating:
        return Verdict(Relation.MAY_REPLACE, "negation flipped", about)
    return Verdict(Relation.NONE, "", about)


#: What a thing is rather than what it does: who owns it, what it is written in, where it lives.
_ATTRIBUTE = re.compile(r"\b(?:(?:is|are|was|were) (?:owned|maintained|written|hosted|documented|kept|stored|defined|configured)"
                        r"|owns?|maintains?|belongs? to|lives? in|(?:is|are) part of|(?:is|are) in charge)\b", re.I)


def _fewer_places(old: Statement, new: Statement) -> bool:
    """The newer statement names places and the older one covers more ("disabled on staging" after
    "runs on staging and production": production still runs)."""
    return bool(new.places) and not old.places <= new.places


def switched_off(old: Statement, new: Statement) -> str:
    """The name of what the older statement describes ("the `validate-registry` job checks ... on every
    pull request") that the newer one says was switched off, disabled, removed or stopped
    ("validate-registry is turned off for now", "no more manual TestFlight uploads"); "" when none.
    A name the older statement holds counts, or a phrase of two or more words all of which it holds
    ("asset precompilation" after "assets get precompiled on each web server"). Never when the older
    statement says what the thing is (`_ATTRIBUTE`: "validate-registry is owned by the data team"
    holds after the switch-off) or covers places the switch-off does not name."""
    if new.restating or _fewer_places(old, new) or _ATTRIBUTE.search(old.text):
        return ""
    held = old.keys | old.parts
    for terms, whole in new.off:
        named = sorted((terms | {whole}) & old.names)
        # the name is what was switched off, not a word that qualifies it: the rest of the phrase is
        # a word or two, or mostly what the older one says too ("The Jenkins release job" after "...
        # by the Jenkins job `lumen-release`", not "the nightly terraform drift detection job" after
        # "run terraform apply locally")
        rest = {t for t in terms - set(named) if not any(t in n for n in named)}
        if named and (len(rest) <= 1 or sum(_held_word(t, held) for t in rest) * 2 >= len(rest)):
            return named[0]
        if len(terms) >= 2 and all(_held_word(t, held) for t in terms):  # "asset precompilation" after
            return " ".join(sorted(terms))                                  # "assets get precompiled on each ..."
    return ""


#: The cue labels a switch-off gives (`reading._CUES`).
_OFF_CUES = frozenset({"disabled", "removed"})


def off_elsewhere(old: Statement, new: Statement) -> bool:
    """The newer statement says something was switched off, disabled or removed (`Statement.off`),
    and none of it is what the older one holds ("Turned off migrate-on-startup" beside "Schema
    migrations run from Liquibase changelogs"; "the v1 topic got retired" beside "Dispense events
    are retained for 7 days"). A phrase is the older one's when it refers to the old thing ("the
    old function name"), holds a name the older one holds, or, without a name or number of its own
    ("v1", "migrate-on-startup"), is written mostly in the older one's words."""
    if not new.off:
        return False
    held = old.keys | old.parts | old.value_texts

    def other(terms: frozenset[str], whole: str) -> bool:
        if whole in new.off_referred or (terms | {whole}) & old.names:
            return False  # "the old function name was removed": what the older one said
        specific = {t for t in terms if t in new.names or any(c.isdigit() for c in t)}
        if specific:  # "the v1 topic", "migrate-on-startup": a name or number of its own
            return not any(_held_word(t, held) or _pieces_held(t, new.text, held) for t in specific)
        # words only: most of them must be what the older one speaks of ("the separate host and port
        # variables" after `KESTREL_REDIS_HOST`; not "cross-region matching" after "one sorted set per region")
        return sum(_held_word(t, held) for t in terms) * 2 < len(terms)
    return all(other(terms, whole) for terms, whole in new.off)


def _pieces_held(name: str, text: str, held: frozenset[str]) -> bool:
    """Are all the words `name` is written with in `text` held ("per-PR" after "Every PR runs ...")?"""
    for token in re.findall(r"[\w./-]+", text):
        if normalise_name(token.strip("./-")) == name:
            pieces = [stem(p) for p in re.split(r"[-_./]+", token.lower()) if p and p not in STOP]
            return bool(pieces) and all(_held_word(p, held) for p in pieces)
    return False


def _still_holds(old: Statement, new: Statement, e: Evidence) -> bool:
    """What the newer statement leaves behind is only something it says was switched off, and the
    older statement still holds: it gives that very thing an attribute a switch-off leaves as it was
    (`_ATTRIBUTE`: "`reindex-search` is owned by the search team", then "reindex-search is disabled"),
    or it covers places the switch-off does not ("runs on staging and production", then "disabled on
    staging")."""
    off = frozenset(t for terms, whole in new.off for t in terms | {whole})
    if not off or not e.left_hit <= off:
        return False
    return _fewer_places(old, new) or (bool(off & old.head) and _ATTRIBUTE.search(old.text) is not None)


def _held_word(term: str, held: frozenset[str]) -> bool:
    """`term` is one of `held`, or the same word with another ending ("precompilation", "precompil")."""
    return term in held or (len(term) >= 5 and any(len(h) >= 5 and (term.startswith(h) or h.startswith(term))
                                                   for h in held))


def asks_for_older(query: Statement, old: Statement, new: Statement) -> bool:
    """The query names more of what only the older statement holds than of what only the newer
    one holds (names, value texts, word stems): it asks about the older one's own subject ("how are
    Eastgate's kiosks locked down?" beside a newer statement about Northfield's), so a newer
    statement that merely gives another value about much the same thing must not be put above
    it. A question about the subject both share ("where do the logs go?") names as much of each.
    Measured on the four knowledge-update sets (`benchmarks/data/updates_bench*.json`, the pairs'
    texts alone): it is false, so lets the newer one lead, for 1-4 of the 38-61 look-alike
    questions about the older statement, and for 40-62% of the update questions (the rest word
    the question as the older statement did)."""
    def terms(s: Statement) -> frozenset[str]:
        return s.names | s.words | s.parts | s.value_texts
    q, o, n = terms(query), terms(old), terms(new)
    return len(q & (o - n)) > len(q & (n - o))


def asks_in_words(query: Statement, s: Statement) -> bool:
    """The query shares a content word with `s`, not only a name: it asks about what `s` says of
    the thing ("what datastore does cdn-purger use?" shares nothing but the name with
    "cdn-purger needs DATABASE_URL set", another fact about the same component)."""
    named = _in_names(query.text) | _in_names(s.text) | s.parts
    return bool((query.words - named) & s.words)


#: A written name: joined by a dash, dot, slash or underscore, or in camelCase (`ledger-sync`,
#: `Riverchat.Hooks`, `fetchUser`); its pieces are parts of a name, not words said about it.
_JOINED = re.compile(r"\b[A-Za-z0-9]+(?:[-./_][A-Za-z0-9]+)+\b|\b[a-z]+[A-Z][A-Za-z0-9]*\b")


def _in_names(text: str) -> frozenset[str]:
    out = set()
    for m in _JOINED.finditer(text):
        for piece in re.split(r"[^A-Za-z]+", re.sub(r"([a-z])([A-Z])", r"\1 \2", m.group(0))):
            if piece:
                out.add(stem(piece.lower()))
    return frozenset(out)


def tells_other_change(old: Statement, new: Statement) -> bool:
    """The newer statement names the alternative it replaces ("instead of #team-cdn", "from Jenkins
    to", "moved off Sentry") and the older one holds none of it: the change it tells is of
    something else (`Verdict.elsewhere`). Not for a thing said removed ("the Podfile has been
    deleted"), which may be a part of what the older one names (CocoaPods)."""
    return _left_elsewhere(old, new, evidence(old, new), new.left_bare)


def _left_elsewhere(old: Statement, new: Statement, e: Evidence, named: frozenset[str]) -> bool:
    """The newer statement names what it leaves behind (`named`: "uses OpenTelemetry rather than
    StatsD", "rather than attrs": a name, a value, or a bare word, not "the old runner"), and the
    older one holds none of it: the change it tells is of something else."""
    # "New resources are written as classes rather than MOF-based script resources": a word the
    # alternative shares with the newer one's own subject tells nothing apart (a name there does)
    named = named - (new.head - new.names)
    if e.left_hit or not named or named & (old.keys | old.parts | old.value_texts | old.left):
        return False
    return not any(len(t) >= 4 and t in n for t in named for n in old.names)  # `fetchBalance` in `Repo.fetchBalance(...)`


def _left_named(new: Statement) -> frozenset[str]:
    return frozenset({t for terms, _ in new.left_spans for t in terms & (new.names | new.value_texts)} | new.left_bare)


def _left_names(new: Statement) -> str:
    return _listed(_left_named(new))


def _listed(names: frozenset[str]) -> str:
    return ", ".join(sorted(names)[:3])


def swaps_words(old: Statement, new: Statement) -> bool:
    """Each holds a content word or name the other lacks ("Aiko owns the metrics-cron service's database" /
    "Aiko owns the search-sdk service's dashboards"; "Priya prefers ..." / "Ravi prefers ..."): two like
    statements about different things, never one said again, and no detail to merge into the other.
    Words named as left behind, and a reminder's own words, do not count."""
    gained = new.keys - old.keys - old.parts - old.value_texts - new.left - _RESTATE_WORDS
    lost = old.keys - new.keys - new.parts - new.value_texts - new.left - old.left
    return bool(gained) and bool(lost)


def adds_nothing(old: Statement, new: Statement) -> bool:
    """Does `new` hold no value, name or negation that `old` lacks?"""
    return (new.specifics <= old.specifics | old.keys and new.negated == old.negated
            and not (new.change >= 0.7 and new.change > old.change))  # a cue the old one holds too is no news


def holds_all(old: Statement, new: Statement) -> bool:
    """Does `old` say everything `new` says: no value, name or negation of `new` it lacks
    (`adds_nothing`) and no content word either, a reminder's own words aside? Stricter than a
    restatement: "..., behind the nginx gateway" adds a detail, however close the embeddings."""
    gained = new.keys - old.keys - old.parts - old.value_texts - _RESTATE_WORDS
    return adds_nothing(old, new) and not gained


def _restates(old: Statement, new: Statement, e: Evidence, similarity: float | None) -> bool:
    if not adds_nothing(old, new):
        return False
    plain = e.extra - _RESTATE_WORDS
    if not plain:
        return e.subject >= 0.5
    return similarity is not None and similarity >= 0.88 and len(plain) <= 1 and not swaps_words(old, new)


_WORD = re.compile(r"[a-z][a-z0-9+#-]*")


def _reversed(old: str, new: str) -> bool:
    """"prefers tabs over spaces" / "prefers spaces over tabs": the same words in another order."""
    a = [stem(w) for w in _WORD.findall(old.lower()) if w not in STOP]
    b = [stem(w) for w in _WORD.findall(new.lower()) if w not in STOP]
    return len(a) >= 3 and a != b and sorted(a) == sorted(b)


def _what(e: Evidence) -> str:
    if e.typed_change:
        pairs = [(g, c) for g in sorted(e.gone_values, key=lambda v: v.text)
                 for c in sorted(e.came_values, key=lambda v: v.text) if compatible(g, c)]
        if pairs:
            g, c = pairs[0]
            return f"{g.kind.split(':')[0]} changed: {g.text} -> {c.text}"
        return "a setting changed"
    if e.swapped:
        return "a name was replaced"
    return "changed"


def _cue_label(s: Statement) -> str:
    return max(s.cues, key=lambda c: c[1])[0] if s.cues else "no cue"
