#!/usr/bin/env python3
"""Validate updates_bench_6.json (standard library only).

Usage: python3 updates_bench_6_validate.py [path]
Exits 0 and prints a summary when every check passes; otherwise prints each
problem and exits 1.
"""
import json
import os
import re
import sys
from collections import Counter
from datetime import datetime, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT = os.path.join(HERE, "updates_bench_6.json")

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

NOW = "2026-11-01T00:00:00Z"
WINDOW_START = datetime(2026, 1, 5, tzinfo=timezone.utc)
WINDOW_END = datetime(2026, 10, 27, 23, 59, 59, tzinfo=timezone.utc)
DAY = 86400.0
WEEK = 7 * DAY

MIN_PER_UPDATE_KIND = 12
MIN_PER_UPDATE_KIND_PER_PROJECT = 2
MIN_CHAINS = 8
MIN_PER_SEPARATE_KIND = 12
MIN_DISTRACTORS = 150
MIN_TOOL_EVENTS = 50
MIN_WORDS, MAX_WORDS = 8, 32

TS_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")
DATE_RE = re.compile(
    r"\b(january|february|march|april|june|july|august|september|october|november|december|"
    r"jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)\.?\s+\d{1,2}\b|\b\d{4}-\d{2}-\d{2}\b|"
    r"\b\d{1,2}/\d{1,2}/\d{2,4}\b|\b\d{1,2}(st|nd|rd|th)?\s+(january|february|march|april|may|june|july|"
    r"august|september|october|november|december)\b|\b(january|february|march|april|june|july|august|"
    r"september|october|november|december)\b", re.I)

problems = []


def err(msg):
    problems.append(msg)


def parse_ts(s, where):
    if not isinstance(s, str) or not TS_RE.match(s):
        err(f"{where}: bad timestamp {s!r}")
        return None
    try:
        return datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
    except ValueError:
        err(f"{where}: unparsable timestamp {s!r}")
        return None


def check_time(t, where):
    if t is None:
        return
    if not (WINDOW_START <= t <= WINDOW_END):
        err(f"{where}: {t.isoformat()} outside 2026-01-05..2026-10-27")
    if t.weekday() >= 5:
        err(f"{where}: {t.isoformat()} falls on a weekend")
    if not (8 <= t.hour <= 17):
        err(f"{where}: {t.isoformat()} outside 08:00-17:59 UTC")


def nwords(text):
    return len(text.split())


def contains(hay, needle):
    return needle.lower() in hay.lower()


def check_keys(obj, keys, where):
    if not isinstance(obj, dict):
        err(f"{where}: not an object")
        return False
    got = set(obj)
    if got != keys:
        missing, extra = keys - got, got - keys
        err(f"{where}: key mismatch (missing {sorted(missing)}, extra {sorted(extra)})")
        return False
    return True


def check_statements(stmts, where, n_allowed):
    """Return list of (text, datetime) or None when malformed."""
    if not isinstance(stmts, list) or len(stmts) not in n_allowed:
        err(f"{where}: expected {sorted(n_allowed)} statements, got "
            f"{len(stmts) if isinstance(stmts, list) else type(stmts).__name__}")
        return None
    out = []
    for i, st in enumerate(stmts):
        w = f"{where}.statements[{i}]"
        if not check_keys(st, STATEMENT_KEYS, w):
            return None
        if not isinstance(st["text"], str) or not st["text"].strip():
            err(f"{w}: empty text")
            return None
        t = parse_ts(st["at"], w)
        check_time(t, w)
        out.append((st["text"], t))
    for i in range(1, len(out)):
        a, b = out[i - 1][1], out[i][1]
        if a and b and not a < b:
            err(f"{where}: statements not strictly ordered in time ({i - 1} -> {i})")
    return out


def gap_check(pairs, where, lo_s, hi_s, label):
    for i in range(1, len(pairs)):
        a, b = pairs[i - 1][1], pairs[i][1]
        if a is None or b is None:
            continue
        g = (b - a).total_seconds()
        if not (lo_s <= g <= hi_s):
            err(f"{where}: {label} gap {g / DAY:.1f} days between statements {i - 1} and {i} "
                f"(allowed {lo_s / DAY:.0f}-{hi_s / DAY:.0f} days)")


