#!/usr/bin/env python3
"""Validate updates_bench_7.json (standard library only).

Usage: python3 updates_bench_7_validate.py [path]

Exits 0 and prints a summary when every check passes; otherwise prints every
problem found and exits 1.
"""
import json
import re
import sys
from collections import Counter, defaultdict
from datetime import datetime, timedelta, timezone
from pathlib import Path

NOW = "2026-11-01T00:00:00Z"
WINDOW_START = datetime(2026, 1, 5, tzinfo=timezone.utc)
WINDOW_END = datetime(2026, 10, 28, tzinfo=timezone.utc)  # through 2026-10-27 inclusive

UPDATE_KINDS = ["rename", "tool_replaced", "moved_with_copy", "port_or_address",
                "workflow_replaced", "number_changed", "policy_changed", "owner_or_location"]
SEP_KINDS = ["elaboration", "sibling", "second_setting", "different_component",
             "different_environment", "compound", "restatement"]
DIS_KINDS = ["fact", "decision", "convention", "tool_event", "procedure", "preference"]

MIN_UPDATES = 96
MIN_PER_UPDATE_KIND = 12
MIN_PER_KIND_PER_PROJECT = 2
MIN_CHAINS = 10
MIN_SEPARATE = 84
MIN_PER_SEP_KIND = 12
MIN_DISTRACTORS = 150
MIN_TOOL_EVENTS = 50
MIN_WORDS, MAX_WORDS = 8, 32
REPLACE_GAP = timedelta(days=21)
RESTATE_MIN, RESTATE_MAX = timedelta(weeks=3), timedelta(weeks=17)

MONTH = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
         r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)")
DATE_PATTERNS = [
    re.compile(r"\b\d{4}-\d{1,2}-\d{1,2}\b"),                                  # ISO date
    re.compile(r"\b" + MONTH + r"\.?\s+\d{1,2}(?:st|nd|rd|th)?\b", re.I),       # March 3, Mar 3rd
    re.compile(r"\b\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?" + MONTH + r"\b", re.I),  # 3 March, 3rd of March
    re.compile(r"\b\d{1,2}/\d{1,2}/\d{2,4}\b"),                                  # 3/14/2026
]

problems = []


def bad(msg):
    problems.append(msg)


