#!/usr/bin/env python3
"""Check updates_bench_14.json against the rules in updates_bench.md.

Standard library only. Run from the repository root:

    python3 benchmarks/data/updates_bench_14_validate.py [path/to/updates_bench_14.json]

Exits with status 1 and lists every problem if a rule is broken.
"""
import collections
import json
import os
import re
import sys
from datetime import datetime, timedelta, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
PATH = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "updates_bench_14.json")

UPDATE_KINDS = ["rename", "tool_replaced", "moved_with_copy", "port_or_address",
                "workflow_replaced", "number_changed", "policy_changed", "owner_or_location"]
SEPARATE_KINDS = ["elaboration", "sibling", "second_setting", "different_component",
                  "different_environment", "compound", "restatement"]
DISTRACTOR_KINDS = ["fact", "decision", "convention", "tool_event", "procedure", "preference"]
NOW = "2026-11-01T00:00:00Z"
UTC = timezone.utc
T_MIN = datetime(2026, 1, 5, 0, 0, 0, tzinfo=UTC)
T_MAX = datetime(2026, 10, 27, 23, 59, 59, tzinfo=UTC)

# Project names used by earlier sets; a new set must not reuse them.
EARLIER_NAMES = """
Tidewater Freight, Lumen, Orchard, Emberfall, Quill, Kestrel, Tabwise, Mudlark, Trunkline, Pennant,
Marginalia, Keelson, Undertow, Paperkite, Bramblegate, Corvid Stream, Puddlejump, Fernhill Sync, Gyrolab,
Anvilkit, Tollbooth, Bobbin, Quayside Ledger, Halyard, Pipistrelle, Sundial Fleet, Tuffet, Wickerbee,
Cinderwick, Oxbow SDR, Pebblecast, Dunmore Catalog, Sorrelpath, Sluicebox, Kittiwake, Riverchat, Claimwright,
Saltmarsh Goods, Stridelog, Groundwork, Beacon, Carewell, Gatehouse, Harborline, Spindle, Seqforge, Plateful,
Ferrite, Saltmarsh, Kilnworks, Thornbury, Bellwether, Galeway, Lotbook, Switchback, Waxwing, Ridgeline,
Parallax, Pedalry, Pileup, Formulary Stock, Lobbyline, Helixcall, Headway, Brackenfield, Hollowmere,
Tallyhook, Millrace, Vetchling, Stonecrop, Driftwood, Marlin Field, Sextant, Gantry, Wren, Chalkline,
Marrowbank, Fennwick, Nightjar, Larkspur, Ashgrove, Copperleaf, Glassworks
"""
EARLIER = [n.strip() for n in EARLIER_NAMES.replace("\n", " ").split(",") if n.strip()]

MONTHS = {m: i + 1 for i, m in enumerate(
    ["January", "February", "March", "April", "May", "June", "July", "August",
     "September", "October", "November", "December"])}
MONTHS.update({m[:3]: i for m, i in list(MONTHS.items())})
MONTH_RE = "|".join(sorted(MONTHS, key=len, reverse=True))
DATE_PATTERNS = [
    (re.compile(r"\b(20\d\d)-(\d\d)-(\d\d)\b"), lambda m: (int(m[1]), int(m[2]), int(m[3]))),
    (re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)? (%s)\b" % MONTH_RE), lambda m: (2026, MONTHS[m[2]], int(m[1]))),
    (re.compile(r"\b(%s) (\d{1,2})(?:st|nd|rd|th)?\b(?![.:]\d)" % MONTH_RE), lambda m: (2026, MONTHS[m[1]], int(m[2]))),
]

errors = []


def err(msg):
    errors.append(msg)


def parse_time(s, where):
    if not isinstance(s, str) or not re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", s):
        err("%s: bad timestamp %r" % (where, s))
        return None
    t = datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    if not (T_MIN <= t <= T_MAX):
        err("%s: timestamp %s outside 2026-01-05..2026-10-27" % (where, s))
    return t


def low(s):
    return s.lower()


def norm(s):
    return " ".join(s.lower().split())


def words(s):
    return len(s.split())


def named_dates(text):
    out = []
    for rx, conv in DATE_PATTERNS:
        for m in rx.finditer(text):
            try:
                y, mo, d = conv(m)
                out.append(datetime(y, mo, d, tzinfo=UTC))
            except ValueError:
                err("unparseable date %r in %r" % (m[0], text))
    return out


