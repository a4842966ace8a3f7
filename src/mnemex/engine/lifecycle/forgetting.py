"""Strategic forgetting as pure rules (seed 001), in its order: contradiction cleanup, foresight
expiry, records expiry and repeated runs (ours), utility floor, redundancy, capacity trim. Each rule names memories to send dormant and
why; the dream applies them (`dream.py`). Nothing is ever deleted, and pinned, immutable and
flashbulb memories are never chosen."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime
from typing import Iterable, Sequence

from mnemex.config.lifecycle import LifecycleConfig
from mnemex.engine.lifecycle.policy import exempt, is_record
from mnemex.engine.lifecycle.slices import sorted_in_slices
from mnemex.engine.lifecycle.strength import Strength, as_utc
from mnemex.engine.statements import holds_all, read
from mnemex.engine.statements.runs import run_key, runs_of
from mnemex.models import Memory

RULES = ("contradiction", "foresight", "records", "repeats", "utility_floor", "redundancy", "capacity")


@dataclass(frozen=True, slots=True)
class Forget:
    """A memory one rule sends dormant."""

    memory_id: str
    rule: str
    reason: str
    kept: str | None = None  # repeats: the newer record that stands for this one


def may_sleep(memory: Memory, strength: Strength, config: LifecycleConfig) -> bool:
    """Whether a use-based rule (utility floor, capacity) may send `memory` dormant: not exempt, not
    already dormant, of a kind that is not permanent, past its kind's minimum retention."""
    if exempt(memory) or memory.lifecycle.dormant:
        return False
    keep = config.category(memory.kind).min_retention_days
    return keep is not None and strength.age_days >= keep


def contradiction(edges: Iterable[tuple[str, str]], current: dict[str, Memory]) -> list[Forget]:
    """For each `contradicts` edge between two current memories: the older side, unless it is exempt."""
    out: dict[str, Forget] = {}
    for a, b in edges:
        ma, mb = current.get(a), current.get(b)
        if ma is None or mb is None:
            continue
        older, newer = sorted((ma, mb), key=lambda m: (as_utc(m.created_at), as_utc(m.recorded_at), m.id))
        if not exempt(older) and not older.lifecycle.dormant and older.id not in out:
            out[older.id] = Forget(older.id, "contradiction", f"contradicted by the newer {newer.id}")
    return list(out.values())


def foresight(memories: Iterable[Memory], now: datetime) -> list[Forget]:
    """Active memories whose validity ended (a plan's `valid_until` passed)."""
    return [Forget(m.id, "foresight", f"its validity ended {m.valid_until.isoformat()}")
            for m in memories if m.valid_until is not None and as_utc(m.valid_until) <= now
            and not exempt(m) and not m.lifecycle.dormant]


def records(assessed: Iterable[tuple[Memory, Strength]], config: LifecycleConfig) -> list[Forget]:
    """Records of the configured kinds (captured tool runs) that nobody recalled for
    `forgetting.record_idle_days`: their moment has passed, and by the thousand they crowd a
    project's knowledge out of the top results (`benchmarks/lifecycle_year.py`)."""
    rule = config.forgetting
    if rule.record_idle_days is None:
        return []
    kinds = set(rule.record_kinds)
    chatter = "chatter" in kinds
    return [Forget(m.id, "records", f"{'chatter' if m.kind.value not in kinds else 'a ' + m.kind.value.replace('_', ' ')} "
                                    f"nobody recalled for {s.idle_days:.0f} days")
            for m, s in assessed
            if (m.kind.value in kinds or (chatter and m.is_chatter)) and s.idle_days >= rule.record_idle_days
            and may_sleep(m, s, config)]


#: A routine run's records: (scope, project, run key) -> its records, awake and dormant.
RunGroups = dict[tuple[str, str | None, str], list[tuple[Memory, Strength]]]


def run_groups(assessed: Iterable[tuple[Memory, Strength]]) -> RunGroups:
    """The records of each routine run (`statements.runs.run_key`), per scope and project, newest
    first; pinned, immutable and flashbulb records left out. One pass for `repeats` and `carried_runs`."""
    groups: RunGroups = defaultdict(list)
    for m, s in assessed:
        if not exempt(m) and (key := run_key(m)):
            groups[(m.scope.value, m.project, key)].append((m, s))
    for same in groups.values():
        same.sort(key=lambda ms: (as_utc(ms[0].created_at), ms[0].id), reverse=True)
    return groups


def repeats(groups: RunGroups, config: LifecycleConfig) -> list[Forget]:
    """Records of a routine run that was recorded again (the same command, file or wording
    succeeding, `run_groups`), per scope and project: all but the newest
    `forgetting.repeat_keep` go dormant, unless recalled since the newest was recorded. The newest
    says all they say (that it ran and passed, most recently then); a failure, an edit or a run
    recorded once is never a repeat. Like redundancy, it waits for no minimum age: the twentieth
    "pipeline passed" of the week is clutter the day it is written. The dream adds the runs a
    dormant repeat stood for to the newest one's `runs` tally (`statements.runs.RUNS`), so the read path
    still weighs the survivor as routine when it is the only record of its run left in view."""
    keep = config.forgetting.repeat_keep
    if keep <= 0:
        return []
    out: list[Forget] = []
    for group in groups.values():
        same = [(m, s) for m, s in group if not m.lifecycle.dormant]
        if len(same) <= keep:
            continue
        newest, fresh = same[0][0], same[0][1]
        out += [Forget(m.id, "repeats", f"a routine run recorded again since: the newer {newest.id} says the same",
                       kept=newest.id)
                for m, s in same[keep:] if s.idle_days >= fresh.age_days]
    return out


