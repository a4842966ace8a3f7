"""What a text looks like before what it says: length, system or injected content, code,
markdown and emoji shares, and information density. These become flags; the engine decides
whether a flagged text is stored (the observer never drops anything)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from mnemex.config.observer import DEFAULT_OBSERVER, ObserverConfig


class ObserveFlag(StrEnum):
    TOO_SHORT = "too_short"
    TOO_LONG = "too_long"
    SYSTEM_CONTENT = "system_content"
    PROMPT_INJECTION = "prompt_injection"
    CODE_HEAVY = "code_heavy"
    MARKDOWN_HEAVY = "markdown_heavy"
    EMOJI_HEAVY = "emoji_heavy"
    LOW_DENSITY = "low_density"
    CHATTER = "chatter"  # a line of conversation that carries no knowledge (`chatter.py`)


@dataclass(frozen=True, slots=True)
class TextShape:
    chars: int
    code_ratio: float
    """Share of characters in code blocks, inline code or code-looking lines."""
    markdown_lines: int
    markdown_ratio: float
    """Share of non-blank lines that are bullets, headings, quotes, tables or bold."""
    emoji_count: int
    emoji_ratio: float
    """Emoji per non-blank character."""
    system_markers: tuple[str, ...]
    injection_markers: tuple[str, ...]


_SYSTEM = (
    ("system tag", re.compile(r"</?system(?:-reminder)?>|<\|im_start\|>|<\|im_end\|>|\[/?INST\]|<</?SYS>>", re.I)),
    ("tool-call xml", re.compile(r"</?(?:function_calls|invoke|parameter|tool_use|tool_result|tool_call|"
                                 r"function_results|antml:[\w-]+|command-name|command-message|command-args|"
                                 r"local-command-stdout|user-prompt-submit-hook)\b", re.I)),
    ("assistant identity", re.compile(r"\bYou are (?:Claude|ChatGPT|GPT-?\d|Gemini|Copilot|an AI (?:assistant|model)|"
                                      r"a helpful (?:AI )?assistant|an? (?:large )?language model)\b|"
                                      r"\bas an AI (?:language )?model\b", re.I)),
    ("heartbeat", re.compile(r"\bHEARTBEAT(?:_OK)?\b|^\s*\[(?:system|heartbeat)\]", re.M)),
    ("xml block", re.compile(r"^\s*<([A-Za-z][\w:-]*)[^>]*>[\s\S]*</\1>\s*$")),
)
_INSTRUCTION_LINE = re.compile(
    r"^\s*(?:[-*]|\d+[.)])?\s*(?:you (?:must|should|will|are|need to|have to|may not|can't|cannot)|"
    r"your (?:task|role|job|goal|purpose) is|(?:always|never|do not|don't)\b.*\byou(?:r)?\b|IMPORTANT:|NEVER\b|ALWAYS\b)",
    re.I | re.M)
_INJECTION = (
    ("ignore previous", re.compile(r"\b(?:ignore|disregard|forget|skip|override)\s+(?:all\s+|any\s+|the\s+|your\s+)*"
                                   r"(?:previous|prior|above|earlier|preceding|system|original|existing)?\s*"
                                   r"(?:instructions|prompts?|rules|messages|context|directions|guidelines|directives)\b", re.I)),
    ("ignore above", re.compile(r"\b(?:ignore|disregard|forget) (?:everything|all of that|the above|what (?:i|you) said)\b", re.I)),
    ("you are now", re.compile(r"\byou are now (?:a|an|the|my|DAN|in|no longer|free|unrestricted|jailbroken|unfiltered)\b", re.I)),
    ("from now on you", re.compile(r"\bfrom now on,? you (?:are|will|must|shall|can)\b", re.I)),
    ("role-play", re.compile(r"\b(?:pretend (?:you are|to be|that you)|role-?play as|let'?s play a game where you|"
                             r"act as (?:if you (?:are|were)|an? (?:unrestricted|unfiltered|jailbroken|evil|different|new)))", re.I)),
    ("system prompt", re.compile(r"\bsystem prompt\s*:|\b(?:reveal|show|print|repeat|leak|output|dump) (?:me )?"
                                 r"(?:your|the) (?:system |hidden |initial )?(?:prompt|instructions)\b", re.I)),
    ("new instructions", re.compile(r"\bnew (?:instructions|rules)\s*:|\boverride (?:your|the|all) (?:safety|rules|policies)\b", re.I)),
    ("jailbreak", re.compile(r"\bjailbreak|\bDAN mode\b|\bdeveloper mode (?:enabled|on)\b|\bdo anything now\b", re.I)),
)
_FENCE = re.compile(r"```[\s\S]*?(?:```|$)")
_INLINE = re.compile(r"`[^`\n]+`")
_CODE_LINE = re.compile(
    r"^(?: {4,}|\t)\S|^\s*(?:def |class |import |from \S+ import|const |let |var |function |return\b|if \(|for \(|"
    r"#include|public |private |\$ |>>> |@\w+)|[;{}]\s*$|^\s*[}\])];?\s*$")
_MARKDOWN_LINE = re.compile(r"^\s*(?:[-*+]\s|\d+[.)]\s|#{1,6}\s|>\s|\|.*\|)|\*\*[^*]+\*\*|__[^_]+__")
_WORD = re.compile(r"[A-Za-z][A-Za-z'\-]*|\d+(?:[.,:]\d+)*")
_STOPWORDS = frozenset(
    "a an the and or but if then so of to in on at by for with from as is are was were be been being it its "
    "this that these those there here i me my we our you your he she they them their his her what which who "
    "whom when where why how all any some no not do does did have has had can could will would shall should "
    "may might must also very too than into about over under up down out off again just only own same such "
    "more most other each few both am".split())
_FILLER = frozenset(
    "ok okay k thanks thank thx ty cool great nice awesome sure yes yeah yep yup hmm um uh lol haha please well "
    "anyway sounds good alright right perfect got let think see wow oh hey hi hello bye cheers np basically "
    "literally really like kinda sorta stuff things thing".split())


def _emoji_count(text: str) -> int:
    count = 0
    for ch in text:
        cp = ord(ch)
        if 0x1F3FB <= cp <= 0x1F3FF:  # skin tones modify the emoji before them
            continue
        if 0x1F000 <= cp <= 0x1FAFF or 0x2600 <= cp <= 0x27BF or cp in (0x2B50, 0x2B55, 0x2B1B, 0x2B1C, 0x231A, 0x231B):
            count += 1
    return count


def _code_chars(text: str) -> int:
    fenced = sum(len(m.group()) for m in _FENCE.finditer(text))
    rest = _FENCE.sub("", text)
    inline = sum(len(m.group()) for m in _INLINE.finditer(rest))
    rest = _INLINE.sub("", rest)
    lines = sum(len(line) for line in rest.splitlines() if _CODE_LINE.search(line))
    return fenced + inline + lines


def measure(text: str, config: ObserverConfig = DEFAULT_OBSERVER) -> TextShape:
    """Ratios and markers of `text` (see `TextShape`)."""
    chars = len(text)
    visible = max(1, sum(not c.isspace() for c in text))
    lines = [line for line in text.splitlines() if line.strip()]
    md = sum(bool(_MARKDOWN_LINE.search(line)) for line in lines)
    emoji = _emoji_count(text)
    system = [label for label, rx in _SYSTEM if rx.search(text)]
    if len(_INSTRUCTION_LINE.findall(text)) >= config.instruction_lines:
        system.append("instruction stack")
    return TextShape(
        chars=chars,
        code_ratio=round(min(1.0, _code_chars(text) / max(1, chars)), 3),
        markdown_lines=md,
        markdown_ratio=round(md / max(1, len(lines)), 3),
        emoji_count=emoji,
        emoji_ratio=round(emoji / visible, 3),
        system_markers=tuple(system),
        injection_markers=tuple(label for label, rx in _INJECTION if rx.search(text)),
    )


def information_density(text: str, entity_count: int = 0) -> float:
    """0..1: how much a text says per word. Unique content words per token (60%) plus
    specifics — entities, numbers, code (40%) — minus a penalty for filler ("ok thanks",
    "sounds good")."""
    tokens = _WORD.findall(text)
    if not tokens:
        return 0.0
    words = [t.lower() for t in tokens if t[0].isalpha()]
    numbers = len(tokens) - len(words)
    content = {w for w in words if w not in _STOPWORDS and w not in _FILLER and len(w) > 1}
    filler = sum(w in _FILLER for w in words)
    lexical = min(1.0, len(content) / len(tokens) / 0.6)  # 0.6 unique content words per token is already dense
    specifics = min(1.0, (entity_count + numbers + len(_INLINE.findall(text))) / 3)
    density = 0.6 * lexical + 0.4 * specifics - 0.5 * filler / len(tokens)
    return round(max(0.0, min(1.0, density)), 3)


def shape_flags(shape: TextShape, density: float, config: ObserverConfig = DEFAULT_OBSERVER) -> frozenset[ObserveFlag]:
    """The flags a shape earns under `config`'s thresholds."""
    chars = shape.chars
    flags: set[ObserveFlag] = set()
    if chars <= config.min_chars:
        flags.add(ObserveFlag.TOO_SHORT)
    if chars >= config.max_chars:
        flags.add(ObserveFlag.TOO_LONG)
    if shape.system_markers:
        flags.add(ObserveFlag.SYSTEM_CONTENT)
    if shape.injection_markers:
        flags.add(ObserveFlag.PROMPT_INJECTION)
    if shape.code_ratio > config.code_heavy_ratio:
        flags.add(ObserveFlag.CODE_HEAVY)
    if shape.markdown_lines >= config.markdown_heavy_lines:
        flags.add(ObserveFlag.MARKDOWN_HEAVY)
    if shape.emoji_count > config.emoji_heavy_count:
        flags.add(ObserveFlag.EMOJI_HEAVY)
    if density < config.min_density:
        flags.add(ObserveFlag.LOW_DENSITY)
    return frozenset(flags)
