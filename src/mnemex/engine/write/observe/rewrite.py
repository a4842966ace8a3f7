"""Standalone text: first person to third person, and compound statements to atoms.

Both work on a *masked* copy of the text in which code, quotes, URLs, paths and dotted
names are replaced by opaque placeholders, so "I" inside a quote, a semicolon inside code or
the dot of `v1.2` never moves. Both are conservative: when in doubt, leave the text as it is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mnemex.engine.write.observe.known_names import NAMES, normalise_surface

_OPEN, _CLOSE = "\ue000", "\ue001"
_PROTECTED = re.compile(
    r"```[\s\S]*?```"                                   # fenced code
    r"|`[^`\n]+`"                                       # inline code
    r"|\"[^\"\n]*\"|“[^”\n]*”"                          # double quotes
    r"|(?<![\w])'[^'\n]+'(?![\w])"                      # single quotes, not apostrophes
    r"|\b[a-z][a-z0-9+.\-]*://\S*[^\s.,;:!?)\]]"        # URLs, without a closing period
    r"|[A-Za-z]:\\\S*[^\s.,;:!?)]"                      # Windows paths
    r"|(?<![\w])[\w.~\-@]{0,200}/[\w./~\-@]*"           # paths, "I/O", "and/or" (bounded: no O(n^2))
    r"|\b(?:e\.g|i\.e|etc|vs|approx|cf|Dr|Mr|Mrs|Ms|No|Inc|Ltd|Corp)\."  # abbreviations
    r"|\b[\w\-]+(?:\.[\w\-]+)+"                         # dotted: v1.2.3, node.js, os.path, 3.5
)


@dataclass(frozen=True, slots=True)
class Masked:
    """`text` with protected spans replaced by numbered placeholders; `restore` undoes it."""

    text: str
    spans: tuple[str, ...]

    def restore(self, text: str) -> str:
        return re.sub(f"{_OPEN}(\\d+){_CLOSE}", lambda m: self.spans[int(m.group(1))], text)


def mask(text: str) -> Masked:
    spans: list[str] = []

    def hold(m: re.Match[str]) -> str:
        spans.append(m.group())
        return f"{_OPEN}{len(spans) - 1}{_CLOSE}"

    return Masked(_PROTECTED.sub(hold, text), tuple(spans))


# ------------------------------------------------------------- third person
_MODALS = frozenset({"can", "could", "will", "would", "shall", "should", "must", "may", "might", "did",
                     "was", "were", "had", "am", "cannot", "can't", "won't", "wouldn't", "shouldn't",
                     "couldn't", "didn't", "wasn't", "weren't", "hadn't", "ought"})
#: Present-tense verbs that end like a past form ("we need" -> "the team needs", not "need").
_PRESENT_ED = frozenset({"need", "feed", "seed", "proceed", "succeed", "exceed", "speed", "breed", "bleed", "heed",
                         "embed", "shed", "shred"})
_ADVERBS = ("really|also|usually|always|never|still|just|generally|strongly|personally|definitely|often|"
            "sometimes|rarely|mostly|only|actually|normally|typically|mainly|already|now|currently|no longer")
_IRREGULAR = {"have": "has", "do": "does", "go": "goes", "be": "is", "are": "is"}
_PAST_IRREGULAR = frozenset({"chose", "went", "made", "took", "wrote", "ran", "found", "saw", "got", "had", "did",
                             "set", "put", "built", "kept", "left", "broke", "thought", "said", "told", "knew",
                             "began", "forgot", "meant", "spent", "lost", "sent", "read", "hit", "cut", "let"})
_I_FORMS = (("I'm|I am", "User is"), ("I've|I have", "User has"), ("I'd", "User would"), ("I'll", "User will"))


def third_person_verb(verb: str) -> str:
    """The he/she/it form of a present-tense verb: prefer -> prefers, do -> does, try -> tries;
    past forms and modals stay as they are."""
    low = verb.lower()
    if (low in _MODALS or low in _PAST_IRREGULAR or (low.endswith("ed") and low not in _PRESENT_ED)
            or not verb.isalpha() or not verb.islower()):
        return verb
    if low in _IRREGULAR:
        return _IRREGULAR[low]
    if re.search(r"(?:s|sh|ch|x|z|o)$", low):
        return verb + "es"
    if re.search(r"[^aeiou]y$", low):
        return verb[:-1] + "ies"
    return verb + "s"


def _subject(words: str, match: re.Match[str]) -> str:
    """`words` capitalised when the match starts a sentence or a line, else lower case."""
    before = match.string[:match.start()]
    head = re.sub(r"[\s*_>•\-]+$", "", before)
    starts = not head or head[-1] in ".!?:" or "\n" in before[len(head):]
    return words[0].upper() + words[1:] if starts else words[0].lower() + words[1:]


def _agree(m: re.Match[str], subject: str) -> str:
    adverb, negation = m.group("adv") or "", m.group("neg")
    if negation:
        return f"{subject} {adverb}{'does not' if negation == 'do not' else 'doesn' + chr(39) + 't'}"
    verb = m.group("verb")
    if verb.lower() == "need" and re.match(r"\s+not\b", m.string[m.end():]):
        return f"{subject} {adverb}{verb}"  # "need not": the modal stays
    return f"{subject} {adverb}{third_person_verb(verb)}"


_I_CONTRACTED = [(re.compile(rf"\b(?:{p})\b"), r) for p, r in _I_FORMS]
_I_VERB = re.compile(rf"\bI (?P<adv>(?:(?:{_ADVERBS}) )?)(?:(?P<neg>don't|do not)|(?P<verb>[a-z]+))\b")
_I_ALONE = re.compile(r"\bI\b(?!['’/.])")
_MY = re.compile(r"\b[Mm]y\b|\bmine\b")
_ME = re.compile(r"(?<![\w'-])(?:me|myself)\b")
_WE_CONTRACTED = [(re.compile(rf"(?i)\b(?:{p})\b"), r) for p, r in (
    (r"we're|we are", "the team is"), (r"we've|we have", "the team has"), (r"we'd", "the team would"),
    (r"we'll", "the team will"), (r"we were", "the team was"))]
_WE_VERB = re.compile(rf"(?i)\bwe (?P<adv>(?:(?:{_ADVERBS}) )?)(?:(?P<neg>don't|do not)|(?P<verb>[a-z]+))\b")
_WE_ALONE = re.compile(r"(?i)\bwe\b")
_OUR = re.compile(r"(?i)\bours?\b")
_US = re.compile(r"(?<![\w-])(?:us|ourselves)(?![\w-])")


def to_third_person(text: str) -> str:
    """`text` told about the user and the team instead of by them: "I prefer tabs" ->
    "User prefers tabs", "my editor" -> "User's editor", "we use" -> "The team uses".
    Quotes and code are left alone."""
    masked = mask(text)
    out = masked.text
    for pattern, repl in _I_CONTRACTED:
        out = pattern.sub(repl, out)
    out = _I_VERB.sub(lambda m: _agree(m, "User"), out)
    out = _I_ALONE.sub("User", out)
    out = _MY.sub("User's", out)
    out = _ME.sub("User", out)
    for pattern, repl in _WE_CONTRACTED:
        out = pattern.sub(lambda m, r=repl: _subject(r, m), out)
    out = _WE_VERB.sub(lambda m: _agree(m, _subject("the team", m)), out)
    out = _WE_ALONE.sub(lambda m: _subject("the team", m), out)
    out = _OUR.sub(lambda m: _subject("the team's", m), out)
    out = _US.sub("the team", out)
    return masked.restore(out)


# -------------------------------------------------------------- atomisation
_SENTENCE_END = re.compile(r"((?<=[.!?])\s+(?=\S)|;\s+)")  # captured: a part leaning back keeps its separator
# A part that only makes sense with the one before it: opens on a pronoun ("It listens on 8080"),
# or names its thing "them" or, right after a verb, "it" ("ask them before changing its API", "run it
# nightly"). Cut off, it is a claim about nothing: it stays with the part it points back to.
_LEANS_BACK = re.compile(r"(?i)^(?:it|its|it's|they|they're|their|them|he|she|his|her|this|that|these|those)\b"
                         r"|\bthem\b|^[a-z]+ it\b")
_LIST_MARKER = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
_AND = re.compile(r",?\s+and\s+")
_VERBS = frozenset((
    "is are was were be been runs run uses use used has have had needs need lives live goes go should must will "
    "can does do listens deploys deploy requires require depends depend returns return calls call points point "
    "holds hold stores store prefers prefer likes like wants want handles handle serves serve sends send reads "
    "read writes write builds build fails fail breaks break works work sits stays stay owns own contains contain "
    "expects expect takes take gets get keeps keep supports support expires expire starts start ends end lives "
    "moved moves migrated switched replaced stopped talks connects connect "
    "i'm we're it's they're he's she's that's i've we've they've i'll we'll it'll they'll i'd we'd"
).split())
_SUBJECT_START = re.compile(r"^(?:(?i:the|a|an|our|my|their|its|this|that|these|those|we|i|they|it|he|she|user)\b|"
                            r"[A-Z][\w.\-]*\b|" + _OPEN + r"\d+" + _CLOSE + ")")
_KEEP_LOWER = re.compile(r"^(?:[a-z]+[\d_./(\-]|" + _OPEN + ")")


def _words(clause: str) -> list[str]:
    return re.findall(r"[A-Za-z']+", clause.lower())


def _is_clause(clause: str, *, needs_subject: bool) -> bool:
    words = _words(clause)
    if needs_subject:
        return bool(_SUBJECT_START.match(clause.strip())) and any(w in _VERBS for w in words[:5])
    return any(w in _VERBS for w in words)


def _split_and(sentence: str) -> list[str]:
    """Split "A and B" only where both sides are clauses with their own verb; "Postgres and
    Redis" or "reads and writes files" stay whole."""
    parts = _AND.split(sentence)
    if len(parts) < 2:
        return [sentence]
    out = [parts[0]]
    for part in parts[1:]:
        if _is_clause(out[-1], needs_subject=False) and _is_clause(part, needs_subject=True):
            out.append(part)
        else:
            out[-1] = f"{out[-1]} and {part}"
    return out


