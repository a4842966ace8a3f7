#!/usr/bin/env python3
"""Standalone check of updates_bench_16.json against the format in updates_bench.md.

Standard library only. Prints every violation and exits 1 if there is any, else prints a
summary and exits 0.  Usage: python3 updates_bench_16_validate.py [path/to/updates_bench_16.json]
"""
import json
import os
import re
import sys
from collections import Counter
from datetime import datetime, timedelta

HERE = os.path.dirname(os.path.abspath(__file__))
PATH = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "updates_bench_16.json")

NOW = "2026-11-01T00:00:00Z"
T_MIN = datetime(2026, 1, 5, 0, 0, 0)
T_MAX = datetime(2026, 10, 27, 23, 59, 59)
TIME_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")
UPDATE_KINDS = ["rename", "tool_replaced", "moved_with_copy", "port_or_address",
                "workflow_replaced", "number_changed", "policy_changed", "owner_or_location"]
SEPARATE_KINDS = ["elaboration", "sibling", "second_setting", "different_component",
                  "different_environment", "compound", "restatement"]
DISTRACTOR_KINDS = ["fact", "decision", "convention", "tool_event", "procedure", "preference"]

# Counts this set was written to (see updates_bench_16.md).
EXPECT_UPDATES_PER_KIND = 14
EXPECT_CHAINS = 7
EXPECT_SEPARATE_PER_KIND = 14
EXPECT_DISTRACTORS = 150
EXPECT_TOOL_EVENTS = 56
EXPECT_PROJECTS = 7
# Minimums stated in updates_bench.md.
MIN_PER_UPDATE_KIND, MIN_CHAINS = 6, 6
MIN_PER_SEPARATE_KIND = {k: 12 for k in SEPARATE_KINDS}
MIN_PER_SEPARATE_KIND.update(compound=10, restatement=10)
MIN_DISTRACTORS, MIN_TOOL_EVENTS = 150, 30
WORDS_MIN, WORDS_MAX = 8, 40
MIN_REPLACE_GAP = timedelta(days=21)
RESTATE_MIN, RESTATE_MAX = timedelta(weeks=3), timedelta(weeks=17)

