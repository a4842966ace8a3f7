#!/usr/bin/env python3
"""Validate benchmarks/data/updates_bench_11.json (standard library only).

Checks the JSON shape and the rules of the updates-benchmark format
(see updates_bench.md / updates_bench_11.md): ids, kinds, substring rules for
current/stale answers and for look-alike answers, time order and gaps, counts,
no answer strings in distractors, word counts, duplicates, and the wording mix
of the replacing statements.

Usage: python3 updates_bench_11_validate.py [path/to/updates_bench_11.json]
Exit status 0 when every check passes, 1 otherwise.
"""
import json
import os
import re
import sys
from collections import Counter, defaultdict
from datetime import datetime, timedelta, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
PATH = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "updates_bench_11.json")

NOW = "2026-11-01T00:00:00Z"
T_MIN = datetime(2026, 1, 5, tzinfo=timezone.utc)
T_MAX = datetime(2026, 10, 27, 23, 59, 59, tzinfo=timezone.utc)
UPDATE_KINDS = ["rename", "tool_replaced", "moved_with_copy", "port_or_address",
                "workflow_replaced", "number_changed", "policy_changed", "owner_or_location"]
SEPARATE_KINDS = ["elaboration", "sibling", "second_setting", "different_component",
                  "different_environment", "compound", "restatement"]
DISTRACTOR_KINDS = ["fact", "decision", "convention", "tool_event", "procedure", "preference"]
MIN_WORDS, MAX_WORDS = 8, 40          # format allows 8-45; this set keeps to 8-40
N_PROJECTS = 7
MIN_UPDATES, MIN_SEPARATE = 100, 90
DISTRACTORS_RANGE = (150, 170)
TOOL_EVENT_SHARE = (0.28, 0.40)
MIN_CHAINS = 7

# Project names already used by earlier sets; none may be reused.
USED_NAMES = """Tidewater Freight|Lumen|Orchard|Emberfall|Quill|Kestrel|Tabwise|Riverchat|Claimwright|
Saltmarsh Goods|Saltmarsh|Stridelog|Groundwork|Beacon|Carewell|Gatehouse|Harborline|Spindle|Seqforge|Plateful|
Ferrite|Kilnworks|Thornbury|Bellwether|Galeway|Lotbook|Switchback|Waxwing|Ridgeline|Parallax|Pedalry|Pileup|
Formulary Stock|Lobbyline|Helixcall|Headway|Brackenfield|Hollowmere|Tallyhook|Millrace|Vetchling|Stonecrop|
Driftwood|Marlin Field|Sextant|Gantry|Wren|Chalkline|Marrowbank|Fennwick|Nightjar|Larkspur|Ashgrove|Copperleaf|
Glassworks|Mudlark|Trunkline|Pennant|Marginalia|Keelson|Undertow|Paperkite""".replace("\n", "").split("|")

