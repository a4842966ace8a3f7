#!/usr/bin/env python3
"""Validate updates_bench_4.json against the format in updates_bench.md.

Standard library only. Usage: python3 updates_bench_4_validate.py [path/to/updates_bench_4.json]
Exit status 0 when every check passes, 1 otherwise.
"""
import json
import os
import re
import sys
from collections import Counter
from datetime import datetime, timedelta, timezone

TOP_KEYS = {"version", "description", "now", "projects", "updates", "separate", "distractors"}
PROJECT_KEYS = {"key", "name", "stack"}
UPDATE_KEYS = {"id", "kind", "project", "statements", "question", "current_answer", "stale_answers"}
SEPARATE_KEYS = {"id", "kind", "project", "statements", "questions"}
QUESTION_KEYS = {"question", "answer", "in"}
STATEMENT_KEYS = {"text", "at"}
DISTRACTOR_KEYS = {"project", "text", "at", "kind"}

UPDATE_KINDS = ["rename", "tool_replaced", "moved_with_copy", "port_or_address", "workflow_replaced",
                "number_changed", "policy_changed", "owner_or_location"]
SEPARATE_KINDS = ["elaboration", "sibling", "second_setting", "different_component", "different_environment",
                  "compound", "restatement"]
DISTRACTOR_KINDS = ["fact", "decision", "convention", "tool_event", "procedure", "preference"]

NOW = "2026-11-01T00:00:00Z"
T_MIN = datetime(2026, 1, 5, tzinfo=timezone.utc)
T_MAX = datetime(2026, 10, 27, 23, 59, 59, tzinfo=timezone.utc)
TS_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")
MONTHS = re.compile(r"\b(January|February|March|April|May|June|July|August|September|October|November|December|"
                    r"Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)\b|\b2026-\d\d-\d\d\b")

MIN_WORDS, MAX_WORDS = 8, 32
REPLACE_GAP = (timedelta(weeks=3), timedelta(weeks=16))
RESTATE_GAP = (timedelta(weeks=3), timedelta(weeks=17))
MIN_UPDATES, MIN_PER_UPDATE_KIND, MIN_CHAINS = 90, 11, 6
MIN_SEPARATE, MIN_PER_SEPARATE_KIND = 84, 12
MIN_DISTRACTORS, MIN_TOOL_EVENTS = 145, 45

errors = []


def err(msg):
    errors.append(msg)


def parse_ts(s, where):
    if not isinstance(s, str) or not TS_RE.match(s):
        err(f"{where}: bad timestamp {s!r}")
        return None
    t = datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
    if not (T_MIN <= t <= T_MAX):
        err(f"{where}: timestamp {s} outside 2026-01-05..2026-10-27")
    return t


def words(text):
    return len(text.split())


def opening(text):
    toks = re.findall(r"[a-z0-9]+", text.lower())
    return " ".join(toks[:4])


def check_statements(item, where, texts):
    sts = item.get("statements")
    if not isinstance(sts, list) or not sts:
        err(f"{where}: statements must be a non-empty list")
        return []
    times = []
    for j, st in enumerate(sts):
        w = f"{where}.statements[{j}]"
        if not isinstance(st, dict) or set(st) != STATEMENT_KEYS:
            err(f"{w}: keys must be {sorted(STATEMENT_KEYS)}")
            continue
        if not isinstance(st["text"], str) or not st["text"].strip():
            err(f"{w}: empty text")
            continue
        n = words(st["text"])
        if not (MIN_WORDS <= n <= MAX_WORDS):
            err(f"{w}: {n} words (want {MIN_WORDS}-{MAX_WORDS}): {st['text']!r}")
        texts.append((st["text"], where))
        times.append(parse_ts(st["at"], w))
    for j in range(1, len(times)):
        if times[j - 1] and times[j] and not times[j - 1] < times[j]:
            err(f"{where}: statements not strictly ordered in time ({j - 1} -> {j})")
    return times


