"""Which kind of memory a text is, by weighted regex cues.

Each kind has a base confidence (the design notes' numbers, `ObserverConfig.kind_base`) and
cues with weights. A kind whose cues fire scores `1 - (1 - base) * prod(1 - weight)`: one
weak cue gives the base, each further cue closes part of the remaining gap. The highest score
wins; ties go to the kind listed first in `KIND_ORDER` (what an agent must not get wrong
comes first). No cue at all gives `fallback_kind` at `fallback_confidence`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mnemex.config.observer import DEFAULT_OBSERVER, ObserverConfig
from mnemex.engine.write.observe.chatter import is_hunch
from mnemex.models import MemoryKind

K = MemoryKind
KIND_ORDER = (K.CORRECTION, K.PREFERENCE, K.CONVENTION, K.DECISION, K.PROCEDURE, K.PLAN, K.ENTITY, K.FACT)
_TECH_WORD = r"[\w.\-`/:]+"
_DAY = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*"


@dataclass(frozen=True, slots=True)
class Cue:
    label: str
    pattern: re.Pattern[str]
    weight: float


def _cues(*rows: tuple[str, str, float]) -> tuple[Cue, ...]:
    return tuple(Cue(label, re.compile(rx, re.IGNORECASE | re.MULTILINE), w) for label, rx, w in rows)


CUES: dict[MemoryKind, tuple[Cue, ...]] = {
    K.CORRECTION: _cues(
        ("actually", r"\bactually\b", 0.3),
        ("leading no", r"^\s*(?:no|nope|wrong)\b[,.!:]", 0.35),
        ("no, it's", r"\bno,\s+(?:it'?s|it is|that'?s|the|we|you|i|use)\b", 0.5),
        ("that's wrong", r"\bthat'?s (?:not (?:right|correct|true|it|how)|wrong|incorrect)\b", 0.6),
        ("is wrong", r"\b(?:is|was|were|are) (?:wrong|incorrect|outdated|out of date|a mistake|not correct)\b", 0.5),
        ("you're wrong", r"\byou(?:'re| are) (?:wrong|mistaken)\b", 0.6),
        ("I meant", r"\b(?:i meant|correction:|to clarify|let me correct|i misspoke|my mistake|my bad)", 0.55),
        ("X, not Y", rf"\bit'?s\s+{_TECH_WORD}\s*,?\s+not\s+{_TECH_WORD}|\bnot\s+{_TECH_WORD}\s*,\s*(?:but|it'?s)\b", 0.5),
        ("should be", r"\bshould (?:be|have been|say|read)\b", 0.25),
        ("no longer", r"\bno longer\b|\bnot anymore\b|\banymore\b", 0.35),
        ("wrong thing", r"\b(?:wrong|incorrect) (?:file|path|port|version|command|branch|name|value|assumption|answer|url)\b", 0.45),
    ),
    K.PREFERENCE: _cues(
        ("I prefer/like", r"\bI (?:really |strongly |personally |much |generally |also |usually |actually |still )?(?:prefer|like|love|enjoy|hate|dislike|can'?t stand|detest)\b", 0.55),
        ("don't like", r"\b(?:I|we) (?:don'?t|do not|never) (?:like|want|enjoy)\b", 0.55),
        ("prefer", r"\bprefer(?:s|red|ence|ences|ably)?\b", 0.4),
        ("favourite", r"\bfavou?rite\b", 0.45),
        ("rather", r"\bI'?d rather\b|\brather than\b", 0.3),
        ("always/never use", r"\b(?:always|never) use\b", 0.4),
        ("imperative", r"^\s*(?:please\s+)?(?:don'?t|do not|never|always|stop)\s+(?:use|add|write|put|include|make|generate|suggest|create|give)\b", 0.35),
        ("I want", r"\bI (?:want|'d like|would like|need you to)\b", 0.3),
        ("nicer", r"\b(?:looks?|reads?|feels?) (?:better|cleaner|nicer)\b|\b(?:is|are) (?:nicer|cleaner|more readable)\b", 0.25),
        ("style topic", r"\b(?:dark|light) (?:mode|theme)\b|\btabs\b|\bindentation\b|\bverbose\b|\bconcise\b", 0.15),
    ),
    K.DECISION: _cues(
        ("we decided", r"\b(?:we|I|the team|they)(?: have| had|'ve)? (?:decided|agreed|chose|picked|settled on|opted|went with|committed to)\b", 0.6),
        ("decision", r"\b(?:decided|decision|decide)\b", 0.4),
        ("X over Y", rf"\b(?:chose|picked|prefer(?:red)?|selected)\s+{_TECH_WORD}(?:\s+{_TECH_WORD})?\s+over\b", 0.55),
        ("chose", r"\b(?:chose|chosen|choose|picked|selected)\b", 0.3),
        ("going with", r"\bgoing (?:to go )?with\b", 0.5),
        ("let's use", r"\b(?:let'?s|we'?ll|we will|we should) (?:go with|use|adopt|switch to|stick with|move to)\b", 0.4),
        ("switch to", rf"\b(?:switch(?:ed|ing)?|migrat(?:e|ed|ing)|mov(?:e|ed|ing)|replac(?:e|ed|ing) {_TECH_WORD} with)\b(?: from {_TECH_WORD})? to\b", 0.35),
        ("instead of", r"\binstead of\b", 0.25),
        ("rationale", r"\b(?:ADR|trade-?offs?|rationale)\b", 0.25),
        ("ruled out", r"\b(?:approved|rejected|ruled out|dropped|vetoed)\b", 0.3),
    ),
    K.CONVENTION: _cues(
        ("we always", r"\bwe (?:always|never|usually|typically)\b", 0.5),
        ("convention", r"\b(?:conventions?|naming scheme|style ?guide|code style|coding standards?)\b", 0.55),
        ("must", r"\bmust (?:be|always|never|not|use|go|live|have|start|end|follow|pass)\b", 0.4),
        ("never commit", r"\bnever (?:commit|push|merge|deploy|edit|modify|touch|force[- ]push|rebase|check in)\b", 0.55),
        ("naming", r"\b(?:must|should) be (?:named|called|prefixed|suffixed|placed|kept|written)\b|\bnamed (?:with|after|like|using)\b|\bnaming\b", 0.5),
        ("all X must", r"\b(?:all|every|each) [\w\-]+(?: [\w\-]+)? (?:must|should|go|goes|live|lives|belong|belongs|need|needs|has to|have to)\b", 0.4),
        ("not allowed", r"\b(?:is|are) (?:not allowed|forbidden|required|mandatory|disallowed|banned)\b", 0.4),
        ("case style", r"\b(?:snake_case|camelCase|kebab-case|PascalCase|SCREAMING_SNAKE_CASE|conventional commits)\b", 0.45),
        ("X should", r"\b(?:commit messages?|PR titles?|branch names?|tests?|files?|imports?|migrations?) (?:should|must|go|live|follow|start with)\b", 0.35),
        ("in this repo", r"\bin (?:this|our|the) (?:repo|repository|codebase|project),? (?:we|all|every)\b", 0.4),
        ("as a rule", r"\b(?:as a rule|by convention|per (?:the )?(?:policy|guideline|rule))\b", 0.5),
    ),
    K.PROCEDURE: _cues(
        ("to X, run", r"\bto (?:deploy|build|run|test|release|install|set up|setup|start|restart|reset|migrate|debug|reproduce|publish|upgrade|update|configure|rotate|regenerate|rebuild|bootstrap|seed|clean|fix|regenerate|cut)\b[^.;\n]{0,80}?[,:]\s*(?:run|use|do|execute|type|call|first|go|open|set|add|make|just|you)\b", 0.65),
        ("steps:", r"(?<!next )\bsteps?\s*:", 0.5),
        ("first then", r"\bfirst\b[^.\n]*?\bthen\b", 0.55),
        ("then", r"\b(?:after that|afterwards|finally|next,)", 0.15),
        ("run `x`", r"\b(?:run|execute|invoke)\s+`[^`]+`", 0.35),
        ("run tool", r"\brun\s+(?:git|npm|npx|yarn|pnpm|make|docker|kubectl|pytest|python|uv|cargo|go|terraform|helm|alembic)\b", 0.35),
        ("how to", r"\bhow to\b|\bhow do (?:i|you|we)\b", 0.3),
        ("make sure", r"\b(?:you need to|you have to|make sure (?:to|you)|in order to)\b", 0.2),
        ("shell prompt", r"^\s*\$\s+\S", 0.3),
    ),
    K.PLAN: _cues(
        ("we will", r"\b(?:I|we|the team|user)(?:'ll| will| shall| am going to| are going to|'m going to|'re going to)\b", 0.5),
        ("plan to", r"\b(?:plan(?:s|ning|ned)? to|intend(?:s|ed)? to|aim(?:s|ing)? to|about to|scheduled (?:for|to))\b", 0.5),
        ("when", rf"\b(?:next (?:week|month|sprint|release|quarter|year|time|{_DAY})|tomorrow|tonight|later today|this (?:afternoon|evening|week|weekend)|soon)\b", 0.45),
        ("deadline", rf"\b(?:by|before|until) (?:{_DAY}|eod|eow|end of (?:the )?(?:day|week|month|sprint|quarter)|tomorrow|next \w+|\d{{4}}-\d{{2}}-\d{{2}}|{_MONTH}\s+\d{{1,2}})\b", 0.5),
        ("todo", r"\b(?:TODO|to-do|roadmap|upcoming|deadline|due (?:on|by|date)|next steps?|remaining work|follow[- ]up)\b", 0.4),
        ("in N days", r"\bin \d+ (?:minutes?|hours?|days?|weeks?|months?)\b", 0.3),
    ),
    K.ENTITY: _cues(
        ("X is a Y", r"^\s*(?:`[^`]+`|(?-i:[A-Z])[\w.\-]*(?:\s+(?-i:[A-Z])[\w.\-]*)?) (?:is|are) (?:a|an|the|our|my) (?:[\w\-]+ ){0,3}(?:library|framework|tool|service|database|db|package|module|team|company|vendor|cli|api|server|queue|cache|platform|language|runtime|orm|wrapper|client|person|engineer|lead|owner|repo|repository|project|product|broker|proxy|registry|facade|class|function|interface|helper|component)\b", 0.55),
        ("stands for", r"\b(?:stands for|refers to|aka|a\.k\.a\.|also known as|is short for|is an alias for)\b", 0.5),
        ("owns", r"\b(?:owns|maintains|is responsible for|is the owner of|maintained by|owned by|works on|leads)\b", 0.35),
    ),
    K.FACT: _cues(
        ("setting is", r"\b(?:version|port|timeout|limit|url|endpoint|host|region|default|path|size|ttl|quota)\b[^.;\n]{0,30}?(?:\bis\b|=|\bare\b)", 0.35),
        ("my name is", r"\bmy name is\b|\bthe (?:api|server|db|database|app|service) is\b", 0.4),
        ("runs on", r"\b(?:runs on|listens on|is hosted on|is deployed (?:to|on)|lives (?:at|in)|is located in|is stored in|is defined in|points to|depends on|requires)\b", 0.35),
        ("quantity", r"\b\d+(?:\.\d+)?\s*(?:ms|s|sec|seconds|minutes|hours|days|gb|mb|kb|%|rps|qps)\b", 0.2),
        ("behaviour", r"\bwill (?:return|throw|raise|fail|error|be (?:null|none|empty|ignored|called|retried))\b", 0.3),
        ("copula", r"\b(?:is|are|was|were|has|have|uses|use|returns|contains)\b", 0.1),
    ),
}
_NUMBERED_LINE = re.compile(r"^\s*(?:step\s*)?\d+[.)]\s+\S", re.IGNORECASE | re.MULTILINE)


@dataclass(frozen=True, slots=True)
class Classification:
    kind: MemoryKind
    confidence: float
    scores: tuple[tuple[MemoryKind, float], ...]
    """Every kind that scored, best first."""
    cues: tuple[str, ...]
    """Labels of the winning kind's cues that fired."""


