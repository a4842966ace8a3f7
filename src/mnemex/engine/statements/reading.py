"""One reading of a statement: what it is about, which values it asserts, and which it leaves behind.

`read(text, entities)` returns a `Statement`: the keys of what it is about (code names, paths,
proper names and entity names, and the stems of its other content words), its values (numbers
with their units, versions, ports), its change cues ("renamed", "moved to", "no longer", "now"),
the terms it names as left behind ("from X to Y", "instead of X", "replaced X with", "X was
renamed", "the old X", "X is deprecated") and the terms of a clause that only gives a reason
("because 8443 clashed with the proxy"). Pure and deterministic: the write path's gate and the
read path's resolution read statements the same way, so they agree on what "the same subject"
and "a changed value" mean.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

# ------------------------------------------------------------------ vocabulary
STOP = frozenset("""
a an the and or but if then so of to in on at by for with from as into onto over under about via per
is are was were be been being am it its this that these those there here we our us i me my you your they
them their he she his her which who whom what when where why how all any some each every both either
do does did done has have had having can could will would shall should may might must also too very just
only own same such than once yet etc via per while until unless whether up down out off
""".split())
#: Words that say nothing about which setting or component a statement describes.
_GENERIC_WORDS = ("""
now also still currently new old previous former anymore any more longer instead rather again just
default value setting config configuration configured option thing way part case time
work working worked run running ran go going went live living sit stay remain need needed require required
handle happen done reminder note remember fyi use used using get got set make made keep kept let
team user people someone anyone today yesterday week month year sprint quarter last next first each other off
please always never not no nothing none only never ever
based backed powered driven
""".split())
_UNITS = {
    "ms": "ms", "millisecond": "ms", "milliseconds": "ms",
    "s": "s", "sec": "s", "secs": "s", "second": "s", "seconds": "s",
    "min": "min", "mins": "min", "minute": "min", "minutes": "min",
    "h": "h", "hr": "h", "hrs": "h", "hour": "h", "hours": "h",
    "d": "d", "day": "d", "days": "d", "wk": "wk", "week": "wk", "weeks": "wk",
    "mo": "mo", "month": "mo", "months": "mo", "yr": "yr", "year": "yr", "years": "yr",
    "b": "b", "kb": "kb", "mb": "mb", "gb": "gb", "tb": "tb", "kib": "kb", "mib": "mb", "gib": "gb",
    "%": "%", "percent": "%", "x": "x", "rps": "rps", "qps": "qps",
}
_DURATION = frozenset({"ms", "s", "min", "h", "d", "wk", "mo", "yr"})
_SIZE = frozenset({"b", "kb", "mb", "gb", "tb"})
#: Stems of the words change cues are made of: evidence of a change, never what a statement is about.
CUE_STEMS = frozenset("""
sinc after follow start begin effect reorg
renam replac switch migrat mov deprecat remov retir decommission sunset dropp ditch abandon scrapp kill
disabl delet paus turn shut instead rather favour favor place formerly previously originally chang updat bump
upgrad downgrad rais lower increas decreas reduc extend shorten relax tighten doubl halv cut now nowadays
going forward latest current currently old previous former legacy outdat obsolet actually correction
wrong incorrect mistaken enabl reenabl reinstat restor brought back longer anymore more lift
""".split())


# ------------------------------------------------------------------ patterns
_CODE_SPAN = re.compile(r"`([^`\n]+)`")
_CODE_GLUED = re.compile(r"(?<=[^`\s])`-(?=[A-Za-z])")
_QUOTED = re.compile(r"\"([^\"\n]{1,80})\"|“([^”\n]{1,80})”|(?<![\w])'([^'\n]{2,80})'(?![\w])")
_URL = re.compile(r"\b[a-z][a-z0-9+.\-]*://[^\s`'\"<>)]+", re.I)
_ASSIGN = re.compile(r"(?<![\w.-])([A-Za-z_][A-Za-z0-9_.-]*)=(\S+?)(?=[\s,;)]|$|\.(?:\s|$))")
_COMPOUND = re.compile(r"(?<![\w./@#-])(?:[~.]{0,2}/)?[A-Za-z0-9_@]+(?:[_./:-][A-Za-z0-9_@]+)+/?")
_CAMEL = re.compile(r"\b[A-Za-z_][a-z0-9_]*[a-z0-9][A-Z][A-Za-z0-9_]*\b|\b[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*\b")
_CONSTANT = re.compile(r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b|\b[A-Z]{2,}[0-9]*\b")
#: "two-week", "on-call", "read-only": prose, not a name (a kebab name has 3+ parts or a digit, or is in code)
_PROSE_COMPOUND = re.compile(r"(?<![\w./@#-])[a-z]+-[a-z]+(?![\w./@-])")
#: "Postgres-based", "Kafka-backed", "ARM-only": a name described, not a kebab-case name (its first part is the name)
_DESCRIBED = re.compile(r"(?<![\w./@#-])([A-Za-z][A-Za-z0-9]*)-(based|backed|driven|powered|only|like|friendly|aware|"
                        r"native|compatible|specific|hosted|managed|enabled|free|safe|heavy|centric|first)(?![\w/@-]|\.\w)")
_ALNUM = re.compile(r"\b[A-Za-z]+[0-9][A-Za-z0-9]*\b")  # flake8, python3, x265, h264
_MARKED = re.compile(r"(?<![\w])(?:--?[a-z][\w-]*|#[a-z][\w-]+|@[a-z][\w.-]+)")
_PROPER = re.compile(r"(?<=[a-z0-9,;:)] )[A-Z][a-zA-Z0-9]+(?:[ -][A-Z][a-zA-Z0-9]+)*")
_TIME = re.compile(r"\b(\d{1,2}):(\d{2})\s*(am|pm|utc|z)?\b", re.I)
_NUMBER = re.compile(r"(?<![\w.])(v?)(\d+(?:[.,]\d+)*)(?:\s?(%|[a-zA-Z]{1,12})\b)?")
_VERSIONED = re.compile(r"\b([A-Za-z][A-Za-z+]*?)[ -]v?(\d+(?:\.\d+)+|\d{1,3})\b(?!\d|\.\d|\s?(?:%|[a-zA-Z]))")
_NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
                 "ten": 10, "twelve": 12, "fifteen": 15, "twenty": 20, "thirty": 30, "sixty": 60, "ninety": 90,
                 "hundred": 100, "single": 1, "twice": 2}
_NUMBER_WORD = re.compile(r"\b(" + "|".join(_NUMBER_WORDS) + r")\b(?=\s+[a-z])", re.I)
#: "the biggest one seats 2,400", "this one", "which one": "one" stands for a thing, it counts nothing.
_PRONOUN_ONE = re.compile(r"\b(?:the|this|that|which|each|every|any|another|its|our|their|your|my)(?:\s+[a-z]+)?\s+$", re.I)
_WORD = re.compile(r"[a-z][a-z0-9'+-]*[a-z0-9+]|[a-z]")
_COMMON_CAPS = frozenset({"API", "APIS", "URL", "URLS", "HTTP", "HTTPS", "JSON", "YAML", "TOML", "CSV", "SQL", "CLI",
                          "SDK", "PR", "PRS", "CI", "CD", "UI", "UX", "DB", "ID", "IDS", "TODO", "NOTE", "README",
                          "AND", "THE", "NOT", "FOR", "USE", "MUST", "NEVER", "ALWAYS", "ONLY", "UTC", "AM", "PM",
                          "OK", "IMPORTANT", "NO", "DO", "IS", "IN", "ON", "IT", "E2E"})

#: A cue word that says nothing changed ("nothing changed", "not moved", "unchanged").
_NOT_A_CHANGE = re.compile(r"\b(?:nothing|not|never|no|hasn'?t|haven'?t|didn'?t|wasn'?t|isn'?t)\s+(?:\w+\s+)?"
                           r"(?:changed|moved|switched|replaced|renamed|migrated|updated)\b|\bunchanged\b"
                           # a warning not to change it: "don't switch it to CSV", "never move it off S3"
                           r"|\b(?:don'?t|do not|never|shouldn'?t|should not|must not|mustn'?t|no need to)\s+(?:ever\s+)?"
                           r"(?:change|move|switch|replace|rename|migrate|swap|drop|remove)\b", re.I)
#: A word of change that tells no change that happened: a habit in the present ("versionCode is
#: bumped remotely", "prices are raised every January"; not "is raised to 30", "is now bumped"), or a
#: participle that qualifies a noun ("plus EKS extended support", "with reduced motion").
_NO_EVENT = re.compile(r"(?i:\b(?:is|are|gets?)\s+(?:\w+ly\s+)?(?:changed|bumped|raised|lowered|increased|decreased|"
                       r"reduced|extended|shortened|relaxed|tightened|doubled|halved|upgraded|downgraded)\b"
                       r"(?!\s+(?:[\w`.-]+\s+){0,3}?(?:to|from|up|down)\b|\s+by\s+v?\d))"
                       # what can be done ("a stream can be paused by the payer"), how it is done ("verbose
                       # logging is turned on with ANVIL_LOG=debug")
                       # ... or must be done ("a fact that must be bumped with any rule change", "the pin has
                       # to be upgraded with the SDK"): a rule, not a change that happened
                       r"|(?i:\b(?:can|could|may|might|must|should|needs? to|has to|have to)\s+(?:\w+ly\s+)?be\s+"
                       r"(?:paused|disabled|turned (?:on|off)|switched (?:on|off)|removed|dropped|replaced|moved|renamed|"
                       r"changed|bumped|upgraded|downgraded|updated|raised|lowered|extended|shortened|increased|"
                       r"decreased|reduced|relaxed|tightened|doubled|halved)\b)"
                       r"|(?i:\b(?:is|are)\s+(?:turned|switched)\s+(?:on|off)\s+(?:with|by|via|through|using)\b)"
                       # what happens to any one of a kind ("a loom that gets moved to another hall is given
                       # a new ID", "if a host is renamed, ..."): a rule, not a change that happened
                       r"|(?i:\b(?:that|which|whenever|when|if|once)\s+(?:\w+\s+){0,2}?(?:gets?|is|are)\s+(?:\w+ly\s+)?"
                       r"(?:moved|renamed|replaced|migrated|switched)\b)"
                       # a state it is kept in ("Kiosks have Bluetooth disabled in the kernel config")
                       r"|(?i:\b(?:has|have|with)\s+(?!(?:been|now|just|recently|since)\b)(?:[\w-]+\s+){1,3}?disabled\b)"
                       # what a retention rule does ("retained for 45 days, then dropped by the table TTL",
                       # "raw files are deleted after 30 days"): a lifecycle, not a change that happened
                       r"|(?i:\bthen\s+(?:gets?\s+|is\s+|are\s+)?(?:dropped|deleted|removed|purged|expired|discarded)\b)"
                       r"|(?i:\b(?:dropped|deleted|removed|purged|expired|discarded)\s+after\s+(?:\d|a |an |one ))"
                       # a state on a condition ("nothing accrues while paused")
                       r"|(?i:\b(?:while|when|whenever|if|once|unless)\s+(?:it\s+is\s+|they\s+are\s+)?(?:paused|disabled|"
                       r"turned off|switched off|suspended)\b)"
                       # a default ("telemetry is disabled by default"): how it ships, not a switch-off
                       r"|(?i:\b(?:disabled|switched off|turned off) by default\b)"
                       # ... or put after it ("the shortcut is disabled when another app claims it")
                       r"|(?i:\b(?:is|are|gets?)\s+(?:\w+ly\s+)?(?:paused|disabled|turned off|switched off|suspended)"
                       r"\s+(?:when|whenever|if|unless)\b)"
                       # the name before it in capitals, the noun after it in lower case: "EKS extended support"
                       r"|(?i:\b(?:with|plus|for|of|the|a|an|under|on))\s+(?:[A-Z][\w-]*\s+)?(?i:extended|reduced|"
                       r"increased|decreased|raised|lowered|shortened|changed|upgraded)\s+"
                       r"(?!(?:to|from|by|the|it|them|our|its|their|a|an)\b|\d)[a-z]+\b")
#: A name joined by dashes or underscores ("tariff-changed", "moved_at"): a cue word in it says no change
#: ("re-enabled" is a word, not a name).
_IN_A_NAME = re.compile(r"\b(?![Rr]e-)[A-Za-z0-9]+(?:[-_][A-Za-z0-9]+)+\b")
#: "too" adds only where a clause ends ("staging gets a copy too", "X, too, ..."), not before what it
#: qualifies ("too easily confused", "too slow").
_ADDITIVE = re.compile(r"\btoo\b(?=\s*(?:[,.;:!?)—]|$|and\b|but\b|so\b|now\b))|"
                       # (not inside a relative clause: "replaced by X, which also tracks returns" says
                       # what X does, it adds nothing to another statement)
                       r"(?<!\bwhich )(?<!\bthat )(?<!\bwho )\b(?:also|as well(?! as)|in addition|additionally|"
                       r"likewise|on top of|(?:besides|apart from|aside from|other than) (?:that|this)\b(?! \w))\b"
                       r"|^\W*(?:more|one more thing|a bit more) (?:on|about)\b[^.;:]{1,60}:", re.I)
_RESTATING = re.compile(r"\b(?:still|as before|as always|as (?:(?:I|we) )?(?:noted|mentioned|agreed|said)(?: (?:before|earlier|above|previously))?|reminder|nothing changed|"
                        r"unchanged|remains?|continues? to|to repeat|again:|same as before|for the record|"
                        r"(?:just )?to restate|restating|as a reminder|once more)\b", re.I)

_ENTITY_SHAPES = {"file": "location", "host": "location", "function": "code", "class": "code", "module": "code"}

#: Verbs a developer's statement turns on: the subject comes before the first of them.
_VERBS = frozenset("""
is are was were be been being am 's has have had do does did uses use used runs run ran lives live goes go went
points point sends send sent posts post listens listen serves serve holds hold stores store keeps keep kept needs
need requires require takes take took returns return calls call reads read writes write deploys deploy publishes
publish handles handle owns own gets get got pages page expires expire retries retry caps allows allow accepts
accept starts start builds build built pushes push pulls pull syncs sync lets let makes make made emits emit sits
sit talks talk connects connect depends depend waits wait times out fails fail breaks break works work checks
check validates validate sends ships ship logs log exports export imports import generates generate creates
create supports support expects expect limits limit rejects reject drops drop lands land triggers trigger
moved move moves switched switch migrated migrate replaced replace renamed rename deprecated removed retired
disabled changed bumped raised lowered increased decreased reduced extended cut got became become stays stay
merged merge stopped stop turned gave give set rewrote rewrite ported folded split added add enabled lifted
exposes expose mints mint wraps wrap solves solve schedules schedule caches cache indexes index consumes consume
produces produce binds bind owns routes route renders render stores signs sign verifies verify applies apply
maintains maintain maintained looks manages manage managed approves approve answers
must should will can may might could would shall cannot can't won't doesn't don't isn't aren't wasn't
""".split())
_PLACE_WORDS = {"prod": "production", "stage": "staging", "stg": "staging", "development": "dev",
                "testing": "test", "europe": "eu", "american": "na", "america": "na", "us": "us"}
_PLACE = re.compile(r"\b(production|prod|staging|stage|stg|dev|development|local|ci|qa|preview|sandbox|canary|demo|"
                    r"EU|NA|US|APAC|EMEA|LATAM|europe|ios|android|web|desktop|windows|macos|linux|chrome|firefox|"
                    r"safari|edge)\b", re.I)

#: A one-off event a state holds since ("after the OT network renumbering", "after the OpenShift move").
_ONE_OFF = (r"(?:reorg|re-?org(?:anisation|anization)?|migration|cutover|renumbering|consolidation|outage|incident|"
            r"rewrite|overhaul|redesign|merger|audit|refactor(?:ing)?|restructur(?:e|ing)|clean-?up|move|reshuffle)")

#: Change cues and how much each says by itself (1 = the statement says outright that something changed).
_CUES = tuple((re.compile(rx, re.I), strength, label) for rx, strength, label in (
    (r"\brenam(?:e|ed|es|ing)\b", 1.0, "renamed"),
    (r"\breplac(?:e|ed|es|ing|ement)\b", 1.0, "replaced"),
    # the noun ("a separate switch: X=1", "the kill switch") is no change: bare "switch" needs a
    # direction or a particle ("switch to", "switch off the cron")
    (r"\bswitch(?:ed|ing)\b(?! (?:case|statement))|\bswitch(?:es)?\b(?= (?:\S+ )?(?:to|from|over|back|away|off|on|up|out)\b)",
     1.0, "switched"),
    (r"\bmigrat(?:e|ed|es|ing|ion)\b(?: \S+){0,4}? (?:to|from|off|away|onto)\b", 1.0, "migrated"),
    (r"\bmov(?:e|ed|es|ing)\b (?:[\w`.-]+ ){0,3}?(?:to|from|off|over|away|out|into|onto|back)\b", 1.0, "moved"),
    (r"\bdeprecat(?:e|ed|es|ing)\b", 1.0, "deprecated"),
    (r"\b(?:removed|retired|decommissioned|sunset|dropped|ditched|abandoned|scrapped|killed)\b"
     r"|\b(?:was|were|has been|have been|got|is now|are now) deleted\b|\bdeleted (?:the|our|its|it|them)\b", 0.9, "removed"),
    (r"\b(?:disabled|switched off|turned off|shut (?:down|off)|paused)\b|\b(?:stopped|stop) (?:\w+ing|using|doing)\b",
     0.9, "disabled"),
    (r"\bno longer\b|\bnot any ?more\b|\bany ?more\b", 1.0, "no longer"),
    # "No more Nx.", "X is gone", "the shared key was revoked", "the provider is retiring it"
    (r"\bno more\b(?! than\b)|\b(?:is|are|was|were|has been|have been) (?:now )?gone\b|\b(?:revoked|retiring|phased out)\b",
     0.9, "no longer"),
    (r"\binstead of\b|\brather than\b|\bin favou?r of\b|\bin place of\b", 1.0, "instead of"),
    # "publish to `claims.v1` instead", "use Vite instead": the alternative is the older statement's
    (r"\binstead\b(?! of\b)", 0.5, "instead"),
    (r"\bswap(?:s|ped|ping)?\b (?:[\w`./@-]+ ){1,4}?(?:out )?(?:for|with)\b", 1.0, "replaced"),
    (r"\bused to\b|\bformerly\b|\bpreviously\b|\boriginally\b", 1.0, "used to"),
    (r"\b(?:left|leaving|leaves) (?:[\w`.-]+ ){1,4}?behind\b", 0.9, "left behind"),
    # not when a verb stands between: "Exceptions from permits-api are reported to X" says where
    # the subject comes from, and the verb where it goes
    (r"\bfrom\b (?:(?!\b(?:is|are|was|were|gets?|got|goes|go|went|flows?|lands?|ends? up|has|have|had|needs?|must|"
     r"should|ought|wants?|able|going)\b)[^.;,]){1,60}? \bto\b",
     0.7, "from X to Y"),
    (r"(?:->|→|=>)", 0.9, "arrow"),
    (r"\b(?:changed|bumped|upgraded|downgraded|raised|lowered|increased|decreased|reduced|"
     r"extended|shortened|relaxed|tightened|doubled|halved)\b"
     # "Set X to 30", "we gave X 20 slots": someone changed it (not "X is set to 3", a description)
     r"|(?:^|[.;:!?—–]\s*|\b(?:we|I|they|the team|someone) )(?:set|gave) (?:[\w`.-]+ ){0,4}?(?:to |at )?v?\d"
     # a value said to have moved: "went up to 10,000", "grew to 40 GB", "cut the timeout to 8 seconds"
     r"|\b(?:went|goes|gone) (?:up|down) (?:to|from)\b|\b(?:grew|rose|climbed|fell) (?:to|from)\b"
     r"|\bcut (?:[\w`.-]+ ){0,4}?(?:to|down to) v?\d",
     0.8, "changed"),
    # "now" says a state holds from now on; "checked it just now", "until now", "by now" say when
    # ("the Sync Now button": a capitalised "Now" after a capitalised word is part of a label)
    (r"\b(?:(?<!\bjust )(?<!\buntil )(?<!\btill )(?<!\bup to )(?<!\bby )(?-i:now|NOW)|(?-i:"
     + "".join(rf"(?<![A-Z][a-z]{{{n}}} )" for n in range(1, 9)) + r"Now)|nowadays|these days|from now on|going forward|"
     r"as of (?:today|now|this \w+|\w+ \d+|v?\d[\w.]*))\b",
     0.5, "now"),
    (r"^\s*(?:since|after|following|from|starting(?: with)?|beginning|effective)\b[^,;:]{1,50},"
     r"|\b(?:since|starting(?: with)?|from) (?:the |this |last |our )?(?:reorg|migration|upgrade|cutover|switch|move|"
     r"refactor(?:ing)?|restructur(?:e|ing)|clean-?up|"
     r"release|rollout|incident|quarter|sprint|week|month|v?\d[\w.]*)\b"
     # a thing named after it is no time ("triggered from the release branch", "from the release workflow")
     r"(?!\s+(?:branch(?:es)?|workflows?|pipelines?|jobs?|notes|candidates?|builds?|tags?|trains?|process|"
     r"checklists?|scripts?|channels?|team|managers?|window|plan)\b)"
     # "after the OT network renumbering", "After the licence consolidation every pipeline ...": a
     # one-off event the state holds since (not "after each release", "after the build": a procedure's step)
     # ("still true after the refactor" says it holds across it, not since)
     r"|(?<!\btrue )(?<!\bcase )(?<!\bholds )(?<!\bvalid )\bafter (?:the |this |last |our )(?:[\w-]+ ){0,3}?" + _ONE_OFF + r"\b", 0.5, "since"),
    (r"\b(?:rewr(?:ote|itten|ites?)|merged (?:\w+ ){0,3}?into|folded into|consolidated into|split (?:out|off) (?:of|from|into)|"
     r"took over|taken over|handed (?:over|off) to|transferred to|reassigned to|ported (?:\w+ )?(?:to|over to|into)|"
     r"scaled (?:[\w`.-]+ ){0,3}?(?:to|up to|down to)|lifted)\b", 0.9, "rewrote"),
    (r"\b(?:gets?|keeps?|receives?|getting|keeping)(?: receiving| getting)? (?:a |an )?(?:[\w-]+ )?"
     r"(?:cc|copy|copies|mirror|duplicates?)\b|\bcc(?:'d|ed)\b|\bstill (?:mirrors|syncs)\b"
     r"|\bonly (?:goes out |comes |is sent |are sent )?as an? (?:daily|weekly|nightly|hourly) (?:digest|summary)\b",
     0.5, "copy kept"),
    (r"\b(?:old|previous|former|legacy|outdated|obsolete)\b", 0.4, "old"),
    (r"\b(?:actually|correction|wrong|incorrect|mistaken)\b", 0.6, "correction"),
    (r"\b(?:re-?enabled|turned (?:back )?on|reinstated|restored(?! from)|brought back|(?:is|are) back\b(?! to)|"
     r"(?:automated|automatic|enabled|running|on) again)\b", 0.8, "re-enabled"),
))
_COPY_KEPT = next(rx for rx, _, label in _CUES if label == "copy kept")
STOPPERS = (r"(?:to|with|by|for|and|but|because|since|so|as|which|after|now|in favou?r|is|are|was|were|until|unless|"
             r"when|while|if|on|in|at|last|this|from|during|before|pending|onto|into)")
_SPAN = (rf"(?P<old>(?!{STOPPERS}\b)(?:`[^`]+`|[^\s,.;:!?()]+(?:[.:][^\s,.;:!?()]+)*)"
         rf"(?:\s+(?!{STOPPERS}\b)(?:`[^`]+`|[^\s,.;:!?()]+)){{0,4}}?)")
_END = rf"(?=\s+{STOPPERS}\b|\s*[,.;:!?()]|\s*$)"
_ART = r"(?:the |a |an |our |its |their |using |running )?(?:old |previous |former |legacy |existing )?"
#: "not even in tests", "not just staging": the negation widens or narrows, it names no alternative.
_NOT_ALTERNATIVE = r"(?!(?:even|just|only|yet|always|ever|quite|necessarily|really|exactly|so|too|very|all|every)\b)"
#: Phrases naming what is left behind; group "old" is the thing that no longer holds.
_LEFT = tuple(re.compile(rx, re.I) for rx in (
    rf"\bfrom {_ART}{_SPAN} (?:to|over to|onto|into)\b",
    rf"\b(?:instead of|rather than|in place of) {_ART}{_SPAN}{_END}",
    rf"\breplac(?:e|ed|es|ing) {_ART}{_SPAN} (?:with|by|for)\b",
    rf"\breplacing {_ART}{_SPAN}{_END}",
    rf"\b{_SPAN} (?:was|is|has been|were|are|got|gets|have been) (?:now )?(?:replaced|superseded|succeeded)\b",
    rf"\brenam(?:e|ed|es|ing) (?:from )?{_ART}{_SPAN} (?:to|as|into)\b",
    rf"\b{_SPAN} (?:was|is|has been|were|are|got) (?:now )?renamed\b",
    rf"\bno longer (?:(?:uses?|runs?|needs?|requires?|goes?|sends?|posts?|lives?|sits?|has|have|is|are|pushed|posted|"
    rf"supports?|calls?|writes?|reads?|depends?|points?) )?(?:on |in |at |to |via |with |through |under |from )?{_ART}{_SPAN}{_END}",
    rf"\bused to (?:be |use |run |live |go |sit |point |call )?(?:on |in |at |to |with |through |via )?{_ART}{_SPAN}{_END}",
    rf"\b(?:formerly|previously|originally) (?:on |in |at |with |using |via )?{_ART}{_SPAN}{_END}",
    # (not a cause: "compiled for Win32 because of the old TWAIN DLL" keeps the DLL)
    rf"(?<!because of )(?<!due to )(?<!thanks to )\b(?:the|our|its) (?:old|previous|former|(?P<legacy>legacy)) {_SPAN}{_END}",
    rf"\b{_SPAN} (?:is|was|has been|are|were|got|gets) (?:now |officially |fully |being )?(?:deprecated|removed|retired|"
    rf"gone|disabled|dropped|switched off|turned off|decommissioned|sunset|obsolete|dead|no longer used|deleted)\b",
    rf"\b(?:dropped|removed|retired|deprecated|disabled|ditched|abandoned|scrapped|killed|decommissioned) {_ART}{_SPAN}{_END}",
    rf"\b(?:mov|migrat|switch)(?:e|ed|es|ing)? (?:\w+ )?(?:off|away from|out of|from) {_ART}{_SPAN}{_END}",
    rf"\b(?:left|leaving|leaves) {_ART}{_SPAN} behind\b",
    rf"\b{_SPAN} (?:still |only |just )?(?:gets?|keeps?|receives?)(?: receiving| getting)? (?:a |an )?(?:[\w-]+ )?"
    rf"(?:cc|copy|copies|mirror|duplicates?)\b",
    rf"\b{_SPAN} (?:now )?only (?:goes out|is sent|are sent|comes|runs) as an? (?:daily|weekly|nightly|hourly) "
    rf"(?:digest|summary)\b",
    rf"\b(?:took|taken|takes|take) over\b[^.;]{{0,80}}? from {_ART}{_SPAN}{_END}",
    rf"\bnot (?:on |in |at |with |using )?{_ART}{_SPAN} any ?more\b",
    # "nobody needs IDz for testing anymore", "we don't use Jest anymore"
    rf"\b(?:nobody|no one|don'?t|do not|doesn'?t|does not) (?:needs?|uses?|runs?|opens?|touch(?:es)?|calls?) "
    rf"{_ART}{_SPAN}(?:{_END}[^.;]{{0,40}}?)?\s+any ?more\b",
    # "nobody releases requests in SE09 for this package anymore": the practice nobody keeps up, its
    # verb with what it is done to ("releases requests"; "deploys permits-api" leaves no permits-api behind;
    # not a verb alone: "nobody refunds from the dashboard" leaves no refunds behind)
    rf"\b(?:nobody|no one) (?!(?:needs?|uses?|runs?|opens?|touch(?:es)?|calls?)\b)(?=[a-z]+s\s+(?!{STOPPERS}\b)\w){_SPAN}"
    rf"(?:{_END}[^.;]{{0,40}}?)?\s+any ?more\b",
    rf"(?:,|;|\(|\bbut|\band)\s*not {_NOT_ALTERNATIVE}{_ART}{_SPAN}{_END}",
    rf"\bnot {_NOT_ALTERNATIVE}{_ART}{_SPAN},? but\b",
    rf"{_SPAN} ?(?:->|→|=>)",
    rf"\b(?:bumped|upgraded|downgraded|raised|lowered|increased|decreased|reduced|extended|shortened|changed|moved) "
    # (not where a thing may be changed from: "setpoints are changed only from the SCADA screens")
    rf"(?!(?:\w+ ){{0,3}}?only from\b)(?:\w+ ){{0,3}}?from {_ART}{_SPAN}{_END}",
    rf"\bswap(?:s|ped|ping)? (?:out )?{_ART}{_SPAN} (?:out )?(?:for|with)\b",
    # a written name said to be another one now: "DATABASE_URL is now ADMIN_CONSOLE_DB_DSN"
    rf"(?P<old>`[^`]+`|\b[A-Za-z][\w.]*[_./-][\w./-]*[A-Za-z0-9]) (?:is|are) now (?:called |named )?"
    rf"(?:`[^`]+`|[A-Za-z][\w.]*[_./-][\w./-]*)",
))
#: The phrases that name the thing left behind as an alternative ("from X to", "instead of X", "replaced X
#: with", "moved off X", "nobody releases X anymore"); `left_bare` takes their span when no article or
#: "old" refers to it instead.
_NAMING = frozenset(_LEFT[i] for i in (0, 1, 2, 3, 13, 20))
#: Phrases saying a job, workflow or habit no longer runs ("deploy-staging.yml is disabled",
#: "turned off the supplier pull cron", "translations:pull has been removed from the scheduler",
#: "no more manual uploads", "stop the Monday CSV uploads"); group "old" is what stopped. What it
#: names is what the older statement is about, not a value of it.
_OFF = tuple(re.compile(rx, re.I) for rx in (
    rf"\b{_SPAN} (?:is|are|was|were|has been|have been|got|gets) (?:now |temporarily |currently |fully )?"
    # a bare "off" only as a switch-off for now ("X is off for now", "X is off during the pilot", "X
    # is off: ..."), not a default ("X is off by default")
    rf"(?:disabled|switched off|turned off|paused|suspended|halted|off (?:for now|for the time being|until|during|while)|"
    rf"off(?=\s*[:;](?:\s|$))|removed|"
    rf"retired|dropped|decommissioned)\b(?! by default\b)",
    rf"\b(?:disabled|switched off|turned off|paused|suspended|halted|removed|retired|dropped|decommissioned) {_ART}{_SPAN}{_END}",
    # "No more manual TestFlight uploads", "Stop the Monday CSV uploads: ..."
    rf"^\W*no more {_ART}{_SPAN}{_END}",
))
#: "Stop X" is a switch-off too, unless the statement is a procedure (`_STEP`): "stop the dev server
#: before running migrations", "stop the seed job first, then reset the database".
_STOPPED = re.compile(rf"^\W*(?:stop|we stopped|stopped) {_ART}{_SPAN}{_END}", re.I)
_STEP = re.compile(r"\b(?:first|then|before|after|once)\b", re.I)
_REFERRING = re.compile(r"\b(?:the|a|an|our|its|their|old|previous|former|legacy|existing) $", re.I)
_SO = r"so (?:it|we|they|that|the)|"


def _reason(so: str) -> re.Pattern[str]:
    return re.compile(rf"(?<!^)(?<!^\W)\b(?:because|since|due to|given that|so that|{so}"
                      r"as a result of|to avoid|to stop|to keep|which (?:clashed|conflicted|broke)|until|unless|"
                      r"for now)\b\s?[^;,—]*"
                      # a one-off event it holds since ("... at `https://x` after the OpenShift move")
                      r"|(?<!^)(?<!^\W)\bafter (?:the|this|last|our) (?:[\w-]+ ){0,3}?" + _ONE_OFF + r"\b[^;,:—.]*", re.I)


_REASON = _reason(_SO)
#: A clause of consequence after a comma ("..., so the API lives on :8443"): taken as a reason
#: (`_REASON`) unless nothing else is said; `_REASON_NOT_SO` is `_REASON` without it.
_CONSEQUENCE = re.compile(r",\s*so (?:it|we|they|the)\b", re.I)
_REASON_NOT_SO = _reason("")
#: "ruff, not flake8", "not X but Y": the negation names the alternative, it does not negate the statement.
_ALTERNATIVE = re.compile(rf"(?:,|;|\(|\bbut|\band)\s*not\s+{_NOT_ALTERNATIVE}[^,.;()]+"
                          rf"|\bnot\s+{_NOT_ALTERNATIVE}[^,.;()]+?,?\s+but\b", re.I)
_NEGATION = re.compile(r"\b(?:not|never|no|nobody|no one|no longer|don'?t|doesn'?t|didn'?t|isn'?t|aren'?t|wasn'?t|won'?t|can'?t|"
                       r"cannot|shouldn'?t|mustn'?t|disabled|without|nothing|none|stop(?:ped)?)\b", re.I)


_IRREGULAR = {"built": "build", "ran": "run", "kept": "keep", "went": "go", "gone": "go", "written": "write",
              "wrote": "write", "sent": "send", "taken": "take", "took": "take", "chose": "choose", "chosen": "choose",
              "made": "make", "held": "hold", "set": "set", "put": "put", "run": "run", "ru": "run", "led": "lead",
              "left": "leave", "lives": "live", "data": "data"}


def stem(word: str) -> str:
    """A light stemmer: plurals, -ing and -ed, and a final e, so "logs"/"log", "retained"/"retain"
    and "moved"/"move" meet."""
    w = word.lower().strip("'")
    if w.endswith("'s"):
        w = w[:-2]
    if w in _IRREGULAR:
        return _IRREGULAR[w]
    if len(w) > 7 and w.endswith("ically"):
        w = w[:-4]
    elif len(w) > 5 and w.endswith("ly") and not w.endswith(("ply", "ally", "ily")):
        w = w[:-2]
    if len(w) > 4 and w.endswith("ies"):
        w = w[:-3] + "y"
    elif len(w) > 5 and w.endswith("ing"):
        w = w[:-3]
        if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "lsz":
            w = w[:-1]
    elif len(w) > 4 and w.endswith("ied"):
        w = w[:-3] + "y"
    elif len(w) > 4 and w.endswith("ed") and not w.endswith("eed"):
        w = w[:-2]
        if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "lsz":
            w = w[:-1]
    elif len(w) > 3 and w.endswith("es") and w[-3] in "sxz":
        w = w[:-2]
    elif len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    if len(w) > 4 and w.endswith("e"):
        w = w[:-1]
    return w


#: Stems of words that say nothing about which setting or component a statement describes.
GENERIC = frozenset(stem(w) for w in _GENERIC_WORDS) | frozenset(_GENERIC_WORDS)


def _span_terms(span: str) -> frozenset[str]:
    """The names and word stems of a phrase named as left behind or switched off."""
    found = terms_of(span).all | {normalise_name(t) for t in span.split() if t.lower() not in STOP}
    return frozenset(t for t in found - GENERIC - CUE_STEMS - STOP if len(t) > 1)


def normalise_name(name: str) -> str:
    """A code or proper name in one spelling: `fetch_user`, fetchUser and FETCH-USER all give
    "fetchuser". A path keeps its slashes: `kestrel/registry/` is a folder, `kestrel-registry` a
    repo. A plain word ("Jenkins") is stemmed like any word; a code name keeps its ending
    (`fetch_users` is another function); an acronym's plural is the acronym ("APIs")."""
    if re.fullmatch(r"[A-Z]{2,}s", name):  # "EUIs", "APIs", "PRs": the plural of an acronym
        name = name[:-1]
    joined = re.sub(r"[^a-z0-9/]", "", name.lower()).strip("/")
    joined = re.sub(r"/+", "/", joined)
    plain = name.isalpha() and not re.search(r"[a-z][A-Z]", name)
    return stem(joined) if plain else joined


