#!/usr/bin/env python3
"""Standard-library validation of updates_bench_3.json against the rules in updates_bench_3.md.

Adapted from updates_bench_2_validate.py. Differences: the count minimums are those of set 3, replacing
statements must also come at most ~16 weeks after the statement they replace, the six projects must be
new (none of the projects of sets 1 and 2), and a short wording-variety summary is printed.

Usage: python benchmarks/data/updates_bench_3_validate.py [path/to/updates_bench_3.json]
"""
import json
import os
import re
import sys
from collections import Counter
from datetime import datetime, timezone

PATH = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "updates_bench_3.json")
errors, warnings = [], []


def err(msg):
    errors.append(msg)


def parse(ts):
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z", ts):
        raise ValueError(ts)
    return datetime.strptime(ts, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)


LO = datetime(2026, 1, 5, tzinfo=timezone.utc)
HI = datetime(2026, 10, 28, tzinfo=timezone.utc)  # exclusive: anything on 2026-10-27 is fine

UPDATE_KINDS = ["rename", "tool_replaced", "moved_with_copy", "port_or_address", "workflow_replaced",
                "number_changed", "policy_changed", "owner_or_location"]
SEP_KINDS = ["elaboration", "sibling", "second_setting", "different_component", "different_environment",
             "compound", "restatement"]
DIS_KINDS = {"fact", "decision", "convention", "tool_event", "procedure", "preference"}

with open(PATH, encoding="utf-8") as f:
    raw = f.read()
doc = json.loads(raw)  # raises if it doesn't parse

if set(doc) != {"version", "description", "now", "projects", "updates", "separate", "distractors"}:
    err(f"top-level keys: {sorted(doc)}")
if doc.get("version") != 1:
    err("version must be 1")
if doc.get("now") != "2026-11-01T00:00:00Z":
    err("now must be 2026-11-01T00:00:00Z")
NOW = parse(doc["now"])
if raw != json.dumps(doc, indent=2, ensure_ascii=False) + "\n":
    warnings.append("file is not canonical 2-space indented JSON")

# Projects of sets 1 and 2 (from updates_bench.md and updates_bench_2.md); set 3 must not reuse them.
OLD_PROJECTS = {"tidewater freight", "lumen", "orchard", "emberfall", "quill", "kestrel", "tabwise", "riverchat",
                "claimwright", "saltmarsh goods", "stridelog", "groundwork", "beacon"}
OLD_KEYS = {"/work/riverchat", "/work/claimwright", "/work/saltmarsh", "/work/stridelog", "/work/groundwork",
            "/work/beacon-fw", "/work/tidewater-freight"}
proj_keys = [p["key"] for p in doc["projects"]]
for p in doc["projects"]:
    if p["name"].lower() in OLD_PROJECTS or p["key"] in OLD_KEYS:
        err(f"project {p['name']} ({p['key']}) was already used by set 1 or 2")
for p in doc["projects"]:
    if set(p) != {"key", "name", "stack"}:
        err(f"project keys {sorted(p)}")
    if not p["key"].startswith("/work/"):
        err(f"project key {p['key']}")
if len(set(proj_keys)) != len(proj_keys):
    err("duplicate project keys")

all_texts = []


def words(t):
    return len(t.split())


def check_text(t, where):
    n = words(t)
    if not 8 <= n <= 45:
        err(f"{where}: {n} words: {t!r}")
    all_texts.append((t, where))


def check_times(stmts, where, min_gap_days=None, max_gap_days=None):
    ts = []
    for s in stmts:
        try:
            t = parse(s["at"])
        except ValueError:
            err(f"{where}: bad time {s['at']}")
            return []
        if not (LO <= t < HI) or not t < NOW:
            err(f"{where}: time out of range {s['at']}")
        ts.append(t)
    for a, b in zip(ts, ts[1:]):
        if not b > a:
            err(f"{where}: times not strictly ordered")
        if min_gap_days is not None and (b - a).total_seconds() < min_gap_days * 86400:
            err(f"{where}: replacing statement less than {min_gap_days} days after previous")
        if max_gap_days is not None and (b - a).total_seconds() > max_gap_days * 86400:
            err(f"{where}: replacing statement more than {max_gap_days} days after previous")
    return ts