def classify(text: str, *, entity_count: int = 0, config: ObserverConfig = DEFAULT_OBSERVER) -> Classification:
    """The kind of `text` with a confidence in 0..1 and the cues behind it."""
    fired: dict[MemoryKind, list[Cue]] = {}
    hunch = is_hunch(text)  # a guess asserts nothing: not a correction, however it is worded after the hedge
    for kind in KIND_ORDER:
        if kind is K.CORRECTION and hunch:
            continue
        hits = [cue for cue in CUES[kind] if cue.pattern.search(text)]
        if kind is K.PROCEDURE and len(_NUMBERED_LINE.findall(text)) >= 2:
            hits.append(Cue("numbered steps", _NUMBERED_LINE, 0.45))
        if kind is K.ENTITY and entity_count >= config.entity_rich_count:
            hits.append(Cue("entity-rich", re.compile(""), 0.0))  # the base alone, as in the notes
        if hits:
            fired[kind] = hits
    if not fired:
        return Classification(config.fallback_kind, config.fallback_confidence, (), ())
    scores = {kind: _score(config.kind_base.of(kind, 0.3), hits) for kind, hits in fired.items()}
    ranked = sorted(scores.items(), key=lambda ks: (-ks[1], KIND_ORDER.index(ks[0])))
    best = ranked[0][0]
    return Classification(best, round(ranked[0][1], 3), tuple((k, round(s, 3)) for k, s in ranked),
                          tuple(c.label for c in fired[best]))


def _score(base: float, hits: list[Cue]) -> float:
    gap = 1.0 - base
    for cue in hits:
        gap *= 1.0 - cue.weight
    return 1.0 - gap