# Wording of the replacing (last) statement of every update, classified when the set was written:
#   old   - names the old value in another form or says what was left behind
#   hint  - only hints at the change ("now", "these days", "since ...", "bumped")
#   plain - states the new value with no change word at all
WORDING = {
    "u001": "hint", "u002": "plain", "u003": "plain", "u004": "old", "u005": "plain", "u006": "hint",
    "u007": "old", "u008": "plain", "u009": "hint", "u010": "old", "u011": "old", "u012": "old",
    "u013": "plain", "u014": "old", "u015": "hint", "u016": "hint", "u017": "plain", "u018": "hint",
    "u019": "plain", "u020": "old", "u021": "hint", "u022": "plain", "u023": "hint", "u024": "plain",
    "u025": "old", "u026": "plain", "u027": "plain", "u028": "hint", "u029": "hint", "u030": "hint",
    "u031": "hint", "u032": "old", "u033": "old", "u034": "plain", "u035": "old", "u036": "hint",
    "u037": "plain", "u038": "plain", "u039": "hint", "u040": "hint", "u041": "plain", "u042": "plain",
    "u043": "hint", "u044": "old", "u045": "plain", "u046": "old", "u047": "plain", "u048": "old",
    "u049": "old", "u050": "hint", "u051": "old", "u052": "plain", "u053": "plain", "u054": "plain",
    "u055": "hint", "u056": "old", "u057": "plain", "u058": "plain", "u059": "old", "u060": "plain",
    "u061": "old", "u062": "hint", "u063": "old", "u064": "old", "u065": "hint", "u066": "plain",
    "u067": "old", "u068": "plain", "u069": "hint", "u070": "plain", "u071": "old", "u072": "old",
    "u073": "old", "u074": "hint", "u075": "old", "u076": "plain", "u077": "plain", "u078": "old",
    "u079": "hint", "u080": "hint", "u081": "old", "u082": "plain", "u083": "old", "u084": "old",
    "u085": "hint", "u086": "hint", "u087": "hint", "u088": "plain", "u089": "plain", "u090": "plain",
    "u091": "hint", "u092": "hint", "u093": "hint", "u094": "old", "u095": "hint", "u096": "old",
    "u097": "plain", "u098": "plain", "u099": "old", "u100": "hint", "u101": "plain", "u102": "plain",
    "u103": "old", "u104": "hint", "u105": "old", "u106": "old", "u107": "plain", "u108": "plain",
    "u109": "old", "u110": "hint", "u111": "hint", "u112": "hint",
}
CHANGE_WORDS = re.compile(
    r"\b(now|these days|anymore|no longer|replac\w*|instead|moved?|switch\w*|bump\w*|since|retired|"
    r"dropped|gone|took over|extended|went up|as of|rather than|deleted|renamed|old|"
    r"used to|formerly|previously|left with|decommissioned)\b", re.I)
HINT_WORDS = re.compile(
    r"\b(now|these days|since|bump\w*|as of|after the|went up|extended|moved)\b", re.I)

errors = []
notes = []


def err(msg):
    errors.append(msg)


def words(text):
    return len(text.split())


def parse_time(s, where):
    if not isinstance(s, str) or not re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", s):
        err(f"{where}: bad timestamp {s!r}")
        return None
    t = datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
    if not (T_MIN <= t <= T_MAX):
        err(f"{where}: time {s} outside 2026-01-05..2026-10-27")
    return t


def check_keys(obj, keys, where):
    if not isinstance(obj, dict):
        err(f"{where}: not an object")
        return False
    if set(obj) != set(keys):
        err(f"{where}: keys {sorted(obj)} != {sorted(keys)}")
        return False
    return True


def check_statements(item, where, n_allowed):
    sts = item.get("statements")
    if not isinstance(sts, list) or len(sts) not in n_allowed:
        err(f"{where}: expected {n_allowed} statements, got {None if sts is None else len(sts)}")
        return [], []
    texts, times = [], []
    for j, st in enumerate(sts):
        if not check_keys(st, ["text", "at"], f"{where}.statements[{j}]"):
            return [], []
        if not isinstance(st["text"], str) or not st["text"].strip():
            err(f"{where}.statements[{j}]: empty text")
        texts.append(st["text"])
        times.append(parse_time(st["at"], f"{where}.statements[{j}]"))
    for j in range(1, len(times)):
        if times[j - 1] and times[j] and not times[j] > times[j - 1]:
            err(f"{where}: statements not strictly ordered in time")
    return texts, times


