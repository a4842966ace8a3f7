"""Chatter: the lines of a working conversation that carry no knowledge — an acknowledgement
("ok, thanks", "sounds good, go ahead"), a greeting or a sign-off, who is out or asked what, or
the speaker narrating what they are doing right now ("let me check the logs first", "reading
through the billing code to get oriented", "looks flaky, re-running"), a request to do the last
thing again ("can you re-run that?"), a slip owned ("sorry, typo"), a short hunch ("I think the
test in X is wrong, not the code"), a proposal to talk or pair some other time ("let's pair on the
importer later with Dana"), or the speaker's own branch housekeeping ("the retry branch is getting
long, will rebase").

Stored like any statement (nothing is dropped), they are flagged: their importance is lowered as
other noise's is, and the lifecycle treats them as records of a moment — never rehearsed, never
promoted, dormant once nobody recalled them for a week (`forgetting.record_kinds`,
`record_idle_days`). Left alone, a year of them is strengthened by repetition like knowledge, and pushes decisions out of the top
results (`benchmarks/lifecycle_year.py`).

The rules keep a line that may hold knowledge: a number, a path, a flag, a version, an
assignment or inline code, a sentence after the opener that states something ("ok, the staging
database moved to eu-west-1"), or more than `MAX_WORDS` words is never chatter. One exception for
paths: the speaker saying which file they are reading right now ("let me read src/app/main.py to
understand the flow", "opened services/api/routes.py, nothing to change") names the file as the
object of the reading and states nothing about it — an agent writes one such line before most of
its reads. A path that is not what is being read ("reading settings from config.toml"), or anything
said after it ("checked src/db.py, the pool is too small"), keeps the line.
"""

from __future__ import annotations

import re

#: Longer lines are not chatter: they have room for knowledge.
MAX_WORDS = 14

_I = re.IGNORECASE
# an acknowledgement, greeting, apology or sign-off opening the line
_OPENER = re.compile(
    r"^\W*(?:ok(?:ay)?|k|kk|thanks?|thank you|thx|ty|cheers|sounds good|sgtm|lgtm|nice|great|cool|perfect|"
    r"awesome|sure|yep|yup|yeah|yes|no worries|np|got it|will do|noted|hm+|wait|sorry|oops|whoops|ugh|"
    r"argh|lol|haha|good (?:morning|afternoon|evening|night)|morning|hi|hey|hello|bye|brb|afk|back|"
    r"done for (?:today|the day|now|tonight))\b", _I)
# the speaker narrating the moment
_NARRATION = re.compile(
    r"^\W*(?:let me|lemme|let's see|i'?m (?:going to|gonna|about to|looking|checking|reading|trying|"
    r"still)|i'?ll (?:look|check|have a look|take a look|get back|ping|circle back|pick (?:it|this|that) up)|"
    r"(?:now |still )?(?:reading|looking|checking|opened|opening|trying|re-?trying|re-?running|rerunning|continuing|"
    r"poking|digging|skimming|browsing|picking (?:up|it up|this up)|starting (?:on|with)|heading (?:out|off)|"
    r"grabbing)\b|(?:coffee|lunch|meeting)\b|be right back|stepping away|"
    r"ignore (?:that|this|the (?:previous|last)|my (?:previous|last)))", _I)
# who is out, who said hello, who asked what
_SOCIAL = re.compile(
    r"\b(?:asked (?:whether|if|about|me|us|for an update)|says? hi|said hi|say hi)\b"
    r"|^\W*(?-i:[A-Z][a-z]+|[Hh]e|[Ss]he|[Tt]hey|I|[Ww]e)(?: is| are|'s|'re| am|'m) (?:out|off|away) "
    r"(?:today|this week|tomorrow|until \w+)|\bis (?:sick|on (?:leave|vacation|holiday|pto))\b", _I)
# a proposal to work or talk together some other time: "let's pair on the importer later with Dana",
# "can we sync up about the release tomorrow?" (not "let's use X", a decision, nor "we sync the
# replicas nightly": the verb must be followed by who, when or what about)
_COORDINATION = re.compile(
    r"^\W*(?:let'?s|let us|can we|could we|shall we|maybe we can|we can)\s+"
    r"(?:pair|sync|chat|talk|catch up|meet|hop on a call|jump on a call|discuss|go over|walk through)"
    r"\s+(?:up\b|on\b|about\b|later\b|tomorrow\b|with\b|after\b|next\b|today\b|this\s+(?:afternoon|week)\b|"
    r"it\b|this\b|that\b)", _I)
# the speaker's own branch housekeeping: "the retry branch is getting long, will rebase", "gonna
# squash these" (not "always rebase before merging", a rule, nor "the bot runs nightly and will
# rebase open PRs", a fact: the speaker's intention only, opening the line or a clause of its own)
_HOUSEKEEPING = re.compile(
    r"\bbranch (?:is )?getting (?:long|big|large|stale|old|messy)\b"
    r"|(?:^\W*|,\s*)(?:i'?ll|will|gonna|going to|about to)\s+(?:rebase|squash)\b", _I)
# a line with any of these may hold knowledge: a number (a digit inside a name that starts with a
# letter is the name's: i18n-service, k8s, s3, oauth2, the tax-rules-2026 ticket), inline code, a
# path, a flag, a dotted name
_KNOWLEDGE = re.compile(r"(?<![\w-])\d|`|[/\\=]|(?<!\w)--?\w|\w\.\w|\w_\w|[A-Z]{2,}")
# what may follow an opener and still say nothing: a remark on "that", a go-ahead, the speaker's next move
_AFTER_OPENER = re.compile(
    r"^(?:that|it|this|those|go ahead\s*[.!]?$|see you|talk (?:to you )?(?:later|tomorrow)|my (?:bad|mistake)|"
    r"not yet|never ?mind|nvm|one (?:sec|second|moment|min)|hold on|"
    r"(?:a )?typo(?: in (?:my|the) (?:last|previous) (?:message|comment|reply))?\s*[.!]?$|"
    r"wrong (?:window|chat|tab|channel|thread|terminal|branch|paste)\s*[.!]?$|"
    r"will (?:do|check|look|try|pick|continue|resume|finish)|i'?ll (?:check|look|try|be back|continue))\b", _I)