@dataclass(frozen=True, slots=True)
class Value:
    """A number the statement gives, normalised ("30d", "8443", "3.12", "04:30"), with its kind
    (duration, size, percent, version, port, time, count:<unit>, number)."""

    text: str
    kind: str


@dataclass(frozen=True, slots=True)
class Terms:
    names: frozenset[str]
    values: frozenset[Value]
    words: frozenset[str]
    shapes: frozenset[tuple[str, str]] = frozenset()
    settings: frozenset[tuple[str, str]] = frozenset()

    @property
    def all(self) -> frozenset[str]:
        return self.names | self.words | frozenset(v.text for v in self.values)


@dataclass(frozen=True, slots=True)
class Statement:
    text: str
    names: frozenset[str]
    """Code names, paths, flags, channels, proper names, entity names (normalised), outside a reason."""
    values: frozenset[Value]
    """Values outside a reason clause."""
    words: frozenset[str]
    """Stems of the other content words outside a reason clause, without cue words and generic words."""
    cues: tuple[tuple[str, float], ...]
    """Change cues found: (label, strength)."""
    left: frozenset[str]
    """Names, value texts and word stems named as left behind."""
    left_spans: tuple[tuple[frozenset[str], str], ...]
    """Each phrase named as left behind: its terms, and the phrase as one name."""
    reason: frozenset[str]
    """Names, value texts and word stems that only a reason clause holds."""
    negated: bool
    head: frozenset[str] = frozenset()
    """Names and stems before the first verb: the component or setting the sentence is about."""
    head_tail: frozenset[str] = frozenset()
    """The names and stems of the subject after a preposition inside it ("the QC programmers" of
    "RStudio Server for the QC programmers"): what qualifies the thing, not the thing."""
    agent: bool = False
    """What comes before the first verb is a person's name, and what follows says what the person does
    for a thing ("Ola Nordby is responsible for ...", "Gideon looks after ..."): who, not what."""
    places: frozenset[str] = frozenset()
    """Environments, regions and platforms it names (production, staging, EU, iOS, ...)."""
    shapes: frozenset[tuple[str, str]] = frozenset()
    """Each name with its shape (`shape`): location, code, kebab or name."""
    settings: frozenset[tuple[str, str]] = frozenset()
    """KEY=value settings it gives (key normalised, value lower-cased)."""
    additive: bool = False
    """It says it adds to something ("too", "also", "as well", "in addition")."""
    head_numbers: frozenset[str] = frozenset()
    """Plain numbers and counts in its subject ("Shard 3 holds ...", "Service number 5 listens ..."):
    they tell one of several like things from another."""
    parts: frozenset[str] = frozenset()
    """Stems of the words inside its code names and paths (`Riverchat.Roster` -> riverchat, roster):
    "the roster module" names what `Riverchat.Roster` is."""
    restating: bool = False
    """It presents itself as saying again what holds ("still", "as before", "reminder", "nothing changed")."""
    contrasts: bool = False
    """It says what still holds in a clause of its own, and what it sets aside in another ("We still pin
    Buildings with the `uses` annotation, not through the CI image"): a contrast, not a change."""
    off: tuple[tuple[frozenset[str], str], ...] = ()
    """Each phrase it says was switched off, disabled or removed (`_OFF`: a job, a workflow or a habit
    that no longer runs): its terms, and the phrase as one name."""
    off_referred: frozenset[str] = frozenset()
    """Those of `off` it refers to as the old thing ("the old function name was removed"): what an
    earlier statement said, whatever words it used."""
    kebabs: frozenset[str] = frozenset()
    """Names written in kebab case ("admin-console", "billing-api"): how services and components are
    usually named; `head_kebabs` those in its subject."""
    head_kebabs: frozenset[str] = frozenset()
    labels: frozenset[tuple[str, str]] = frozenset()
    """Numbered or lettered labels its subject starts with ("The Line 2 collector ..." -> ("line", "2"),
    "Zone B sensors ..." -> ("zone", "b")): one of several like things, told apart by the label."""
    head_acronyms: frozenset[tuple[str, str]] = frozenset()
    """Upper-case words of its subject that are not common abbreviations, each with the word it
    qualifies ("The ADIF exporter ..." -> ("adif", "exporter")): read as words elsewhere, but the name
    that tells this thing from another of its kind."""
    leeway: int = 0
    """What it lets happen: 1 when it permits ("can", "may", "allowed", "anywhere", "on by default",
    "opt out"), -1 when it restricts ("only", "must", "never", "read-only", "opt-in", "compiled out"),
    0 when neither or both."""
    opens_with: str = ""
    """A capitalised first word that is no English word ("Tomasz owns ...", "Dependabot PRs get
    merged ..."; not "Telemetry", "Checkout"): likely a person's or a tool's name, which the reading of
    names leaves out at the start of a sentence. Lower-cased; only ever a reason to offer."""
    unknown: frozenset[str] = frozenset()
    """Lower-case words that are no English word ("cppcheck", "fourmolu"): likely tools' names written
    as words. Only ever a reason to offer."""
    lead: str = ""
    """The code name it opens with ("The `GWEditorTools` module loads ...", "In silver, `sales_lines`
    dedups ..." -> gweditortools, saleslines): the thing it is about, when a name says it."""
    denied: frozenset[str] = frozenset()
    """Word stems of the clauses it negates ("nobody deploys from a laptop anymore" -> deploy,
    laptop): what a negation is about, beside the names it shares."""
    refused: frozenset[str] = frozenset()
    """Word stems of every clause it negates, an alternative it names included ("integer cents, not
    decimals and definitely not floats" -> decimal, float): what it says does not hold."""
    scope: frozenset[str] = frozenset()
    """Words of the setting it opens with ("On laptops, ...", "On the Brisa cluster, ...", "For the iOS
    app, ..."): where what it says holds."""
    halted: bool = False
    """Its first sentence says a practice stopped or waits ("Local apply is frozen until ...", "Manual
    Play uploads are on hold", "Don't run make regen anymore"): a stop, whose successor is usually said
    later in other words (how it is done now). Only ever a reason to offer."""
    left_bare: frozenset[str] = frozenset()
    """Terms of what it leaves behind named bare ("rather than attrs", "instead of Jenkins"), not referred
    to ("instead of the old runner", "from our previous channel"): a particular thing."""

    @property
    def change(self) -> float:
        """The strongest change cue (0 when none)."""
        return max((s for _, s in self.cues), default=0.0)

    @property
    def value_texts(self) -> frozenset[str]:
        return frozenset(v.text for v in self.values)

    @property
    def keys(self) -> frozenset[str]:
        """What it is about: names and word stems (values aside)."""
        return self.names | self.words

    @property
    def specifics(self) -> frozenset[str]:
        """Names and value texts."""
        return self.names | self.value_texts

    @property
    def asserted(self) -> frozenset[str]:
        """Names and values it holds as current: not those it names as left behind."""
        return self.specifics - self.left


