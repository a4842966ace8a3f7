"""Are two statements that look alike about different things? (`conflict`)

A change told about one environment, component or numbered sibling is no change of another: the
comparator (`compare.py`) keeps such a pair at most a possible replacement, and the read path's
resolution never lets one outdate the other. Pure functions of the statements' readings.
"""

from __future__ import annotations

import re

from mnemex.engine.statements.reading import STOP, Statement, qualifies, stem


def conflict(old: Statement, new: Statement) -> str:
    """Why the two are about different things though they look alike, or "": each names an
    environment, region or platform the other does not (staging / production, EU / NA); the older
    one is scoped to a side environment ("In staging, ...") and the newer one names none; their
    subjects carry different labels ("Line 2" / "Line 4") or name different components; the
    sentences start with the same kind of thing under another name (the `spectator` crate / the
    `lobby` crate, the ADIF exporter / the Cabrillo exporter) or another number ("Shard 3" /
    "Shard 4"); each gives a value of its own code-named setting (`backoffLimit` / `activeDeadlineSeconds`);
    the newer one says it adds ("too", "also", "as well")."""
    if old.places - new.places and new.places - old.places:
        return f"about another environment ({', '.join(sorted(new.places - old.places))})"
    if not new.places and (side := _SIDE_SCOPE.search(old.text)):
        # "In staging, ingest reads the replay stream" then "pings go to Kafka first now": a statement
        # that names no environment speaks of the main one, not of the side one the older one is about
        # ("the `stg_` prefix for staging models" names a layer, no environment)
        return f"the older one is about {side.group(1).lower()} only"
    if not new.places and old.head & _SIDE and old.head <= _SIDE | _ENVIRONMENT:
        # "Staging sends alerts to the ntfy topic `hopwort-staging`" then "Alerts go out through ntfy
        # now": the side environment is what the older one is about
        return f"the older one is about {sorted(old.places)[0] if old.places else 'a side environment'} only"
    if old.scope and new.scope and not old.scope & new.scope:
        # "On the Brisa cluster, load ..." beside "On laptops, the Docker image ships ...": each says
        # where it holds, and the two settings differ
        return f"about another place ({', '.join(sorted(new.scope))})"
    labels = {w: d for w, d in old.labels}
    for word, mark in sorted(new.labels):
        if labels.get(word, mark) != mark:  # "The Line 2 collector ..." beside "The Line 4 collector ..."
            return f"about another {word} ({mark})"
    if old.head_kebabs - new.kebabs and new.head_kebabs - old.kebabs:
        # "New owner of feature-flags is ..." beside "New owner of email-relay is ...": each is about
        # a component the other never names
        return f"about another component ({sorted(new.head_kebabs - old.kebabs)[0]})"
    old_all = old.keys | old.left | old.value_texts
    new_all = new.keys | new.left | new.value_texts
    new_names, old_names = new.head & new.names - old_all, old.head & old.names - new_all
    kind = (new.head & old.head) - new.names - old.names
    if new_names and old_names and kind:  # "the `spectator` crate" beside "the `lobby` crate"
        return f"about another {sorted(kind)[0]} ({sorted(new_names)[0]})"
    if sibling := _acronym_sibling(old, new, old_all, new_all):  # "The ADIF exporter" / "The Cabrillo exporter"
        return f"about another {sibling}"
    if old.head_numbers and new.head_numbers and old.head_numbers != new.head_numbers and old.head & new.head:
        # "Shard 3 holds ..." beside "Shard 4 holds ...": one of several like things, told by its number
        return f"about another {sorted(old.head & new.head)[0]} ({sorted(new.head_numbers)[0]})"
    if setting := _another_setting(old, new, old_all, new_all):  # "backoffLimit to 2" / "activeDeadlineSeconds of 21600"
        return f"about another setting ({setting})"
    if new.additive:
        return "it adds to it (also, too)"
    return ""


def _another_setting(old: Statement, new: Statement, old_all: frozenset[str], new_all: frozenset[str]) -> str:
    """Each gives a value beside an identifier written as code that the other never names ("Backup
    Jobs set backoffLimit to 2" / "Backup Jobs get activeDeadlineSeconds of 21600"): two settings
    of one thing. A key the newer one says it replaced is named by both (`left`), so a rename with
    its cue still reads as one setting."""
    if not (old.values and new.values):
        return ""
    theirs, ours = _code_names_apart(old, new_all), _code_names_apart(new, old_all)
    return ours[0] if theirs and ours else ""


def _code_names_apart(s: Statement, other: frozenset[str]) -> list[str]:
    """The identifiers `s` writes as code (5+ characters) that the other statement never names, in
    full or shortened (`D4s_v5` is `Standard_D4s_v5`)."""
    return sorted(n for n, kind in s.shapes if kind == "code" and len(n) >= 5 and n not in other
                  and not any(len(o) >= 5 and (n.endswith(o) or o.endswith(n)) for o in other))


#: Abbreviations that name a kind of thing, not one thing ("the DAG", "the CDN").
_KIND_ACRONYMS = frozenset(stem(w) for w in """dag cdn dns tls ssl jwt sso vpn orm rpc grpc gpu cpu ram ssd pdf html css xml
sms otp mfa etl elt sla slo kpi vm os ip tcp udp ssh ftp sftp lb crm erp llm rest spa pwa apk ipa""".split())


def _acronym_sibling(old: Statement, new: Statement, old_all: frozenset[str], new_all: frozenset[str]) -> str:
    """One subject is named by an upper-case word the other lacks and the other by a name the first
    lacks, each qualifying the same word: "The ADIF exporter ..." / "The Cabrillo exporter ...". Not
    a kind of thing ("DAG failures", `_KIND_ACRONYMS`) nor the initials of words the other statement
    spells out ("HIL tests" beside "Hardware-in-the-loop tests")."""
    for a, b, a_all, b_all in ((old, new, old_all, new_all), (new, old, new_all, old_all)):
        for acronym, kind in a.head_acronyms:
            if acronym in b_all or acronym in _KIND_ACRONYMS or _initials_of(acronym, b.text):
                continue
            for name in b.head & b.names - a_all:
                if qualifies(b.text, name) == kind:
                    return f"{kind} ({name if b is new else acronym})"
    return ""


def _initials_of(acronym: str, text: str) -> bool:
    """Are `acronym`'s letters the initials of consecutive words of `text`, small words skippable?"""
    words = [w.lower() for w in re.findall(r"[A-Za-z]+", text)]
    for start in range(len(words)):
        i, j = start, 0
        while i < len(words) and j < len(acronym):
            if words[i][0] == acronym[j]:
                j += 1
            elif words[i] not in STOP or j == 0:
                break
            i += 1
        if j == len(acronym):
            return True
    return False


#: A statement scoped to an environment beside the main one ("In staging, ...", "on the sandbox"): one
#: naming no environment is about the main one.
_SIDE_SCOPE = re.compile(r"\b(?:in|on)\s+(?:the\s+)?(staging|sandbox|canary)\b(?!\s+[a-z]+s\b)", re.I)
#: An older statement whose subject is a side environment and nothing more ("Staging sends ...",
#: "The sandbox environment runs ...").
_SIDE = frozenset(stem(w) for w in ("staging", "stage", "stg", "sandbox", "canary"))
_ENVIRONMENT = frozenset(stem(w) for w in ("env", "environment"))
