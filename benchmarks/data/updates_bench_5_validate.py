#!/usr/bin/env python3
"""Check updates_bench_5.json against the format in updates_bench.md.

Standard library only. Usage:
    python3 updates_bench_5_validate.py [path/to/updates_bench_5.json]
Exits 0 and prints a summary when every check passes; otherwise prints each
problem and exits 1.
"""
import json
import os
import re
import sys
from collections import Counter
from datetime import datetime, timedelta, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_PATH = os.path.join(HERE, "updates_bench_5.json")

NOW = "2026-11-01T00:00:00Z"
EARLIEST = datetime(2026, 1, 5, tzinfo=timezone.utc)
LATEST = datetime(2026, 10, 27, 23, 59, 59, tzinfo=timezone.utc)
WORK_HOURS = range(8, 18)  # 08:00-17:59 UTC, Monday-Friday

TOP_KEYS = {"version", "description", "now", "projects", "updates", "separate", "distractors"}
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
DISTRACTOR_KINDS = ["fact", "decision", "convention", "tool_event", "procedure", "preference"]

MIN_UPDATES = 90
MIN_PER_UPDATE_KIND = 10
MIN_CHAINS = 6
MIN_SEPARATE = 84
MIN_PER_SEPARATE_KIND = 12
MIN_DISTRACTORS = 150
MIN_TOOL_EVENTS = 50
MIN_WORDS, MAX_WORDS = 8, 32
REPLACE_GAP = (timedelta(weeks=3), timedelta(weeks=16))
RESTATE_GAP = (timedelta(weeks=3), timedelta(weeks=17))

errors = []


def err(where, msg):
    errors.append(f"{where}: {msg}")


def has(text, s):
    """Exact (case-sensitive) substring: used where the answer must be present."""
    return s in text


def mentions(text, s):
    """Case-insensitive substring: used where the answer must be absent (stricter)."""
    return s.lower() in text.lower()