def carried_runs(groups: RunGroups, config: LifecycleConfig) -> dict[str, int]:
    """{id: runs}: the newest awake record of a routine run whose earlier records are all dormant
    already (sent there by records expiry at an earlier dream, say) stands for at least one run
    more than the largest tally among them. Without it, the first "pipeline passed" of a new month
    is the only record of its run in view and no longer weighs as routine at read time, while the
    store without a lifecycle still sees the whole pile as one routine run. A maximum, not a sum:
    the same dormant records carried at every dream count once."""
    if config.forgetting.repeat_keep <= 0:
        return {}
    out: dict[str, int] = {}
    for same in groups.values():
        newest = next((m for m, _ in same if not m.lifecycle.dormant), None)
        if newest is None:
            continue
        before = [runs_of(m) for m, _ in same
                  if m.lifecycle.dormant and as_utc(m.created_at) <= as_utc(newest.created_at)]
        if before and 1 + max(before) > runs_of(newest):
            out[newest.id] = 1 + max(before)
    return out


def utility_floor(assessed: Iterable[tuple[Memory, Strength]], config: LifecycleConfig) -> list[Forget]:
    """Memories feedback found unhelpful (utility under the floor, as feedback left it) and unused long."""
    rule = config.forgetting
    return [Forget(m.id, "utility_floor", f"utility {m.lifecycle.utility:.2f} < {rule.utility_floor:g}, "
                                          f"unused {s.idle_days:.0f} days")
            for m, s in assessed
            if m.lifecycle.utility_at is not None and m.lifecycle.utility < rule.utility_floor
            and s.idle_days >= rule.utility_idle_days and may_sleep(m, s, config)]


def usefulness(memory: Memory, strength: Strength) -> tuple[float, int, float, datetime, str]:
    """Which of two memories is worth more: utility, recalls, importance, then the newer."""
    return strength.utility, memory.access_count, memory.importance, as_utc(memory.created_at), memory.id


def redundancy(pairs: Iterable[tuple[str, str, float]], assessed: dict[str, tuple[Memory, Strength]]) -> list[Forget]:
    """For each redundant pair (most similar first): the less useful side, unless exempt or unless
    it says something the kept side does not (`subsumed`); a memory kept for one pair is not sent
    dormant for another."""
    out: dict[str, Forget] = {}
    kept: set[str] = set()
    for a, b, sim in sorted(pairs, key=lambda p: -p[2]):
        if a not in assessed or b not in assessed or a in out or b in out:
            continue
        hi, lo = sorted((a, b), key=lambda i: usefulness(*assessed[i]), reverse=True)
        memory = assessed[lo][0]
        if lo in kept or exempt(memory) or memory.lifecycle.dormant or not subsumed(memory, assessed[hi][0]):
            continue
        out[lo] = Forget(lo, "redundancy", f"redundant with {hi} (cosine {sim:.2f}), which proved more useful")
        kept.add(hi)
    return list(out.values())


def subsumed(memory: Memory, by: Memory) -> bool:
    """Does `by` hold everything `memory` says: no value, name, negation or content word of
    `memory` that `by` lacks (`statements.holds_all`)? Similarity
    alone is not redundancy: on the blind year benchmark the seed's rule (cosine > 0.9, the less
    useful side dormant) hid the newer of two facts that differ in one name or value, because the
    older was a recalled favourite."""
    older, newer = read(by.content, tuple(by.entities)), read(memory.content, tuple(memory.entities))
    return holds_all(older, newer)


def keep_score(strength: Strength) -> float:
    """What a memory is worth keeping active: utility, retention and importance, 0.4 / 0.3 / 0.3."""
    return 0.4 * strength.utility + 0.3 * strength.retrievability + 0.3 * strength.importance


def capacity(assessed: Sequence[tuple[Memory, Strength]], config: LifecycleConfig, leaving: set[str]) -> list[Forget]:
    """Per scope (a project, or global / session / agent), the active memories beyond the cap: the
    scope is brought down to `trim_to` of it. Records of what happened (tool events, episodes) go
    first, the least worth keeping first, and knowledge only when records are not enough: in a
    year-long coding store tool runs outnumber facts ten to one and are recent, so by keep score
    alone the trim sent facts dormant while tool runs stayed (`benchmarks/lifecycle_year.py`)."""
    cap = config.forgetting.capacity
    if cap is None:
        return []
    scopes: dict[tuple[str, str | None], list[tuple[Memory, Strength]]] = defaultdict(list)
    for m, s in assessed:
        if not m.lifecycle.dormant and m.id not in leaving:
            scopes[(m.scope.value, m.project)].append((m, s))
    out: list[Forget] = []
    for (scope, project), members in scopes.items():
        if len(members) <= cap:
            continue
        target = int(cap * config.forgetting.trim_to)
        weakest = sorted_in_slices((ms for ms in members if may_sleep(ms[0], ms[1], config)),
                                   key=lambda ms: (not is_record(ms[0]), keep_score(ms[1]),
                                                   as_utc(ms[0].created_at), ms[0].id),
                                   first=len(members) - target)
        where = project or scope
        out += [Forget(m.id, "capacity", f"{where} holds {len(members)} active memories, over its cap of {cap}; "
                                         f"keep score {keep_score(s):.2f}")
                for m, s in weakest[: len(members) - target]]
    return out