def check_text(text, at, where):
    if not isinstance(text, str) or not text.strip():
        err("%s: empty text" % where)
        return
    n = words(text)
    if not (8 <= n <= 45):
        err("%s: %d words (must be 8-45): %r" % (where, n, text))
    for d in named_dates(text):
        if at is not None and at <= d + timedelta(days=1):
            err("%s: names date %s but is recorded at %s" % (where, d.date(), at))


raw = open(PATH, encoding="utf-8").read()
try:
    data = json.loads(raw)
except ValueError as e:
    print("JSON does not parse: %s" % e)
    sys.exit(1)

# ---- formatting and top level
if raw.rstrip("\n") not in (json.dumps(data, indent=2, ensure_ascii=False),
                            json.dumps(data, indent=2, ensure_ascii=True)):
    err("file is not 2-space indented JSON")
if list(data) != ["version", "description", "now", "projects", "updates", "separate", "distractors"]:
    err("top-level keys are %s" % list(data))
if data.get("version") != 1:
    err("version must be 1")
if data.get("now") != NOW:
    err("now must be %s" % NOW)
if not isinstance(data.get("description"), str) or not data["description"]:
    err("description missing")
now = datetime.strptime(NOW, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)

# ---- projects
projects = data.get("projects", [])
keys = []
for i, p in enumerate(projects):
    if set(p) != {"key", "name", "stack"}:
        err("projects[%d]: keys %s" % (i, sorted(p)))
        continue
    if not p["key"].startswith("/work/"):
        err("projects[%d]: key %r is not a /work/ path" % (i, p["key"]))
    for old in EARLIER:
        slug = old.lower().replace(" ", "-")
        if p["name"].lower() == old.lower() or slug == p["key"][len("/work/"):].lower() \
                or p["key"][len("/work/"):].lower().startswith(slug + "-"):
            err("projects[%d]: name/key %r reuses earlier project %r" % (i, p["name"], old))
    keys.append(p["key"])
if len(set(keys)) != len(keys) or len(keys) != 7:
    err("expected 7 distinct projects, got %s" % keys)
if len({p["name"] for p in projects}) != len(projects):
    err("duplicate project names")

all_texts = []
answers_by_project = collections.defaultdict(set)

# ---- updates
updates = data.get("updates", [])
seen_ids = set()
for i, u in enumerate(updates):
    where = "updates[%d]" % i
    if set(u) != {"id", "kind", "project", "statements", "question", "current_answer", "stale_answers"}:
        err("%s: keys %s" % (where, sorted(u)))
        continue
    where = u["id"]
    if u["id"] != "u%03d" % (i + 1):
        err("%s: expected id u%03d" % (where, i + 1))
    if u["id"] in seen_ids:
        err("%s: duplicate id" % where)
    seen_ids.add(u["id"])
    if u["kind"] not in UPDATE_KINDS:
        err("%s: unknown kind %r" % (where, u["kind"]))
    if u["project"] not in keys:
        err("%s: unknown project %r" % (where, u["project"]))
    st = u["statements"]
    if not isinstance(st, list) or len(st) not in (2, 3):
        err("%s: needs 2 or 3 statements" % where)
        continue
    if len(st) == 3 and u["kind"] != "workflow_replaced":
        err("%s: 3-statement chains are only for workflow_replaced" % where)
    times = []
    for j, s in enumerate(st):
        if set(s) != {"text", "at"}:
            err("%s.statements[%d]: keys %s" % (where, j, sorted(s)))
            continue
        t = parse_time(s["at"], "%s.statements[%d]" % (where, j))
        times.append(t)
        check_text(s["text"], t, "%s.statements[%d]" % (where, j))
        all_texts.append(("%s.statements[%d]" % (where, j), s["text"]))
    if None not in times:
        for j in range(1, len(times)):
            if times[j] <= times[j - 1]:
                err("%s: statements not strictly ordered" % where)
            if times[j] - times[j - 1] < timedelta(days=21):
                err("%s: statement %d comes less than three weeks after statement %d" % (where, j, j - 1))
        if times[-1] >= now:
            err("%s: statement after now" % where)
    if not isinstance(u["question"], str) or not u["question"].strip().endswith("?"):
        err("%s: question should be a question" % where)
    texts = [s["text"] for s in st]
    last, earlier = texts[-1], texts[:-1]
    cur = u["current_answer"]
    if not isinstance(cur, str) or not cur.strip():
        err("%s: empty current_answer" % where)
        continue
    if cur not in last:
        err("%s: current_answer %r not in last statement" % (where, cur))
    for j, e in enumerate(earlier):
        if low(cur) in low(e):
            err("%s: current_answer %r appears in earlier statement %d" % (where, cur, j))
    stale = u["stale_answers"]
    if not isinstance(stale, list) or not stale:
        err("%s: stale_answers must be a non-empty list" % where)
        continue
    covered = set()
    for a in stale:
        if not isinstance(a, str) or not a.strip():
            err("%s: empty stale answer" % where)
            continue
        hits = [j for j, e in enumerate(earlier) if a in e]
        if not hits:
            err("%s: stale answer %r not in any earlier statement" % (where, a))
        covered.update(hits)
        if low(a) in low(last):
            err("%s: stale answer %r appears in the last statement" % (where, a))
        if low(a) == low(cur):
            err("%s: stale answer equals current answer" % where)
        answers_by_project[u["project"]].add(a)
    answers_by_project[u["project"]].add(cur)
    if len(st) == 3 and covered != {0, 1}:
        err("%s: chain stale answers must come from both earlier statements (got %s)" % (where, sorted(covered)))

