#!/usr/bin/env python3
"""Validate benchmarks/data/updates_bench_13.json against the updates_bench.md format.

Standard library only.  Usage:
    python3 benchmarks/data/updates_bench_13_validate.py [path/to/updates_bench_13.json]
Exits 0 when every check passes, 1 otherwise (and prints every problem found).
"""
import json
import os
import re
import sys
from collections import Counter, defaultdict
from datetime import datetime, timedelta, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
PATH = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "updates_bench_13.json")

NOW = "2026-11-01T00:00:00Z"
T_MIN = datetime(2026, 1, 5, 0, 0, 0, tzinfo=timezone.utc)
T_MAX = datetime(2026, 10, 27, 23, 59, 59, tzinfo=timezone.utc)
TOP_KEYS = {"version", "description", "now", "projects", "updates", "separate", "distractors"}
PROJECT_KEYS = {"key", "name", "stack"}
UPDATE_KEYS = {"id", "kind", "project", "statements", "question", "current_answer", "stale_answers"}
SEPARATE_KEYS = {"id", "kind", "project", "statements", "questions"}
QUESTION_KEYS = {"question", "answer", "in"}
STATEMENT_KEYS = {"text", "at"}
DISTRACTOR_KEYS = {"project", "text", "at", "kind"}
UPDATE_KINDS = ["rename", "tool_replaced", "moved_with_copy", "port_or_address",
                "workflow_replaced", "number_changed", "policy_changed", "owner_or_location"]
SEPARATE_KINDS = ["elaboration", "sibling", "second_setting", "different_component",
                  "different_environment", "compound", "restatement"]
DISTRACTOR_KINDS = {"fact", "decision", "convention", "tool_event", "procedure", "preference"}
MIN_WORDS, MAX_WORDS = 8, 45

# Project names used by earlier update sets; none may be reused.
USED_NAMES = [
    "Tidewater Freight", "Lumen", "Orchard", "Emberfall", "Quill", "Kestrel", "Tabwise", "Riverchat",
    "Claimwright", "Saltmarsh Goods", "Stridelog", "Groundwork", "Beacon", "Carewell", "Gatehouse",
    "Harborline", "Spindle", "Seqforge", "Plateful", "Ferrite", "Saltmarsh", "Kilnworks", "Thornbury",
    "Bellwether", "Galeway", "Lotbook", "Switchback", "Waxwing", "Ridgeline", "Parallax", "Pedalry",
    "Pileup", "Formulary Stock", "Lobbyline", "Helixcall", "Headway", "Brackenfield", "Hollowmere",
    "Tallyhook", "Millrace", "Vetchling", "Stonecrop", "Driftwood", "Marlin Field", "Sextant", "Gantry",
    "Wren", "Chalkline", "Marrowbank", "Fennwick", "Nightjar", "Larkspur", "Ashgrove", "Copperleaf",
    "Glassworks", "Mudlark", "Trunkline", "Pennant", "Marginalia", "Keelson", "Undertow", "Paperkite",
    "Bramblegate", "Corvid Stream", "Puddlejump", "Fernhill Sync", "Gyrolab", "Anvilkit", "Tollbooth",
    "Bobbin", "Quayside Ledger", "Halyard", "Pipistrelle", "Sundial Fleet", "Tuffet", "Wickerbee",
]

MONTHS = {m: i for i, m in enumerate(
    ["january", "february", "march", "april", "may", "june", "july", "august",
     "september", "october", "november", "december"], 1)}
MON_RE = "(" + "|".join(list(MONTHS) + [m[:3] for m in MONTHS]) + r")\.?"

errors = []


def err(msg):
    errors.append(msg)


