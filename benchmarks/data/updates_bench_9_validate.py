#!/usr/bin/env python3
"""Standalone validator for updates_bench_9.json (standard library only).

Usage:  python updates_bench_9_validate.py [path/to/updates_bench_9.json]

Exits 0 when every rule of the format (see updates_bench.md / updates_bench_9.md)
holds, and 1 with one line per problem otherwise.
"""
import json
import os
import re
import sys
from collections import Counter
from datetime import datetime, timedelta, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_PATH = os.path.join(HERE, "updates_bench_9.json")

NOW = "2026-11-01T00:00:00Z"
T_MIN = datetime(2026, 1, 5, 0, 0, 0, tzinfo=timezone.utc)
T_MAX = datetime(2026, 10, 27, 23, 59, 59, tzinfo=timezone.utc)
MIN_REPLACE_GAP = timedelta(weeks=3)
RESTATE_MIN, RESTATE_MAX = timedelta(weeks=3), timedelta(weeks=17)
WORDS_MIN, WORDS_MAX = 8, 45

UPDATE_COUNTS = {
    "rename": 13, "tool_replaced": 13, "moved_with_copy": 12, "port_or_address": 12,
    "workflow_replaced": 12, "number_changed": 13, "policy_changed": 12, "owner_or_location": 13,
}
CHAINS = 7
SEPARATE_COUNTS = {
    "elaboration": 14, "sibling": 14, "second_setting": 14, "different_component": 13,
    "different_environment": 13, "compound": 13, "restatement": 12,
}
DISTRACTOR_COUNTS = {
    "fact": 46, "decision": 21, "convention": 19, "procedure": 17, "preference": 7, "tool_event": 51,
}
# project key -> (updates, separate, distractors)
PROJECT_SPREAD = {
    "/work/marrowbank": (16, 14, 23),
    "/work/fennwick": (16, 14, 23),
    "/work/nightjar": (16, 14, 23),
    "/work/larkspur": (16, 14, 23),
    "/work/ashgrove": (16, 14, 23),
    "/work/copperleaf": (11, 12, 23),
    "/work/glassworks": (9, 11, 23),
}

TOP_KEYS = ["version", "description", "now", "projects", "updates", "separate", "distractors"]
PROJECT_KEYS = {"key", "name", "stack"}
UPDATE_KEYS = {"id", "kind", "project", "statements", "question", "current_answer", "stale_answers"}
SEPARATE_KEYS = {"id", "kind", "project", "statements", "questions"}
STATEMENT_KEYS = {"text", "at"}
QUESTION_KEYS = {"question", "answer", "in"}
DISTRACTOR_KEYS = {"project", "text", "at", "kind"}
TIME_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")
MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august",
          "september", "october", "november", "december"]

errors = []


def err(msg):
    errors.append(msg)