def _tidy(atom: str, masked: Masked) -> str:
    atom = atom.strip().rstrip(";,").strip()
    if atom and atom[0].islower() and not _KEEP_LOWER.match(atom) and not _is_code_word(atom.split()[0]):
        atom = atom[0].upper() + atom[1:]
    if atom and (atom[-1].isalnum() or atom[-1] in ")%"):
        atom += "."
    return masked.restore(atom)


def _is_code_word(word: str) -> bool:
    return NAMES.get(normalise_surface(word), ("", ""))[0] == "tool"


def split_atoms(text: str) -> tuple[str, ...]:
    """The separate claims in `text`: sentences, `;`-parts and lines, then "A and B" where both
    sides are full clauses. Code, quotes, paths and dotted names are never cut."""
    masked = mask(text)
    atoms: list[str] = []
    for line in masked.text.splitlines():
        pieces = _SENTENCE_END.split(_LIST_MARKER.sub("", line))
        parts: list[str] = []
        for sentence, sep in zip(pieces[::2], ["", *pieces[1::2]]):  # sep: what came before the sentence
            for part in _split_and(sentence) if sentence.strip() else ():
                if parts and _LEANS_BACK.search(part.strip()):
                    parts[-1] = f"{parts[-1]}{sep}{part}"
                else:
                    parts.append(part)
                sep = " and "
        atoms.extend(a for a in (_tidy(part, masked) for part in parts) if a)
    return tuple(atoms) or (text.strip(),)