def main(path):
    with open(path, encoding="utf-8") as f:
        raw = f.read()
    doc = json.loads(raw)
    if json.dumps(doc, indent=2, ensure_ascii=False) + "\n" != raw:
        err("file is not UTF-8 JSON with 2-space indentation (as written by json.dump(indent=2, ensure_ascii=False))")

    if set(doc) != TOP_KEYS:
        err(f"top-level keys {sorted(doc)} != {sorted(TOP_KEYS)}")
    if doc.get("version") != 1:
        err("version must be 1")
    if doc.get("now") != NOW:
        err(f"now must be {NOW}")
    if not isinstance(doc.get("description"), str) or not doc["description"].strip():
        err("description must be a non-empty string")
    now = datetime(2026, 11, 1, tzinfo=timezone.utc)

    # projects
    pkeys = []
    for i, p in enumerate(doc.get("projects", [])):
        if set(p) != PROJECT_KEYS:
            err(f"projects[{i}]: keys {sorted(p)} != {sorted(PROJECT_KEYS)}")
            continue
        if not p["key"].startswith("/work/"):
            err(f"projects[{i}]: key should be a project path like /work/name")
        pkeys.append(p["key"])
    if len(set(pkeys)) != len(pkeys):
        err("duplicate project keys")
    pkeys = set(pkeys)

    texts = []  # (text, owner) for duplicate and opening checks
    answers_by_project = {k: set() for k in pkeys}

    # updates
    ids = set()
    updates = doc.get("updates", [])
    for i, u in enumerate(updates):
        where = f"updates[{i}]"
        if set(u) != UPDATE_KEYS:
            err(f"{where}: keys {sorted(u)} != {sorted(UPDATE_KEYS)}")
            continue
        where = u["id"]
        if u["id"] != f"u{i + 1:03d}":
            err(f"{where}: expected id u{i + 1:03d}")
        if u["id"] in ids:
            err(f"{where}: duplicate id")
        ids.add(u["id"])
        if u["kind"] not in UPDATE_KINDS:
            err(f"{where}: unknown kind {u['kind']}")
        if u["project"] not in pkeys:
            err(f"{where}: unknown project {u['project']}")
        if not isinstance(u["question"], str) or not u["question"].strip().endswith("?"):
            err(f"{where}: question must be a non-empty question")
        times = check_statements(u, where, texts)
        sts = [s["text"] for s in u["statements"]]
        if len(sts) not in (2, 3):
            err(f"{where}: updates need 2 statements (3 for a workflow chain)")
        if len(sts) == 3 and u["kind"] != "workflow_replaced":
            err(f"{where}: only workflow_replaced items may have 3 statements")
        for j in range(1, len(times)):
            if times[j - 1] and times[j]:
                gap = times[j] - times[j - 1]
                if not (REPLACE_GAP[0] <= gap <= REPLACE_GAP[1]):
                    err(f"{where}: replacing statement {j} comes {gap.days} days after the previous (want 3-16 weeks)")
        last, earlier = sts[-1], sts[:-1]
        cur = u["current_answer"]
        if not isinstance(cur, str) or not cur:
            err(f"{where}: empty current_answer")
        else:
            if cur not in last:
                err(f"{where}: current_answer {cur!r} not in last statement")
            for j, e in enumerate(earlier):
                if cur in e:
                    err(f"{where}: current_answer {cur!r} also in earlier statement {j}")
        stale = u["stale_answers"]
        if not isinstance(stale, list) or not stale:
            err(f"{where}: stale_answers must be a non-empty list")
            stale = []
        for s in stale:
            if not any(s in e for e in earlier):
                err(f"{where}: stale answer {s!r} not in any earlier statement")
            if s in last:
                err(f"{where}: stale answer {s!r} is in the last statement")
        if len(sts) == 3:
            for j, e in enumerate(earlier):
                if not any(s in e for s in stale):
                    err(f"{where}: chain statement {j} contributes no stale answer")
        if u["project"] in answers_by_project:
            answers_by_project[u["project"]].update([cur] + list(stale))

    # separate
    ids = set()
    separate = doc.get("separate", [])
    for i, s in enumerate(separate):
        where = f"separate[{i}]"
        if set(s) != SEPARATE_KEYS:
            err(f"{where}: keys {sorted(s)} != {sorted(SEPARATE_KEYS)}")
            continue
        where = s["id"]
        if s["id"] != f"s{i + 1:03d}":
            err(f"{where}: expected id s{i + 1:03d}")
        if s["id"] in ids:
            err(f"{where}: duplicate id")
        ids.add(s["id"])
        if s["kind"] not in SEPARATE_KINDS:
            err(f"{where}: unknown kind {s['kind']}")
        if s["project"] not in pkeys:
            err(f"{where}: unknown project {s['project']}")
        times = check_statements(s, where, texts)
        sts = [x["text"] for x in s["statements"]]
        qs = s["questions"]
        if not isinstance(qs, list) or not qs:
            err(f"{where}: questions must be a non-empty list")
            continue
        if s["kind"] == "compound":
            if len(sts) != 1:
                err(f"{where}: compound items have exactly one statement")
            if len(qs) != 2 or any(q.get("in") != "first" for q in qs):
                err(f"{where}: compound items have two questions, both in: first")
        else:
            if len(sts) != 2:
                err(f"{where}: non-compound separate items have two statements")
        if s["kind"] == "restatement":
            if any(q.get("in") != "both" for q in qs):
                err(f"{where}: restatement answers must be in: both")
            if len(times) == 2 and all(times):
                gap = times[1] - times[0]
                if not (RESTATE_GAP[0] <= gap <= RESTATE_GAP[1]):
                    err(f"{where}: restatement comes {gap.days} days later (want 3-17 weeks)")
        for k, q in enumerate(qs):
            w = f"{where}.questions[{k}]"
            if set(q) != QUESTION_KEYS:
                err(f"{w}: keys {sorted(q)} != {sorted(QUESTION_KEYS)}")
                continue
            if not q["question"].strip().endswith("?"):
                err(f"{w}: question text should be a question")
            a, where_in = q["answer"], q["in"]
            if not a:
                err(f"{w}: empty answer")
                continue
            if where_in == "first":
                named, other = sts[:1], sts[1:]
            elif where_in == "second":
                named, other = sts[1:2], sts[:1]
            elif where_in == "both":
                named, other = sts, []
                if len(sts) != 2:
                    err(f"{w}: in: both needs two statements")
            else:
                err(f"{w}: in must be first, second or both")
                continue
            if not named:
                err(f"{w}: no statement for in: {where_in}")
            for x in named:
                if a not in x:
                    err(f"{w}: answer {a!r} not in {where_in} statement")
            for x in other:
                if a in x:
                    err(f"{w}: answer {a!r} also in the statement not named by in: {where_in}")
            if s["project"] in answers_by_project:
                answers_by_project[s["project"]].add(a)

    # distractors
    distractors = doc.get("distractors", [])
    for i, d in enumerate(distractors):
        where = f"distractors[{i}]"
        if set(d) != DISTRACTOR_KEYS:
            err(f"{where}: keys {sorted(d)} != {sorted(DISTRACTOR_KEYS)}")
            continue
        if d["kind"] not in DISTRACTOR_KINDS:
            err(f"{where}: unknown kind {d['kind']}")
        if d["project"] not in pkeys:
            err(f"{where}: unknown project {d['project']}")
        n = words(d["text"])
        if not (MIN_WORDS <= n <= MAX_WORDS):
            err(f"{where}: {n} words (want {MIN_WORDS}-{MAX_WORDS}): {d['text']!r}")
        parse_ts(d["at"], where)
        if MONTHS.search(d["text"]):
            err(f"{where}: distractor names a calendar date; check it is recorded after that date")
        texts.append((d["text"], where))
        low = d["text"].lower()
        for a in answers_by_project.get(d["project"], ()):
            if a.lower() in low:
                err(f"{where}: distractor contains answer string {a!r} of its project")

    # all times before now (already within range, which ends before now)
    if T_MAX >= now:
        err("internal: range must end before now")

    # duplicates and sentence openings
    c = Counter(t for t, _ in texts)
    for t, k in c.items():
        if k > 1:
            err(f"duplicate text: {t!r}")
    owners = {}
    for t, owner in texts:
        owners.setdefault(opening(t), set()).add(owner)
    for op, os_ in owners.items():
        if len(os_) > 1:
            err(f"items {sorted(os_)} share the sentence opening {op!r}")

    # counts
    uk = Counter(u.get("kind") for u in updates)
    sk = Counter(s.get("kind") for s in separate)
    dk = Counter(d.get("kind") for d in distractors)
    chains = sum(1 for u in updates if len(u.get("statements", [])) == 3)
    if len(updates) < MIN_UPDATES:
        err(f"only {len(updates)} updates (want >= {MIN_UPDATES})")
    for k in UPDATE_KINDS:
        if uk[k] < MIN_PER_UPDATE_KIND:
            err(f"update kind {k}: {uk[k]} (want >= {MIN_PER_UPDATE_KIND})")
    if chains < MIN_CHAINS:
        err(f"only {chains} workflow chains (want >= {MIN_CHAINS})")
    if len(separate) < MIN_SEPARATE:
        err(f"only {len(separate)} separate items (want >= {MIN_SEPARATE})")
    for k in SEPARATE_KINDS:
        if sk[k] < MIN_PER_SEPARATE_KIND:
            err(f"separate kind {k}: {sk[k]} (want >= {MIN_PER_SEPARATE_KIND})")
    if len(distractors) < MIN_DISTRACTORS:
        err(f"only {len(distractors)} distractors (want >= {MIN_DISTRACTORS})")
    if dk["tool_event"] < MIN_TOOL_EVENTS:
        err(f"only {dk['tool_event']} tool_event distractors (want >= {MIN_TOOL_EVENTS})")
    for k in DISTRACTOR_KINDS:
        if dk[k] == 0:
            err(f"no distractors of kind {k}")
    for p in sorted(pkeys):
        for name, lst in (("updates", updates), ("separate", separate), ("distractors", distractors)):
            if not any(x.get("project") == p for x in lst):
                err(f"project {p} has no {name}")

    print(f"updates: {len(updates)} " + ", ".join(f"{k} {uk[k]}" for k in UPDATE_KINDS) + f" (chains {chains})")
    print(f"separate: {len(separate)} " + ", ".join(f"{k} {sk[k]}" for k in SEPARATE_KINDS))
    print(f"distractors: {len(distractors)} " + ", ".join(f"{k} {dk[k]}" for k in DISTRACTOR_KINDS))
    print(f"projects: {len(pkeys)}")
    if errors:
        for e in errors:
            print("FAIL:", e)
        print(f"{len(errors)} problem(s)")
        return 1
    print("OK: all checks passed")
    return 0


if __name__ == "__main__":
    default = os.path.join(os.path.dirname(os.path.abspath(__file__)), "updates_bench_4.json")
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else default))