def main(path):
    try:
        raw = open(path, encoding="utf-8").read()
    except OSError as e:
        print(f"cannot read {path}: {e}")
        return 1
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as e:
        print(f"JSON does not parse: {e}")
        return 1
    if raw.rstrip("\n") != json.dumps(data, indent=2, ensure_ascii=False):
        err("file is not canonical 2-space-indented JSON (json.dumps(indent=2, ensure_ascii=False))")

    if not check_keys(data, TOP_KEYS, "top level"):
        pass
    if data.get("version") != 1:
        err(f"version must be 1, got {data.get('version')!r}")
    if data.get("now") != NOW:
        err(f"now must be {NOW}, got {data.get('now')!r}")
    if not isinstance(data.get("description"), str) or not data.get("description", "").strip():
        err("description must be a non-empty string")

    projects = data.get("projects") or []
    pkeys = []
    for i, p in enumerate(projects):
        if check_keys(p, PROJECT_KEYS, f"projects[{i}]"):
            pkeys.append(p["key"])
            for k in PROJECT_KEYS:
                if not isinstance(p[k], str) or not p[k].strip():
                    err(f"projects[{i}].{k} empty")
    if len(set(pkeys)) != len(pkeys):
        err("duplicate project keys")
    known_projects = set(pkeys)

    all_texts = []               # (text, where)
    answers_by_project = {k: set() for k in known_projects}
    upd_kinds = Counter()
    upd_kind_proj = Counter()
    chains = 0
    sep_kinds = Counter()

    # ---------------- updates ----------------
    updates = data.get("updates") or []
    for i, u in enumerate(updates):
        where = f"updates[{i}]"
        if not check_keys(u, UPDATE_KEYS, where):
            continue
        exp_id = f"u{i + 1:03d}"
        if u["id"] != exp_id:
            err(f"{where}: id {u['id']!r}, expected {exp_id}")
        where = u["id"]
        if u["kind"] not in UPDATE_KINDS:
            err(f"{where}: unknown kind {u['kind']!r}")
        if u["project"] not in known_projects:
            err(f"{where}: unknown project {u['project']!r}")
        upd_kinds[u["kind"]] += 1
        upd_kind_proj[(u["project"], u["kind"])] += 1
        allowed = {2, 3} if u["kind"] == "workflow_replaced" else {2, 3}
        st = check_statements(u["statements"], where, allowed)
        if st is None:
            continue
        if u["kind"] == "workflow_replaced" and len(st) == 3:
            chains += 1
        for text, _ in st:
            all_texts.append((text, where))
        gap_check(st, where, 3 * WEEK, 16 * WEEK, "replacement")
        if not isinstance(u["question"], str) or not u["question"].strip():
            err(f"{where}: empty question")
        cur, stale = u["current_answer"], u["stale_answers"]
        if not isinstance(cur, str) or not cur.strip():
            err(f"{where}: empty current_answer")
            continue
        if not isinstance(stale, list) or not stale or not all(isinstance(s, str) and s.strip() for s in stale):
            err(f"{where}: stale_answers must be a non-empty list of strings")
            continue
        last = st[-1][0]
        earlier = [t for t, _ in st[:-1]]
        if cur not in last:
            err(f"{where}: current_answer {cur!r} not in last statement")
        for j, t in enumerate(earlier):
            if contains(t, cur):
                err(f"{where}: current_answer {cur!r} appears (case-insensitively) in earlier statement {j}")
        for s in stale:
            if not any(s in t for t in earlier):
                err(f"{where}: stale answer {s!r} not in any earlier statement")
            if contains(last, s):
                err(f"{where}: stale answer {s!r} appears (case-insensitively) in the last statement")
            if contains(cur, s) or contains(s, cur):
                err(f"{where}: stale answer {s!r} overlaps current answer {cur!r}")
        for j, t in enumerate(earlier):
            if not any(s in t for s in stale):
                err(f"{where}: earlier statement {j} contributes no stale answer")
        if contains(u["question"], cur):
            err(f"{where}: question gives away the current answer")
        if u["project"] in answers_by_project:
            answers_by_project[u["project"]].add(cur)
            answers_by_project[u["project"]].update(stale)

    # ---------------- separate ----------------
    separate = data.get("separate") or []
    for i, s in enumerate(separate):
        where = f"separate[{i}]"
        if not check_keys(s, SEPARATE_KEYS, where):
            continue
        exp_id = f"s{i + 1:03d}"
        if s["id"] != exp_id:
            err(f"{where}: id {s['id']!r}, expected {exp_id}")
        where = s["id"]
        kind = s["kind"]
        if kind not in SEPARATE_KINDS:
            err(f"{where}: unknown kind {kind!r}")
        if s["project"] not in known_projects:
            err(f"{where}: unknown project {s['project']!r}")
        sep_kinds[kind] += 1
        st = check_statements(s["statements"], where, {1} if kind == "compound" else {2})
        if st is None:
            continue
        for text, _ in st:
            all_texts.append((text, where))
        if kind == "restatement":
            gap_check(st, where, 3 * WEEK, 17 * WEEK, "restatement")
        elif kind != "compound":
            gap_check(st, where, 1 * DAY, 70 * DAY, "look-alike")
        qs = s["questions"]
        if not isinstance(qs, list) or not qs:
            err(f"{where}: questions must be a non-empty list")
            continue
        if kind == "compound" and len(qs) != 2:
            err(f"{where}: compound needs exactly 2 questions, got {len(qs)}")
        for j, q in enumerate(qs):
            w = f"{where}.questions[{j}]"
            if not check_keys(q, QUESTION_KEYS, w):
                continue
            a, loc = q["answer"], q["in"]
            if not isinstance(a, str) or not a.strip():
                err(f"{w}: empty answer")
                continue
            if not isinstance(q["question"], str) or not q["question"].strip():
                err(f"{w}: empty question")
            if loc not in ("first", "second", "both"):
                err(f"{w}: bad 'in' {loc!r}")
                continue
            if kind == "compound" and loc != "first":
                err(f"{w}: compound answers must be in 'first'")
            if kind == "restatement" and loc != "both":
                err(f"{w}: restatement answers must be in 'both'")
            if kind not in ("compound", "restatement") and loc == "both":
                err(f"{w}: {kind} answers must be in one statement only")
            texts = [t for t, _ in st]
            if loc == "first" and len(texts) >= 1:
                if a not in texts[0]:
                    err(f"{w}: answer {a!r} not in first statement")
                if len(texts) > 1 and contains(texts[1], a):
                    err(f"{w}: answer {a!r} also appears in second statement")
            elif loc == "second":
                if len(texts) < 2 or a not in texts[1]:
                    err(f"{w}: answer {a!r} not in second statement")
                elif contains(texts[0], a):
                    err(f"{w}: answer {a!r} also appears in first statement")
            elif loc == "both":
                if len(texts) < 2 or not all(a in t for t in texts):
                    err(f"{w}: answer {a!r} not in both statements")
            if contains(q["question"], a):
                err(f"{w}: question gives away its answer")
            if s["project"] in answers_by_project:
                answers_by_project[s["project"]].add(a)

    # ---------------- distractors ----------------
    distractors = data.get("distractors") or []
    dkinds = Counter()
    for i, d in enumerate(distractors):
        where = f"distractors[{i}]"
        if not check_keys(d, DISTRACTOR_KEYS, where):
            continue
        if d["kind"] not in DISTRACTOR_KINDS:
            err(f"{where}: unknown kind {d['kind']!r}")
        if d["project"] not in known_projects:
            err(f"{where}: unknown project {d['project']!r}")
        dkinds[d["kind"]] += 1
        t = parse_ts(d["at"], where)
        check_time(t, where)
        text = d["text"]
        if not isinstance(text, str) or not text.strip():
            err(f"{where}: empty text")
            continue
        all_texts.append((text, where))
        for a in sorted(answers_by_project.get(d["project"], ())):
            if contains(text, a):
                err(f"{where}: contains answer string {a!r} of its own project: {text!r}")
        if DATE_RE.search(text):
            err(f"{where}: names a calendar date: {text!r}")

    # ---------------- global text checks ----------------
    seen = {}
    for text, where in all_texts:
        n = nwords(text)
        if not (MIN_WORDS <= n <= MAX_WORDS):
            err(f"{where}: {n} words (allowed {MIN_WORDS}-{MAX_WORDS}): {text!r}")
        key = " ".join(text.lower().split())
        if key in seen:
            err(f"{where}: duplicate text (also {seen[key]}): {text!r}")
        else:
            seen[key] = where

    # ---------------- counts ----------------
    for k in UPDATE_KINDS:
        if upd_kinds[k] < MIN_PER_UPDATE_KIND:
            err(f"updates: kind {k} has {upd_kinds[k]} items (< {MIN_PER_UPDATE_KIND})")
        for p in known_projects:
            if upd_kind_proj[(p, k)] < MIN_PER_UPDATE_KIND_PER_PROJECT:
                err(f"updates: project {p} has {upd_kind_proj[(p, k)]} {k} items "
                    f"(< {MIN_PER_UPDATE_KIND_PER_PROJECT})")
    if chains < MIN_CHAINS:
        err(f"updates: {chains} workflow_replaced chains (< {MIN_CHAINS})")
    for k in SEPARATE_KINDS:
        if sep_kinds[k] < MIN_PER_SEPARATE_KIND:
            err(f"separate: kind {k} has {sep_kinds[k]} items (< {MIN_PER_SEPARATE_KIND})")
    if len(distractors) < MIN_DISTRACTORS:
        err(f"distractors: {len(distractors)} (< {MIN_DISTRACTORS})")
    if dkinds["tool_event"] < MIN_TOOL_EVENTS:
        err(f"distractors: {dkinds['tool_event']} tool_event (< {MIN_TOOL_EVENTS})")
    for k in DISTRACTOR_KINDS:
        if dkinds[k] == 0:
            err(f"distractors: no items of kind {k}")

    if problems:
        for p in problems:
            print(p)
        print(f"FAILED: {len(problems)} problem(s)")
        return 1

    wc = [nwords(t) for t, _ in all_texts]
    print(f"OK: {os.path.basename(path)}")
    print(f"  projects: {len(projects)}")
    print(f"  updates: {len(updates)} ("
          + ", ".join(f"{k} {upd_kinds[k]}" for k in UPDATE_KINDS) + f"; {chains} three-statement chains)")
    print(f"  separate: {len(separate)} (" + ", ".join(f"{k} {sep_kinds[k]}" for k in SEPARATE_KINDS) + ")")
    print(f"  distractors: {len(distractors)} (" + ", ".join(f"{k} {dkinds[k]}" for k in DISTRACTOR_KINDS) + ")")
    print(f"  texts: {len(all_texts)}, {min(wc)}-{max(wc)} words, mean {sum(wc) / len(wc):.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else DEFAULT))
