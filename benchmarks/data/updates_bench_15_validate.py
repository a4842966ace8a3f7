#!/usr/bin/env python3
"""Standalone check for updates_bench_15.json (standard library only).

Usage: python3 benchmarks/data/updates_bench_15_validate.py [path/to/updates_bench_15.json]
Exits 0 and prints a summary when every check passes; otherwise prints each
problem and exits 1.
"""
import collections
import datetime as dt
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT = os.path.join(HERE, "updates_bench_15.json")

UPDATE_KINDS = ["rename", "tool_replaced", "moved_with_copy", "port_or_address",
                "workflow_replaced", "number_changed", "policy_changed", "owner_or_location"]
SEPARATE_KINDS = ["elaboration", "sibling", "second_setting", "different_component",
                  "different_environment", "compound", "restatement"]
DISTRACTOR_KINDS = ["fact", "decision", "convention", "tool_event", "procedure", "preference"]

MIN_PER_UPDATE_KIND = 14
MIN_UPDATES = 112
MIN_CHAINS = 7
MIN_PER_SEPARATE_KIND = 14
MIN_SEPARATE = 98
MIN_DISTRACTORS = 145
MIN_TOOL_EVENTS = 50
N_PROJECTS = 7

EARLIEST = dt.datetime(2026, 1, 5, tzinfo=dt.timezone.utc)
LATEST = dt.datetime(2026, 10, 27, 23, 59, 59, tzinfo=dt.timezone.utc)
NOW = "2026-11-01T00:00:00Z"
TS_RE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
MIN_REPLACE_GAP = dt.timedelta(days=21)
RESTATE_GAP = (dt.timedelta(days=21), dt.timedelta(weeks=17))
WORDS = (8, 45)
MAX_QUESTION_OVERLAP = 0.6  # share of question words that may be copied from the last statement

errors = []


def err(msg):
    errors.append(msg)


def parse_ts(s, where):
    if not isinstance(s, str) or not TS_RE.match(s):
        err(f"{where}: bad timestamp {s!r}")
        return None
    t = dt.datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=dt.timezone.utc)
    if not (EARLIEST <= t <= LATEST):
        err(f"{where}: timestamp {s} outside 2026-01-05..2026-10-27")
    return t


def words(text):
    return len(text.split())


def content_words(text):
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) > 3}


def check_statements(item, where, min_n, max_n):
    sts = item.get("statements")
    if not isinstance(sts, list) or not (min_n <= len(sts) <= max_n):
        err(f"{where}: expected {min_n}-{max_n} statements, got {sts if not isinstance(sts, list) else len(sts)}")
        return [], []
    texts, times = [], []
    for j, st in enumerate(sts):
        if set(st) != {"text", "at"}:
            err(f"{where}.statements[{j}]: keys {sorted(st)}")
        text = st.get("text", "")
        if not isinstance(text, str) or not text.strip():
            err(f"{where}.statements[{j}]: empty text")
            text = ""
        n = words(text)
        if not (WORDS[0] <= n <= WORDS[1]):
            err(f"{where}.statements[{j}]: {n} words (want {WORDS[0]}-{WORDS[1]}): {text!r}")
        texts.append(text)
        times.append(parse_ts(st.get("at"), f"{where}.statements[{j}]"))
    for j in range(1, len(times)):
        if times[j - 1] and times[j] and not times[j] > times[j - 1]:
            err(f"{where}: statements not strictly ordered in time")
    return texts, times


