#!/usr/bin/env python3
"""Standalone check of updates_bench_12.json (standard library only).

Run:  python benchmarks/data/updates_bench_12_validate.py [path/to/updates_bench_12.json]

Checks the structure described in updates_bench.md and the counts of set 12:
  * the JSON parses, top-level keys, version and `now`; ids unique and well formed;
  * every item names one of the seven projects;
  * updates: current_answer in the last statement and in no earlier one; every stale
    answer in an earlier statement and not in the last one; 3-statement chains only for
    workflow_replaced, with stale answers drawn from both earlier statements;
  * separate: answers in the statement(s) named by `in` (and, for first/second, not in
    the other one); compound = one statement, two questions, both `first`; restatement
    answers `both`; every two-statement look-alike has a question for each statement
    (restatements excepted);
  * times: ISO-8601 UTC, between 2026-01-05 and 2026-10-27, before `now`, strictly
    ordered within an item; replacing statements >= 21 days later; restatements 3-17
    weeks later; any text naming a calendar date is recorded after that date, and in an
    update the statements it replaces predate that date;
  * every statement and distractor is 8-45 words; no text is duplicated;
  * no question contains its own answer;
  * no distractor contains an answer string (update or look-alike) of its own project;
  * exact per-kind and per-project counts of this set, plus the spec's minimums.
Exit status 0 when everything passes, 1 otherwise.
"""
import json
import os
import re
import sys
from collections import Counter, defaultdict
from datetime import datetime, timedelta, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
PATH = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "updates_bench_12.json")

NOW = "2026-11-01T00:00:00Z"
FIRST_DAY = datetime(2026, 1, 5, tzinfo=timezone.utc)
LAST_DAY_END = datetime(2026, 10, 28, tzinfo=timezone.utc)  # exclusive: anything on 2026-10-27 is fine

UPDATE_COUNTS = {"rename": 14, "tool_replaced": 14, "moved_with_copy": 14, "port_or_address": 14,
                 "workflow_replaced": 14, "number_changed": 14, "policy_changed": 14,
                 "owner_or_location": 14}
CHAINS = 8
SEPARATE_COUNTS = {"elaboration": 14, "sibling": 14, "second_setting": 14, "different_component": 14,
                   "different_environment": 14, "compound": 14, "restatement": 14}
DISTRACTOR_COUNTS = {"fact": 42, "decision": 21, "convention": 21, "tool_event": 56,
                     "procedure": 14, "preference": 7}
PROJECTS = {  # key: (name, updates, separate, distractors)
    "/work/bobbin-scheduler": ("Bobbin", 16, 14, 23),
    "/work/quayside-ledger": ("Quayside Ledger", 16, 14, 23),
    "/work/halyard-netops": ("Halyard", 16, 14, 23),
    "/work/pipistrelle": ("Pipistrelle", 16, 14, 23),
    "/work/sundial-fleet": ("Sundial Fleet", 16, 14, 23),
    "/work/tuffet-tickets": ("Tuffet", 16, 14, 23),
    "/work/wickerbee-hive": ("Wickerbee", 16, 14, 23),
}
# minimums from updates_bench.md
MIN_PER_UPDATE_KIND = 6
MIN_CHAINS = 6
MIN_PER_SEPARATE_KIND = 12
MIN_COMPOUND_RESTATEMENT = 10
MIN_DISTRACTORS = 150
MIN_TOOL_EVENTS = 30

MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December"]
MON_RE = "|".join(MONTHS)

errors = []


def err(msg):
    errors.append(msg)


def parse_time(s, where):
    try:
        if not re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", s):
            raise ValueError
        return datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
    except (TypeError, ValueError):
        err("%s: bad time %r" % (where, s))
        return None


def named_dates(text):
    """Calendar dates named in a text (2026 assumed); the record must come after each."""
    out, used = [], set()
    for m in re.finditer(r"\b(\d{4})-(\d\d)-(\d\d)\b", text):
        out.append(datetime(int(m.group(1)), int(m.group(2)), int(m.group(3)), tzinfo=timezone.utc))
    for m in re.finditer(r"\b(\d{1,2}) (%s)\b" % MON_RE, text):
        out.append(datetime(2026, MONTHS.index(m.group(2)) + 1, int(m.group(1)), tzinfo=timezone.utc))
        used.add(m.start(2))
    for m in re.finditer(r"\b(%s) (\d{1,2})\b" % MON_RE, text):
        out.append(datetime(2026, MONTHS.index(m.group(1)) + 1, int(m.group(2)), tzinfo=timezone.utc))
        used.add(m.start(1))
    for m in re.finditer(r"\b(%s)\b" % MON_RE, text):
        if m.start(1) not in used:
            out.append(datetime(2026, MONTHS.index(m.group(1)) + 1, 1, tzinfo=timezone.utc))
    return out