# ---------------- updates
ids = []
ucount = Counter()
chains = 0
answers_by_project = {}
for i, u in enumerate(doc["updates"], 1):
    w = u.get("id")
    ids.append(w)
    if w != f"u{i:03d}":
        err(f"update id {w} out of sequence (expected u{i:03d})")
    if set(u) != {"id", "kind", "project", "statements", "question", "current_answer", "stale_answers"}:
        err(f"{w}: keys {sorted(u)}")
    if u["kind"] not in UPDATE_KINDS:
        err(f"{w}: bad kind {u['kind']}")
    ucount[u["kind"]] += 1
    if u["project"] not in proj_keys:
        err(f"{w}: unknown project")
    st = u["statements"]
    if not 2 <= len(st) <= 3:
        err(f"{w}: {len(st)} statements")
    if len(st) == 3:
        if u["kind"] != "workflow_replaced":
            err(f"{w}: 3 statements only allowed for workflow_replaced chains")
        else:
            chains += 1
    for j, s in enumerate(st):
        if set(s) != {"text", "at"}:
            err(f"{w}: statement keys")
        check_text(s["text"], f"{w}.{j}")
    check_times(st, w, min_gap_days=21, max_gap_days=113)
    last = st[-1]["text"]
    earlier = [s["text"] for s in st[:-1]]
    cur = u["current_answer"]
    if cur not in last:
        err(f"{w}: current_answer {cur!r} not in last statement")
    for e in earlier:
        if cur in e or cur.lower() in e.lower():
            err(f"{w}: current_answer {cur!r} appears in an earlier statement")
    if not u["stale_answers"]:
        err(f"{w}: no stale answers")
    hit = set()
    for sa in u["stale_answers"]:
        found = [k for k, e in enumerate(earlier) if sa in e]
        if not found:
            err(f"{w}: stale {sa!r} not in any earlier statement")
        hit.update(found)
        if sa in last or sa.lower() in last.lower():
            err(f"{w}: stale {sa!r} appears in last statement")
        if sa == cur or sa in cur or cur in sa:
            err(f"{w}: stale {sa!r} overlaps current {cur!r}")
    if len(st) == 3 and hit != {0, 1}:
        err(f"{w}: chain stale answers must come from both earlier statements")
    if not u["question"].strip().endswith("?"):
        err(f"{w}: question should end with '?'")
    answers_by_project.setdefault(u["project"], set()).update([cur] + u["stale_answers"])
if len(set(ids)) != len(ids):
    err("duplicate update ids")

# ---------------- separate
sids = []
scount = Counter()
for i, s in enumerate(doc["separate"], 1):
    w = s.get("id")
    sids.append(w)
    if w != f"s{i:03d}":
        err(f"separate id {w} out of sequence (expected s{i:03d})")
    if set(s) != {"id", "kind", "project", "statements", "questions"}:
        err(f"{w}: keys {sorted(s)}")
    if s["kind"] not in SEP_KINDS:
        err(f"{w}: bad kind {s['kind']}")
    scount[s["kind"]] += 1
    if s["project"] not in proj_keys:
        err(f"{w}: unknown project")
    st = s["statements"]
    for j, x in enumerate(st):
        check_text(x["text"], f"{w}.{j}")
    ts = check_times(st, w)
    if s["kind"] == "compound":
        if len(st) != 1 or len(s["questions"]) != 2:
            err(f"{w}: compound needs 1 statement and 2 questions")
        if any(q["in"] != "first" for q in s["questions"]):
            err(f"{w}: compound questions must be in: first")
    else:
        if len(st) != 2:
            err(f"{w}: needs 2 statements")
    if s["kind"] == "restatement":
        if any(q["in"] != "both" for q in s["questions"]):
            err(f"{w}: restatement answers must be in: both")
        if len(ts) == 2:
            d = (ts[1] - ts[0]).total_seconds() / 86400
            if not 21 <= d <= 119:
                err(f"{w}: restatement gap {d:.1f} days not 3-17 weeks")
    if not s["questions"]:
        err(f"{w}: no questions")
    for q in s["questions"]:
        if set(q) != {"question", "answer", "in"}:
            err(f"{w}: question keys")
        a, where = q["answer"], q["in"]
        texts = [x["text"] for x in st]
        if where == "first":
            if a not in texts[0]:
                err(f"{w}: answer {a!r} not in first")
            if len(texts) > 1 and a in texts[1]:
                err(f"{w}: answer {a!r} marked first but also in second (use both)")
        elif where == "second":
            if len(texts) < 2 or a not in texts[1]:
                err(f"{w}: answer {a!r} not in second")
            elif a in texts[0]:
                err(f"{w}: answer {a!r} marked second but also in first (use both)")
        elif where == "both":
            if len(texts) < 2 or not all(a in t for t in texts):
                err(f"{w}: answer {a!r} not in both")
        else:
            err(f"{w}: bad in {where!r}")
if len(set(sids)) != len(sids):
    err("duplicate separate ids")

