#!/usr/bin/env python3
"""Stand-alone validator for updates_bench_8.json (Python 3.11 stdlib only).

Run from the repository root:  python benchmarks/data/updates_bench_8_validate.py [path]
Exits non-zero on any violation and prints the counts per kind.
"""
import json
import os
import re
import statistics
import sys
from collections import Counter
from datetime import datetime, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT = os.path.join(HERE, "updates_bench_8.json")

NOW = "2026-11-01T00:00:00Z"
MIN_AT = datetime(2026, 1, 5, 0, 0, 0, tzinfo=timezone.utc)
MAX_AT = datetime(2026, 10, 27, 23, 59, 59, tzinfo=timezone.utc)
DAY = 86400

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
WORDS_MIN, WORDS_MAX = 5, 40
MIN_UPDATE_STEPS = 110

TOP_KEYS = {"version", "description", "now", "projects", "updates", "separate", "distractors"}
PROJECT_KEYS = {"key", "name", "stack"}
UPDATE_KEYS = {"id", "kind", "project", "statements", "question", "current_answer", "stale_answers"}
SEPARATE_KEYS = {"id", "kind", "project", "statements", "questions"}
STATEMENT_KEYS = {"text", "at"}
QUESTION_KEYS = {"question", "answer", "in"}
DISTRACTOR_KEYS = {"project", "text", "at", "kind"}
IN_VALUES = {"first", "second", "both"}

errors = []


def err(msg):
    errors.append(msg)