def check_text(text, at, where, seen):
    if not isinstance(text, str) or not text.strip():
        err("%s: empty text" % where)
        return
    n = len(text.split())
    if not 8 <= n <= 45:
        err("%s: %d words (must be 8-45): %r" % (where, n, text))
    key = " ".join(text.lower().split())
    if key in seen:
        err("%s: duplicate text, also %s: %r" % (where, seen[key], text))
    else:
        seen[key] = where
    if at is not None:
        if not (FIRST_DAY <= at < LAST_DAY_END):
            err("%s: time %s outside 2026-01-05..2026-10-27" % (where, at.isoformat()))
        for d in named_dates(text):
            if at <= d:
                err("%s: names date %s but is recorded at %s" % (where, d.date(), at.isoformat()))


def main():
    try:
        with open(PATH, encoding="utf-8") as f:
            raw = f.read()
        data = json.loads(raw)
    except (OSError, ValueError) as e:
        print("FAIL: cannot load %s: %s" % (PATH, e))
        return 1

    if set(data) != {"version", "description", "now", "projects", "updates", "separate", "distractors"}:
        err("top-level keys are %s" % sorted(data))
    if data.get("version") != 1:
        err("version must be 1")
    if data.get("now") != NOW:
        err("now must be %s" % NOW)
    now = parse_time(data.get("now"), "now")
    if not isinstance(data.get("description"), str) or not data["description"].strip():
        err("description missing")

    # projects
    pkeys = []
    for i, p in enumerate(data.get("projects", [])):
        if set(p) != {"key", "name", "stack"}:
            err("projects[%d]: keys %s" % (i, sorted(p)))
        pkeys.append(p.get("key"))
        exp = PROJECTS.get(p.get("key"))
        if exp is None:
            err("projects[%d]: unexpected key %r" % (i, p.get("key")))
        elif exp[0] != p.get("name"):
            err("projects[%d]: name %r, expected %r" % (i, p.get("name"), exp[0]))
        if not str(p.get("key", "")).startswith("/work/"):
            err("projects[%d]: key must be a /work/ path" % i)
    if len(pkeys) != len(set(pkeys)) or set(pkeys) != set(PROJECTS):
        err("projects must be exactly %s" % sorted(PROJECTS))

    seen_text = {}
    ids = set()
    answers_by_project = defaultdict(set)
    per_project = defaultdict(Counter)

    # updates
    ukinds = Counter()
    chains = 0
    for i, u in enumerate(data.get("updates", [])):
        where = "updates[%d]" % i
        exp_keys = {"id", "kind", "project", "statements", "question", "current_answer", "stale_answers"}
        if set(u) != exp_keys:
            err("%s: keys %s" % (where, sorted(u)))
            continue
        uid = u["id"]
        where = uid
        if not re.fullmatch(r"u\d{3}", uid) or uid in ids:
            err("%s: bad or duplicate id" % where)
        ids.add(uid)
        if u["kind"] not in UPDATE_COUNTS:
            err("%s: unknown kind %r" % (where, u["kind"]))
        ukinds[u["kind"]] += 1
        if u["project"] not in PROJECTS:
            err("%s: unknown project %r" % (where, u["project"]))
        per_project[u["project"]]["updates"] += 1
        sts = u["statements"]
        if len(sts) == 3:
            chains += 1
            if u["kind"] != "workflow_replaced":
                err("%s: 3 statements only allowed for workflow_replaced chains" % where)
        elif len(sts) != 2:
            err("%s: %d statements" % (where, len(sts)))
            continue
        times = []
        for j, st in enumerate(sts):
            if set(st) != {"text", "at"}:
                err("%s.statements[%d]: keys %s" % (where, j, sorted(st)))
            t = parse_time(st.get("at"), "%s.statements[%d]" % (where, j))
            times.append(t)
            check_text(st.get("text"), t, "%s.statements[%d]" % (where, j), seen_text)
        if None not in times:
            for j in range(1, len(times)):
                if times[j] - times[j - 1] < timedelta(days=21):
                    err("%s: statement %d only %s after the previous (need >= 21 days)" % (where, j, times[j] - times[j - 1]))
            if now and times[-1] >= now:
                err("%s: last statement not before now" % where)
        texts = [st["text"] for st in sts]
        if None not in times:
            for j in range(1, len(texts)):
                for d in named_dates(texts[j]):
                    for i in range(j):
                        if times[i] >= d:
                            err("%s: statement %d names %s but statement %d is already dated %s" % (
                                where, j, d.date(), i, times[i].isoformat()))
        cur = u["current_answer"]
        if not cur or cur not in texts[-1]:
            err("%s: current_answer %r not in last statement" % (where, cur))
        for t in texts[:-1]:
            if cur and cur in t:
                err("%s: current_answer %r also in an earlier statement" % (where, cur))
        stale = u["stale_answers"]
        if not isinstance(stale, list) or not stale:
            err("%s: stale_answers must be a non-empty list" % where)
            stale = []
        covered = set()
        for s in stale:
            hit = [j for j, t in enumerate(texts[:-1]) if s and s in t]
            if not hit:
                err("%s: stale answer %r not in any earlier statement" % (where, s))
            covered.update(hit)
            if s and s in texts[-1]:
                err("%s: stale answer %r is in the last statement" % (where, s))
            if s == cur:
                err("%s: stale answer equals current answer" % where)
        if len(sts) == 3 and covered != {0, 1}:
            err("%s: chain stale answers must come from both earlier statements" % where)
        q = u["question"]
        if not isinstance(q, str) or not q.strip():
            err("%s: empty question" % where)
        elif cur and cur.lower() in q.lower():
            err("%s: question contains its answer" % where)
        answers_by_project[u["project"]].add(cur)
        answers_by_project[u["project"]].update(stale)

    # separate
    skinds = Counter()
    for i, s in enumerate(data.get("separate", [])):
        where = "separate[%d]" % i
        if set(s) != {"id", "kind", "project", "statements", "questions"}:
            err("%s: keys %s" % (where, sorted(s)))
            continue
        sid = s["id"]
        where = sid
        if not re.fullmatch(r"s\d{3}", sid) or sid in ids:
            err("%s: bad or duplicate id" % where)
        ids.add(sid)
        kind = s["kind"]
        if kind not in SEPARATE_COUNTS:
            err("%s: unknown kind %r" % (where, kind))
        skinds[kind] += 1
        if s["project"] not in PROJECTS:
            err("%s: unknown project %r" % (where, s["project"]))
        per_project[s["project"]]["separate"] += 1
        sts = s["statements"]
        qs = s["questions"]
        want = 1 if kind == "compound" else 2
        if len(sts) != want:
            err("%s: %s needs %d statement(s), has %d" % (where, kind, want, len(sts)))
            continue
        times = []
        for j, st in enumerate(sts):
            if set(st) != {"text", "at"}:
                err("%s.statements[%d]: keys %s" % (where, j, sorted(st)))
            t = parse_time(st.get("at"), "%s.statements[%d]" % (where, j))
            times.append(t)
            check_text(st.get("text"), t, "%s.statements[%d]" % (where, j), seen_text)
        if None not in times and len(times) == 2:
            if times[1] <= times[0]:
                err("%s: statements not strictly ordered" % where)
            if kind == "restatement" and not (timedelta(weeks=3) <= times[1] - times[0] <= timedelta(weeks=17)):
                err("%s: restatement gap %s not within 3-17 weeks" % (where, times[1] - times[0]))
        if now and None not in times and times[-1] >= now:
            err("%s: statement not before now" % where)
        texts = [st["text"] for st in sts]
        if kind == "compound" and (len(qs) != 2 or any(q.get("in") != "first" for q in qs)):
            err("%s: compound needs two questions, both in first" % where)
        if kind == "restatement" and any(q.get("in") != "both" for q in qs):
            err("%s: restatement answers must be in both" % where)
        if not qs:
            err("%s: no questions" % where)
        ins = set()
        for k, q in enumerate(qs):
            qw = "%s.questions[%d]" % (where, k)
            if set(q) != {"question", "answer", "in"}:
                err("%s: keys %s" % (qw, sorted(q)))
                continue
            a, w = q["answer"], q["in"]
            ins.add(w)
            if not a:
                err("%s: empty answer" % qw)
                continue
            if w == "first":
                if a not in texts[0]:
                    err("%s: answer %r not in first statement" % (qw, a))
                if len(texts) > 1 and a in texts[1]:
                    err("%s: answer %r is in the second statement too" % (qw, a))
            elif w == "second":
                if len(texts) < 2 or a not in texts[1]:
                    err("%s: answer %r not in second statement" % (qw, a))
                if a in texts[0]:
                    err("%s: answer %r is in the first statement too" % (qw, a))
            elif w == "both":
                if len(texts) < 2 or not all(a in t for t in texts):
                    err("%s: answer %r not in both statements" % (qw, a))
            else:
                err("%s: bad in %r" % (qw, w))
            if a.lower() in q["question"].lower():
                err("%s: question contains its answer" % qw)
            answers_by_project[s["project"]].add(a)
        if kind not in ("compound", "restatement") and ins != {"first", "second"}:
            err("%s: a two-statement look-alike needs a question for each statement" % where)

    # distractors
    dkinds = Counter()
    for i, d in enumerate(data.get("distractors", [])):
        where = "distractors[%d]" % i
        if set(d) != {"project", "text", "at", "kind"}:
            err("%s: keys %s" % (where, sorted(d)))
            continue
        if d["kind"] not in DISTRACTOR_COUNTS:
            err("%s: unknown kind %r" % (where, d["kind"]))
        dkinds[d["kind"]] += 1
        if d["project"] not in PROJECTS:
            err("%s: unknown project %r" % (where, d["project"]))
        per_project[d["project"]]["distractors"] += 1
        t = parse_time(d.get("at"), where)
        check_text(d.get("text"), t, where, seen_text)
        if now and t and t >= now:
            err("%s: not before now" % where)
        for a in answers_by_project.get(d["project"], ()):
            if a and a in d["text"]:
                err("%s: contains answer %r of its own project: %r" % (where, a, d["text"]))

    # counts
    for k, n in UPDATE_COUNTS.items():
        if ukinds[k] != n:
            err("updates of kind %s: %d, expected %d" % (k, ukinds[k], n))
        if ukinds[k] < MIN_PER_UPDATE_KIND:
            err("updates of kind %s below the spec minimum" % k)
    if chains != CHAINS or chains < MIN_CHAINS:
        err("workflow chains: %d, expected %d" % (chains, CHAINS))
    for k, n in SEPARATE_COUNTS.items():
        if skinds[k] != n:
            err("separate of kind %s: %d, expected %d" % (k, skinds[k], n))
        floor = MIN_COMPOUND_RESTATEMENT if k in ("compound", "restatement") else MIN_PER_SEPARATE_KIND
        if skinds[k] < floor:
            err("separate of kind %s below the spec minimum" % k)
    for k, n in DISTRACTOR_COUNTS.items():
        if dkinds[k] != n:
            err("distractors of kind %s: %d, expected %d" % (k, dkinds[k], n))
    nd = sum(dkinds.values())
    if nd < MIN_DISTRACTORS or dkinds["tool_event"] < MIN_TOOL_EVENTS:
        err("distractors below the spec minimum")
    for key, (name, nu, ns, ndp) in PROJECTS.items():
        got = per_project[key]
        if (got["updates"], got["separate"], got["distractors"]) != (nu, ns, ndp):
            err("project %s: %d/%d/%d items, expected %d/%d/%d" % (
                name, got["updates"], got["separate"], got["distractors"], nu, ns, ndp))

    # report
    nu, ns = sum(ukinds.values()), sum(skinds.values())
    print("file: %s" % PATH)
    print("updates %d (%s; %d chains)" % (nu, ", ".join("%s %d" % kv for kv in sorted(ukinds.items())), chains))
    print("separate %d (%s)" % (ns, ", ".join("%s %d" % kv for kv in sorted(skinds.items()))))
    print("distractors %d (%s)" % (nd, ", ".join("%s %d" % kv for kv in sorted(dkinds.items()))))
    for key, (name, _, _, _) in PROJECTS.items():
        got = per_project[key]
        print("  %-16s updates %2d  separate %2d  distractors %2d" % (
            name, got["updates"], got["separate"], got["distractors"]))
    words = [len(k.split()) for k in seen_text]
    if words:
        print("texts %d, words min %d max %d mean %.1f" % (len(words), min(words), max(words), sum(words) / len(words)))
    if errors:
        print("FAIL: %d problem(s)" % len(errors))
        for e in errors:
            print("  - " + e)
        return 1
    print("OK: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