_FIRST = re.compile(r"(?<=[.;:!?])\s+")
#: A lower-case kebab-case name of letters, not a channel, handle, flag or path ("#team-billing",
#: "--dry-run"), nor a host or version ("ops-01", "v1-2").
_KEBAB = re.compile(r"(?<![\w#@/.-])[a-z]+(?:-[a-z]+)+(?![\w/-])")


def kebab_names(text: str) -> frozenset[str]:
    return frozenset(m.group(0) for m in _KEBAB.finditer(text))


def leads_with_switch_off(text: str) -> bool:
    """Its first sentence or clause says something was switched off, stopped or removed ("The Jenkins
    release job is switched off. Until ...", "Stop the Monday CSV uploads: ..."): a statement about
    a stop, not one that gives a new value and mentions in passing that the old thing stopped
    ("Nightly sales aggregation now runs as `sales_rollup_v2`. The previous DAG is paused ...")."""
    return next(_off_matches(_FIRST.split(text, maxsplit=1)[0]), None) is not None


#: Words of a practice stopped or waiting, wider than `_OFF` (which must name what stopped).
_HALT = re.compile(r"\b(?:frozen|freeze on|on hold|halted|paused|suspended|blocked|forbidden|off-limits|banned|"
                   r"muted|skipped|disabled|dropped|stopped|discontinued|unscheduled|no more|no longer|anymore|"
                   r"until further notice)\b|^\W*(?:skip|stop|pause|halt|freeze)\b", re.I)