def parse_time(s, where):
    if not isinstance(s, str) or not re.fullmatch(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z", s):
        bad(f"{where}: time {s!r} is not ISO-8601 UTC (YYYY-MM-DDTHH:MM:SSZ)")
        return None
    try:
        t = datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
    except ValueError:
        bad(f"{where}: time {s!r} does not parse")
        return None
    if not (WINDOW_START <= t < WINDOW_END):
        bad(f"{where}: time {s} outside 2026-01-05 .. 2026-10-27")
    return t


def check_text(text, where, seen):
    if not isinstance(text, str) or not text.strip():
        bad(f"{where}: empty or non-string text")
        return
    n = len(text.split())
    if not (MIN_WORDS <= n <= MAX_WORDS):
        bad(f"{where}: {n} words (allowed {MIN_WORDS}-{MAX_WORDS}): {text!r}")
    for pat in DATE_PATTERNS:
        m = pat.search(text)
        if m:
            bad(f"{where}: contains a calendar date {m.group(0)!r}")
    key = " ".join(text.lower().split())
    if key in seen:
        bad(f"{where}: duplicate text (also at {seen[key]}): {text!r}")
    else:
        seen[key] = where


def has(needle, hay):
    return needle.lower() in hay.lower()


def main():
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).with_name("updates_bench_7.json")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as e:
        print(f"cannot load {path}: {e}")
        return 1

    expected_keys = {"version", "description", "now", "projects", "updates", "separate", "distractors"}
    if not isinstance(data, dict):
        print("top level is not an object")
        return 1
    if set(data) != expected_keys:
        bad(f"top-level keys {sorted(data)} != {sorted(expected_keys)}")
    if data.get("version") != 1:
        bad(f"version is {data.get('version')!r}, expected 1")
    if data.get("now") != NOW:
        bad(f"now is {data.get('now')!r}, expected {NOW}")
    if not isinstance(data.get("description"), str) or not data.get("description"):
        bad("description missing or empty")

    projects = data.get("projects") or []
    pkeys = []
    for i, p in enumerate(projects):
        if set(p) != {"key", "name", "stack"}:
            bad(f"projects[{i}]: fields {sorted(p)} != ['key', 'name', 'stack']")
        for f in ("key", "name", "stack"):
            if not isinstance(p.get(f), str) or not p.get(f):
                bad(f"projects[{i}]: {f} missing or empty")
        pkeys.append(p.get("key"))
    if len(set(pkeys)) != len(pkeys):
        bad("duplicate project keys")
    pkeys = set(pkeys)

    updates = data.get("updates") or []
    separate = data.get("separate") or []
    distractors = data.get("distractors") or []
    seen_texts = {}
    ids = Counter()
    answers_by_project = defaultdict(set)

    # ------------------------------------------------------------ updates
    chains = 0
    for idx, u in enumerate(updates):
        uid = u.get("id", f"updates[{idx}]")
        ids[uid] += 1
        if not re.fullmatch(r"u\d{3}", str(uid)):
            bad(f"{uid}: id does not match u###")
        want = {"id", "kind", "project", "statements", "question", "current_answer", "stale_answers"}
        if set(u) != want:
            bad(f"{uid}: fields {sorted(u)} != {sorted(want)}")
        if u.get("kind") not in UPDATE_KINDS:
            bad(f"{uid}: unknown kind {u.get('kind')!r}")
        if u.get("project") not in pkeys:
            bad(f"{uid}: unknown project {u.get('project')!r}")
        if not isinstance(u.get("question"), str) or not u.get("question", "").strip():
            bad(f"{uid}: empty question")
        sts = u.get("statements") or []
        if len(sts) < 2:
            bad(f"{uid}: needs at least 2 statements, has {len(sts)}")
            continue
        if u.get("kind") == "workflow_replaced" and len(sts) == 3:
            chains += 1
        times = []
        for j, s in enumerate(sts):
            check_text(s.get("text"), f"{uid}.statements[{j}]", seen_texts)
            times.append(parse_time(s.get("at"), f"{uid}.statements[{j}]"))
        for j in range(1, len(times)):
            a, b = times[j - 1], times[j]
            if a and b:
                if b <= a:
                    bad(f"{uid}: statement {j} is not after statement {j - 1}")
                elif b - a < REPLACE_GAP:
                    bad(f"{uid}: statement {j} only {(b - a).days} days after the one it replaces (need >= 21)")
        texts = [s.get("text") or "" for s in sts]
        last, earlier = texts[-1], texts[:-1]
        cur = u.get("current_answer")
        stale = u.get("stale_answers")
        if not isinstance(cur, str) or not cur:
            bad(f"{uid}: current_answer missing")
        else:
            answers_by_project[u.get("project")].add(cur)
            if not has(cur, last):
                bad(f"{uid}: current_answer {cur!r} not in last statement")
            for j, t in enumerate(earlier):
                if has(cur, t):
                    bad(f"{uid}: current_answer {cur!r} also in earlier statement {j}")
        if not isinstance(stale, list) or not stale or not all(isinstance(x, str) and x for x in stale):
            bad(f"{uid}: stale_answers must be a non-empty list of strings")
            continue
        covered = set()
        for sa in stale:
            answers_by_project[u.get("project")].add(sa)
            where = [j for j, t in enumerate(earlier) if has(sa, t)]
            if not where:
                bad(f"{uid}: stale answer {sa!r} not in any earlier statement")
            covered.update(where)
            if has(sa, last):
                bad(f"{uid}: stale answer {sa!r} is in the last statement")
        for j in range(len(earlier)):
            if j not in covered:
                bad(f"{uid}: earlier statement {j} contributes no stale answer")

    uk = Counter(u.get("kind") for u in updates)
    if len(updates) < MIN_UPDATES:
        bad(f"only {len(updates)} updates (need >= {MIN_UPDATES})")
    for k in UPDATE_KINDS:
        if uk[k] < MIN_PER_UPDATE_KIND:
            bad(f"updates kind {k}: {uk[k]} items (need >= {MIN_PER_UPDATE_KIND})")
    per_proj = Counter((u.get("project"), u.get("kind")) for u in updates)
    for p in sorted(pkeys):
        for k in UPDATE_KINDS:
            if per_proj[(p, k)] < MIN_PER_KIND_PER_PROJECT:
                bad(f"project {p}: {per_proj[(p, k)]} updates of kind {k} (need >= {MIN_PER_KIND_PER_PROJECT})")
    if chains < MIN_CHAINS:
        bad(f"only {chains} three-statement workflow_replaced chains (need >= {MIN_CHAINS})")

    # ------------------------------------------------------------ separate
    nq = 0
    for idx, s in enumerate(separate):
        sid = s.get("id", f"separate[{idx}]")
        ids[sid] += 1
        if not re.fullmatch(r"s\d{3}", str(sid)):
            bad(f"{sid}: id does not match s###")
        want = {"id", "kind", "project", "statements", "questions"}
        if set(s) != want:
            bad(f"{sid}: fields {sorted(s)} != {sorted(want)}")
        kind = s.get("kind")
        if kind not in SEP_KINDS:
            bad(f"{sid}: unknown kind {kind!r}")
        if s.get("project") not in pkeys:
            bad(f"{sid}: unknown project {s.get('project')!r}")
        sts = s.get("statements") or []
        need = 1 if kind == "compound" else 2
        if len(sts) != need:
            bad(f"{sid}: {kind} needs exactly {need} statement(s), has {len(sts)}")
        times = []
        for j, st in enumerate(sts):
            check_text(st.get("text"), f"{sid}.statements[{j}]", seen_texts)
            times.append(parse_time(st.get("at"), f"{sid}.statements[{j}]"))
        if len(times) == 2 and times[0] and times[1]:
            if times[1] <= times[0]:
                bad(f"{sid}: second statement is not after the first")
            if kind == "restatement":
                gap = times[1] - times[0]
                if not (RESTATE_MIN <= gap <= RESTATE_MAX):
                    bad(f"{sid}: restatement gap {gap.days} days not within 3-17 weeks")
        texts = [st.get("text") or "" for st in sts]
        qs = s.get("questions") or []
        nq += len(qs)
        if not qs:
            bad(f"{sid}: no questions")
        if kind == "compound" and (len(qs) != 2 or any(q.get("in") != "first" for q in qs)):
            bad(f"{sid}: compound needs two questions, both in: first")
        if kind == "restatement" and any(q.get("in") != "both" for q in qs):
            bad(f"{sid}: restatement answers must be in: both")
        for qi, q in enumerate(qs):
            if set(q) != {"question", "answer", "in"}:
                bad(f"{sid}.questions[{qi}]: fields {sorted(q)} != ['answer', 'in', 'question']")
            if not isinstance(q.get("question"), str) or not q.get("question", "").strip():
                bad(f"{sid}.questions[{qi}]: empty question")
            ans, w = q.get("answer"), q.get("in")
            if not isinstance(ans, str) or not ans:
                bad(f"{sid}.questions[{qi}]: answer missing")
                continue
            answers_by_project[s.get("project")].add(ans)
            named = {"first": [0], "second": [1], "both": [0, 1]}.get(w)
            if named is None:
                bad(f"{sid}.questions[{qi}]: in={w!r} is not first/second/both")
                continue
            for j, t in enumerate(texts):
                if j in named and not has(ans, t):
                    bad(f"{sid}.questions[{qi}]: answer {ans!r} not in statement {j} named by in={w}")
                if j not in named and has(ans, t):
                    bad(f"{sid}.questions[{qi}]: answer {ans!r} also in statement {j} not named by in={w}")
            if max(named) >= len(texts):
                bad(f"{sid}.questions[{qi}]: in={w} names a statement that does not exist")

    sk = Counter(s.get("kind") for s in separate)
    if len(separate) < MIN_SEPARATE:
        bad(f"only {len(separate)} separate items (need >= {MIN_SEPARATE})")
    for k in SEP_KINDS:
        if sk[k] < MIN_PER_SEP_KIND:
            bad(f"separate kind {k}: {sk[k]} items (need >= {MIN_PER_SEP_KIND})")

    # ------------------------------------------------------------ distractors
    for idx, d in enumerate(distractors):
        where = f"distractors[{idx}]"
        if set(d) != {"project", "text", "at", "kind"}:
            bad(f"{where}: fields {sorted(d)} != ['at', 'kind', 'project', 'text']")
        if d.get("project") not in pkeys:
            bad(f"{where}: unknown project {d.get('project')!r}")
        if d.get("kind") not in DIS_KINDS:
            bad(f"{where}: unknown kind {d.get('kind')!r}")
        check_text(d.get("text"), where, seen_texts)
        parse_time(d.get("at"), where)
        text = d.get("text") or ""
        for a in sorted(answers_by_project.get(d.get("project"), ())):
            if has(a, text):
                bad(f"{where}: contains answer string {a!r} of its own project: {text!r}")
    dk = Counter(d.get("kind") for d in distractors)
    if len(distractors) < MIN_DISTRACTORS:
        bad(f"only {len(distractors)} distractors (need >= {MIN_DISTRACTORS})")
    if dk["tool_event"] < MIN_TOOL_EVENTS:
        bad(f"only {dk['tool_event']} tool_event distractors (need >= {MIN_TOOL_EVENTS})")

    for i, c in ids.items():
        if c > 1:
            bad(f"id {i} used {c} times")

    if problems:
        for p in problems:
            print("PROBLEM:", p)
        print(f"{len(problems)} problem(s) in {path}")
        return 1

    words = [len(t.split()) for t in seen_texts]
    print(f"OK {path}")
    print(f"projects: {len(pkeys)}")
    print(f"updates: {len(updates)} (" + ", ".join(f"{k} {uk[k]}" for k in UPDATE_KINDS)
          + f"; {chains} workflow chains)")
    print(f"separate: {len(separate)} with {nq} questions (" + ", ".join(f"{k} {sk[k]}" for k in SEP_KINDS) + ")")
    print(f"distractors: {len(distractors)} (" + ", ".join(f"{k} {dk[k]}" for k in DIS_KINDS) + ")")
    print(f"texts: {len(words)}, words min {min(words)} max {max(words)} mean {sum(words) / len(words):.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