# ... unless it states something ("thanks, that means billing uses Stripe now")
_STATES = re.compile(r"\b(?:means|uses|needs|must|should|runs|lives|moved|changed|replaced|requires|depends)\b", _I)

# a verdict with no subject on how the last run looks, then the speaker's next move: "looks flaky,
# re-running", "seems stuck, retrying" (not "looks like the cache is stale", which says what)
_VERDICT = re.compile(r"^\W*(?:looks|seems|feels|probably|prob|maybe)\s+(?!like\b)\w+(?:\s+\w+)?\s*[,;:.-]+\s*(?P<then>.+)$", _I)
# asking for the last thing to be done again, with nothing named: "can you re-run that?"
_AGAIN = re.compile(r"^\W*(?:can|could|would) you (?:please )?(?:re-?run|retry|try|run|do) (?:that|it|this)"
                    r"(?: (?:again|once more))?(?: please)?\W*$", _I)

# the speaker reading a file now: "let me read X", "opening X", "looked at X" (a bare "read X" or
# "check X" is an instruction and stays knowledge)
_READING = re.compile(
    r"^\W*(?:(?:let me|lemme|i'?ll|i'?m (?:going to|gonna)|first,? i'?ll|now (?:let me|i'?ll))\s+"
    r"(?:read|open|check|look (?:at|into|through)|skim|scan|inspect|go through|have a look at|take a look at)"
    r"|(?:(?:now|first|still)\s+)?(?:reading|opening|opened|looking (?:at|into|through)|looked (?:at|into|through)|"
    r"checking|checked|skimming|skimmed|browsing|scanning|inspecting|going through))"
    r"\s+(?:through\s+)?(?:the (?:file\s+)?)?(?P<path>`?[\w.-]*(?:[/\\][\w.-]+)+/?`?|`?[\w-]+\.[A-Za-z]{1,5}`?)"
    r"(?P<rest>.*)$", _I)
# what may follow the file read and still say nothing: why it is read, or that nothing came of it
_PURPOSE = re.compile(r"^(?:to|for|so (?:i|we) can)\b", _I)
_NOTHING = re.compile(r"^(?:nothing (?:to (?:change|do|fix)|changed|found|there|else|interesting)|no changes?(?: needed)?|"
                      r"looks (?:fine|ok|okay|good)|all (?:fine|good)|first|next|now|again|quickly|real quick)\W*$", _I)


# a hunch: the speaker offers a guess ("I think the test in X is wrong, not the code", "maybe the
# port is wrong"). It asserts nothing yet: a moment of a debugging session, like the narration
_HUNCH = re.compile(r"^\W*(?:(?:i|we|user|the team)\s+(?:think|thinks|guess|guesses|suspect|suspects|wonder|wonders|"
                    r"am not sure|is not sure|feel|feels)\b|maybe\b|perhaps\b|probably\b|possibly\b|"
                    r"not sure\b|might be\b)", _I)


def is_hunch(text: str) -> bool:
    """The line opens on a hedge: the speaker's guess, not a claim."""
    return bool(_HUNCH.match(text))


def is_chatter(text: str) -> bool:
    """True for a line of conversation that carries no knowledge (see the module docstring)."""
    body = text.strip()
    words = body.split()
    if not words or len(words) > MAX_WORDS or "\n" in body:
        return False
    if is_hunch(body):
        return True
    if _KNOWLEDGE.search(body):
        return _reads_a_file(body)
    if _SOCIAL.search(body):
        return True
    if _COORDINATION.match(body) or _HOUSEKEEPING.search(body):
        return not _STATES.search(body)
    if _AGAIN.match(body):
        return True
    verdict = _VERDICT.match(body)
    if verdict and _NARRATION.match(verdict.group("then")):
        return _idle(verdict.group("then"))
    if _NARRATION.match(body):
        # "looking at the logs, the worker runs out of memory" reports a finding after the narration
        _, _, then = body.partition(",")
        return not _STATES.search(body) and (len(then.split()) <= 2 or _idle(then))
    if not _OPENER.match(body):
        return False
    # "ok, thanks", "nice, that fixed it", "hmm, that didn't work", "good morning, continuing with X"
    return _idle(_OPENER.sub("", body, count=1))


def _idle(rest: str) -> bool:
    """What follows an opener or a narration says nothing more: empty, another opener, a remark on
    "that", a go-ahead, or more narration, with nothing stated about anything."""
    rest = rest.strip(" ,.!-:;")
    return not rest or (bool(_OPENER.match(rest) or _NARRATION.match(rest) or _AFTER_OPENER.match(rest))
                        and not _STATES.search(rest))


def _reads_a_file(body: str) -> bool:
    """The speaker names the file they are reading and says nothing about it: each clause after the
    path is why it is read ("to see how the retry works") or that nothing came of it."""
    m = _READING.match(body)
    if m is None:
        return False
    rest = m.group("rest").strip(" .!:;-")
    if _KNOWLEDGE.search(rest) or _STATES.search(rest):
        return False
    clauses = [c.strip(" .!:;-") for c in rest.split(",")]
    return all(not c or _PURPOSE.match(c) or _NOTHING.match(c) or _idle(c) for c in clauses)