# ---- separate
separate = data.get("separate", [])
for i, s in enumerate(separate):
    where = "separate[%d]" % i
    if set(s) != {"id", "kind", "project", "statements", "questions"}:
        err("%s: keys %s" % (where, sorted(s)))
        continue
    where = s["id"]
    if s["id"] != "s%03d" % (i + 1):
        err("%s: expected id s%03d" % (where, i + 1))
    if s["kind"] not in SEPARATE_KINDS:
        err("%s: unknown kind %r" % (where, s["kind"]))
    if s["project"] not in keys:
        err("%s: unknown project %r" % (where, s["project"]))
    st = s["statements"]
    want = 1 if s["kind"] == "compound" else 2
    if not isinstance(st, list) or len(st) != want:
        err("%s: %s needs %d statement(s)" % (where, s["kind"], want))
        continue
    times = []
    for j, x in enumerate(st):
        if set(x) != {"text", "at"}:
            err("%s.statements[%d]: keys %s" % (where, j, sorted(x)))
            continue
        t = parse_time(x["at"], "%s.statements[%d]" % (where, j))
        times.append(t)
        check_text(x["text"], t, "%s.statements[%d]" % (where, j))
        all_texts.append(("%s.statements[%d]" % (where, j), x["text"]))
    if len(times) == 2 and None not in times:
        if times[1] <= times[0]:
            err("%s: statements not strictly ordered" % where)
        if s["kind"] == "restatement":
            gap = times[1] - times[0]
            if not (timedelta(weeks=3) <= gap <= timedelta(weeks=17)):
                err("%s: restatement gap %s not within 3-17 weeks" % (where, gap))
    qs = s["questions"]
    if not isinstance(qs, list) or not qs:
        err("%s: needs questions" % where)
        continue
    ins = []
    for k, q in enumerate(qs):
        if set(q) != {"question", "answer", "in"}:
            err("%s.questions[%d]: keys %s" % (where, k, sorted(q)))
            continue
        ins.append(q["in"])
        a = q["answer"]
        if not isinstance(a, str) or not a.strip():
            err("%s.questions[%d]: empty answer" % (where, k))
            continue
        if not q["question"].strip().endswith("?"):
            err("%s.questions[%d]: question should end with '?'" % (where, k))
        answers_by_project[s["project"]].add(a)
        texts = [x["text"] for x in st]
        if q["in"] == "first":
            if a not in texts[0]:
                err("%s.questions[%d]: answer %r not in first statement" % (where, k, a))
            if len(texts) == 2 and low(a) in low(texts[1]):
                err("%s.questions[%d]: answer %r also in second statement" % (where, k, a))
        elif q["in"] == "second":
            if len(texts) < 2 or a not in texts[1]:
                err("%s.questions[%d]: answer %r not in second statement" % (where, k, a))
            if low(a) in low(texts[0]):
                err("%s.questions[%d]: answer %r also in first statement" % (where, k, a))
        elif q["in"] == "both":
            if not all(a in t for t in texts) or len(texts) != 2:
                err("%s.questions[%d]: answer %r not in both statements" % (where, k, a))
        else:
            err("%s.questions[%d]: bad in %r" % (where, k, q["in"]))
    if s["kind"] == "compound" and (len(qs) != 2 or ins != ["first", "first"]):
        err("%s: compound needs two questions, both in: first" % where)
    if s["kind"] == "restatement" and set(ins) != {"both"}:
        err("%s: restatement answers must be in: both" % where)
    if s["kind"] not in ("compound", "restatement") and not {"first", "second"} <= set(ins):
        err("%s: needs a question about each statement" % where)