def parse_time(value, where):
    if not isinstance(value, str) or not TIME_RE.match(value):
        err(f"{where}: time {value!r} is not ISO-8601 UTC like 2026-03-04T09:15:00Z")
        return None
    try:
        t = datetime.strptime(value, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
    except ValueError:
        err(f"{where}: time {value!r} is not a valid date")
        return None
    if not (T_MIN <= t <= T_MAX):
        err(f"{where}: time {value} is outside 2026-01-05 .. 2026-10-27")
    if value >= NOW:
        err(f"{where}: time {value} is not before now ({NOW})")
    return t


def words(text):
    return len(text.split())


def check_text(text, where, seen):
    if not isinstance(text, str) or not text.strip():
        err(f"{where}: text must be a non-empty string")
        return
    n = words(text)
    if not (WORDS_MIN <= n <= WORDS_MAX):
        err(f"{where}: statement has {n} words, expected {WORDS_MIN}-{WORDS_MAX}: {text!r}")
    norm = " ".join(text.lower().split())
    if norm in seen:
        err(f"{where}: duplicate text (also at {seen[norm]}): {text!r}")
    else:
        seen[norm] = where


def ci_in(needle, hay):
    return needle.lower() in hay.lower()


def check_statements(item, where, seen):
    stmts = item.get("statements")
    if not isinstance(stmts, list) or not stmts:
        err(f"{where}: statements must be a non-empty list")
        return [], []
    texts, times = [], []
    for j, s in enumerate(stmts):
        sw = f"{where}.statements[{j}]"
        if not isinstance(s, dict) or set(s) != STATEMENT_KEYS:
            err(f"{sw}: must have exactly the keys {sorted(STATEMENT_KEYS)}")
            continue
        check_text(s["text"], sw, seen)
        texts.append(s["text"] if isinstance(s["text"], str) else "")
        times.append(parse_time(s["at"], sw))
    for j in range(1, len(times)):
        if times[j - 1] and times[j] and not times[j] > times[j - 1]:
            err(f"{where}: statements are not strictly ordered in time ({stmts[j-1]['at']} then {stmts[j]['at']})")
    return texts, times


def check_ids(items, prefix, where):
    ids = [it.get("id") for it in items]
    expected = [f"{prefix}{i:03d}" for i in range(1, len(items) + 1)]
    for i, (got, exp) in enumerate(zip(ids, expected)):
        if got != exp:
            err(f"{where}[{i}]: id {got!r}, expected {exp!r} (ids must run {prefix}001, {prefix}002, ... in order)")
    dup = [k for k, v in Counter(ids).items() if v > 1]
    if dup:
        err(f"{where}: duplicate ids {dup}")


def main(path):
    try:
        with open(path, encoding="utf-8") as f:
            raw = f.read()
    except OSError as e:
        print(f"FAIL: cannot read {path}: {e}")
        return 1
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as e:
        print(f"FAIL: {path} is not valid JSON: {e}")
        return 1

    # ---- top level and formatting
    if not isinstance(data, dict):
        print("FAIL: top level must be an object")
        return 1
    if list(data.keys()) != TOP_KEYS:
        err(f"top level: keys are {list(data.keys())}, expected {TOP_KEYS}")
    if raw.rstrip("\n") != json.dumps(data, indent=2, ensure_ascii=False):
        err("formatting: file is not UTF-8 JSON with 2-space indentation (json.dumps(indent=2, ensure_ascii=False))")
    if data.get("version") != 1:
        err(f"top level: version is {data.get('version')!r}, expected 1")
    if data.get("now") != NOW:
        err(f"top level: now is {data.get('now')!r}, expected {NOW}")
    if not isinstance(data.get("description"), str) or not data.get("description", "").strip():
        err("top level: description must be a non-empty string")
    for k in ("projects", "updates", "separate", "distractors"):
        if not isinstance(data.get(k), list):
            print(f"FAIL: top level: {k} must be a list")
            return 1

    # ---- projects
    project_keys = set()
    for i, p in enumerate(data["projects"]):
        w = f"projects[{i}]"
        if not isinstance(p, dict) or set(p) != PROJECT_KEYS:
            err(f"{w}: must have exactly the keys {sorted(PROJECT_KEYS)}")
            continue
        for k in PROJECT_KEYS:
            if not isinstance(p[k], str) or not p[k].strip():
                err(f"{w}: {k} must be a non-empty string")
        if not str(p["key"]).startswith("/work/"):
            err(f"{w}: key {p['key']!r} should be a project path like /work/<name>")
        if p["key"] in project_keys:
            err(f"{w}: duplicate project key {p['key']}")
        project_keys.add(p["key"])
    if project_keys != set(PROJECT_SPREAD):
        err(f"projects: keys {sorted(project_keys)} differ from the documented set {sorted(PROJECT_SPREAD)}")

    seen_text = {}
    answers_by_project = {}       # current answers (update) per project
    sep_answers_by_project = {}   # separate answers per project
    all_current = []

    # ---- updates
    updates = data["updates"]
    check_ids(updates, "u", "updates")
    chains = 0
    for i, u in enumerate(updates):
        w = f"updates[{i}] ({u.get('id') if isinstance(u, dict) else '?'})"
        if not isinstance(u, dict) or set(u) != UPDATE_KEYS:
            err(f"{w}: must have exactly the keys {sorted(UPDATE_KEYS)}")
            continue
        if u["kind"] not in UPDATE_COUNTS:
            err(f"{w}: unknown kind {u['kind']!r}")
        if u["project"] not in project_keys:
            err(f"{w}: project {u['project']!r} is not in projects[]")
        for k in ("question", "current_answer"):
            if not isinstance(u[k], str) or not u[k].strip():
                err(f"{w}: {k} must be a non-empty string")
        texts, times = check_statements(u, w, seen_text)
        n = len(u["statements"]) if isinstance(u["statements"], list) else 0
        if n == 3:
            if u["kind"] != "workflow_replaced":
                err(f"{w}: only workflow_replaced items may have 3 statements (kind is {u['kind']})")
            chains += 1
        elif n != 2:
            err(f"{w}: has {n} statements, expected 2 (or 3 for a workflow_replaced chain)")
        for j in range(1, len(times)):
            if times[j - 1] and times[j] and times[j] - times[j - 1] < MIN_REPLACE_GAP:
                err(f"{w}: statement {j} comes {times[j] - times[j - 1]} after statement {j-1}; "
                    f"a replacing statement must come at least three weeks later")
        if len(texts) < 2 or not isinstance(u["current_answer"], str):
            continue
        cur, last, earlier = u["current_answer"], texts[-1], texts[:-1]
        all_current.append((u["id"], cur))
        answers_by_project.setdefault(u["project"], []).append((u["id"], cur))
        if cur not in last:
            err(f"{w}: current_answer {cur!r} is not an exact substring of the last statement")
        for j, t in enumerate(earlier):
            if ci_in(cur, t):
                err(f"{w}: current_answer {cur!r} also appears in earlier statement {j}")
        stale = u["stale_answers"]
        if not isinstance(stale, list) or not stale or not all(isinstance(s, str) and s.strip() for s in stale):
            err(f"{w}: stale_answers must be a non-empty list of non-empty strings")
            continue
        for s in stale:
            if not any(s in t for t in earlier):
                err(f"{w}: stale answer {s!r} is not an exact substring of any earlier statement")
            if ci_in(s, last):
                err(f"{w}: stale answer {s!r} is a substring of the last statement")
            if s.lower() == cur.lower():
                err(f"{w}: stale answer equals the current answer")
        if n == 3:
            for j, t in enumerate(earlier):
                if not any(s in t for s in stale):
                    err(f"{w}: chain has no stale answer taken from statement {j}; "
                        f"stale answers must come from both earlier statements")
    if chains != CHAINS:
        err(f"updates: {chains} workflow_replaced chains (3 statements), expected {CHAINS}")
    got = Counter(u.get("kind") for u in updates if isinstance(u, dict))
    for k, v in UPDATE_COUNTS.items():
        if got.get(k, 0) != v:
            err(f"updates: kind {k} has {got.get(k, 0)} items, expected {v}")
    if len(updates) != sum(UPDATE_COUNTS.values()):
        err(f"updates: {len(updates)} items, expected {sum(UPDATE_COUNTS.values())}")

    # ---- separate
    separate = data["separate"]
    check_ids(separate, "s", "separate")
    for i, s in enumerate(separate):
        w = f"separate[{i}] ({s.get('id') if isinstance(s, dict) else '?'})"
        if not isinstance(s, dict) or set(s) != SEPARATE_KEYS:
            err(f"{w}: must have exactly the keys {sorted(SEPARATE_KEYS)}")
            continue
        kind = s["kind"]
        if kind not in SEPARATE_COUNTS:
            err(f"{w}: unknown kind {kind!r}")
        if s["project"] not in project_keys:
            err(f"{w}: project {s['project']!r} is not in projects[]")
        texts, times = check_statements(s, w, seen_text)
        n = len(s["statements"]) if isinstance(s["statements"], list) else 0
        if kind == "compound" and n != 1:
            err(f"{w}: a compound item has exactly one statement (has {n})")
        if kind != "compound" and n != 2:
            err(f"{w}: a {kind} item needs two statements (has {n})")
        if kind == "restatement" and len(times) == 2 and all(times):
            gap = times[1] - times[0]
            if not (RESTATE_MIN <= gap <= RESTATE_MAX):
                err(f"{w}: restatement comes {gap} after the first statement, expected 3-17 weeks")
        qs = s["questions"]
        if not isinstance(qs, list) or not qs:
            err(f"{w}: questions must be a non-empty list")
            continue
        if kind == "compound":
            if len(qs) != 2:
                err(f"{w}: a compound item has two questions (has {len(qs)})")
            if any(isinstance(q, dict) and q.get("in") != "first" for q in qs):
                err(f"{w}: compound questions must all be in: first")
        for j, q in enumerate(qs):
            qw = f"{w}.questions[{j}]"
            if not isinstance(q, dict) or set(q) != QUESTION_KEYS:
                err(f"{qw}: must have exactly the keys {sorted(QUESTION_KEYS)}")
                continue
            if not isinstance(q["question"], str) or not q["question"].strip():
                err(f"{qw}: question must be a non-empty string")
            a, where_in = q["answer"], q["in"]
            if not isinstance(a, str) or not a.strip():
                err(f"{qw}: answer must be a non-empty string")
                continue
            sep_answers_by_project.setdefault(s["project"], []).append((s["id"], a))
            if where_in not in ("first", "second", "both"):
                err(f"{qw}: in is {where_in!r}, expected first, second or both")
                continue
            if kind == "restatement" and where_in != "both":
                err(f"{qw}: restatement answers must be in: both")
            if where_in in ("second", "both") and len(texts) < 2:
                err(f"{qw}: in: {where_in} but the item has only one statement")
                continue
            if not texts:
                continue
            named = {"first": [0], "second": [1], "both": [0, 1]}[where_in]
            for k in named:
                if a not in texts[k]:
                    err(f"{qw}: answer {a!r} is not an exact substring of the {['first', 'second'][k]} statement")
            if where_in in ("first", "second") and len(texts) == 2:
                other = 1 - named[0]
                if ci_in(a, texts[other]):
                    err(f"{qw}: answer {a!r} is marked in: {where_in} but also appears in the "
                        f"{['first', 'second'][other]} statement (use in: both)")
    got = Counter(s.get("kind") for s in separate if isinstance(s, dict))
    for k, v in SEPARATE_COUNTS.items():
        if got.get(k, 0) != v:
            err(f"separate: kind {k} has {got.get(k, 0)} items, expected {v}")
    if len(separate) != sum(SEPARATE_COUNTS.values()):
        err(f"separate: {len(separate)} items, expected {sum(SEPARATE_COUNTS.values())}")

    # ---- distractors
    distractors = data["distractors"]
    for i, d in enumerate(distractors):
        w = f"distractors[{i}]"
        if not isinstance(d, dict) or set(d) != DISTRACTOR_KEYS:
            err(f"{w}: must have exactly the keys {sorted(DISTRACTOR_KEYS)}")
            continue
        if d["kind"] not in DISTRACTOR_COUNTS:
            err(f"{w}: unknown kind {d['kind']!r}")
        if d["project"] not in project_keys:
            err(f"{w}: project {d['project']!r} is not in projects[]")
        check_text(d["text"], w, seen_text)
        t = parse_time(d["at"], w)
        text = d["text"] if isinstance(d["text"], str) else ""
        for uid, cur in all_current:
            if ci_in(cur, text):
                err(f"{w}: contains the current answer {cur!r} of {uid}: {text!r}")
        for sid, a in sep_answers_by_project.get(d["project"], []):
            if a in text:
                err(f"{w}: contains the answer {a!r} of {sid} (same project): {text!r}")
        # a distractor that names a calendar date must be recorded after it
        if t:
            for m in re.finditer(r"\b(2026)-(\d{2})-(\d{2})\b", text):
                named = datetime(2026, int(m.group(2)), int(m.group(3)), tzinfo=timezone.utc)
                if t <= named:
                    err(f"{w}: names the date {m.group(0)} but is recorded at {d['at']}")
            for m in re.finditer(r"\b(" + "|".join(MONTHS) + r")\s+(\d{1,2})\b", text.lower()):
                named = datetime(2026, MONTHS.index(m.group(1)) + 1, int(m.group(2)), tzinfo=timezone.utc)
                if t <= named:
                    err(f"{w}: names the date {m.group(0)!r} but is recorded at {d['at']}")
    got = Counter(d.get("kind") for d in distractors if isinstance(d, dict))
    for k, v in DISTRACTOR_COUNTS.items():
        if got.get(k, 0) != v:
            err(f"distractors: kind {k} has {got.get(k, 0)} items, expected {v}")
    if len(distractors) != sum(DISTRACTOR_COUNTS.values()):
        err(f"distractors: {len(distractors)} items, expected {sum(DISTRACTOR_COUNTS.values())}")

    # ---- per-project spread
    spread = {k: [0, 0, 0] for k in project_keys}
    for col, items in enumerate((updates, separate, distractors)):
        for it in items:
            if isinstance(it, dict) and it.get("project") in spread:
                spread[it["project"]][col] += 1
    for k, exp in PROJECT_SPREAD.items():
        if k in spread and tuple(spread[k]) != exp:
            err(f"projects: {k} has updates/separate/distractors = {tuple(spread[k])}, expected {exp}")

    if errors:
        print(f"FAIL: {len(errors)} problem(s) in {os.path.basename(path)}")
        for e in errors:
            print("  - " + e)
        return 1

    all_texts = [s["text"] for u in updates for s in u["statements"]] + \
                [s["text"] for x in separate for s in x["statements"]] + \
                [d["text"] for d in distractors]
    lens = [words(t) for t in all_texts]
    print(f"OK: {os.path.basename(path)} is valid")
    print(f"  projects: {len(project_keys)}; updates: {len(updates)} ({chains} chains); "
          f"separate: {len(separate)}; distractors: {len(distractors)} ({got['tool_event']} tool events)")
    print(f"  statements: {len(lens)}, words min {min(lens)} / mean {sum(lens) / len(lens):.1f} / max {max(lens)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else DEFAULT_PATH))