MONTHS = {m: i for i, m in enumerate(
    ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"], 1)}
ISO_DATE_RE = re.compile(r"\b(20\d\d)[-./](\d\d)[-./](\d\d)\b")
NAMED_DATE_RE = re.compile(
    r"\b(\d{1,2})(?:st|nd|rd|th)?\s+(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?(?:\s+(20\d\d))?\b"
    r"|\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?(?:,?\s+(20\d\d))?\b",
    re.IGNORECASE)

errors = []


def err(where, msg):
    errors.append("%s: %s" % (where, msg))


def parse_time(where, s):
    if not isinstance(s, str) or not TIME_RE.match(s):
        err(where, "bad timestamp %r" % (s,))
        return None
    try:
        t = datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ")
    except ValueError:
        err(where, "unparseable timestamp %r" % s)
        return None
    if not (T_MIN <= t <= T_MAX):
        err(where, "timestamp %s outside 2026-01-05..2026-10-27" % s)
    if s >= NOW:
        err(where, "timestamp %s not before now" % s)
    return t


def words(text):
    return len(text.split())


def dates_named(text):
    out = []
    for y, m, d in ISO_DATE_RE.findall(text):
        try:
            out.append(datetime(int(y), int(m), int(d)))
        except ValueError:
            pass
    for m in NAMED_DATE_RE.finditer(text):
        d1, mon1, y1, mon2, d2, y2 = m.groups()
        day, mon, year = (d1, mon1, y1) if d1 else (d2, mon2, y2)
        try:
            out.append(datetime(int(year or 2026), MONTHS[mon[:3].lower()], int(day)))
        except ValueError:
            pass
    return out


def check_text(where, text, all_texts):
    if not isinstance(text, str) or not text.strip():
        err(where, "empty or non-string text")
        return
    n = words(text)
    if not (WORDS_MIN <= n <= WORDS_MAX):
        err(where, "%d words (want %d..%d): %r" % (n, WORDS_MIN, WORDS_MAX, text))
    norm = " ".join(text.lower().split())
    if norm in all_texts:
        err(where, "duplicate text (also at %s): %r" % (all_texts[norm], text))
    else:
        all_texts[norm] = where


def check_statements(where, sts, all_texts, texts_out):
    if not isinstance(sts, list) or not sts:
        err(where, "statements must be a non-empty list")
        return []
    times = []
    for i, st in enumerate(sts):
        w = "%s.statements[%d]" % (where, i)
        if not isinstance(st, dict) or set(st) != {"text", "at"}:
            err(w, "statement must have exactly keys text, at")
            continue
        check_text(w, st["text"], all_texts)
        texts_out.append(st["text"])
        t = parse_time(w, st["at"])
        times.append(t)
        if t is not None:
            for d in dates_named(st["text"]):
                if d.date() > t.date():
                    err(w, "names date %s after its own time %s" % (d.date(), st["at"]))
    for i in range(1, len(times)):
        if times[i - 1] is not None and times[i] is not None and not times[i] > times[i - 1]:
            err(where, "statements not strictly ordered in time (%d, %d)" % (i - 1, i))
    return times


def main():
    try:
        with open(PATH, "rb") as f:
            raw = f.read()
        text = raw.decode("utf-8")
        d = json.loads(text)
    except Exception as e:  # noqa: BLE001
        print("FAIL: cannot read/parse %s: %s" % (PATH, e))
        return 1

    # 2-space indentation (either ASCII-escaped or raw UTF-8 serialisation)
    if text.rstrip("\n") not in (json.dumps(d, indent=2, ensure_ascii=False),
                                 json.dumps(d, indent=2, ensure_ascii=True)):
        err("file", "not serialised as JSON with 2-space indentation")

    want_top = {"version", "description", "now", "projects", "updates", "separate", "distractors"}
    if set(d) != want_top:
        err("top", "keys %s, want %s" % (sorted(d), sorted(want_top)))
    if d.get("version") != 1:
        err("top", "version must be 1")
    if not isinstance(d.get("description"), str) or not d.get("description"):
        err("top", "description must be a non-empty string")
    if d.get("now") != NOW:
        err("top", "now must be %s" % NOW)

    # projects
    projects = d.get("projects", [])
    keys = []
    for i, p in enumerate(projects):
        w = "projects[%d]" % i
        if not isinstance(p, dict) or set(p) != {"key", "name", "stack"}:
            err(w, "project must have exactly keys key, name, stack")
            continue
        if not isinstance(p["key"], str) or not p["key"].startswith("/work/"):
            err(w, "key must be a /work/... path")
        for k in ("name", "stack"):
            if not isinstance(p[k], str) or not p[k].strip():
                err(w, "%s must be a non-empty string" % k)
        keys.append(p["key"])
    if len(set(keys)) != len(keys):
        err("projects", "duplicate project keys")
    if len(set(keys)) != EXPECT_PROJECTS:
        err("projects", "%d projects, want %d" % (len(set(keys)), EXPECT_PROJECTS))
    for field in ("name",):
        names = [p.get(field) for p in projects if isinstance(p, dict)]
        if len(set(names)) != len(names):
            err("projects", "duplicate project %ss" % field)
    keyset = set(keys)

    all_texts = {}
    ids = set()
    update_answers = {k: [] for k in keyset}
    used = {"updates": Counter(), "separate": Counter(), "distractors": Counter()}
    questions_seen = {}

    def check_question(where, q, last_text=None):
        if not isinstance(q, str) or not q.strip().endswith("?"):
            err(where, "question must be a non-empty string ending with '?'")
            return
        nq = " ".join(q.lower().split())
        if nq in questions_seen:
            err(where, "duplicate question (also at %s)" % questions_seen[nq])
        questions_seen[nq] = where
        if last_text is not None and q.rstrip("?").strip().lower() in last_text.lower():
            err(where, "question copies the last statement verbatim")

    # updates
    updates = d.get("updates", [])
    kinds_u = Counter()
    chains = 0
    for i, u in enumerate(updates):
        w = "updates[%d]" % i
        want = {"id", "kind", "project", "statements", "question", "current_answer", "stale_answers"}
        if not isinstance(u, dict) or set(u) != want:
            err(w, "update must have exactly keys %s" % sorted(want))
            continue
        w = u["id"] if isinstance(u["id"], str) else w
        if not re.match(r"^u\d{3}$", str(u["id"])):
            err(w, "id must look like u001")
        if u["id"] != "u%03d" % (i + 1):
            err(w, "ids must run u001, u002, ... in order")
        if u["id"] in ids:
            err(w, "duplicate id")
        ids.add(u["id"])
        if u["kind"] not in UPDATE_KINDS:
            err(w, "unknown kind %r" % u["kind"])
        kinds_u[u["kind"]] += 1
        if u["project"] not in keyset:
            err(w, "unknown project %r" % u["project"])
        used["updates"][u["project"]] += 1
        texts = []
        times = check_statements(w, u["statements"], all_texts, texts)
        n = len(u["statements"])
        if n == 3:
            if u["kind"] != "workflow_replaced":
                err(w, "only workflow_replaced chains may have 3 statements")
            chains += 1
        elif n != 2:
            err(w, "updates have 2 statements (3 for workflow chains), got %d" % n)
        for j in range(1, len(times)):
            if times[j - 1] is not None and times[j] is not None and times[j] - times[j - 1] < MIN_REPLACE_GAP:
                err(w, "replacing statement %d comes less than three weeks after statement %d" % (j, j - 1))
        if not texts:
            continue
        last, earlier = texts[-1], texts[:-1]
        check_question(w + ".question", u["question"], last)
        cur = u["current_answer"]
        if not isinstance(cur, str) or not cur:
            err(w, "current_answer must be a non-empty string")
        else:
            if cur not in last:
                err(w, "current_answer %r not in the last statement" % cur)
            for j, t in enumerate(earlier):
                if cur in t:
                    err(w, "current_answer %r also appears in earlier statement %d" % (cur, j))
            update_answers.setdefault(u["project"], []).append((w, cur))
        stale = u["stale_answers"]
        if not isinstance(stale, list) or not stale:
            err(w, "stale_answers must be a non-empty list")
            stale = []
        hit = [False] * len(earlier)
        for s in stale:
            if not isinstance(s, str) or not s:
                err(w, "empty stale answer")
                continue
            if s in last:
                err(w, "stale answer %r appears in the last statement" % s)
            found = False
            for j, t in enumerate(earlier):
                if s in t:
                    found = True
                    hit[j] = True
            if not found:
                err(w, "stale answer %r not in any earlier statement" % s)
            if isinstance(cur, str) and s == cur:
                err(w, "stale answer equals current answer")
            update_answers.setdefault(u["project"], []).append((w, s))
        if n == 3 and not all(hit):
            err(w, "a chain needs stale answers from both earlier statements")
    for k in UPDATE_KINDS:
        if kinds_u[k] < MIN_PER_UPDATE_KIND:
            err("updates", "%s: %d < minimum %d" % (k, kinds_u[k], MIN_PER_UPDATE_KIND))
        if kinds_u[k] != EXPECT_UPDATES_PER_KIND:
            err("updates", "%s: %d, want %d" % (k, kinds_u[k], EXPECT_UPDATES_PER_KIND))
    if chains < MIN_CHAINS or chains != EXPECT_CHAINS:
        err("updates", "%d workflow chains, want %d (minimum %d)" % (chains, EXPECT_CHAINS, MIN_CHAINS))

    # separate
    separate = d.get("separate", [])
    kinds_s = Counter()
    for i, s in enumerate(separate):
        w = "separate[%d]" % i
        want = {"id", "kind", "project", "statements", "questions"}
        if not isinstance(s, dict) or set(s) != want:
            err(w, "separate item must have exactly keys %s" % sorted(want))
            continue
        w = s["id"] if isinstance(s["id"], str) else w
        if not re.match(r"^s\d{3}$", str(s["id"])):
            err(w, "id must look like s001")
        if s["id"] != "s%03d" % (i + 1):
            err(w, "ids must run s001, s002, ... in order")
        if s["id"] in ids:
            err(w, "duplicate id")
        ids.add(s["id"])
        kind = s["kind"]
        if kind not in SEPARATE_KINDS:
            err(w, "unknown kind %r" % kind)
        kinds_s[kind] += 1
        if s["project"] not in keyset:
            err(w, "unknown project %r" % s["project"])
        used["separate"][s["project"]] += 1
        texts = []
        times = check_statements(w, s["statements"], all_texts, texts)
        n = len(s["statements"])
        qs = s["questions"]
        if not isinstance(qs, list) or not qs:
            err(w, "questions must be a non-empty list")
            continue
        if kind == "compound":
            if n != 1:
                err(w, "compound items have exactly one statement")
            if len(qs) != 2:
                err(w, "compound items have exactly two questions")
        else:
            if n != 2:
                err(w, "%s items have exactly two statements" % kind)
        if kind == "restatement" and len(times) == 2 and None not in times:
            gap = times[1] - times[0]
            if not (RESTATE_MIN <= gap <= RESTATE_MAX):
                err(w, "restatement comes %s after the first statement (want 3-17 weeks)" % gap)
        ins = Counter()
        for j, q in enumerate(qs):
            wq = "%s.questions[%d]" % (w, j)
            if not isinstance(q, dict) or set(q) != {"question", "answer", "in"}:
                err(wq, "question must have exactly keys question, answer, in")
                continue
            check_question(wq, q["question"])
            a, where_in = q["answer"], q["in"]
            ins[where_in] += 1
            if where_in not in ("first", "second", "both"):
                err(wq, "in must be first, second or both")
                continue
            if not isinstance(a, str) or not a:
                err(wq, "answer must be a non-empty string")
                continue
            if kind == "compound" and where_in != "first":
                err(wq, "compound answers are in: first")
            if kind == "restatement" and where_in != "both":
                err(wq, "restatement answers are in: both")
            targets = {"first": texts[:1], "second": texts[1:2], "both": texts[:2]}[where_in]
            if where_in in ("second", "both") and len(texts) < 2:
                err(wq, "answer refers to a missing second statement")
            for t in targets:
                if a not in t:
                    err(wq, "answer %r not in the statement named by in=%s" % (a, where_in))
        if kind not in ("compound", "restatement"):
            if not ins["first"] or not ins["second"]:
                err(w, "look-alike pairs need a question for each statement (first and second)")
    for k in SEPARATE_KINDS:
        if kinds_s[k] < MIN_PER_SEPARATE_KIND[k]:
            err("separate", "%s: %d < minimum %d" % (k, kinds_s[k], MIN_PER_SEPARATE_KIND[k]))
        if kinds_s[k] != EXPECT_SEPARATE_PER_KIND:
            err("separate", "%s: %d, want %d" % (k, kinds_s[k], EXPECT_SEPARATE_PER_KIND))

    # distractors
    distractors = d.get("distractors", [])
    kinds_d = Counter()
    for i, x in enumerate(distractors):
        w = "distractors[%d]" % i
        want = {"project", "text", "at", "kind"}
        if not isinstance(x, dict) or set(x) != want:
            err(w, "distractor must have exactly keys %s" % sorted(want))
            continue
        if x["kind"] not in DISTRACTOR_KINDS:
            err(w, "unknown kind %r" % x["kind"])
        kinds_d[x["kind"]] += 1
        if x["project"] not in keyset:
            err(w, "unknown project %r" % x["project"])
        used["distractors"][x["project"]] += 1
        check_text(w, x["text"], all_texts)
        t = parse_time(w, x["at"])
        if t is not None and isinstance(x["text"], str):
            for dd in dates_named(x["text"]):
                if not t.date() > dd.date():
                    err(w, "names the date %s but is recorded at %s (must be after it)" % (dd.date(), x["at"]))
        low = x["text"].lower() if isinstance(x["text"], str) else ""
        for uw, ans in update_answers.get(x["project"], []):
            if ans.lower() in low:
                err(w, "contains answer %r of %s (same project)" % (ans, uw))
    if len(distractors) < MIN_DISTRACTORS or len(distractors) != EXPECT_DISTRACTORS:
        err("distractors", "%d distractors, want %d (minimum %d)" % (len(distractors), EXPECT_DISTRACTORS, MIN_DISTRACTORS))
    if kinds_d["tool_event"] < MIN_TOOL_EVENTS or kinds_d["tool_event"] != EXPECT_TOOL_EVENTS:
        err("distractors", "%d tool events, want %d (minimum %d)" % (kinds_d["tool_event"], EXPECT_TOOL_EVENTS, MIN_TOOL_EVENTS))

    # every project appears in every list
    for k in keyset:
        for lst in ("updates", "separate", "distractors"):
            if not used[lst][k]:
                err("projects", "%s never appears in %s" % (k, lst))

    if errors:
        for e in errors:
            print("FAIL", e)
        print("%d violation(s)" % len(errors))
        return 1
    n_words = [words(t) for t in all_texts]
    print("OK: %d projects, %d updates (%d chains), %d separate, %d distractors (%d tool events); "
          "%d texts, %d-%d words, mean %.1f" % (
              len(keyset), len(updates), chains, len(separate), len(distractors), kinds_d["tool_event"],
              len(n_words), min(n_words), max(n_words), sum(n_words) / len(n_words)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
