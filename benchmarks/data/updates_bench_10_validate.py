#!/usr/bin/env python3
"""Validate updates_bench_10.json against the rules in updates_bench.md.

Standard library only. Exit code 0 and a one-line summary when every check
passes; otherwise every problem found is printed and the exit code is 1.
"""
import json
import os
import re
import sys
from collections import Counter, defaultdict
from datetime import datetime, timedelta, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
PATH = os.path.join(HERE, "updates_bench_10.json")

NOW = "2026-11-01T00:00:00Z"
T_MIN = datetime(2026, 1, 5, tzinfo=timezone.utc)
T_MAX = datetime(2026, 10, 28, tzinfo=timezone.utc)  # i.e. on or before 2026-10-27
TOP_KEYS = ["version", "description", "now", "projects", "updates", "separate", "distractors"]
PROJECT_KEYS = {"key", "name", "stack"}
UPDATE_KEYS = {"id", "kind", "project", "statements", "question", "current_answer", "stale_answers"}
SEPARATE_KEYS = {"id", "kind", "project", "statements", "questions"}
STATEMENT_KEYS = {"text", "at"}
QUESTION_KEYS = {"question", "answer", "in"}
DISTRACTOR_KEYS = {"project", "text", "at", "kind"}
UPDATE_KINDS = ["rename", "tool_replaced", "moved_with_copy", "port_or_address",
                "workflow_replaced", "number_changed", "policy_changed", "owner_or_location"]
SEPARATE_KINDS = ["elaboration", "sibling", "second_setting", "different_component",
                  "different_environment", "compound", "restatement"]
DISTRACTOR_KINDS = {"fact", "decision", "convention", "tool_event", "procedure", "preference"}
# kinds whose two statements must stay distinguishable: an answer named for one
# statement must not also be in the other one
DISJOINT_KINDS = {"sibling", "second_setting", "different_component", "different_environment"}
MIN_WORDS, MAX_WORDS = 8, 45
REPLACE_GAP = timedelta(days=21)
RESTATE_MIN, RESTATE_MAX = timedelta(weeks=3), timedelta(weeks=17)
# names used by earlier sets; none may be reused
USED_NAMES = """Tidewater Freight, Lumen, Orchard, Emberfall, Quill, Kestrel, Tabwise, Riverchat,
Claimwright, Saltmarsh Goods, Saltmarsh, Stridelog, Groundwork, Beacon, Carewell, Gatehouse,
Harborline, Spindle, Seqforge, Plateful, Ferrite, Kilnworks, Thornbury, Bellwether, Galeway,
Lotbook, Switchback, Waxwing, Ridgeline, Parallax, Pedalry, Pileup, Formulary Stock, Lobbyline,
Helixcall, Headway, Brackenfield, Hollowmere, Tallyhook, Millrace, Vetchling, Stonecrop,
Driftwood, Marlin Field, Sextant, Gantry, Wren, Chalkline, Marrowbank, Fennwick, Nightjar,
Larkspur, Ashgrove, Copperleaf, Glassworks"""
USED = {n.strip().lower() for n in USED_NAMES.replace("\n", " ").split(",") if n.strip()}
TS_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")
DATE_RE = re.compile(r"\b(20\d\d)-(\d\d)-(\d\d)\b")

errors = []


def err(msg):
    errors.append(msg)


def ci_in(needle, hay):
    return needle.lower() in hay.lower()


def parse_ts(s, where):
    if not isinstance(s, str) or not TS_RE.match(s):
        err(f"{where}: bad timestamp {s!r}")
        return None
    t = datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
    if not (T_MIN <= t < T_MAX):
        err(f"{where}: time {s} outside 2026-01-05..2026-10-27")
    return t


def nwords(text):
    return len(text.split())


def check_text(text, where, seen):
    if not isinstance(text, str) or not text.strip():
        err(f"{where}: empty text")
        return
    n = nwords(text)
    if not (MIN_WORDS <= n <= MAX_WORDS):
        err(f"{where}: {n} words (need {MIN_WORDS}-{MAX_WORDS}): {text!r}")
    key = " ".join(text.lower().split())
    if key in seen:
        err(f"{where}: duplicated text (also {seen[key]}): {text!r}")
    else:
        seen[key] = where