def parse_time(s, where):
    if not isinstance(s, str) or not re.fullmatch(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z", s):
        err(f"{where}: bad timestamp {s!r}")
        return None
    try:
        t = datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
    except ValueError:
        err(f"{where}: unparseable timestamp {s!r}")
        return None
    if not (T_MIN <= t <= T_MAX):
        err(f"{where}: {s} outside 2026-01-05 .. 2026-10-27")
    return t


def words(text):
    return len(text.split())


def has(hay, needle):
    return needle in hay


def has_ci(hay, needle):
    return needle.lower() in hay.lower()


def check_statement_list(stmts, where, n_allowed):
    out = []
    if not isinstance(stmts, list) or len(stmts) not in n_allowed:
        err(f"{where}: expected {sorted(n_allowed)} statements, got {len(stmts) if isinstance(stmts, list) else stmts!r}")
        return None
    for j, st in enumerate(stmts):
        if not isinstance(st, dict) or set(st) != STATEMENT_KEYS:
            err(f"{where} statement {j}: keys {sorted(st) if isinstance(st, dict) else st!r} != {sorted(STATEMENT_KEYS)}")
            return None
        if not isinstance(st["text"], str) or not st["text"].strip():
            err(f"{where} statement {j}: empty text")
            return None
        out.append((st["text"], parse_time(st["at"], f"{where} statement {j}")))
    times = [t for _, t in out]
    if None not in times:
        for j in range(len(times) - 1):
            if not times[j] < times[j + 1]:
                err(f"{where}: statements not strictly ordered in time ({j} -> {j + 1})")
    return out


def dates_named(text):
    """Calendar dates (day precision) named in a text, as (month, day) or full datetimes."""
    found = []
    for y, m, dd in re.findall(r"\b(20\d\d)-(\d\d)-(\d\d)\b", text):
        found.append(datetime(int(y), int(m), int(dd), tzinfo=timezone.utc))
    for dd, mon in re.findall(r"\b(\d{1,2})(?:st|nd|rd|th)? " + MON_RE + r"\b", text, flags=re.I):
        found.append(datetime(2026, MONTHS[[k for k in MONTHS if k.startswith(mon.lower()[:3])][0]], int(dd), tzinfo=timezone.utc))
    for mon, dd in re.findall(r"\b" + MON_RE + r" (\d{1,2})(?:st|nd|rd|th)?\b", text, flags=re.I):
        found.append(datetime(2026, MONTHS[[k for k in MONTHS if k.startswith(mon.lower()[:3])][0]], int(dd), tzinfo=timezone.utc))
    return found


def main():
    try:
        raw = open(PATH, encoding="utf-8").read()
        data = json.loads(raw)
    except (OSError, ValueError) as e:
        print(f"FAIL: cannot read/parse {PATH}: {e}")
        return 1

    # ---- shape and formatting ------------------------------------------------
    if not isinstance(data, dict) or set(data) != TOP_KEYS:
        print(f"FAIL: top-level keys {sorted(data) if isinstance(data, dict) else type(data)} != {sorted(TOP_KEYS)}")
        return 1
    if raw.rstrip("\n") != json.dumps(data, indent=2).rstrip("\n") and \
            raw.rstrip("\n") != json.dumps(data, indent=2, ensure_ascii=False).rstrip("\n"):
        err("file is not 2-space-indented JSON as produced by json.dumps(indent=2)")
    if data["version"] != 1:
        err(f"version is {data['version']!r}, expected 1")
    if data["now"] != NOW:
        err(f"now is {data['now']!r}, expected {NOW}")
    if not isinstance(data["description"], str) or not data["description"].strip():
        err("description must be a non-empty string")
    for k in ("projects", "updates", "separate", "distractors"):
        if not isinstance(data[k], list):
            print(f"FAIL: {k} must be a list")
            return 1

    # ---- projects ------------------------------------------------------------
    keys, names = set(), set()
    used_lower = [n.lower() for n in USED_NAMES]
    used_slugs = [re.sub(r"[^a-z0-9]+", "-", n.lower()).strip("-") for n in USED_NAMES]
    for p in data["projects"]:
        if not isinstance(p, dict) or set(p) != PROJECT_KEYS:
            err(f"project {p!r}: keys != {sorted(PROJECT_KEYS)}")
            continue
        if not all(isinstance(p[k], str) and p[k].strip() for k in PROJECT_KEYS):
            err(f"project {p.get('key')}: empty field")
        if not p["key"].startswith("/work/"):
            err(f"project key {p['key']!r} should be a /work/... path")
        if p["key"] in keys:
            err(f"duplicate project key {p['key']}")
        if p["name"].lower() in names:
            err(f"duplicate project name {p['name']}")
        keys.add(p["key"])
        names.add(p["name"].lower())
        nl = p["name"].lower()
        for used, slug in zip(used_lower, used_slugs):
            if nl == used or re.search(r"\b" + re.escape(used) + r"\b", nl) or re.search(r"\b" + re.escape(nl) + r"\b", used):
                err(f"project name {p['name']!r} reuses earlier project name {used!r}")
            if re.search(r"(^|[/-])" + re.escape(slug) + r"($|-)", p["key"].lower()):
                err(f"project key {p['key']!r} reuses earlier project name {used!r}")
    if len(keys) < 1:
        err("no projects")

    all_texts = []
    answers_by_project = defaultdict(set)
    upd_counts, sep_counts = Counter(), Counter()
    per_proj_upd = defaultdict(Counter)
    per_proj_sep = defaultdict(Counter)
    chains = 0
    chains_per_proj = Counter()

    # ---- updates -------------------------------------------------------------
    for i, u in enumerate(data["updates"], 1):
        want = f"u{i:03d}"
        where = f"update {want}"
        if not isinstance(u, dict) or set(u) != UPDATE_KEYS:
            err(f"{where}: keys {sorted(u) if isinstance(u, dict) else u!r} != {sorted(UPDATE_KEYS)}")
            continue
        if u["id"] != want:
            err(f"{where}: id is {u['id']!r}, ids must be sequential")
        if u["kind"] not in UPDATE_KINDS:
            err(f"{where}: unknown kind {u['kind']!r}")
        if u["project"] not in keys:
            err(f"{where}: unknown project {u['project']!r}")
        if not isinstance(u["question"], str) or not u["question"].strip().endswith("?"):
            err(f"{where}: question must be a non-empty question")
        upd_counts[u["kind"]] += 1
        per_proj_upd[u["project"]][u["kind"]] += 1
        allowed = {2, 3} if u["kind"] == "workflow_replaced" else {2}
        stmts = check_statement_list(u["statements"], where, allowed)
        if stmts is None:
            continue
        texts = [t for t, _ in stmts]
        all_texts.extend(texts)
        last, earlier = texts[-1], texts[:-1]
        cur = u["current_answer"]
        if not isinstance(cur, str) or not cur.strip():
            err(f"{where}: empty current_answer")
            continue
        if not has(last, cur):
            err(f"{where}: current_answer {cur!r} is not a substring of the last statement")
        for j, t in enumerate(earlier):
            if has_ci(t, cur):
                err(f"{where}: current_answer {cur!r} already appears in earlier statement {j}")
        stale = u["stale_answers"]
        if not isinstance(stale, list) or not stale or not all(isinstance(s, str) and s.strip() for s in stale):
            err(f"{where}: stale_answers must be a non-empty list of strings")
            continue
        if len(set(stale)) != len(stale):
            err(f"{where}: duplicate stale answers")
        hit_stmt = set()
        for s in stale:
            idx = [j for j, t in enumerate(earlier) if has(t, s)]
            if not idx:
                err(f"{where}: stale answer {s!r} is not a substring of any earlier statement")
            hit_stmt.update(idx)
            if has_ci(last, s):
                err(f"{where}: stale answer {s!r} appears (case-insensitively) in the last statement")
            if s.lower() == cur.lower():
                err(f"{where}: stale answer equals current answer")
        if len(stmts) == 3:
            chains += 1
            chains_per_proj[u["project"]] += 1
            if hit_stmt != {0, 1}:
                err(f"{where}: 3-statement chain needs stale answers from both earlier statements (got {sorted(hit_stmt)})")
        times = [t for _, t in stmts]
        if None not in times:
            for j in range(len(times) - 1):
                if times[j + 1] - times[j] < timedelta(days=21):
                    err(f"{where}: statement {j + 1} comes less than three weeks after statement {j}")
        answers_by_project[u["project"]].add(cur)
        answers_by_project[u["project"]].update(stale)

    # ---- separate (look-alikes) ----------------------------------------------
    for i, s in enumerate(data["separate"], 1):
        want = f"s{i:03d}"
        where = f"separate {want}"
        if not isinstance(s, dict) or set(s) != SEPARATE_KEYS:
            err(f"{where}: keys {sorted(s) if isinstance(s, dict) else s!r} != {sorted(SEPARATE_KEYS)}")
            continue
        if s["id"] != want:
            err(f"{where}: id is {s['id']!r}, ids must be sequential")
        if s["kind"] not in SEPARATE_KINDS:
            err(f"{where}: unknown kind {s['kind']!r}")
        if s["project"] not in keys:
            err(f"{where}: unknown project {s['project']!r}")
        sep_counts[s["kind"]] += 1
        per_proj_sep[s["project"]][s["kind"]] += 1
        allowed = {1} if s["kind"] == "compound" else {2}
        stmts = check_statement_list(s["statements"], where, allowed)
        if stmts is None:
            continue
        texts = [t for t, _ in stmts]
        all_texts.extend(texts)
        qs = s["questions"]
        if not isinstance(qs, list) or not qs:
            err(f"{where}: questions must be a non-empty list")
            continue
        if s["kind"] == "compound" and len(qs) != 2:
            err(f"{where}: compound items need exactly two questions")
        ins = []
        for q in qs:
            if not isinstance(q, dict) or set(q) != QUESTION_KEYS:
                err(f"{where}: question keys {sorted(q) if isinstance(q, dict) else q!r} != {sorted(QUESTION_KEYS)}")
                continue
            if not isinstance(q["question"], str) or not q["question"].strip().endswith("?"):
                err(f"{where}: question text must be a question")
            a, which = q["answer"], q["in"]
            ins.append(which)
            if which not in ("first", "second", "both"):
                err(f"{where}: bad 'in' value {which!r}")
                continue
            if not isinstance(a, str) or not a.strip():
                err(f"{where}: empty answer")
                continue
            answers_by_project[s["project"]].add(a)
            if s["kind"] == "compound" and which != "first":
                err(f"{where}: compound answers must be in: first")
            if s["kind"] == "restatement" and which != "both":
                err(f"{where}: restatement answers must be in: both")
            if which in ("second", "both") and len(texts) < 2:
                err(f"{where}: 'in: {which}' but only one statement")
                continue
            named = {"first": [0], "second": [1], "both": [0, 1]}[which]
            for j in range(len(texts)):
                if j in named and not has(texts[j], a):
                    err(f"{where}: answer {a!r} missing from statement {j} (in: {which})")
                if j not in named and has_ci(texts[j], a):
                    err(f"{where}: answer {a!r} also appears in statement {j} (in: {which})")
        if s["kind"] not in ("compound", "restatement") and len(texts) == 2 and "first" in ins and "second" not in ins and "both" not in ins:
            pass  # allowed, but the item still has two current statements
        if s["kind"] == "restatement":
            t0, t1 = stmts[0][1], stmts[1][1]
            if t0 and t1 and not (timedelta(weeks=3) <= t1 - t0 <= timedelta(weeks=17)):
                err(f"{where}: restatement gap {t1 - t0} is not 3-17 weeks")

    # ---- distractors ---------------------------------------------------------
    dist_kinds = Counter()
    per_proj_dist = Counter()
    per_proj_tool = Counter()
    for i, d in enumerate(data["distractors"]):
        where = f"distractor {i}"
        if not isinstance(d, dict) or set(d) != DISTRACTOR_KEYS:
            err(f"{where}: keys {sorted(d) if isinstance(d, dict) else d!r} != {sorted(DISTRACTOR_KEYS)}")
            continue
        if d["kind"] not in DISTRACTOR_KINDS:
            err(f"{where}: unknown kind {d['kind']!r}")
        if d["project"] not in keys:
            err(f"{where}: unknown project {d['project']!r}")
        if not isinstance(d["text"], str) or not d["text"].strip():
            err(f"{where}: empty text")
            continue
        dist_kinds[d["kind"]] += 1
        per_proj_dist[d["project"]] += 1
        if d["kind"] == "tool_event":
            per_proj_tool[d["project"]] += 1
        t = parse_time(d["at"], where)
        all_texts.append(d["text"])
        for a in answers_by_project[d["project"]]:
            if has_ci(d["text"], a):
                err(f"{where}: contains answer string {a!r} of its project: {d['text']!r}")
        if t is not None:
            for named in dates_named(d["text"]):
                if not t > named:
                    err(f"{where}: names date {named.date()} but is recorded at {d['at']}")

    # ---- all texts -----------------------------------------------------------
    for t in all_texts:
        n = words(t)
        if not (MIN_WORDS <= n <= MAX_WORDS):
            err(f"text has {n} words (allowed {MIN_WORDS}-{MAX_WORDS}): {t!r}")
    norm = Counter(re.sub(r"\s+", " ", t.strip().lower()) for t in all_texts)
    for t, c in norm.items():
        if c > 1:
            err(f"duplicate text ({c}x): {t!r}")

    # ---- counts --------------------------------------------------------------
    for k in UPDATE_KINDS:
        if upd_counts[k] < 6:
            err(f"updates of kind {k}: {upd_counts[k]} < 6")
    if chains < 6:
        err(f"only {chains} workflow chains (< 6)")
    for k in SEPARATE_KINDS:
        need = 10 if k in ("compound", "restatement") else 12
        if sep_counts[k] < need:
            err(f"separate items of kind {k}: {sep_counts[k]} < {need}")
    if len(data["updates"]) < 100:
        err(f"only {len(data['updates'])} updates (< 100)")
    if len(data["separate"]) < 90:
        err(f"only {len(data['separate'])} look-alikes (< 90)")
    if len(data["distractors"]) < 150:
        err(f"only {len(data['distractors'])} distractors (< 150)")
    if dist_kinds["tool_event"] < 30:
        err(f"only {dist_kinds['tool_event']} tool_event distractors (< 30)")
    # set-13 design: every project carries two of every kind, a chain, and its own distractors
    for p in keys:
        for k in UPDATE_KINDS:
            if per_proj_upd[p][k] < 2:
                err(f"{p}: {per_proj_upd[p][k]} updates of kind {k} (< 2)")
        for k in SEPARATE_KINDS:
            if per_proj_sep[p][k] < 2:
                err(f"{p}: {per_proj_sep[p][k]} look-alikes of kind {k} (< 2)")
        if chains_per_proj[p] < 1:
            err(f"{p}: no 3-statement workflow chain")
        if not (20 <= per_proj_dist[p] <= 24):
            err(f"{p}: {per_proj_dist[p]} distractors (expected 20-24)")
        if per_proj_tool[p] * 4 < per_proj_dist[p]:
            err(f"{p}: too few tool_event distractors ({per_proj_tool[p]} of {per_proj_dist[p]})")

    if errors:
        for e in errors:
            print("FAIL:", e)
        print(f"{len(errors)} problem(s) in {PATH}")
        return 1
    print(f"OK: {PATH}")
    print(f"  projects {len(keys)}, updates {len(data['updates'])} ({chains} chains), "
          f"look-alikes {len(data['separate'])}, distractors {len(data['distractors'])} "
          f"({dist_kinds['tool_event']} tool_event)")
    print("  updates:", ", ".join(f"{k} {upd_counts[k]}" for k in UPDATE_KINDS))
    print("  separate:", ", ".join(f"{k} {sep_counts[k]}" for k in SEPARATE_KINDS))
    print("  distractors:", ", ".join(f"{k} {dist_kinds[k]}" for k in sorted(dist_kinds)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