def halts(text: str) -> bool:
    """Its first sentence says a practice stopped or waits (`Statement.halted`)."""
    return bool(_HALT.search(_FIRST.split(text, maxsplit=1)[0])) or leads_with_switch_off(text)


def _off_phrase(match: re.Match[str]) -> tuple[frozenset[str], str]:
    """A phrase of `Statement.off`: the terms of what was switched off, and its name."""
    return _span_terms(match.group("old")), normalise_name(match.group("old"))


def _off_matches(text: str):
    """The matches of each phrase `text` says was switched off (a stop at a step of a procedure,
    "stop X before ...", is none)."""
    forms = _OFF if _STEP.search(text) else (*_OFF, _STOPPED)
    return (m for rx in forms for m in rx.finditer(text))


_OLD_REF = re.compile(r"\b(?:old|previous|former|legacy|existing) $", re.I)
_OLD_START = re.compile(r"(?:(?:the|our|its|their) )?(?:old|previous|former|legacy|existing)\b", re.I)


def _referred(text: str, match: re.Match[str]) -> bool:
    """Is the switched-off phrase `match` referred to as the old thing ("the old function name")?"""
    return bool(_OLD_REF.search(text[max(0, match.start("old") - 12):match.start("old")])
                or _OLD_START.match(match.group("old")))