# ---- distractors
distractors = data.get("distractors", [])
for i, d in enumerate(distractors):
    where = "distractors[%d]" % i
    if set(d) != {"project", "text", "at", "kind"}:
        err("%s: keys %s" % (where, sorted(d)))
        continue
    if d["kind"] not in DISTRACTOR_KINDS:
        err("%s: unknown kind %r" % (where, d["kind"]))
    if d["project"] not in keys:
        err("%s: unknown project %r" % (where, d["project"]))
    t = parse_time(d["at"], where)
    check_text(d["text"], t, where)
    all_texts.append((where, d["text"]))
    for a in answers_by_project[d["project"]]:
        if low(a) in low(d["text"]):
            err("%s: contains answer string %r of its project: %r" % (where, a, d["text"]))

# ---- duplicates
seen = {}
for where, t in all_texts:
    k = norm(t)
    if k in seen:
        err("duplicate text in %s and %s: %r" % (seen[k], where, t))
    seen[k] = where

# ---- counts (spec minimums + this set's design)
uk = collections.Counter(u["kind"] for u in updates)
sk = collections.Counter(s["kind"] for s in separate)
dk = collections.Counter(d["kind"] for d in distractors)
chains = [u for u in updates if len(u["statements"]) == 3]
for k in UPDATE_KINDS:
    if uk[k] < 6:
        err("only %d updates of kind %s (need >= 6)" % (uk[k], k))
if len(chains) < 6:
    err("only %d chains (need >= 6)" % len(chains))
for k in SEPARATE_KINDS:
    need = 10 if k in ("compound", "restatement") else 12
    if sk[k] < need:
        err("only %d look-alikes of kind %s (need >= %d)" % (sk[k], k, need))
if len(updates) < 100:
    err("only %d updates (need >= 100)" % len(updates))
if len(separate) < 90:
    err("only %d look-alikes (need >= 90)" % len(separate))
if len(distractors) < 150:
    err("only %d distractors (need >= 150)" % len(distractors))
if dk["tool_event"] < 30:
    err("only %d tool_event distractors (need >= 30)" % dk["tool_event"])
for key in keys:
    pu = collections.Counter(u["kind"] for u in updates if u["project"] == key)
    ps = collections.Counter(s["kind"] for s in separate if s["project"] == key)
    pc = [u for u in chains if u["project"] == key]
    pd = [d for d in distractors if d["project"] == key]
    ptool = sum(1 for d in pd if d["kind"] == "tool_event")
    if any(pu[k] != 2 for k in UPDATE_KINDS):
        err("%s: expected two updates of every kind, got %s" % (key, dict(pu)))
    if any(ps[k] != 2 for k in SEPARATE_KINDS):
        err("%s: expected two look-alikes of every kind, got %s" % (key, dict(ps)))
    if len(pc) != 1:
        err("%s: expected exactly one 3-statement chain, got %d" % (key, len(pc)))
    if not (20 <= len(pd) <= 24) or ptool != 8:
        err("%s: expected 20-24 distractors with 8 tool events, got %d (%d)" % (key, len(pd), ptool))

if errors:
    print("%d problem(s):" % len(errors))
    for e in errors:
        print(" -", e)
    sys.exit(1)

n_words = [words(t) for _, t in all_texts]
print("OK: %d projects, %d updates (%d chains), %d look-alikes, %d distractors (%d tool events)"
      % (len(keys), len(updates), len(chains), len(separate), len(distractors), dk["tool_event"]))
print("updates by kind:", dict(uk))
print("look-alikes by kind:", dict(sk))
print("distractors by kind:", dict(dk))
print("words per text: min %d, max %d, mean %.1f" % (min(n_words), max(n_words), sum(n_words) / len(n_words)))