# ---------------- look-alikes that mention a current value should come after the update
last_at = {}
for u in doc["updates"]:
    last_at[u["id"]] = (u["project"], u["current_answer"], parse(u["statements"][-1]["at"]))
for s in doc["separate"]:
    for uid, (proj, cur, t) in last_at.items():
        if proj == s["project"]:
            for x in s["statements"]:
                if cur in x["text"] and parse(x["at"]) <= t:
                    warnings.append(f"{s['id']} mentions {cur!r} before {uid} made it current")

# ---------------- distractors
dcount = Counter()
date_re = re.compile(r"\b(Jan(uary)?|Feb(ruary)?|March|April|May|June|July|Aug(ust)?|Sep(tember)?|Oct(ober)?|"
                     r"Nov(ember)?|Dec(ember)?)\s+\d{1,2}\b|\b2026-\d{2}-\d{2}\b")
for k, d in enumerate(doc["distractors"]):
    where = f"distractor[{k}]"
    if set(d) != {"project", "text", "at", "kind"}:
        err(f"{where}: keys {sorted(d)}")
    if d["kind"] not in DIS_KINDS:
        err(f"{where}: bad kind {d['kind']}")
    dcount[d["kind"]] += 1
    if d["project"] not in proj_keys:
        err(f"{where}: unknown project")
    check_text(d["text"], where)
    check_times([d], where)
    for a in answers_by_project.get(d["project"], ()):
        if a in d["text"]:
            err(f"{where}: contains update answer {a!r}: {d['text']!r}")
        elif a.lower() in d["text"].lower() and len(a) > 3:
            warnings.append(f"{where}: contains update answer {a!r} case-insensitively")
    if date_re.search(d["text"]):
        warnings.append(f"{where}: names a calendar date; check it is recorded after it")

# ---------------- duplicates
cnt = Counter(t for t, _ in all_texts)
for t, n in cnt.items():
    if n > 1:
        err(f"duplicate text x{n}: {t!r}")
# crude frame check: identical first four words across different items
opening = {}
for t, where in all_texts:
    key = " ".join(t.lower().split()[:4])
    item = where.split(".")[0]
    if key in opening and opening[key] != item:
        warnings.append(f"same opening {key!r} in {opening[key]} and {item}")
    opening.setdefault(key, item)

# ---------------- counts
for k in UPDATE_KINDS:
    if ucount[k] < 11:
        err(f"update kind {k}: {ucount[k]} < 11")
if sum(ucount.values()) < 88:
    err(f"only {sum(ucount.values())} updates")
if chains < 7:
    err(f"only {chains} chains")
for k in SEP_KINDS:
    need = 12
    if scount[k] < need:
        err(f"separate kind {k}: {scount[k]} < {need}")
if sum(scount.values()) < 84:
    err(f"only {sum(scount.values())} separate items")
if len(doc["distractors"]) < 150:
    err(f"only {len(doc['distractors'])} distractors")
if dcount["tool_event"] < 50:
    err(f"only {dcount['tool_event']} tool events")
if len(doc["projects"]) != 6:
    err("expected 6 projects")

# ---------------- report
wc = [words(t) for t, _ in all_texts]
print("updates:", dict(ucount), "total", sum(ucount.values()), "chains", chains)
print("separate:", dict(scount), "total", sum(scount.values()))
print("distractors:", dict(dcount), "total", len(doc["distractors"]))
per = Counter()
for sec in ("updates", "separate", "distractors"):
    for x in doc[sec]:
        per[(x["project"], sec)] += 1
for p in proj_keys:
    print(f"  {p}: updates {per[(p, 'updates')]}, separate {per[(p, 'separate')]}, distractors {per[(p, 'distractors')]}")
print(f"words per statement: min {min(wc)}, max {max(wc)}, mean {sum(wc) / len(wc):.1f}")
# wording variety (informational): how statements look, not whether they are right
texts = [t for t, _ in all_texts]
style = {
    "starts lower-case": sum(t[0].islower() for t in texts),
    "has `code`": sum("`" in t for t in texts),
    "no final period": sum(not t.rstrip().endswith((".", "?", "!")) for t in texts),
    "has a path or URL": sum(bool(re.search(r"(\w/\w|://)", t)) for t in texts),
}
print("style:", ", ".join(f"{k} {v}/{len(texts)}" for k, v in style.items()))
for wmsg in warnings:
    print("WARN", wmsg)
for e in errors:
    print("ERROR", e)
print("VALIDATION", "PASSED" if not errors else f"FAILED ({len(errors)} errors)")
sys.exit(1 if errors else 0)