def read(text: str, entities: tuple[str, ...] | frozenset[str] = ()) -> Statement:
    """The reading of `text`; `entities` are the memory's entity keys ("tool:pytest"), which
    add the names the observer recognised."""
    return _read(text, tuple(sorted(entities)))


@lru_cache(maxsize=8192)
def _read(text: str, entities: tuple[str, ...]) -> Statement:
    main_text = _REASON.sub(" ; ", text)
    main = terms_of(main_text)
    if not (main.values or main.names) and _CONSEQUENCE.search(text):
        # "Larger clinics weren't converging, so the rota solve budget is 240s": with nothing said
        # outside it, a clause of consequence is what the statement tells
        told = _REASON_NOT_SO.sub(" ; ", text)
        consequence = terms_of(told)
        if consequence.values or consequence.names:
            main_text, main = told, consequence
    extra = {normalise_name(name): _ENTITY_SHAPES.get(kind, "kebab" if "-" in name else "name")
             for kind, _, name in (key.partition(":") for key in entities)
             if name and kind != "error" and normalise_name(name)}
    # an entity the observer found only inside a reason clause is not what the statement is about
    whole = terms_of(text)
    reason_only = whole.all - main.all
    names = main.names | {n for n in extra if n not in reason_only}
    shapes = {**extra, **dict(main.shapes)}
    # the words of a restating phrase ("as noted before", "for the record") are not what it says
    said = terms_of(_RESTATING.sub(" ", main_text)).words if _RESTATING.search(main_text) else main.words
    words = frozenset(w for w in said - names if w not in GENERIC and w not in CUE_STEMS)
    # a word in capitals is a value ("with the REPLACE policy"), not a word of change
    plain = _CAPS_WORD.sub("name", _IN_A_NAME.sub("name", _NO_EVENT.sub(" ", _NOT_A_CHANGE.sub(" ", _code_arrows(text)))))
    cues = tuple((label, strength) for rx, strength, label in _CUES if rx.search(plain))
    spans: list[tuple[frozenset[str], str]] = []
    bare: set[str] = set()
    left_at: list[int] = []  # where each phrase that looks like naming something left behind starts
    for rx in _LEFT:
        for m in rx.finditer(text):
            left_at.append(m.start("old"))
            if _behaviour(text, m) or m.groupdict().get("legacy") and not any(c >= 0.5 for _, c in cues):
                continue  # "legacy" alone names a kind of thing still there: "Yusuf maintains the legacy DPS grammar"
            span = m.group("old")
            found = _span_terms(span)
            if found:
                spans.append((found, normalise_name(span)))
                if rx in _NAMING and not _REFERRING.search(text[m.start():m.start("old")]):
                    bare.update(found)
    left = {t for found, _ in spans for t in found} | {whole for _, whole in spans if len(whole) > 1}
    denied = _denied(main_text)
    matches = list(_off_matches(text))
    off = tuple(_off_phrase(m) for m in matches)
    head_text = _head(main_text)
    head = terms_of(head_text)
    prose = _MARKED.sub(" ", _CODE_SPAN.sub(" ", main_text))
    # "US" is a region, "let us drop the shim" a pronoun
    places = frozenset(_PLACE_WORDS.get(w.lower(), w.lower()) for w in _PLACE.findall(prose) if w != "us")
    return Statement(text=text, names=names, values=main.values, words=words, cues=cues,
                     left=frozenset(left), left_spans=tuple(spans), left_bare=frozenset(bare),
                     off=off, off_referred=frozenset(whole for m, (_, whole) in zip(matches, off) if _referred(text, m)),
                     reason=frozenset(reason_only),
                     negated=bool(_NEGATION.search(_ALTERNATIVE.sub(" ", main_text))), denied=denied,
                     refused=_denied(main_text, alternatives=True) if _ALTERNATIVE.search(main_text) else denied,
                     scope=_scope(text), halted=halts(text),
                     lead=_lead(text), opens_with=_opens_with(text), unknown=_unknown(text),
                     head=frozenset((head.names | head.words) - GENERIC - CUE_STEMS), places=places,
                     agent=_agent(main_text, head_text), head_tail=_head_tail(head_text),
                     restating=_restating(plain), contrasts=_contrasts(text, left_at), additive=bool(_ADDITIVE.search(main_text)), leeway=_leeway(main_text),
                     shapes=frozenset((n, shapes.get(n, "name")) for n in names), settings=main.settings,
                     parts=_parts(main_text), kebabs=kebab_names(text), head_kebabs=kebab_names(head_text),
                     head_numbers=frozenset(v.text for v in head.values
                                            if v.kind == "number" or v.kind.startswith("count:"))
                     | _designators(head_text),
                     labels=_labels(main_text), head_acronyms=_acronyms(head_text))


_CAPS_WORD = re.compile(r"\b[A-Z]{2,}\b")