def main(path):
    with open(path, encoding="utf-8") as f:
        raw = f.read()
    data = json.loads(raw)

    if list(data) != ["version", "description", "now", "projects", "updates", "separate", "distractors"]:
        err(f"top-level keys/order: {list(data)}")
    if data.get("version") != 1:
        err("version must be 1")
    if data.get("now") != NOW:
        err(f"now must be {NOW}")
    if not str(data.get("description", "")).startswith("Held-out update set 15, written blind"):
        err("description must start with 'Held-out update set 15, written blind'")
    if raw != json.dumps(data, indent=2, ensure_ascii=False) + "\n":
        err("file is not canonical 2-space-indented UTF-8 JSON")

    projects = data.get("projects", [])
    keys = [p.get("key") for p in projects]
    if len(projects) != N_PROJECTS or len(set(keys)) != N_PROJECTS:
        err(f"expected {N_PROJECTS} projects with unique keys, got {keys}")
    for p in projects:
        if set(p) != {"key", "name", "stack"} or not str(p.get("key", "")).startswith("/work/"):
            err(f"project entry malformed: {p}")
    keyset = set(keys)

    all_texts = []

    # ---- updates
    updates = data.get("updates", [])
    ucount = collections.Counter()
    chains = 0
    answers_by_project = collections.defaultdict(set)
    ids = []
    for i, u in enumerate(updates):
        where = f"updates[{i}]({u.get('id')})"
        ids.append(u.get("id"))
        if list(u) != ["id", "kind", "project", "statements", "question", "current_answer", "stale_answers"]:
            err(f"{where}: keys {list(u)}")
        if not re.fullmatch(r"u\d{3}", str(u.get("id"))):
            err(f"{where}: bad id")
        if u.get("kind") not in UPDATE_KINDS:
            err(f"{where}: bad kind {u.get('kind')}")
        ucount[u.get("kind")] += 1
        if u.get("project") not in keyset:
            err(f"{where}: unknown project")
        max_n = 3 if u.get("kind") == "workflow_replaced" else 2
        texts, times = check_statements(u, where, 2, max_n)
        all_texts += texts
        if len(texts) == 3:
            chains += 1
        for j in range(1, len(times)):
            if times[j - 1] and times[j] and times[j] - times[j - 1] < MIN_REPLACE_GAP:
                err(f"{where}: replacing statement less than 3 weeks after the one it replaces")
        if not texts:
            continue
        last, earlier = texts[-1], texts[:-1]
        cur = u.get("current_answer", "")
        if not cur or cur not in last:
            err(f"{where}: current_answer {cur!r} not in last statement")
        if any(cur in t for t in earlier):
            err(f"{where}: current_answer {cur!r} also occurs in an earlier statement")
        q = u.get("question", "")
        if not q.endswith("?"):
            err(f"{where}: question should end with '?'")
        if cur and cur in q:
            err(f"{where}: question gives away the current answer")
        qw = content_words(q)
        if qw and len(qw & content_words(last)) / len(qw) > MAX_QUESTION_OVERLAP:
            err(f"{where}: question copies too many words from the last statement")
        stale = u.get("stale_answers", [])
        if not stale:
            err(f"{where}: no stale_answers")
        covered = set()
        for s in stale:
            if s in last:
                err(f"{where}: stale answer {s!r} occurs in the last statement")
            hits = [k for k, t in enumerate(earlier) if s in t]
            if not hits:
                err(f"{where}: stale answer {s!r} not in any earlier statement")
            covered.update(hits)
            if s == cur or s in cur:
                err(f"{where}: stale answer {s!r} overlaps current answer")
        if len(texts) == 3 and covered != {0, 1}:
            err(f"{where}: chain stale answers must come from both earlier statements")
        answers_by_project[u.get("project")].add(cur)
        answers_by_project[u.get("project")].update(stale)
    if len(updates) < MIN_UPDATES:
        err(f"only {len(updates)} updates (< {MIN_UPDATES})")
    for k in UPDATE_KINDS:
        if ucount[k] < MIN_PER_UPDATE_KIND:
            err(f"update kind {k}: {ucount[k]} (< {MIN_PER_UPDATE_KIND})")
    if chains < MIN_CHAINS:
        err(f"only {chains} 3-statement chains (< {MIN_CHAINS})")
    if ids != ["u%03d" % n for n in range(1, len(ids) + 1)]:
        err("update ids must run u001.. without gaps or duplicates")

    # ---- separate
    separate = data.get("separate", [])
    scount = collections.Counter()
    ids = []
    for i, s in enumerate(separate):
        where = f"separate[{i}]({s.get('id')})"
        ids.append(s.get("id"))
        if list(s) != ["id", "kind", "project", "statements", "questions"]:
            err(f"{where}: keys {list(s)}")
        if not re.fullmatch(r"s\d{3}", str(s.get("id"))):
            err(f"{where}: bad id")
        kind = s.get("kind")
        if kind not in SEPARATE_KINDS:
            err(f"{where}: bad kind {kind}")
        scount[kind] += 1
        if s.get("project") not in keyset:
            err(f"{where}: unknown project")
        n = 1 if kind == "compound" else 2
        texts, times = check_statements(s, where, n, n)
        all_texts += texts
        if kind == "restatement" and len(times) == 2 and times[0] and times[1]:
            gap = times[1] - times[0]
            if not (RESTATE_GAP[0] <= gap <= RESTATE_GAP[1]):
                err(f"{where}: restatement gap {gap.days} days outside 3-17 weeks")
        qs = s.get("questions", [])
        if kind == "compound":
            if len(qs) != 2 or any(q.get("in") != "first" for q in qs):
                err(f"{where}: compound needs two questions, both in: first")
        elif kind == "restatement":
            if not qs or any(q.get("in") != "both" for q in qs):
                err(f"{where}: restatement answers must be in: both")
        else:
            if sorted(q.get("in") for q in qs) != ["first", "second"]:
                err(f"{where}: look-alike needs one question per statement (first, second)")
        for j, q in enumerate(qs):
            if set(q) != {"question", "answer", "in"}:
                err(f"{where}.questions[{j}]: keys {sorted(q)}")
            a, where_in = q.get("answer", ""), q.get("in")
            if not q.get("question", "").endswith("?"):
                err(f"{where}.questions[{j}]: question should end with '?'")
            if a and a in q.get("question", ""):
                err(f"{where}.questions[{j}]: question gives away its answer")
            if not texts:
                continue
            if where_in == "first":
                targets, others = [texts[0]], texts[1:]
            elif where_in == "second":
                targets, others = texts[1:2], texts[:1]
            elif where_in == "both":
                targets, others = texts, []
            else:
                err(f"{where}.questions[{j}]: bad in {where_in!r}")
                continue
            if not a or not targets or any(a not in t for t in targets):
                err(f"{where}.questions[{j}]: answer {a!r} not in the {where_in} statement(s)")
            # stricter than the spec: a look-alike answer must not also sit in the other statement,
            # otherwise a merged or swapped memory could still 'answer' it.
            if any(a in t for t in others):
                err(f"{where}.questions[{j}]: answer {a!r} also occurs in the other statement")
    if len(separate) < MIN_SEPARATE:
        err(f"only {len(separate)} separate items (< {MIN_SEPARATE})")
    for k in SEPARATE_KINDS:
        if scount[k] < MIN_PER_SEPARATE_KIND:
            err(f"separate kind {k}: {scount[k]} (< {MIN_PER_SEPARATE_KIND})")
    if ids != ["s%03d" % n for n in range(1, len(ids) + 1)]:
        err("separate ids must run s001.. without gaps or duplicates")

    # ---- distractors
    distractors = data.get("distractors", [])
    dcount = collections.Counter()
    for i, d in enumerate(distractors):
        where = f"distractors[{i}]"
        if list(d) != ["project", "text", "at", "kind"]:
            err(f"{where}: keys {list(d)}")
        if d.get("kind") not in DISTRACTOR_KINDS:
            err(f"{where}: bad kind {d.get('kind')}")
        dcount[d.get("kind")] += 1
        if d.get("project") not in keyset:
            err(f"{where}: unknown project")
        text = d.get("text", "")
        n = words(text)
        if not (WORDS[0] <= n <= WORDS[1]):
            err(f"{where}: {n} words: {text!r}")
        parse_ts(d.get("at"), where)
        all_texts.append(text)
        for a in answers_by_project.get(d.get("project"), ()):
            if a and a in text:
                err(f"{where}: contains update answer {a!r} of the same project")
    if len(distractors) < MIN_DISTRACTORS:
        err(f"only {len(distractors)} distractors (< {MIN_DISTRACTORS})")
    if dcount["tool_event"] < MIN_TOOL_EVENTS:
        err(f"only {dcount['tool_event']} tool_event distractors (< {MIN_TOOL_EVENTS})")

    # ---- global
    dup = [t for t, c in collections.Counter(all_texts).items() if c > 1]
    for t in dup:
        err(f"duplicate text: {t!r}")
    per_project = collections.Counter()
    for lst in ("updates", "separate", "distractors"):
        present = {x.get("project") for x in data.get(lst, [])}
        for k in keyset - present:
            err(f"project {k} has no {lst}")
        for x in data.get(lst, []):
            per_project[(x.get("project"), lst)] += 1

    if errors:
        for e in errors:
            print("FAIL:", e)
        print(f"{len(errors)} problem(s)")
        return 1
    print("OK", os.path.basename(path))
    print("updates:", len(updates), dict(ucount), "chains:", chains)
    print("separate:", len(separate), dict(scount))
    print("distractors:", len(distractors), dict(dcount))
    n_words = [words(t) for t in all_texts]
    print(f"statement/distractor words: min {min(n_words)}, max {max(n_words)}, mean {sum(n_words)/len(n_words):.1f}")
    for p in projects:
        k = p["key"]
        print(f"  {p['name']:<11} updates {per_project[(k, 'updates')]:>3}  separate {per_project[(k, 'separate')]:>3}  "
              f"distractors {per_project[(k, 'distractors')]:>3}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else DEFAULT))