def parse_at(s, where):
    if not isinstance(s, str) or not re.fullmatch(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z", s):
        err(f"{where}: bad timestamp {s!r}")
        return None
    try:
        t = datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
    except ValueError:
        err(f"{where}: unparseable timestamp {s!r}")
        return None
    if not (MIN_AT <= t <= MAX_AT):
        err(f"{where}: timestamp {s} outside 2026-01-05..2026-10-27")
    if t >= datetime.strptime(NOW, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc):
        err(f"{where}: timestamp {s} not before now")
    return t


def nwords(t):
    return len(t.split())


def check_keys(obj, keys, where):
    if not isinstance(obj, dict):
        err(f"{where}: not an object")
        return False
    if set(obj) != keys:
        err(f"{where}: keys {sorted(obj)} != {sorted(keys)}")
        return False
    return True


def nonempty_str(v, where):
    if not isinstance(v, str) or not v.strip():
        err(f"{where}: must be a non-empty string")
        return False
    return True


def check_statements(item, where, all_texts):
    sts = item.get("statements")
    if not isinstance(sts, list) or not sts:
        err(f"{where}: statements must be a non-empty list")
        return [], []
    texts, times = [], []
    for j, st in enumerate(sts):
        w = f"{where}.statements[{j}]"
        if not check_keys(st, STATEMENT_KEYS, w):
            continue
        if not nonempty_str(st["text"], w + ".text"):
            continue
        texts.append(st["text"])
        all_texts.append((st["text"], w))
        n = nwords(st["text"])
        if not (WORDS_MIN <= n <= WORDS_MAX):
            err(f"{w}: {n} words (allowed {WORDS_MIN}-{WORDS_MAX})")
        times.append(parse_at(st["at"], w))
    for j in range(1, len(times)):
        if times[j - 1] and times[j] and not times[j] > times[j - 1]:
            err(f"{where}: statements not strictly ordered in time ({j - 1} -> {j})")
    return texts, times


def main(path):
    try:
        raw = open(path, encoding="utf-8").read()
    except OSError as e:
        print(f"cannot read {path}: {e}")
        return 2
    try:
        doc = json.loads(raw)
    except json.JSONDecodeError as e:
        print(f"JSON does not parse: {e}")
        return 2
    if raw.rstrip("\n") != json.dumps(doc, indent=2, ensure_ascii=False):
        err("file is not UTF-8 JSON with 2-space indentation (json.dumps(indent=2, ensure_ascii=False))")

    if not check_keys(doc, TOP_KEYS, "top-level"):
        report(doc if isinstance(doc, dict) else {})
        return 1
    if doc["version"] != 1:
        err("version must be 1")
    if doc["now"] != NOW:
        err(f"now must be {NOW}")
    nonempty_str(doc["description"], "description")
    for name in ("projects", "updates", "separate", "distractors"):
        if not isinstance(doc[name], list):
            err(f"{name} must be a list")
            report(doc)
            return 1

    # projects
    pkeys = set()
    for i, p in enumerate(doc["projects"]):
        w = f"projects[{i}]"
        if not check_keys(p, PROJECT_KEYS, w):
            continue
        for k in PROJECT_KEYS:
            nonempty_str(p[k], f"{w}.{k}")
        if not str(p["key"]).startswith("/work/"):
            err(f"{w}: key should be a project path under /work/")
        if p["key"] in pkeys:
            err(f"{w}: duplicate project key {p['key']}")
        pkeys.add(p["key"])
    names = [p.get("name") for p in doc["projects"] if isinstance(p, dict)]
    if len(set(names)) != len(names):
        err("duplicate project names")

    all_texts = []
    all_questions = []
    answers_by_project = {}

    # updates
    ids = []
    chains = 0
    steps = 0
    for i, u in enumerate(doc["updates"]):
        w = f"updates[{i}]"
        if not check_keys(u, UPDATE_KEYS, w):
            continue
        w = f"{w}({u['id']})"
        ids.append(u["id"])
        if u["kind"] not in UPDATE_COUNTS:
            err(f"{w}: unknown kind {u['kind']!r}")
        if u["project"] not in pkeys:
            err(f"{w}: unknown project {u['project']!r}")
        texts, times = check_statements(u, w, all_texts)
        steps += len(texts)
        n = len(u["statements"]) if isinstance(u["statements"], list) else 0
        if n == 3:
            chains += 1
            if u["kind"] != "workflow_replaced":
                err(f"{w}: only workflow_replaced items may have 3 statements")
        elif n != 2:
            err(f"{w}: updates must have 2 statements (or 3 for workflow chains), got {n}")
        for j in range(1, len(times)):
            if times[j - 1] and times[j] and (times[j] - times[j - 1]).total_seconds() < 21 * DAY:
                err(f"{w}: replacing statement {j} less than 3 weeks after statement {j - 1}")
        nonempty_str(u["question"], w + ".question")
        all_questions.append((u["question"], w))
        cur = u["current_answer"]
        if not nonempty_str(cur, w + ".current_answer") or len(texts) != n:
            continue
        last, earlier = texts[-1], texts[:-1]
        if cur not in last:
            err(f"{w}: current_answer {cur!r} not in last statement")
        for j, t in enumerate(earlier):
            if cur in t:
                err(f"{w}: current_answer {cur!r} also in earlier statement {j}")
        if cur.lower() in u["question"].lower():
            err(f"{w}: question contains its own answer {cur!r}")
        stale = u["stale_answers"]
        if not isinstance(stale, list) or not stale:
            err(f"{w}: stale_answers must be a non-empty list")
            continue
        covered = set()
        for s in stale:
            if not nonempty_str(s, w + ".stale_answers[]"):
                continue
            hits = [j for j, t in enumerate(earlier) if s in t]
            if not hits:
                err(f"{w}: stale answer {s!r} not in any earlier statement")
            covered.update(hits)
            if s in last:
                err(f"{w}: stale answer {s!r} is in the last statement")
            if s == cur:
                err(f"{w}: stale answer equals current answer")
        if n == 3 and covered != {0, 1}:
            err(f"{w}: chain stale answers must come from both earlier statements (got {sorted(covered)})")
        answers_by_project.setdefault(u["project"], set()).update([cur] + [s for s in stale if isinstance(s, str)])
    check_ids(ids, "u", "updates")
    uk = Counter(u.get("kind") for u in doc["updates"] if isinstance(u, dict))
    for k, c in UPDATE_COUNTS.items():
        if uk[k] != c:
            err(f"updates: kind {k} has {uk[k]} items, expected {c}")
    if chains != CHAINS:
        err(f"updates: {chains} 3-statement chains, expected {CHAINS}")
    if steps < MIN_UPDATE_STEPS:
        err(f"updates: only {steps} statements, expected at least {MIN_UPDATE_STEPS}")

    # separate
    ids = []
    for i, s in enumerate(doc["separate"]):
        w = f"separate[{i}]"
        if not check_keys(s, SEPARATE_KEYS, w):
            continue
        w = f"{w}({s['id']})"
        ids.append(s["id"])
        kind = s["kind"]
        if kind not in SEPARATE_COUNTS:
            err(f"{w}: unknown kind {kind!r}")
        if s["project"] not in pkeys:
            err(f"{w}: unknown project {s['project']!r}")
        texts, times = check_statements(s, w, all_texts)
        n = len(s["statements"]) if isinstance(s["statements"], list) else 0
        if kind == "compound":
            if n != 1:
                err(f"{w}: compound must have exactly one statement")
        elif n != 2:
            err(f"{w}: {kind} must have exactly two statements, got {n}")
        if kind == "restatement" and len(times) == 2 and all(times):
            gap = (times[1] - times[0]).total_seconds()
            if not (21 * DAY <= gap <= 119 * DAY):
                err(f"{w}: restatement gap {gap / DAY:.1f} days not within 3-17 weeks")
        qs = s["questions"]
        if not isinstance(qs, list) or not qs:
            err(f"{w}: questions must be a non-empty list")
            continue
        if kind == "compound" and len(qs) != 2:
            err(f"{w}: compound must have exactly two questions")
        for j, q in enumerate(qs):
            wq = f"{w}.questions[{j}]"
            if not check_keys(q, QUESTION_KEYS, wq):
                continue
            nonempty_str(q["question"], wq + ".question")
            all_questions.append((q["question"], wq))
            a, where = q["answer"], q["in"]
            if not nonempty_str(a, wq + ".answer"):
                continue
            if where not in IN_VALUES:
                err(f"{wq}: bad in value {where!r}")
                continue
            if kind == "compound" and where != "first":
                err(f"{wq}: compound questions must be in: first")
            if kind == "restatement" and where != "both":
                err(f"{wq}: restatement answers must be in: both")
            if a.lower() in q["question"].lower():
                err(f"{wq}: question contains its own answer {a!r}")
            if len(texts) != n:
                continue
            if where in ("second", "both") and n < 2:
                err(f"{wq}: in={where} but item has one statement")
                continue
            if where == "first":
                if a not in texts[0]:
                    err(f"{wq}: answer {a!r} not in first statement")
                if n == 2 and a in texts[1]:
                    err(f"{wq}: answer {a!r} marked first but also in second statement")
            elif where == "second":
                if a not in texts[1]:
                    err(f"{wq}: answer {a!r} not in second statement")
                if a in texts[0]:
                    err(f"{wq}: answer {a!r} marked second but also in first statement")
            else:
                for k in range(n):
                    if a not in texts[k]:
                        err(f"{wq}: answer {a!r} marked both but missing from statement {k}")
    check_ids(ids, "s", "separate")
    sk = Counter(s.get("kind") for s in doc["separate"] if isinstance(s, dict))
    for k, c in SEPARATE_COUNTS.items():
        if sk[k] != c:
            err(f"separate: kind {k} has {sk[k]} items, expected {c}")

    # distractors
    for i, d in enumerate(doc["distractors"]):
        w = f"distractors[{i}]"
        if not check_keys(d, DISTRACTOR_KEYS, w):
            continue
        if d["kind"] not in DISTRACTOR_COUNTS:
            err(f"{w}: unknown kind {d['kind']!r}")
        if d["project"] not in pkeys:
            err(f"{w}: unknown project {d['project']!r}")
        if not nonempty_str(d["text"], w + ".text"):
            continue
        all_texts.append((d["text"], w))
        n = nwords(d["text"])
        if not (WORDS_MIN <= n <= WORDS_MAX):
            err(f"{w}: {n} words (allowed {WORDS_MIN}-{WORDS_MAX})")
        t = parse_at(d["at"], w)
        low = d["text"].lower()
        for a in answers_by_project.get(d["project"], ()):
            if a.lower() in low:
                err(f"{w}: distractor contains update answer {a!r} of its project")
        for m in re.findall(r"\b(20\d\d-\d\d-\d\d)\b", d["text"]):
            md = datetime.strptime(m, "%Y-%m-%d").replace(tzinfo=timezone.utc)
            if t and not t > md:
                err(f"{w}: names date {m} but is recorded before it")
    dk = Counter(d.get("kind") for d in doc["distractors"] if isinstance(d, dict))
    for k, c in DISTRACTOR_COUNTS.items():
        if dk[k] != c:
            err(f"distractors: kind {k} has {dk[k]} items, expected {c}")

    # duplicates
    seen = {}
    for t, w in all_texts:
        key = " ".join(t.split()).lower()
        if key in seen:
            err(f"{w}: duplicate text (also {seen[key]})")
        seen[key] = w
    seenq = {}
    for q, w in all_questions:
        key = " ".join(str(q).split()).lower()
        if key in seenq:
            err(f"{w}: duplicate question (also {seenq[key]})")
        seenq[key] = w

    # every project in all three lists
    for p in pkeys:
        for name in ("updates", "separate", "distractors"):
            if not any(isinstance(x, dict) and x.get("project") == p for x in doc[name]):
                err(f"project {p} has no items in {name}")

    report(doc)
    return 1 if errors else 0


def check_ids(ids, prefix, name):
    expected = [f"{prefix}{i:03d}" for i in range(1, len(ids) + 1)]
    if len(set(ids)) != len(ids):
        err(f"{name}: duplicate ids")
    if ids != expected:
        err(f"{name}: ids must be {prefix}001..{prefix}{len(ids):03d} in order without gaps")


def report(doc):
    U = [u for u in doc.get("updates", []) if isinstance(u, dict)]
    S = [s for s in doc.get("separate", []) if isinstance(s, dict)]
    D = [d for d in doc.get("distractors", []) if isinstance(d, dict)]
    uk = Counter(u.get("kind") for u in U)
    sk = Counter(s.get("kind") for s in S)
    dk = Counter(d.get("kind") for d in D)
    chains = sum(1 for u in U if len(u.get("statements", [])) == 3)
    steps = sum(len(u.get("statements", [])) for u in U)
    print(f"updates: {len(U)} items, {steps} statements, {chains} chains")
    for k in UPDATE_COUNTS:
        print(f"  {k:22s} {uk[k]}")
    print(f"separate: {len(S)} items, {sum(len(s.get('questions', [])) for s in S)} questions")
    for k in SEPARATE_COUNTS:
        print(f"  {k:22s} {sk[k]}")
    print(f"distractors: {len(D)}")
    for k in DISTRACTOR_COUNTS:
        print(f"  {k:22s} {dk[k]}")
    names = {p.get("key"): p.get("name") for p in doc.get("projects", []) if isinstance(p, dict)}
    print("projects (updates/separate/distractors):")
    for key, name in names.items():
        cu = sum(1 for x in U if x.get("project") == key)
        cs = sum(1 for x in S if x.get("project") == key)
        cd = sum(1 for x in D if x.get("project") == key)
        print(f"  {name:14s} {key:24s} {cu}/{cs}/{cd}")
    wc = [nwords(st["text"]) for x in U + S for st in x.get("statements", []) if isinstance(st, dict)
          and isinstance(st.get("text"), str)] + [nwords(d["text"]) for d in D if isinstance(d.get("text"), str)]
    if wc:
        print(f"words per text: min {min(wc)}, max {max(wc)}, mean {statistics.mean(wc):.1f}")
    if errors:
        print(f"FAILED: {len(errors)} violation(s)")
        for e in errors:
            print("  - " + e)
    else:
        print("OK: all checks passed")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else DEFAULT))