#: A code-shaped word: in backticks, or joined by _ . / -, or camel case.
_CODE_WORD = re.compile(r"`[^`]+`|[A-Za-z0-9]+(?:[_./-][A-Za-z0-9]+)+|[a-z]+[A-Z]\w*|[A-Z][a-z0-9]+[A-Z]\w*")


@lru_cache(maxsize=1)
def _english() -> frozenset[str]:
    """Whole lower-case words of the default model's tokenizer vocabulary (about 22,000), read as
    data from the file shipped beside the embedder (this package imports no other): common
    English, which names mostly are not. Empty when the file cannot be read."""
    try:
        data = (resources.files("mnemex.embed") / "assets" / "minilm" / "tokenizer.json").read_bytes()
        vocab = json.loads(data)["model"]["vocab"]
    except (OSError, ValueError, KeyError, TypeError):
        return frozenset()
    return frozenset(w for w in vocab if w.isalpha() and w.islower() and len(w) > 1)


#: Words of the trade the vocabulary lacks: a capitalised one opening a sentence is no name.
_TRADE_WORDS = frozenset("""
telemetry checkout firmware ingress egress calibration provisioning analytics backend frontend middleware
webhook webhooks linter linting deploy deploys deployment rollback rollout repo monorepo runtime config
changelog onboarding offboarding sandbox staging hotfix prod dev dashboard dashboards cron scheduler
autoscaling backfill backfills upload uploads downloads signup login logout auth oauth sso timeout timeouts
retries throttling caching sharding replicas replica failover namespace namespaces subnet subnets fyi
heads reminder unused shadowing interns crashes metrics tracing logging alerting paging uptime snapshot timestamp
dedup payout healthcheck endpoint endpoints cert certs indent
""".split())


def _opens_with(text: str) -> str:
    """The capitalised first word (or its possessive: "Keiko's squad") when it is no English word."""
    m = re.match(r"\W*([A-Z][a-z]{2,})(?:'s)?\b(?![-_.:/]\w)", text)
    return m.group(1).lower() if m and _foreign(m.group(1).lower()) else ""


def _foreign(word: str) -> bool:
    """Is the lower-case `word` no English word (nor a word of the trade), in any of its common forms?"""
    english = _english()
    if not english or word in STOP or word in _TRADE_WORDS or word in GENERIC:
        return False
    forms = {word}
    for end, back in (("s", ""), ("es", ""), ("ies", "y"), ("ed", ""), ("ed", "e"), ("ing", ""), ("ing", "e")):
        if word.endswith(end):
            forms.add(word[: -len(end)] + back)
    return not (forms & english or forms & _TRADE_WORDS)


def _unknown(text: str) -> frozenset[str]:
    """Lower-case words of `text`, outside code spans and URLs, that are no English word ("cppcheck",
    "fourmolu", "clang" of clang-tidy): mostly names of tools the reading of names cannot tell from
    words, for they are written in lower case."""
    prose = _URL.sub(" ", _CODE_SPAN.sub(" ", text))
    return frozenset(w for w in re.findall(r"(?<![\w.@/-])[a-z]{4,}(?![\w@/])", prose)
                     if not w.endswith(_ENGLISH_ENDINGS) and _foreign(w))


#: Endings of English words the tokenizer splits ("formatting", "synchronously", "analyzer").
_ENGLISH_ENDINGS = ("ing", "tion", "sion", "ment", "ness", "ly", "able", "ible", "ize", "ise", "ized", "ised", "ity",
                    "ous", "ive", "er", "ers", "ed", "ies", "ful", "less", "ism", "ist", "ance", "ence")


#: A setting a statement opens with: "On laptops, ...", "In the Docker image, ...", "For the iOS app, ...".
_SCOPE = re.compile(r"^\W*(?:on|in|inside|within|for|under)\s+([^,:;]{2,40}?)\s*,", re.I)
#: ... but not a time or a manner of speaking ("For now, ...", "In practice, ...").
_NO_SCOPE = frozenset({"now", "moment", "meantime", "meanwhile", "future", "general", "practice", "short",
                       "average", "time", "today", "addition", "fact", "particular", "total", "case", "theory",
                       "summary", "sum", "turn", "contrast", "comparison", "order", "part", "principle"})


def _scope(text: str) -> frozenset[str]:
    """Word stems of the setting `text` opens with ("On the Brisa cluster, ..." -> brisa, cluster), or none."""
    m = _SCOPE.match(text)
    if not m:
        return frozenset()
    found = terms_of(m.group(1))
    words = frozenset(found.words | found.names) - GENERIC
    return frozenset() if not words or words & _NO_SCOPE else words


def _lead(text: str) -> str:
    """The code name among the first three words of the first clause (after a leading "In staging,"),
    normalised, or ""."""
    clause = re.sub(r"^\W*(?:in|on|for|at|with|after|since)\b[^,]{1,40},\s*", "", text.strip(), flags=re.I)
    for token in clause.split()[:3]:
        m = _CODE_WORD.fullmatch(token.strip(",.;:()'\""))
        if m:
            return normalise_name(m.group(0).strip("`"))
    return ""


def _denied(text: str, alternatives: bool = False) -> frozenset[str]:
    """Word stems of the clauses `text` negates (not an alternative it names: "ruff, not flake8",
    unless `alternatives`)."""
    clauses = re.split(r"[;,.:!?()—–]+|\s-\s", text if alternatives else _ALTERNATIVE.sub(" ", text))
    return frozenset(w for c in clauses if _NEGATION.search(c) for t in [terms_of(c)] for w in t.words | t.names
                     if w not in GENERIC and w not in CUE_STEMS)


#: "removes the dumps when a plan is deleted": what happens on a condition, no change of the statement
_CONDITION = re.compile(r"\b(?:when|whenever|if|once|unless)\b[^,.;:!?]*$", re.I)
#: ... or after any one of a kind: "never reused, not even after a sense is deleted"
_ANY_ONE = re.compile(r"\b(?:after|before|until)\s+$", re.I)
_ONE_OF_A_KIND = re.compile(r"(?:a|an|any|each|every)\s", re.I)


def _behaviour(text: str, match: re.Match[str]) -> bool:
    """Does a phrase that looks like naming something left behind describe a behaviour instead: it
    is written inside a code span, it stands in a condition ("when a plan is deleted"), or its
    "from X" says where the subject comes from and a verb follows ("Crash reports from the field app
    go to Crashlytics")?"""
    before = text[: match.start()]
    if _CONDITION.search(before) or _ANY_ONE.search(before) and _ONE_OF_A_KIND.match(match.group("old")):
        return True
    if any(c.start(1) <= match.start() and match.end() <= c.end(1) for c in _CODE_SPAN.finditer(text)):
        return True  # code, not prose: "`planShift : Loom list -> Shift -> Plan`" is a signature
    if _code_arrow(text, match):
        return True
    words = match.group("old").lower().split()
    if not match.group(0).lower().startswith("from "):
        return False
    # a flow: "Flight logs upload from the ground station to the bucket" says where things travel
    return bool(words) and words[-1] in _VERBS or bool(_FLOWS_BEFORE.search(text[: match.start()]))


_ARROW_END = re.compile(r"(?:->|→|=>)$")
_GLUED_ARROW = re.compile(r"(?<=[\w)\]$])(?:->|=>)(?=[\w($])")
_CALL_ARGS = re.compile(r"\([^()]*(?:->|=>)[^()]*\)")


def _code_arrows(text: str) -> str:
    """`text` without the arrows written as code (`_code_arrow`), which tell no change."""
    text = _GLUED_ARROW.sub(" ", text)
    return _CALL_ARGS.sub(lambda m: m.group(0).replace("->", " ").replace("=>", " "), text)


def _code_arrow(text: str, match: re.Match[str]) -> bool:
    """An arrow written as code outside a code span: glued to what it joins (`$c->render`,
    `zcl_x=>rate`) or inside a call's parentheses (`render(json => ...)`). A rename arrow stands
    between spaces, outside parentheses ("DB_URL -> DATABASE_URL")."""
    arrow = _ARROW_END.search(match.group(0))
    if arrow is None:
        return False
    at, end = match.start() + arrow.start(), match.end()
    glued = at > 0 and not text[at - 1].isspace() and end < len(text) and (text[end].isalnum() or text[end] in "_($")
    return glued or text.count("(", 0, at) > text.count(")", 0, at)


#: A verb of something travelling, just before "from X to Y": the way it goes, not a move.
_FLOWS_BEFORE = re.compile(r"\b(?:upload|download|copie|copy|sync|stream|forward|replicate|ship|flow|travel|"
                           r"send|push|pull|route|mirror|export|import|fetch|transfer|pipe|feed|relay|attach|post|"
                           r"paste)(?:s|es|ed|ing)?\s+(?:[\w-]+\s+){0,3}$", re.I)


_PERMITS = re.compile(r"\b(?:can|may|allowed|allows?|permitted|fine to|ok to|okay to|anywhere|anyone|free to|optional|"
                      r"opt(?:s|ed)?[- ]out|on by default|left on|up to|"
                      # a default said on: "defaults to on", "enabled by default", "default: true"
                      r"defaults? to (?:on|enabled|true|yes|allowed)|(?:enabled|allowed|turned on|switched on) by default|"
                      r"default(?:s)?(?: is|:|=) ?(?:on|enabled|true))\b", re.I)
_RESTRICTS = re.compile(r"\b(?:only|must|never|not allowed|forbidden|prohibited|blocked|nobody|no one|zero|strictly|"
                        r"read-only|opt(?:s|ed)?[- ]in|off by default|compiled out|mandatory|sign-off|unless|"
                        # a default said off: "defaults to off", "disabled by default", "default: false"
                        r"defaults? to (?:off|disabled|false|no|denied)|(?:disabled|turned off|switched off) by default|"
                        r"default(?:s)?(?: is|:|=) ?(?:off|disabled|false)|"
                        r"(?:is|are) over|no longer allowed|(?:needs?|requires?) (?:a |an )?(?:sign-off|approval|review)|"
                        # "changes need a second approver", "a second person watches every flight"
                        r"(?:needs?|requires?) (?:a |an )?(?:second|another|two|2) (?:approv|review|sign-off|person|people)\w*|"
                        r"a second (?:person|approver|reviewer|pair of eyes))\b", re.I)