def check_dates_in_text(text, at, where):
    # a text naming a calendar date must be recorded after that date
    for y, m, d in DATE_RE.findall(text):
        try:
            named = datetime(int(y), int(m), int(d), tzinfo=timezone.utc)
        except ValueError:
            continue
        if at is not None and not at > named:
            err(f"{where}: names date {y}-{m}-{d} but is recorded at {at:%Y-%m-%d}")


def statements(item, where, seen):
    st = item.get("statements")
    if not isinstance(st, list) or not st:
        err(f"{where}: statements must be a non-empty list")
        return [], []
    texts, times = [], []
    for j, s in enumerate(st):
        w = f"{where}.statements[{j}]"
        if not isinstance(s, dict) or set(s) != STATEMENT_KEYS:
            err(f"{w}: keys must be {sorted(STATEMENT_KEYS)}")
            continue
        check_text(s["text"], w, seen)
        t = parse_ts(s["at"], w)
        check_dates_in_text(s["text"], t, w)
        texts.append(s["text"])
        times.append(t)
    for j in range(1, len(times)):
        if times[j] is not None and times[j - 1] is not None and not times[j] > times[j - 1]:
            err(f"{where}: statements not strictly ordered in time")
    return texts, times


def main():
    raw = open(PATH, encoding="utf-8").read()
    try:
        data = json.loads(raw)
    except ValueError as e:
        print(f"FAIL: JSON does not parse: {e}")
        return 1
    if json.dumps(data, indent=2, ensure_ascii=False) + "\n" != raw:
        err("file is not UTF-8 JSON with 2-space indentation (re-dump differs)")

    if list(data) != TOP_KEYS:
        err(f"top-level keys {list(data)} != {TOP_KEYS}")
    if data.get("version") != 1:
        err("version must be 1")
    if data.get("now") != NOW:
        err(f"now must be {NOW}")
    if not isinstance(data.get("description"), str) or not data["description"].strip():
        err("description missing")

    # projects
    projects = {}
    for i, p in enumerate(data.get("projects", [])):
        w = f"projects[{i}]"
        if set(p) != PROJECT_KEYS:
            err(f"{w}: keys must be {sorted(PROJECT_KEYS)}")
            continue
        if not re.match(r"^/work/[a-z0-9-]+$", p["key"]):
            err(f"{w}: key {p['key']!r} is not a project path like /work/name")
        if p["key"] in projects:
            err(f"{w}: duplicate project key {p['key']}")
        if p["name"].lower() in USED or any(u in p["name"].lower().split() for u in USED):
            err(f"{w}: project name {p['name']!r} was used by an earlier set")
        projects[p["key"]] = p["name"]
    if len(projects) != 7:
        err(f"expected 7 projects, found {len(projects)}")

    seen_text = {}
    answers_by_project = defaultdict(set)

    # updates
    ukind = Counter()
    ukind_proj = Counter()
    chains = Counter()
    ids = [u.get("id") for u in data.get("updates", [])]
    if ids != ["u%03d" % i for i in range(1, len(ids) + 1)]:
        err("update ids must be u001, u002, ... in order without gaps")
    for i, u in enumerate(data.get("updates", [])):
        w = f"updates[{i}] ({u.get('id')})"
        if set(u) != UPDATE_KEYS:
            err(f"{w}: keys {sorted(u)} != {sorted(UPDATE_KEYS)}")
            continue
        if u["kind"] not in UPDATE_KINDS:
            err(f"{w}: unknown kind {u['kind']}")
        if u["project"] not in projects:
            err(f"{w}: unknown project {u['project']}")
        ukind[u["kind"]] += 1
        ukind_proj[(u["project"], u["kind"])] += 1
        texts, times = statements(u, w, seen_text)
        n = len(texts)
        if u["kind"] == "workflow_replaced":
            if n not in (2, 3):
                err(f"{w}: workflow_replaced needs 2 or 3 statements, has {n}")
            if n == 3:
                chains[u["project"]] += 1
        elif n != 2:
            err(f"{w}: {u['kind']} needs exactly 2 statements, has {n}")
        if n < 2:
            continue
        for j in range(1, len(times)):
            if times[j] and times[j - 1] and times[j] - times[j - 1] < REPLACE_GAP:
                err(f"{w}: replacing statement {j} is less than three weeks after statement {j - 1}")
        last, earlier = texts[-1], texts[:-1]
        cur = u["current_answer"]
        if not isinstance(cur, str) or not cur.strip():
            err(f"{w}: empty current_answer")
            continue
        if cur not in last:
            err(f"{w}: current_answer {cur!r} is not an exact substring of the last statement")
        for e in earlier:
            if ci_in(cur, e):
                err(f"{w}: current_answer {cur!r} appears in an earlier statement")
        stale = u["stale_answers"]
        if not isinstance(stale, list) or not stale:
            err(f"{w}: stale_answers must be a non-empty list")
            stale = []
        for s in stale:
            if not any(s in e for e in earlier):
                err(f"{w}: stale answer {s!r} is not an exact substring of an earlier statement")
            if ci_in(s, last):
                err(f"{w}: stale answer {s!r} appears (case-insensitive) in the last statement")
            if ci_in(s, cur) or ci_in(cur, s):
                err(f"{w}: stale answer {s!r} overlaps the current answer")
        if n == 3:
            for j in range(2):
                if not any(s in texts[j] for s in stale):
                    err(f"{w}: chain has no stale answer taken from statement {j}")
        q = u["question"]
        if not isinstance(q, str) or not q.strip():
            err(f"{w}: empty question")
        else:
            for a in [cur] + stale:
                if ci_in(a, q):
                    err(f"{w}: question gives away answer {a!r}")
        answers_by_project[u["project"]].update([cur] + list(stale))

    # separate
    skind = Counter()
    skind_proj = Counter()
    ids = [s.get("id") for s in data.get("separate", [])]
    if ids != ["s%03d" % i for i in range(1, len(ids) + 1)]:
        err("separate ids must be s001, s002, ... in order without gaps")
    for i, s in enumerate(data.get("separate", [])):
        w = f"separate[{i}] ({s.get('id')})"
        if set(s) != SEPARATE_KEYS:
            err(f"{w}: keys {sorted(s)} != {sorted(SEPARATE_KEYS)}")
            continue
        if s["kind"] not in SEPARATE_KINDS:
            err(f"{w}: unknown kind {s['kind']}")
        if s["project"] not in projects:
            err(f"{w}: unknown project {s['project']}")
        skind[s["kind"]] += 1
        skind_proj[(s["project"], s["kind"])] += 1
        texts, times = statements(s, w, seen_text)
        qs = s["questions"]
        if not isinstance(qs, list) or not qs:
            err(f"{w}: questions must be a non-empty list")
            continue
        if s["kind"] == "compound":
            if len(texts) != 1:
                err(f"{w}: compound needs exactly one statement")
            if len(qs) != 2 or any(q.get("in") != "first" for q in qs):
                err(f"{w}: compound needs two questions, both in: first")
        elif len(texts) != 2:
            err(f"{w}: {s['kind']} needs exactly two statements")
        if s["kind"] == "restatement":
            if any(q.get("in") != "both" for q in qs):
                err(f"{w}: restatement answers must be in: both")
            if len(times) == 2 and times[0] and times[1]:
                gap = times[1] - times[0]
                if not (RESTATE_MIN <= gap <= RESTATE_MAX):
                    err(f"{w}: restatement gap {gap.days} days is outside 3-17 weeks")
        if s["kind"] not in ("compound", "restatement") and len(qs) != 2:
            err(f"{w}: expected two questions (one per statement)")
        for k, q in enumerate(qs):
            wq = f"{w}.questions[{k}]"
            if set(q) != QUESTION_KEYS:
                err(f"{wq}: keys must be {sorted(QUESTION_KEYS)}")
                continue
            a, where_in = q["answer"], q["in"]
            if where_in not in ("first", "second", "both"):
                err(f"{wq}: in must be first, second or both")
                continue
            if not isinstance(a, str) or not a.strip():
                err(f"{wq}: empty answer")
                continue
            if ci_in(a, q["question"]):
                err(f"{wq}: question gives away its answer {a!r}")
            idx = {"first": [0], "second": [1], "both": [0, 1]}[where_in]
            for j in idx:
                if j >= len(texts) or a not in texts[j]:
                    err(f"{wq}: answer {a!r} is not an exact substring of statement {j}")
            if s["kind"] in DISJOINT_KINDS and where_in != "both" and len(texts) == 2:
                other = texts[1 - idx[0]]
                if ci_in(a, other):
                    err(f"{wq}: answer {a!r} also appears in the other statement of a {s['kind']} item")
            answers_by_project[s["project"]].add(a)
        if s["kind"] not in ("compound", "restatement"):
            ins = {q.get("in") for q in qs}
            if not {"first", "second"} <= ins:
                err(f"{w}: questions should cover both statements")

    # distractors
    dkind = Counter()
    dproj = Counter()
    for i, d in enumerate(data.get("distractors", [])):
        w = f"distractors[{i}]"
        if set(d) != DISTRACTOR_KEYS:
            err(f"{w}: keys {sorted(d)} != {sorted(DISTRACTOR_KEYS)}")
            continue
        if d["kind"] not in DISTRACTOR_KINDS:
            err(f"{w}: unknown kind {d['kind']}")
        if d["project"] not in projects:
            err(f"{w}: unknown project {d['project']}")
        dkind[d["kind"]] += 1
        dproj[d["project"]] += 1
        check_text(d["text"], w, seen_text)
        t = parse_ts(d["at"], w)
        check_dates_in_text(d["text"], t, w)
        for a in answers_by_project[d["project"]]:
            if ci_in(a, d["text"]):
                err(f"{w}: contains answer string {a!r} of its own project: {d['text']!r}")

    # counts
    n_upd, n_sep, n_dis = len(data.get("updates", [])), len(data.get("separate", [])), len(data.get("distractors", []))
    if n_upd < 100:
        err(f"need at least 100 updates, have {n_upd}")
    for k in UPDATE_KINDS:
        if ukind[k] < 6:
            err(f"update kind {k}: {ukind[k]} < 6")
        for p in projects:
            if ukind_proj[(p, k)] < 2:
                err(f"project {p}: only {ukind_proj[(p, k)]} update(s) of kind {k}")
    if sum(chains.values()) < 6:
        err(f"need at least 6 three-statement workflow chains, have {sum(chains.values())}")
    for p in projects:
        if chains[p] < 1:
            err(f"project {p}: no three-statement workflow chain")
    if n_sep < 90:
        err(f"need at least 90 separate items, have {n_sep}")
    for k in SEPARATE_KINDS:
        need = 10 if k in ("compound", "restatement") else 12
        if skind[k] < need:
            err(f"separate kind {k}: {skind[k]} < {need}")
        for p in projects:
            if skind_proj[(p, k)] < 2:
                err(f"project {p}: only {skind_proj[(p, k)]} separate item(s) of kind {k}")
    if not (150 <= n_dis <= 170):
        err(f"distractors: {n_dis} not in 150-170")
    te = dkind["tool_event"]
    if te < 30 or not (0.28 <= te / max(n_dis, 1) <= 0.40):
        err(f"tool_event distractors: {te} of {n_dis} is not about a third")
    for k in DISTRACTOR_KINDS:
        if dkind[k] == 0:
            err(f"no distractors of kind {k}")
    for p in projects:
        if dproj[p] < 15:
            err(f"project {p}: only {dproj[p]} distractors")

    if errors:
        for e in errors:
            print("FAIL:", e)
        print(f"{len(errors)} problem(s)")
        return 1
    all_texts = ([s["text"] for u in data["updates"] for s in u["statements"]]
                 + [s["text"] for x in data["separate"] for s in x["statements"]]
                 + [d["text"] for d in data["distractors"]])
    lens = [nwords(t) for t in all_texts]
    print("OK: %d updates (%s; %d chains), %d separate (%s), %d distractors (%d tool_event); "
          "%d texts, %d-%d words, mean %.1f"
          % (n_upd, ", ".join(f"{k} {ukind[k]}" for k in UPDATE_KINDS), sum(chains.values()),
             n_sep, ", ".join(f"{k} {skind[k]}" for k in SEPARATE_KINDS),
             n_dis, te, len(all_texts), min(lens), max(lens), sum(lens) / len(lens)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