def main():
    with open(PATH, encoding="utf-8") as f:
        raw = f.read()
    data = json.loads(raw)
    if raw != json.dumps(data, indent=2, ensure_ascii=False) + "\n":
        err("file is not UTF-8 JSON with 2-space indentation (json.dumps(indent=2, ensure_ascii=False))")

    check_keys(data, ["version", "description", "now", "projects", "updates", "separate", "distractors"], "top")
    if data.get("version") != 1:
        err("version must be 1")
    if data.get("now") != NOW:
        err(f"now must be {NOW}")
    if not isinstance(data.get("description"), str) or not data["description"]:
        err("description missing")

    # projects
    pkeys = []
    for i, p in enumerate(data["projects"]):
        if check_keys(p, ["key", "name", "stack"], f"projects[{i}]"):
            if not re.fullmatch(r"/work/[a-z0-9-]+", p["key"]):
                err(f"projects[{i}]: key {p['key']!r} is not a /work/<name> path")
            for used in USED_NAMES:
                if used.lower() in p["name"].lower() or used.lower().replace(" ", "-") in p["key"]:
                    err(f"projects[{i}]: name {p['name']!r} reuses an earlier set's name ({used})")
            pkeys.append(p["key"])
    if len(pkeys) != N_PROJECTS or len(set(pkeys)) != N_PROJECTS:
        err(f"expected {N_PROJECTS} distinct projects, got {pkeys}")
    pset = set(pkeys)

    all_texts = []
    all_questions = []
    answers_by_project = defaultdict(set)
    style_by_id = {}

    # updates
    ids = [u.get("id") for u in data["updates"]]
    if ids != ["u%03d" % i for i in range(1, len(ids) + 1)]:
        err("update ids are not u001..uNNN in order")
    ukind = Counter()
    ukind_proj = Counter()
    chains = 0
    for u in data["updates"]:
        w = u.get("id", "?")
        if not check_keys(u, ["id", "kind", "project", "statements", "question", "current_answer", "stale_answers"], w):
            continue
        if u["kind"] not in UPDATE_KINDS:
            err(f"{w}: unknown kind {u['kind']}")
        if u["project"] not in pset:
            err(f"{w}: unknown project {u['project']}")
        ukind[u["kind"]] += 1
        ukind_proj[(u["project"], u["kind"])] += 1
        allowed = (2, 3) if u["kind"] == "workflow_replaced" else (2,)
        texts, times = check_statements(u, w, allowed)
        if not texts:
            continue
        all_texts.extend(texts)
        for j in range(1, len(times)):
            if times[j - 1] and times[j] and times[j] - times[j - 1] < timedelta(days=21):
                err(f"{w}: replacing statement {j} is less than three weeks after the one it replaces")
        last, earlier = texts[-1], texts[:-1]
        cur = u["current_answer"]
        if not isinstance(cur, str) or not cur:
            err(f"{w}: empty current_answer")
            continue
        if cur not in last:
            err(f"{w}: current_answer {cur!r} not in last statement")
        for e in earlier:
            if cur.lower() in e.lower():
                err(f"{w}: current_answer {cur!r} appears in an earlier statement")
        stale = u["stale_answers"]
        if not isinstance(stale, list) or not stale:
            err(f"{w}: stale_answers must be a non-empty list")
            stale = []
        for s in stale:
            if not any(s in e for e in earlier):
                err(f"{w}: stale answer {s!r} not in any earlier statement")
            if s.lower() in last.lower():
                err(f"{w}: stale answer {s!r} appears in the last statement")
            if s.lower() in cur.lower() or cur.lower() in s.lower():
                err(f"{w}: stale answer {s!r} overlaps the current answer")
        if len(texts) == 3:
            chains += 1
            if not any(s in texts[0] for s in stale) or not any(s in texts[1] for s in stale):
                err(f"{w}: a 3-statement chain needs stale answers from both earlier statements")
        q = u["question"]
        if not isinstance(q, str) or not q.strip().endswith("?"):
            err(f"{w}: question must be a non-empty question")
        else:
            for a in [cur] + stale:
                if a.lower() in q.lower():
                    err(f"{w}: question gives away answer string {a!r}")
            all_questions.append(q)
        answers_by_project[u["project"]].update([cur] + stale)
        style_by_id[w] = last

    # separate
    ids = [s.get("id") for s in data["separate"]]
    if ids != ["s%03d" % i for i in range(1, len(ids) + 1)]:
        err("separate ids are not s001..sNNN in order")
    skind = Counter()
    skind_proj = Counter()
    for s in data["separate"]:
        w = s.get("id", "?")
        if not check_keys(s, ["id", "kind", "project", "statements", "questions"], w):
            continue
        if s["kind"] not in SEPARATE_KINDS:
            err(f"{w}: unknown kind {s['kind']}")
        if s["project"] not in pset:
            err(f"{w}: unknown project {s['project']}")
        skind[s["kind"]] += 1
        skind_proj[(s["project"], s["kind"])] += 1
        compound = s["kind"] == "compound"
        texts, times = check_statements(s, w, (1,) if compound else (2,))
        if not texts:
            continue
        all_texts.extend(texts)
        if s["kind"] == "restatement" and all(times):
            gap = times[1] - times[0]
            if not (timedelta(weeks=3) <= gap <= timedelta(weeks=17)):
                err(f"{w}: restatement gap {gap} not within 3-17 weeks")
        qs = s["questions"]
        if not isinstance(qs, list) or not qs:
            err(f"{w}: no questions")
            continue
        if compound and len(qs) != 2:
            err(f"{w}: compound items need exactly two questions")
        if s["kind"] not in ("compound", "restatement") and len(qs) < 2:
            err(f"{w}: expected a question per statement")
        seen_in = set()
        for k, q in enumerate(qs):
            wq = f"{w}.questions[{k}]"
            if not check_keys(q, ["question", "answer", "in"], wq):
                continue
            a, where = q["answer"], q["in"]
            if where not in ("first", "second", "both"):
                err(f"{wq}: bad 'in' {where!r}")
                continue
            seen_in.add(where)
            if compound and where != "first":
                err(f"{wq}: compound answers must be in: first")
            if s["kind"] == "restatement" and where != "both":
                err(f"{wq}: restatement answers must be in: both")
            targets = {"first": texts[:1], "second": texts[1:2], "both": texts[:2]}[where]
            if len(targets) != (2 if where == "both" else 1):
                err(f"{wq}: 'in' {where} names a missing statement")
            for t in targets:
                if not a or a not in t:
                    err(f"{wq}: answer {a!r} not in the {where} statement(s)")
            if a.lower() in q["question"].lower():
                err(f"{wq}: question gives away its answer {a!r}")
            if not q["question"].strip().endswith("?"):
                err(f"{wq}: question must end with '?'")
            all_questions.append(q["question"])
            answers_by_project[s["project"]].add(a)
        if s["kind"] not in ("compound", "restatement") and not ({"first", "both"} & seen_in and {"second", "both"} & seen_in):
            err(f"{w}: look-alike item should ask about both statements")

    # distractors
    dkind = Counter()
    dproj = Counter()
    for i, d in enumerate(data["distractors"]):
        w = f"distractors[{i}]"
        if not check_keys(d, ["project", "text", "at", "kind"], w):
            continue
        if d["kind"] not in DISTRACTOR_KINDS:
            err(f"{w}: unknown kind {d['kind']}")
        if d["project"] not in pset:
            err(f"{w}: unknown project {d['project']}")
        dkind[d["kind"]] += 1
        dproj[d["project"]] += 1
        t = parse_time(d["at"], w)
        all_texts.append(d["text"])
        low = d["text"].lower()
        for a in answers_by_project[d["project"]]:
            if a.lower() in low:
                err(f"{w}: contains answer string {a!r} of its own project: {d['text']!r}")
        # a distractor that names a calendar date must be recorded after it
        for m in re.finditer(r"(?<!\d)(2026)[-/.]?(\d\d)[-/.]?(\d\d)?(?!\d)", d["text"]):
            y, mo, dd = int(m.group(1)), int(m.group(2)), int(m.group(3) or 1)
            if 1 <= mo <= 12 and 1 <= dd <= 31 and t:
                named = datetime(y, mo, dd, tzinfo=timezone.utc)
                if t <= named:
                    err(f"{w}: names {named.date()} but is recorded at {d['at']}")

    # word counts and duplicates
    lengths = [words(t) for t in all_texts]
    for t, n in zip(all_texts, lengths):
        if not (MIN_WORDS <= n <= MAX_WORDS):
            err(f"text has {n} words (allowed {MIN_WORDS}-{MAX_WORDS}): {t!r}")
    norm = Counter(re.sub(r"\s+", " ", t.strip().lower()) for t in all_texts)
    for t, c in norm.items():
        if c > 1:
            err(f"duplicated text ({c}x): {t!r}")
    qnorm = Counter(q.strip().lower() for q in all_questions)
    for q, c in qnorm.items():
        if c > 1:
            err(f"duplicated question ({c}x): {q!r}")

    # counts
    n_upd, n_sep, n_dis = len(data["updates"]), len(data["separate"]), len(data["distractors"])
    if n_upd < MIN_UPDATES:
        err(f"only {n_upd} updates (need >= {MIN_UPDATES})")
    if n_sep < MIN_SEPARATE:
        err(f"only {n_sep} separate items (need >= {MIN_SEPARATE})")
    if not (DISTRACTORS_RANGE[0] <= n_dis <= DISTRACTORS_RANGE[1]):
        err(f"{n_dis} distractors (want {DISTRACTORS_RANGE[0]}-{DISTRACTORS_RANGE[1]})")
    for p in pset:
        for k in UPDATE_KINDS:
            if ukind_proj[(p, k)] < 2:
                err(f"{p}: fewer than 2 updates of kind {k}")
        for k in SEPARATE_KINDS:
            if skind_proj[(p, k)] < 2:
                err(f"{p}: fewer than 2 separate items of kind {k}")
        if dproj[p] < 15:
            err(f"{p}: only {dproj[p]} distractors")
    if chains < MIN_CHAINS:
        err(f"only {chains} workflow chains (need >= {MIN_CHAINS})")
    for k in DISTRACTOR_KINDS:
        if dkind[k] == 0:
            err(f"no distractors of kind {k}")
    share = dkind["tool_event"] / max(1, n_dis)
    if not (TOOL_EVENT_SHARE[0] <= share <= TOOL_EVENT_SHARE[1]):
        err(f"tool_event share {share:.2f} outside {TOOL_EVENT_SHARE}")

    # wording mix of replacing statements
    if set(WORDING) != set(style_by_id):
        err("WORDING table does not cover exactly the update ids")
    mix = Counter(WORDING.values())
    for sty in ("old", "hint", "plain"):
        frac = mix[sty] / max(1, len(WORDING))
        if not (0.25 <= frac <= 0.42):
            err(f"wording mix: {sty} is {frac:.2f} of updates (want about a third)")
    for uid, sty in WORDING.items():
        last = style_by_id.get(uid, "")
        if sty == "plain" and CHANGE_WORDS.search(last):
            err(f"{uid}: 'plain' replacing statement contains a change word "
                f"({CHANGE_WORDS.search(last).group(0)!r}): {last!r}")
        if sty == "hint" and not HINT_WORDS.search(last):
            err(f"{uid}: 'hint' replacing statement has no hint word: {last!r}")
        if sty not in ("old", "hint", "plain"):
            err(f"{uid}: unknown wording class {sty!r}")

    # report
    print(f"file: {PATH}")
    print(f"projects: {len(pkeys)}")
    print(f"updates: {n_upd}  " + ", ".join(f"{k} {ukind[k]}" for k in UPDATE_KINDS) + f"  (3-statement chains: {chains})")
    print(f"separate: {n_sep}  " + ", ".join(f"{k} {skind[k]}" for k in SEPARATE_KINDS))
    print(f"distractors: {n_dis}  " + ", ".join(f"{k} {dkind[k]}" for k in DISTRACTOR_KINDS)
          + f"  (tool_event share {share:.0%})")
    print(f"wording of replacing statements: old {mix['old']}, hint {mix['hint']}, plain {mix['plain']}")
    print(f"words per text: min {min(lengths)}, max {max(lengths)}, mean {sum(lengths) / len(lengths):.1f}")
    if errors:
        print(f"FAILED: {len(errors)} problem(s)")
        for e in errors:
            print("  - " + e)
        return 1
    print("OK: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