#: "only Ilse and Tomasz can push tags", "only admins may ...": a "can" that names who alone may.
#: (not "the only outbound call", "the domain-only grouper", nor "PRs that only touch docs/ can ...")
_ONLY_CAN = re.compile(r"(?<![-\w])(?<!the )(?<!that )(?<!which )(?<!who )only (?:[\w`*.@#/-]+,? ){1,5}?"
                       r"(?:can|may|(?:is|are) allowed to)\b", re.I)


def _leeway(text: str) -> int:
    """`Statement.leeway` of a statement's main clauses."""
    alone = _ONLY_CAN.search(text)
    if alone:  # who alone may: a restriction, whatever "can" says
        text = text[:alone.start()] + text[alone.end():]
    permits, restricts = bool(_PERMITS.search(text)), bool(alone or _RESTRICTS.search(text))
    return 0 if permits == restricts else (1 if permits else -1)


#: A label the subject starts with: a word and a number or a capital letter ("Line 2", "worker 3",
#: "Zone B"), not a value with its unit ("Timeout 30 s") nor a port or a version.
_LABEL = re.compile(r"^\W*(?:(?:the|our|a|an|in|on|for|from)\s+)?(?:[A-Za-z][\w-]*\s+){0,2}?([A-Za-z][a-z]{2,})\s+"
                    r"(\d{1,2}|[A-Z])(?![\w.:%,/-])(?!\s*(?:%|[a-z]{1,3}\b|seconds?|minutes?|hours?|days?|weeks?|months?)\b)")
_NOT_LABELS = frozenset({"port", "ports", "version", "release", "api", "level", "python", "node", "java", "php", "ruby",
                         "top", "last", "every", "over", "under", "than", "about", "after", "before", "since"})


def _labels(text: str) -> frozenset[tuple[str, str]]:
    """`Statement.labels` of a statement's first clause."""
    clause = re.split(r"[;:\n]|(?<=[.!?])\s", text.strip(), maxsplit=1)[0]
    m = _LABEL.match(clause)
    if not m or m.group(1).lower() in _NOT_LABELS or m.group(1).lower() in STOP:
        return frozenset()
    return frozenset({(stem(m.group(1).lower()), m.group(2).lower())})


def _acronyms(head: str) -> frozenset[tuple[str, str]]:
    """Each upper-case word of the subject with the word it qualifies ("ADIF exporter" -> ("adif", "exporter"))."""
    tokens = re.findall(r"[A-Za-z][\w-]*", head)
    return frozenset((stem(a.lower()), stem(b.lower())) for a, b in zip(tokens, tokens[1:])
                     if re.fullmatch(r"[A-Z]{2,5}", a) and a not in _COMMON_CAPS)


def qualifies(statement_text: str, name: str) -> str:
    """The word that follows `name` (normalised) in a statement's subject, or "" ("Cabrillo exporter")."""
    tokens = re.findall(r"[A-Za-z][\w-]*", _head(_REASON.sub(" ; ", statement_text)))
    return next((stem(b.lower()) for a, b in zip(tokens, tokens[1:]) if normalise_name(a) == name), "")


#: A capital letter standing alone after a word of the subject: "Board rev D", "Zone B", "Plan C".
_DESIGNATOR = re.compile(r"(?<=\w )[A-Z](?![\w.'-])")


def _designators(head: str) -> frozenset[str]:
    """The one-letter designators of a subject ("rev D" -> "d"): like a number ("Shard 3"), they tell
    one of several like things apart."""
    return frozenset(m.group(0).lower() for m in _DESIGNATOR.finditer(head))


_NAMEISH = re.compile(r"`([^`]+)`|\b([A-Za-z][\w-]*(?:[./_][\w-]+)+|[a-z]+[A-Z]\w*|[A-Z][a-z]+[A-Z]\w*)\b")


def _parts(text: str) -> frozenset[str]:
    out = set()
    for m in _NAMEISH.finditer(text):
        name = m.group(1) or m.group(2)
        # a piece written in camel case is a name of its own too ("the KeePass file" of
        # `SecretManagement.KeePass`), besides its words
        pieces = re.split(r"[^A-Za-z0-9]+", name)
        if len(pieces) > 1:
            out.update(stem(p.lower()) for p in pieces if len(p) > 3 and re.search(r"[a-z][A-Z]", p))
        raw = re.sub(r"([a-z])([A-Z])", r"\1 \2", name)
        for piece in re.split(r"[^A-Za-z]+", raw):
            word = stem(piece.lower())
            if len(word) > 2 and word not in GENERIC and word not in STOP:
                out.add(word)
    return frozenset(out)


def _restating(text: str) -> bool:
    """Does it say again what holds — a restating phrase, and no change cue in a clause without one?
    ("Reminder: tests still need the stack up" restates; "Alerts now page Opsgenie; #ops still gets a
    copy" does not)."""
    if not _RESTATING.search(text):
        return False
    for clause in re.split(r"[;,.:!?()—–]+|\s-\s", text):
        if not _RESTATING.search(clause) and any(s >= 0.5 and rx.search(clause) for rx, s, _ in _CUES):
            return False
    # "the old host still gets a copy", "S3 still mirrors them": a copy kept says the main one moved,
    # "still" and all, unless another phrase says it is a reminder
    return not (_COPY_KEPT.search(text) and not _RESTATING.search(re.sub(r"\bstill\b", " ", text, flags=re.I)))


_PERSON = re.compile(r"(?!(?:The|A|An|Our|Their|This|That|These|Those|Each|Every|All|Any|No|Some)\b)"
                     r"(?:(?:Dr|Prof)\.? )?[A-Z][a-z]+(?:[-'][A-Z]?[a-z]+)?(?: [A-Z][a-z]+(?:[-'][A-Z]?[a-z]+)?){1,2}")


#: What a person does for a thing: owns it, looks after it, answers for it.
_ROLE = re.compile(r"\s*(?:owns|maintains|looks after|handles|manages|reviews|approves|answers|takes care of|covers|"
                   r"is (?:now |also )?(?:responsible for|in charge of|(?:the )?(?:[\w-]+ )?(?:owner|maintainer|lead|contact|admin|"
                   r"point of contact|reviewer|manager)))\b", re.I)


def _agent(text: str, head_text: str) -> bool:
    """Is the subject a person's name followed by what the person does for a thing ("Ola Nordby is
    responsible for ...", "Gideon looks after ...")? Not a product named in title case ("Laravel Mix
    is out")."""
    head = head_text.strip(" ,:")
    if not head or not _PERSON.fullmatch(head):
        return False
    at = text.find(head)
    return at >= 0 and bool(_ROLE.match(text, at + len(head)))


_INNER_PREPOSITION = re.compile(r"(?<=\S)\s+(?:for|of|at|from|by|under|behind)\s+", re.I)


def _head_tail(head_text: str) -> frozenset[str]:
    """The terms of a subject after a preposition that does not open it (`Statement.head_tail`)."""
    parts = _INNER_PREPOSITION.split(head_text, maxsplit=1)
    if len(parts) < 2:
        return frozenset()
    tail = terms_of(parts[1])
    return frozenset((tail.names | tail.words) - GENERIC - CUE_STEMS)


def _contrasts(text: str, left_at: list[int]) -> bool:
    """A restating phrase only in clauses that leave nothing behind, beside a clause that does
    ("We still pin X, not through the CI image"; not "the old csv crate only remains for reports");
    `left_at`: where the phrases that look like naming something left behind start (`_LEFT`)."""
    if not left_at or not _RESTATING.search(text):
        return False
    ends = [m.end() for m in _CLAUSE_END.finditer(text)]

    def clause(at: int) -> int:
        return sum(1 for end in ends if end <= at)

    holding = {clause(m.start()) for m in _RESTATING.finditer(text)}
    return not holding & {clause(at) for at in left_at}


_CLAUSE_END = re.compile(r"[;,.:!?()—–]+|\s-\s")


def _head(text: str) -> str:
    """The words before the first verb of the first clause: what the sentence is about
    ("The `spectator` crate" in "The `spectator` crate uses ...")."""
    # (a double colon inside a name does not end it: `Dunmore::Schema::Result::Loan`)
    clause = re.split(r"[;\n]|(?<!:):(?!:)|(?<=[.!?])\s", text.strip(), maxsplit=1)[0]
    # "After the latency tests, EU realms run in ...": the subject follows the leading clause
    clause = re.sub(r"^(?:after|since|following|once|when|until|as of|starting|with)\b[^,]{1,60},\s*", "", clause,
                    flags=re.I)
    tokens = re.findall(r"`[^`]+`|\S+", clause)
    out = []
    for i, token in enumerate(tokens):
        word = token.strip(",.()'\"").lower()
        nxt = tokens[i + 1].lower() if i + 1 < len(tokens) else ""
        if word in _VERBS or word in ("now", "no", "not", "never", "also", "still", "only", "always") \
                or word in _VERBS_BEFORE_A_WAY and nxt in ("to", "into", "through", "via"):
            if all(t.lower() in _PEOPLE for t in out) and word in _VERBS and word not in _AUX:
                return _object(tokens[i + 1:])  # "We merged the dbt project into ...": what was done to
            break
        out.append(token)
    return " ".join(out) if len(out) < len(tokens) else ""


#: Words that are nouns as often as verbs ("Student uploads are stored ..."), read as the verb only
#: before the way they go: "Image snapshots upload to the B2 bucket".
_VERBS_BEFORE_A_WAY = frozenset({"upload", "uploads"})
_AUX = frozenset("is are was were be been am 's has have had do does did must should will can may might could would "
                 "shall cannot can't won't doesn't don't isn't aren't wasn't".split())
#: Who does things, not what a statement is about.
_PEOPLE = frozenset({"we", "i", "you", "they", "the", "team", "someone", "user", "our", "my", "ops", "devs"})


def _object(tokens: list[str]) -> str:
    """The words after a verb up to a preposition or the end of the phrase (at most four)."""
    out = []
    for token in tokens[:6]:
        word = token.strip(",.()'\"").lower()
        if word in STOP and word not in ("the", "a", "an", "our", "its", "their") or word in _VERBS:
            break
        out.append(token.strip(",."))
        if token.endswith((",", ".")):
            break
    return " ".join(out)