def parse_time(where, value):
    if not isinstance(value, str) or not re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", value):
        err(where, f"bad timestamp {value!r}")
        return None
    t = datetime.strptime(value, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
    if not (EARLIEST <= t <= LATEST):
        err(where, f"timestamp {value} outside 2026-01-05..2026-10-27")
    if t >= datetime.strptime(NOW, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc):
        err(where, f"timestamp {value} not before now")
    if t.weekday() >= 5 or t.hour not in WORK_HOURS:
        err(where, f"timestamp {value} outside working hours (Mon-Fri 08-18 UTC)")
    return t


def check_words(where, text):
    n = len(text.split())
    if not (MIN_WORDS <= n <= MAX_WORDS):
        err(where, f"{n} words (allowed {MIN_WORDS}-{MAX_WORDS}): {text!r}")
    return n


def check_keys(where, obj, keys):
    if not isinstance(obj, dict):
        err(where, "not an object")
        return False
    if set(obj) != keys:
        err(where, f"keys {sorted(obj)} != {sorted(keys)}")
        return False
    return True


def check_statements(where, statements, gap=None):
    """Shape, words, timestamps, strict order and (optionally) the gap between neighbours."""
    times = []
    if not isinstance(statements, list) or not statements:
        err(where, "statements must be a non-empty list")
        return []
    for i, st in enumerate(statements):
        w = f"{where}.statements[{i}]"
        if not check_keys(w, st, STATEMENT_KEYS):
            continue
        if not isinstance(st["text"], str) or not st["text"].strip():
            err(w, "empty text")
            continue
        check_words(w, st["text"])
        times.append(parse_time(w, st["at"]))
    for i in range(1, len(times)):
        a, b = times[i - 1], times[i]
        if a is None or b is None:
            continue
        if b <= a:
            err(where, f"statements {i - 1} and {i} not strictly ordered in time")
        elif gap and not (gap[0] <= b - a <= gap[1]):
            err(where, f"gap between statements {i - 1} and {i} is {b - a}, allowed {gap[0]}..{gap[1]}")
    return [st.get("text", "") for st in statements if isinstance(st, dict)]


def check_ids(items, prefix, where):
    for n, item in enumerate(items, 1):
        want = f"{prefix}{n:03d}"
        if item.get("id") != want:
            err(f"{where}[{n - 1}]", f"id {item.get('id')!r}, expected {want!r}")
    ids = [i.get("id") for i in items]
    for dup, c in Counter(ids).items():
        if c > 1:
            err(where, f"duplicate id {dup}")


def main(path):
    with open(path, encoding="utf-8") as f:
        raw = f.read()
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as e:
        print(f"FAIL: JSON does not parse: {e}")
        return 1
    if raw != json.dumps(data, indent=2, ensure_ascii=False) + "\n":
        err("file", "not UTF-8 JSON with 2-space indentation (json.dumps(indent=2, ensure_ascii=False))")

    if not check_keys("top", data, TOP_KEYS):
        print("\n".join(errors))
        return 1
    if type(data["version"]) is not int or data["version"] != 1:
        err("top", f"version {data['version']!r} != 1")
    if data["now"] != NOW:
        err("top", f"now {data['now']!r} != {NOW}")
    if not isinstance(data["description"], str) or not data["description"].strip():
        err("top", "empty description")

    projects = {}
    for i, p in enumerate(data["projects"]):
        if check_keys(f"projects[{i}]", p, PROJECT_KEYS):
            if p["key"] in projects:
                err(f"projects[{i}]", f"duplicate key {p['key']}")
            if not p["key"].startswith("/work/"):
                err(f"projects[{i}]", f"key {p['key']!r} is not a /work/ path")
            projects[p["key"]] = p

    all_texts = []          # (where, text) for the duplicate check
    answers_by_project = {k: set() for k in projects}

    # ------------------------------------------------------------ updates
    updates = data["updates"]
    check_ids(updates, "u", "updates")
    chains = 0
    for i, u in enumerate(updates):
        w = f"updates[{i}] ({u.get('id')})"
        if not check_keys(w, u, UPDATE_KEYS):
            continue
        if u["kind"] not in UPDATE_KINDS:
            err(w, f"unknown kind {u['kind']!r}")
        if u["project"] not in projects:
            err(w, f"unknown project {u['project']!r}")
        texts = check_statements(w, u["statements"], gap=REPLACE_GAP)
        all_texts += [(w, t) for t in texts]
        n = len(texts)
        if u["kind"] == "workflow_replaced":
            if n not in (2, 3):
                err(w, f"workflow_replaced needs 2 or 3 statements, has {n}")
            if n == 3:
                chains += 1
        elif n != 2:
            err(w, f"{u['kind']} needs 2 statements, has {n}")
        if n < 2:
            continue
        last, earlier = texts[-1], texts[:-1]
        cur = u["current_answer"]
        if not isinstance(cur, str) or not cur:
            err(w, "empty current_answer")
            continue
        if not has(last, cur):
            err(w, f"current_answer {cur!r} not in the last statement")
        for j, t in enumerate(earlier):
            if mentions(t, cur):
                err(w, f"current_answer {cur!r} appears in earlier statement {j}")
        stale = u["stale_answers"]
        if not isinstance(stale, list) or not stale:
            err(w, "stale_answers must be a non-empty list")
            stale = []
        for s in stale:
            if not isinstance(s, str) or not s:
                err(w, "empty stale answer")
                continue
            if not any(has(t, s) for t in earlier):
                err(w, f"stale answer {s!r} not in any earlier statement")
            if mentions(last, s):
                err(w, f"stale answer {s!r} appears in the last statement")
            if mentions(cur, s) or mentions(s, cur):
                err(w, f"stale answer {s!r} overlaps current_answer {cur!r}")
        if n == 3:
            for j, t in enumerate(earlier):
                if not any(has(t, s) for s in stale):
                    err(w, f"chain: earlier statement {j} contributes no stale answer")
        if not isinstance(u["question"], str) or not u["question"].strip():
            err(w, "empty question")
        if u["project"] in answers_by_project:
            answers_by_project[u["project"]].update([cur] + [s for s in stale if isinstance(s, str)])

    # ------------------------------------------------------------ separate
    separate = data["separate"]
    check_ids(separate, "s", "separate")
    for i, s in enumerate(separate):
        w = f"separate[{i}] ({s.get('id')})"
        if not check_keys(w, s, SEPARATE_KEYS):
            continue
        if s["kind"] not in SEPARATE_KINDS:
            err(w, f"unknown kind {s['kind']!r}")
        if s["project"] not in projects:
            err(w, f"unknown project {s['project']!r}")
        gap = RESTATE_GAP if s["kind"] == "restatement" else None
        texts = check_statements(w, s["statements"], gap=gap)
        all_texts += [(w, t) for t in texts]
        qs = s["questions"]
        if not isinstance(qs, list) or not qs:
            err(w, "questions must be a non-empty list")
            continue
        if s["kind"] == "compound":
            if len(texts) != 1:
                err(w, f"compound needs exactly 1 statement, has {len(texts)}")
            if len(qs) != 2:
                err(w, f"compound needs exactly 2 questions, has {len(qs)}")
        elif len(texts) != 2:
            err(w, f"{s['kind']} needs 2 statements, has {len(texts)}")
        for k, q in enumerate(qs):
            wq = f"{w}.questions[{k}]"
            if not check_keys(wq, q, QUESTION_KEYS):
                continue
            a, where_in = q["answer"], q["in"]
            if not isinstance(a, str) or not a:
                err(wq, "empty answer")
                continue
            if not isinstance(q["question"], str) or not q["question"].strip():
                err(wq, "empty question")
            if where_in not in ("first", "second", "both"):
                err(wq, f"bad in {where_in!r}")
                continue
            if s["kind"] == "compound" and where_in != "first":
                err(wq, "compound answers must be in: first")
            if s["kind"] == "restatement" and where_in != "both":
                err(wq, "restatement answers must be in: both")
            if where_in in ("second", "both") and len(texts) < 2:
                err(wq, f"in: {where_in} but the item has one statement")
                continue
            named = {"first": [0], "second": [1], "both": [0, 1]}[where_in]
            others = [j for j in range(len(texts)) if j not in named]
            for j in named:
                if not has(texts[j], a):
                    err(wq, f"answer {a!r} not in statement {j}")
            for j in others:
                if mentions(texts[j], a):
                    err(wq, f"answer {a!r} also in statement {j}, which `in: {where_in}` excludes")
            if s["project"] in answers_by_project:
                answers_by_project[s["project"]].add(a)

    # ------------------------------------------------------------ distractors
    distractors = data["distractors"]
    for i, d in enumerate(distractors):
        w = f"distractors[{i}]"
        if not check_keys(w, d, DISTRACTOR_KEYS):
            continue
        if d["kind"] not in DISTRACTOR_KINDS:
            err(w, f"unknown kind {d['kind']!r}")
        if d["project"] not in projects:
            err(w, f"unknown project {d['project']!r}")
            continue
        check_words(w, d["text"])
        parse_time(w, d["at"])
        all_texts.append((w, d["text"]))
        for a in sorted(answers_by_project[d["project"]]):
            if mentions(d["text"], a):
                err(w, f"contains answer string {a!r} of its own project: {d['text']!r}")

    # ------------------------------------------------------------ duplicates
    seen = {}
    for w, t in all_texts:
        key = " ".join(t.lower().split())
        if key in seen:
            err(w, f"duplicate text (also at {seen[key]}): {t!r}")
        else:
            seen[key] = w

    # ------------------------------------------------------------ counts
    uk = Counter(u.get("kind") for u in updates)
    sk = Counter(s.get("kind") for s in separate)
    dk = Counter(d.get("kind") for d in distractors)
    if len(updates) < MIN_UPDATES:
        err("counts", f"{len(updates)} updates < {MIN_UPDATES}")
    for k in UPDATE_KINDS:
        if uk[k] < MIN_PER_UPDATE_KIND:
            err("counts", f"updates kind {k}: {uk[k]} < {MIN_PER_UPDATE_KIND}")
    if chains < MIN_CHAINS:
        err("counts", f"{chains} workflow chains < {MIN_CHAINS}")
    if len(separate) < MIN_SEPARATE:
        err("counts", f"{len(separate)} separate < {MIN_SEPARATE}")
    for k in SEPARATE_KINDS:
        if sk[k] < MIN_PER_SEPARATE_KIND:
            err("counts", f"separate kind {k}: {sk[k]} < {MIN_PER_SEPARATE_KIND}")
    if len(distractors) < MIN_DISTRACTORS:
        err("counts", f"{len(distractors)} distractors < {MIN_DISTRACTORS}")
    if dk["tool_event"] < MIN_TOOL_EVENTS:
        err("counts", f"{dk['tool_event']} tool_event distractors < {MIN_TOOL_EVENTS}")
    for key in projects:
        if not any(u.get("project") == key for u in updates):
            err("counts", f"project {key} has no updates")

    if errors:
        print(f"FAIL: {len(errors)} problem(s)")
        for e in errors:
            print("  " + e)
        return 1

    words = [len(t.split()) for _, t in all_texts]
    print(f"updates: {len(updates)} ({', '.join(f'{k} {uk[k]}' for k in UPDATE_KINDS)}; "
          f"{chains} 3-statement chains)")
    print(f"separate: {len(separate)} ({', '.join(f'{k} {sk[k]}' for k in SEPARATE_KINDS)})")
    print(f"distractors: {len(distractors)} ({', '.join(f'{k} {dk[k]}' for k in DISTRACTOR_KINDS)})")
    print(f"projects: {len(projects)}; texts: {len(all_texts)}, "
          f"{min(words)}-{max(words)} words, mean {sum(words) / len(words):.1f}")
    print("OK: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else DEFAULT_PATH))