class _Names:
    """Names as read: normalised, each with its shape (`shape`)."""

    def __init__(self) -> None:
        self.shapes: dict[str, str] = {}
        self.settings: dict[str, str] = {}

    def add(self, raw: str, kind: str | None = None) -> None:
        name = normalise_name(raw)
        if name:
            self.shapes.setdefault(name, kind or shape(raw))


_PLACEHOLDER = re.compile(r"(?<![A-Za-z])[vV]?X\.Y(?:\.Z)?(?![A-Za-z])|YYYY|(?<![A-Za-z])(?:MM|DD|NN)(?![A-Za-z])|<[\w-]+>")


def shape(raw: str) -> str:
    """What kind of name a raw name is: a location (path, URL, host, file), code (an identifier,
    a constant, a flag), a kebab-case name (a repo, a crate, a service: either), or a name (a
    tool, a product, a channel). A swapped name only counts when both have compatible shapes."""
    token = raw.strip("`'\".,;:()")
    if "*" in token or _PLACEHOLDER.search(token):
        # a glob or a template: how names are made (`tar_health_*`, `*.spec.ts`, `vX.Y.Z`,
        # `robot-vYYYY.MM.N`, `<dir>`), no one thing
        return "pattern"
    if "://" in token or "/" in token:
        return "location"
    if re.fullmatch(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+", token):
        return "location"  # an e-mail address: where something is sent
    # camelCase is code; PascalCase letters alone are mostly products (PagerDuty, GitHub, ModDesk)
    if token.startswith("-") or "(" in token or "_" in token or re.search(r"[a-z][A-Z]", token) \
            and not re.fullmatch(r"[A-Z][A-Za-z]+", token):
        return "code"
    if re.fullmatch(r"[a-z0-9-]+(?:\.[a-z0-9-]+)+(?::\d+)?", token) and re.search(r"[a-z]{2}$|:\d+$", token):
        return "location"
    if "." in token:
        return "code"
    if "-" in token:
        return "kebab"
    if token.isupper() and len(token) > 2:
        return "code"
    return "name"


def shapes_compatible(a: str, b: str) -> bool:
    """A kebab-case name (a repo, a service, a crate) may stand for a name or a location, not for code;
    a glob (`tests/**/*.spec.ts`) for a location, never for one piece of code (`tar_make()`)."""
    return a == b or ("kebab" in (a, b) and "code" not in (a, b) and "pattern" not in (a, b)) \
        or {a, b} == {"pattern", "location"}


_URL_PORT = re.compile(r"://[^/\s:@]+:(\d{2,5})\b")


def _url(url: str, names: _Names, values: set[Value]) -> None:
    """A URL is a name; the port it gives is also a value ("localhost:8025" -> port 8025)."""
    names.add(url)
    port = _URL_PORT.search(url)
    if port:
        values.add(Value(port.group(1), "port"))


@lru_cache(maxsize=8192)
def terms_of(text: str) -> Terms:
    """(names, values, word stems) of a piece of text."""
    names = _Names()
    values: set[Value] = set()
    rest = text

    def take(pattern: re.Pattern[str], read_one) -> None:
        nonlocal rest
        rest = pattern.sub(lambda m: (read_one(m), " ")[1], rest)

    take(_URL, lambda m: _url(m.group(0), names, values))
    rest = _CODE_GLUED.sub("` ", rest)  # "`ℕ∞`-valued": the word after the dash is no flag `-valued`
    take(_CODE_SPAN, lambda m: _code_span(m.group(1), names, values))
    take(_QUOTED, lambda m: names.add(next(g for g in m.groups() if g), "named"))
    take(_TIME, lambda m: values.add(Value(f"{int(m.group(1)):02d}:{m.group(2)}", "time")))
    take(_ASSIGN, lambda m: _token(m.group(0), names, values))
    take(_MARKED, lambda m: names.add(m.group(0)))
    rest = _versions(rest, values)
    rest = _DESCRIBED.sub(r"\1 \2", rest)
    rest = _PROSE_COMPOUND.sub(lambda m: m.group(0).replace("-", " "), rest)
    take(_COMPOUND, lambda m: _token(m.group(0), names, values))
    take(_CAMEL, lambda m: names.add(m.group(0)))
    rest = _NUMBER_WORD.sub(_number_word, rest)
    rest = _numbers(rest, values)
    take(_ALNUM, lambda m: names.add(m.group(0)))
    rest = _CONSTANT.sub(lambda m: f" {m.group(0).lower()} " if m.group(0) in _COMMON_CAPS or re.fullmatch(r"[A-Z]{2,4}", m.group(0))
                         else (names.add(m.group(0)), " ")[1], rest)
    take(_PROPER, lambda m: [names.add(w) for w in re.split(r"[ -]", m.group(0)) if w.lower() not in STOP])
    words = {stem(w) for w in _WORD.findall(rest.lower()) if w not in STOP}
    return Terms(frozenset(names.shapes), frozenset(values),
                 frozenset(w for w in words if len(w) > 1 and w not in STOP), frozenset(names.shapes.items()),
                 frozenset(names.settings.items()))


def _number_word(m: re.Match[str]) -> str:
    word = m.group(1)
    if word.lower() == "one" and _PRONOUN_ONE.search(m.string[: m.start()]):
        return word
    return str(_NUMBER_WORDS[word.lower()])


def _code_span(span: str, names: "_Names", values: set[Value]) -> None:
    call = re.match(r"^\s*([A-Za-z_][\w.]*)\s*\(", span)  # a call or signature: the function is the name
    if call:
        names.add(call.group(1), "code")
        return
    # `max_party_size = 4`, `log_level: debug`: one setting, as KEY=value
    span = re.sub(r"^\s*([A-Za-z_][\w.-]*)\s*(?:=|:\s)\s*(\S+)\s*$", r"\1=\2", span)
    tokens = span.split()
    for i, token in enumerate(tokens):  # a command: each word of it; a flag's argument is no asserted value
        if len(token) > 1 and not (i and tokens[i - 1].startswith("-") and re.fullmatch(r"[\d.:-]+", token)):
            if i and re.fullmatch(r"[a-z]+", token):
                names.add(token, "code")  # a subcommand or argument: part of the command, not a tool
            else:
                _token(token, names, values)


_FLAGS = frozenset({"true", "false", "yes", "no", "on", "off", "none", "null", "0", "1"})


def _token(token: str, names: "_Names", values: set[Value]) -> None:
    token = token.strip("\"'“”`,;:()")
    if token.endswith(".") and not re.search(r"\.\w+\.$", token):
        token = token[:-1]
    if not token:
        return
    setting = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_.-]*)=(\S+)", token)
    if setting:  # KEY=value: the key is what it is about, the value a value
        names.add(setting.group(1), "code")
        names.settings[normalise_name(setting.group(1))] = setting.group(2).strip("\"'").lower()
        if setting.group(2).lower() not in _FLAGS:  # KEY=true is a switch, not a name
            _token(setting.group(2), names, values)
        return
    number = re.fullmatch(r"v?(\d+(?:\.\d+)*)\s*([a-zA-Z%]{0,8})", token)
    if number:
        unit = _UNITS.get(number.group(2).lower(), number.group(2).lower())
        values.add(Value(number.group(1) + unit, _kind_of(number.group(1), unit, "", token.startswith("v"))))
        return
    # host:port — a location, and the port it gives is a value; a one-word host ("localhost:4000",
    # "redis:6379") with a port of 3+ digits ("postgres:16" is an image tag)
    host = re.fullmatch(r"([a-z0-9-]+(?:\.[a-z0-9-]+)+):(\d{2,5})|([a-z][a-z0-9-]*):(\d{3,5})", token, re.I)
    if host:
        names.add(host.group(1) or host.group(3), "location")
        values.add(Value(host.group(2) or host.group(4), "port"))
        return
    names.add(token)
    version = re.search(r"[:@v-]?(\d+(?:\.\d+)+)(?:-\w+)?$", token)
    if version and re.search(r"[A-Za-z]", token):  # python:3.12-slim, node20.1: also a version value
        values.add(Value(version.group(1), "version"))


def _versions(text: str, values: set[Value]) -> str:
    """Versions written after a name: "Python 3.12", "Postgres 16", "Node v20" (the name stays)."""
    def hold(m: re.Match[str]) -> str:
        word = m.group(1)
        if word.lower() in STOP or word.lower() in ("port", "ports", "step", "phase", "top", "last", "every", "over"):
            return m.group(0)
        if "." in m.group(2) or word[0].isupper():
            values.add(Value(m.group(2), "version"))
            return word + " "
        return m.group(0)
    return _VERSIONED.sub(hold, text)


def _numbers(text: str, values: set[Value]) -> str:
    def hold(m: re.Match[str]) -> str:
        prefix, digits, unit = m.group(1), m.group(2).replace(",", ""), (m.group(3) or "")
        unit_norm = _UNITS.get(unit.lower())
        before = text[max(0, m.start() - 14):m.start()].lower()
        kind = _kind_of(digits, unit_norm or "", before, bool(prefix))
        if kind == "number" and unit and not unit_norm and unit.isalpha() and unit.lower() not in STOP \
                and stem(unit) not in CUE_STEMS and stem(unit) not in GENERIC:  # "27015 now" counts nothing
            kind = "count:" + stem(unit)
        values.add(Value(digits + (unit_norm or ""), kind))
        return " " if unit_norm else f" {unit} "
    return _NUMBER.sub(hold, text)


def _kind_of(digits: str, unit: str, before: str, prefixed: bool) -> str:
    if prefixed or digits.count(".") >= 2:
        return "version"
    if unit in _DURATION:
        return "duration"
    if unit in _SIZE:
        return "size"
    if unit == "%":
        return "percent"
    if unit:
        return "count:" + unit
    if re.search(r"\bports?\s*(?:is|=|:|of)?\s*$|:$|\b(?:udp|tcp|binds?|bound to|listens? on|listening on)\s*$", before):
        return "port"
    if re.search(r"\b(?:version|release|v)\s*$", before) or "." in digits:
        return "version"
    return "number"


def compatible(a: Value, b: Value) -> bool:
    """Can `b` be the new value of what `a` gave? Same kind, or one is a bare number."""
    if a.kind == b.kind:
        return True
    loose = ("number", "port")
    return a.kind in loose and b.kind in loose or (a.kind == "number" and b.kind.startswith("count:")) or (
        b.kind == "number" and a.kind.startswith("count:"))
