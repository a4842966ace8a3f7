"""A blind simulated year of one coding project, replayed through the engine (issue 13's benchmark).

    PYTHONPATH=src:. python benchmarks/lifecycle_year.py --quick               # 2,000 memories, < 3 min
    PYTHONPATH=src:. python benchmarks/lifecycle_year.py --mode sweep          # 20,000 memories
    PYTHONPATH=src:. python benchmarks/lifecycle_year.py --mode dream --json dream.json
    PYTHONPATH=src:. python benchmarks/lifecycle_year.py --compare none.json dream.json   # without / with
    PYTHONPATH=src:. python benchmarks/lifecycle_year.py --quick --misses     # what the last checkpoint missed

The year (`year_data.py`, seeded, GENERATOR_VERSION) is replayed in time order on a fixed clock:
every item is memorized at its time (tool events as `tool_event` from a hook, the rest classified
by the engine), the Monday recalls call `recall` (and `rate(helped=True)` when the agent found it
useful). At each checkpoint (month ends; quarter ends with --quick) it reports:

* store size (every memory, all validity states), valid (status active: the active set without
  the lifecycle) and the active set (valid and not dormant), before and after the lifecycle step;
* Recall@5 of the still-valid facts (a top-5 memory holding the question's subject and answer,
  not itself stale, noise or a tool event), and the share of the top-5 results that are stale
  statements or noise/tool events, before and after the lifecycle step;
* the lifecycle step: `--mode none` nothing; `sweep` `engine.sweep()`; `dream` `engine.dream(now=t)`
  then `engine.sweep()` ("dream: not available" and sweep alone while the engine has no dream).
  With `--every DAYS` (default 7) the same step also runs every DAYS between checkpoints, unmeasured
  but timed (`between` in the row), as the daemon's daily dream would: one dream a month does
  at most `dream.max_changes` changes, fewer than a month of writes.
  Its time, and the latency of a search running concurrently in a loop (max and p50), against the
  same loop run alone just before (at least once over every question); and the longest wait the
  step added to one call: the call's latency less the same query's median latency alone
  (`added_max_ms`, "longest wait added"), the time a tool call was held up by the lifecycle; and
  how long each store flush in the step took (`flush_ms`: Qdrant Edge holds the GIL for a flush)
  and how many points it wrote (`written`). Before the step the points written since the last
  flush are flushed with no call in flight (`idle_flush`, timed apart), as the daemon does after
  `daemon.IDLE_FLUSH_SECONDS` without a call (it starts a dream or sweep only after
  `IDLE_OPTIMIZE_SECONDS` without one); without it a replayed month left 0-999 points unflushed and the
  step's own writes crossed `edge.FLUSH_EVERY` at some checkpoints only.

The engine is the factory's (`build_engine`, default settings) with its clock replaced by the
replay's. Embeddings are cached on disk keyed by GENERATOR_VERSION and the model (`--cache-dir`,
default ~/.cache/mnemex-bench): the first full run embeds about 13,000 texts (about 15 minutes on
a busy 2-core machine), reruns none. The embeddings, not the store, are what is cached: the store
a checkpoint sees depends on the mode (the lifecycle ran at every earlier checkpoint) and on the
engine under test, while the vectors of a text do not.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Self

import numpy as np

from benchmarks.year_data import GENERATOR_VERSION, PROJECT, Item, Question, Year, generate
from mnemex.models import MemoryKind, NewMemory, Provenance, WriteAction, WriteOutcome

CACHE = Path.home() / ".cache" / "mnemex-bench"
QUICK_N = 2_000
BAD = ("stale", "noise", "tool")


class Clock:
    """The engine's clock: the replay sets `now` to each event's time."""

    def __init__(self, now: datetime):
        self.now = now

    def __call__(self) -> datetime:
        return self.now


class CachedEmbedder:
    """The real embedder behind a disk cache of document and query vectors (text sha1 -> vector)."""

    def __init__(self, inner: Any, path: Path):
        self.inner = inner
        self.identity = inner.identity
        self.path = path
        self.vectors: dict[str, np.ndarray] = {}
        self.misses = 0
        if path.exists():
            with np.load(path) as data:
                self.vectors = dict(zip(data["keys"].tolist(), data["vectors"]))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    @staticmethod
    def _key(prefix: str, text: str) -> str:
        return prefix + hashlib.sha1(text.encode()).hexdigest()

    def embed_documents(self, texts: list[str] | tuple[str, ...]) -> list[list[float]]:
        keys = [self._key("d", t) for t in texts]
        missing = list(dict.fromkeys(t for t, k in zip(texts, keys) if k not in self.vectors))
        if missing:
            self.misses += len(missing)
            for text, vec in zip(missing, self.inner.embed_documents(missing)):
                self.vectors[self._key("d", text)] = np.asarray(vec, dtype=np.float32)
        return [self.vectors[k].tolist() for k in keys]

    def embed_query(self, text: str) -> list[float]:
        key = self._key("q", text)
        if key not in self.vectors:
            self.misses += 1
            self.vectors[key] = np.asarray(self.inner.embed_query(text), dtype=np.float32)
        return self.vectors[key].tolist()

    def prefill(self, texts: list[str], queries: list[str], batch: int = 64) -> None:
        todo = list(dict.fromkeys(t for t in texts if self._key("d", t) not in self.vectors))
        asked = list(dict.fromkeys(q for q in queries if self._key("q", q) not in self.vectors))
        if not todo and not asked:
            return
        for query in asked:
            self.embed_query(query)
        t0 = time.perf_counter()
        for start in range(0, len(todo), batch):
            self.embed_documents(todo[start:start + batch])
            done = min(start + batch, len(todo))
            if done % (batch * 20) < batch or done == len(todo):
                _progress(f"embedding {done}/{len(todo)} texts ({time.perf_counter() - t0:.0f} s)")
        self.save()

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        keys = sorted(self.vectors)
        tmp = self.path.with_suffix(f".{os.getpid()}.tmp.npz")  # runs side by side each write their own
        np.savez(tmp, keys=np.array(keys), vectors=np.stack([self.vectors[k] for k in keys]))
        tmp.replace(self.path)


def _progress(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def build(data_dir: Path, clock: Clock, cache_dir: Path) -> tuple[Any, CachedEmbedder]:
    """The engine as the factory composes it, on the replay's clock and the cached embedder."""
    from mnemex.config import Settings
    from mnemex.engine import factory
    settings = Settings(data_dir=data_dir)
    inner = factory.build_embedder(settings)
    tag = hashlib.sha1(repr(inner.identity).encode()).hexdigest()[:10]
    embedder = CachedEmbedder(inner, cache_dir / f"year-v{GENERATOR_VERSION}-{tag}.npz")
    engine = factory.build_engine(settings, default_project=PROJECT, embedder=embedder, clock=clock)
    return engine, embedder


@dataclass
class Replay:
    """Which memory holds which item: `holder` for labels, `ids` for recalls."""
    items: dict[str, Item]
    holder: dict[str, str] = field(default_factory=dict)
    ids: dict[str, list[str]] = field(default_factory=dict)
    actions: dict[str, int] = field(default_factory=dict)

    def record(self, item: Item, out: WriteOutcome) -> None:
        ids = []
        for part in (out, *out.also):
            self.actions[part.action.value] = self.actions.get(part.action.value, 0) + 1
            held = [part.id] if part.id else list(part.affected_ids) if part.action == WriteAction.SKIPPED else []
            for memory_id in held:
                if part.action in (WriteAction.CREATED, WriteAction.SUPERSEDED, WriteAction.UPDATED):
                    self.holder[memory_id] = item.key  # its content is now this item's
                else:
                    self.holder.setdefault(memory_id, item.key)
                ids.append(memory_id)
        self.ids[item.key] = ids

    def label(self, memory_id: str, t: datetime) -> str:
        key = self.holder.get(memory_id)
        return self.items[key].label(t) if key else "engine"  # made by the engine (a theme, a summary)


def ingest(engine: Any, item: Item, clock: Clock, replay: Replay) -> None:
    clock.now = item.at
    tool = item.group == "tool"
    new = NewMemory(content=item.text, project=PROJECT, created_at=item.at,
                    kind=MemoryKind.TOOL_EVENT if tool else None,
                    provenance=Provenance(source="hook" if tool else "agent", session_id=item.session))
    replay.record(item, engine.memorize(new))


def store_counts(engine: Any, replay: Replay, t: datetime) -> dict[str, Any]:
    """Store size (all validity states), valid (status active), the active set (valid, not dormant),
    what the active set holds by label at `t`, and the valid memories per tier."""
    total = valid = active = 0
    tiers: dict[str, int] = {}
    holds = {"valid": 0, "stale": 0, "noise": 0, "tool": 0, "engine": 0}
    for memory in engine.export(include_all=True):
        total += 1
        if memory.status.value != "active":
            continue
        valid += 1
        tier = memory.lifecycle.tier or "entry"
        tiers[tier] = tiers.get(tier, 0) + 1
        if not memory.lifecycle.dormant:
            active += 1
            holds[replay.label(memory.id, t)] += 1
    return {"store": total, "valid": valid, "active": active, "active_holds": holds,
            "tiers": dict(sorted(tiers.items()))}


def ask(engine: Any, questions: list[Question], t: datetime, replay: Replay) -> dict[str, Any]:
    """Recall@5 of the valid answers, and what the top 5 hold (shares of all returned results)."""
    hits, shown = 0, 0
    kinds = {"valid": 0, "stale": 0, "noise": 0, "tool": 0, "engine": 0}
    by_topic: dict[str, list[int]] = {}
    misses = []
    for q in questions:
        got, labels, ok = _top5(engine, q, t, replay)
        hits += ok
        if not ok:
            misses.append({"question": q.text, "answer": q.answer, "why": _why_missed(engine, q, replay),
                           "top3": [f"[{lab}] {r.memory.content[:90]}" for r, lab in zip(got[:3], labels)]})
        shown += len(got)
        for lab in labels:
            kinds[lab] += 1
        by_topic.setdefault(q.topic, [0, 0])
        by_topic[q.topic][0] += ok
        by_topic[q.topic][1] += 1
    n = max(1, len(questions))
    return {"questions": len(questions), "recall5": hits / n,
            "stale5": kinds["stale"] / max(1, shown), "noise5": (kinds["noise"] + kinds["tool"]) / max(1, shown),
            "by_topic": {k: f"{a}/{b}" for k, (a, b) in sorted(by_topic.items())}, "misses": misses}


def _top5(engine: Any, q: Question, t: datetime, replay: Replay) -> tuple[list[Any], list[str], bool]:
    """What `q` gets at `t`: its top 5, their labels, and whether a valid memory among them answers it."""
    got = engine.search(q.text, limit=5, now=t)
    labels = [replay.label(r.memory.id, t) for r in got]
    return got, labels, any(_answers(q, r.memory.content) and lab not in BAD for r, lab in zip(got, labels))


def _answers(q: Question, content: str) -> bool:
    return q.answer.lower() in content.lower() and q.subject.lower() in content.lower()


def _why_missed(engine: Any, q: Question, replay: Replay) -> str:
    """'ranked below 5' when a current memory written by a valid item still holds the answer,
    else 'answer not current' (superseded, merged away or rewritten by the write path)."""
    ids = list(dict.fromkeys(i for key in q.keys for i in replay.ids.get(key, ())))
    current = [m for m in engine.recall(ids, touch=False) if m.status.value == "active"] if ids else []
    if any(_answers(q, m.content) for m in current):
        return "ranked below 5" + (" (dormant)" if all(m.lifecycle.dormant for m in current
                                                        if _answers(q, m.content)) else "")
    return "answer not current"


class Searcher:
    """Searches in a loop on its own thread and keeps each call's latency (the 'pause' a tool sees),
    with the index of the query it ran."""

    def __init__(self, engine: Any, queries: list[str], t: datetime):
        self.engine, self.queries, self.t = engine, queries or ["what port"], t
        self.calls: list[tuple[int, float]] = []
        self.errors: list[str] = []
        self.passed = threading.Event()  # every query ran at least once
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    @property
    def latencies(self) -> list[float]:
        return [lat for _, lat in self.calls]

    def _run(self) -> None:
        i = 0
        while not self._stop.is_set():
            q = i % len(self.queries)
            start = time.perf_counter()
            try:
                self.engine.search(self.queries[q], limit=5, now=self.t)
            except Exception as exc:  # a search that fails while the lifecycle runs is a finding, not a crash
                self.errors.append(f"{type(exc).__name__}: {exc}")
            self.calls.append((q, time.perf_counter() - start))
            i += 1
            if i >= len(self.queries):
                self.passed.set()

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def per_query(self) -> dict[int, float]:
        """Each query's median latency in this loop."""
        by: dict[int, list[float]] = {}
        for q, lat in self.calls:
            by.setdefault(q, []).append(lat)
        return {q: statistics.median(v) for q, v in by.items()}

    def summary(self, alone: "Searcher | None" = None) -> dict[str, float]:
        """Latency max and p50; with `alone` (the same loop run alone before), also the longest wait the
        run added to a call: its latency less the same query's latency alone (`added_max_ms`)."""
        lat = self.latencies or [0.0]
        out = {"searches": len(self.calls), "max_ms": 1000 * max(lat), "p50_ms": 1000 * statistics.median(lat),
               "errors": len(self.errors), **({"first_error": self.errors[0]} if self.errors else {})}
        if alone is not None:
            base = alone.per_query()
            added = [lat - base[q] for q, lat in self.calls if q in base]
            if added:
                out["added_max_ms"] = 1000 * max(added)
        return out


class FlushWatch:
    """Times each flush of an Edge store while it is on (Qdrant Edge holds the GIL for a flush, so a
    search that meets one waits for all of it); a store without `_flush` gives an empty list."""

    def __init__(self, engine: Any):
        self.store, self.ms, self.written = getattr(engine, "store", None), [], 0

    def __enter__(self) -> Self:
        flush = getattr(self.store, "_flush", None)
        if callable(flush):
            self.written = -getattr(self.store, "unflushed", 0)

            def timed() -> None:
                self.written += getattr(self.store, "unflushed", 0)
                start = time.perf_counter()
                try:
                    flush()
                finally:
                    self.ms.append(1000 * (time.perf_counter() - start))
            self.store._flush = timed
        return self

    def __exit__(self, *exc: object) -> None:
        if "_flush" in getattr(self.store, "__dict__", {}):
            del self.store._flush
            self.written += getattr(self.store, "unflushed", 0)


def lifecycle_step(engine: Any, mode: str, t: datetime, queries: list[str], alone_s: float = 1.0) -> dict[str, Any]:
    """Run the mode's lifecycle at `t` with a concurrent search loop; the same loop alone first, for
    `alone_s` seconds and at least once over every query (each one's own time alone)."""
    with Searcher(engine, queries, t) as alone:
        time.sleep(alone_s)
        alone.passed.wait()
    out: dict[str, Any] = {"alone": alone.summary()}
    if mode == "none":
        return out
    dream = getattr(engine, "dream", None) if mode == "dream" else None
    if mode == "dream" and dream is None:
        out["dream"] = "not available"
    start = time.perf_counter()
    flush = getattr(getattr(engine, "upkeep", None), "flush_pending", None)
    points = flush() if flush is not None else 0  # what the daemon does first when no call comes (module doc)
    out["idle_flush"] = {"points": points, "ms": round(1000 * (time.perf_counter() - start), 1) if points else 0.0}
    with Searcher(engine, queries, t) as during, FlushWatch(engine) as flushes:
        start = time.perf_counter()
        if dream is not None:
            try:
                out["dream_report"] = repr(dream(now=t))
            except Exception as exc:  # reported in the row; the year goes on with the sweep
                out["dream_error"] = f"{type(exc).__name__}: {exc}"
            out["dream_s"] = time.perf_counter() - start
        swept = time.perf_counter()
        out["sweep_report"] = repr(engine.sweep())
        out["sweep_s"] = time.perf_counter() - swept
        out["cycle_s"] = time.perf_counter() - start
    out["during"] = during.summary(alone)
    out["flush_ms"] = [round(ms, 1) for ms in flushes.ms]
    out["written"] = flushes.written
    return out


def between(checkpoints: list[datetime], every_days: float) -> list[datetime]:
    """The times the lifecycle also runs between checkpoints: every `every_days` from the first
    item's month start, not within a day of a checkpoint (which runs it anyway)."""
    if every_days <= 0 or not checkpoints:
        return []
    start = checkpoints[0].replace(day=1, hour=23, minute=59)
    out, t = [], start + timedelta(days=every_days) - timedelta(days=1)
    while t < checkpoints[-1]:
        if all(abs((t - c).total_seconds()) >= 86_400 for c in checkpoints):
            out.append(t)
        t += timedelta(days=every_days)
    return out


def quiet_step(engine: Any, mode: str, t: datetime, tally: dict[str, Any]) -> None:
    """The lifecycle between checkpoints (as the daemon would run it), timed, nothing asked."""
    start = time.perf_counter()
    if mode == "dream" and getattr(engine, "dream", None) is not None:
        engine.dream(now=t)
    engine.sweep()
    tally["runs"] = tally.get("runs", 0) + 1
    tally["seconds"] = tally.get("seconds", 0.0) + time.perf_counter() - start


def run(year: Year, mode: str, checkpoints: list[datetime], cache_dir: Path,
        max_questions: int | None = None, every_days: float = 0.0, each_cycle: bool = False) -> list[dict[str, Any]]:
    clock = Clock(year.items[0].at)
    replay = Replay({i.key: i for i in year.items})
    with tempfile.TemporaryDirectory(prefix="mnemex-year-") as tmp:
        engine, embedder = build(Path(tmp), clock, cache_dir)
        try:
            embedder.prefill([i.text for i in year.items], [q.text for q in year.questions])
            extra = between(checkpoints, every_days) if mode != "none" else []
            events = sorted([(i.at, 0, i) for i in year.items] + [(r.at, 1, r) for r in year.recalls]
                            + [(t, 2, t) for t in checkpoints] + [(t, 3, t) for t in extra],
                            key=lambda e: (e[0], e[1]))
            rows, done, t0 = [], 0, time.perf_counter()
            tally: dict[str, Any] = {}
            for at, kind, event in events:
                if kind == 0:
                    ingest(engine, event, clock, replay)
                    done += 1
                    if done % 1000 == 0:
                        _progress(f"{done}/{len(year.items)} memorized ({time.perf_counter() - t0:.0f} s)")
                elif kind == 1:
                    clock.now = at
                    recall(engine, replay, event)
                elif kind == 3:
                    clock.now = at
                    asked = _sample(year, _next(checkpoints, at), max_questions) if each_cycle else []
                    before = cycle_view(engine, asked, at, replay) if asked else None
                    quiet_step(engine, mode, at, tally)
                    if before is not None:
                        after = cycle_view(engine, asked, at, replay)
                        tally.setdefault("cycles", []).append(
                            [at.strftime("%Y-%m-%d"), before["noise5"], after["noise5"], before["hits"],
                             after["hits"], len(asked), cycle_changes(engine, before, after)])
                else:
                    clock.now = at
                    rows.append(checkpoint(engine, year, at, mode, replay, done, max_questions))
                    if tally:
                        rows[-1]["between"] = tally
                        tally = {}
                    _progress(row_line(rows[-1]))
                    embedder.save()  # a cut run keeps what it embedded
            embedder.save()
            rows.append({"actions": replay.actions, "embed_misses": embedder.misses})
            return rows
        finally:
            engine.close()


def recall(engine: Any, replay: Replay, event: Any) -> None:
    ids = [i for i in dict.fromkeys(replay.ids.get(event.key, ()))]
    if not ids:
        return
    engine.recall(ids)
    if event.helped:
        engine.rate(ids[0], helped=True)


def _sample(year: Year, t: datetime, max_questions: int | None) -> list[Question]:
    """The questions asked at checkpoint `t`: all, or an even, fixed sample of `max_questions`."""
    questions = [q for q in year.questions if q.at == t]
    if max_questions is not None and len(questions) > max_questions:
        questions = questions[::-(-len(questions) // max_questions)]
    return questions


def _next(checkpoints: list[datetime], t: datetime) -> datetime:
    return next((c for c in checkpoints if c >= t), checkpoints[-1])


def noise5(engine: Any, questions: list[Question], t: datetime, replay: Replay) -> float:
    """The share of noise and tool records among the top 5 of `questions` at `t`: what a dream
    between checkpoints is measured by (noise labels do not depend on which answers are valid)."""
    return cycle_view(engine, questions, t, replay)["noise5"]


def cycle_view(engine: Any, questions: list[Question], t: datetime, replay: Replay) -> dict[str, Any]:
    """What `questions` see at `t`, for a dream between checkpoints: the noise share of their top 5,
    how many have a valid answer in it (labels at `t`: an answer not yet written counts before and
    after alike), and each question's top 5 as (id, label, text) to say what a dream changed."""
    shown = bad = hits = 0
    tops: dict[str, list[tuple[str, str, str]]] = {}
    found: dict[str, bool] = {}
    for q in questions:
        got, labels, found[q.text] = _top5(engine, q, t, replay)
        shown += len(got)
        bad += sum(lab in ("noise", "tool") for lab in labels)
        hits += found[q.text]
        tops[q.text] = [(r.memory.id, lab, r.memory.content[:80]) for r, lab in zip(got, labels)]
    return {"noise5": bad / max(1, shown), "hits": hits, "tops": tops, "found": found}


def cycle_changes(engine: Any, before: dict[str, Any], after: dict[str, Any]) -> list[dict[str, Any]]:
    """The questions whose top 5 gained a noise or tool line, or lost a valid answer, across a
    dream: what left (and what became of it: merged, dormant, or only ranked lower) and what came in."""
    out = []
    for text, was in before["tops"].items():
        now = after["tops"].get(text, [])
        more_noise = sum(lab in ("noise", "tool") for _, lab, _ in now) > sum(lab in ("noise", "tool") for _, lab, _ in was)
        lost = before["found"][text] and not after["found"].get(text, False)
        if not (more_noise or lost):
            continue
        kept, were = {i for i, _, _ in now}, {i for i, _, _ in was}
        gone = [i for i in were if i not in kept]
        state = {m.id: _state(m) for m in engine.recall(gone, touch=False)} if gone else {}
        out.append({"question": text, "lost_answer": lost,
                    "left": [f"[{lab}] {c} ({state.get(i, 'gone')})" for i, lab, c in was if i not in kept],
                    "came": [f"[{lab}] {c}" for i, lab, c in now if i not in were]})
    return out


def _state(memory: Any) -> str:
    """A memory a dream moved out of a top 5: what the dream did to it."""
    if memory.status.value != "active":
        return memory.status.value
    return "dormant" if memory.lifecycle.dormant else f"ranked lower (tier {memory.lifecycle.tier or 'entry'})"


def checkpoint(engine: Any, year: Year, t: datetime, mode: str, replay: Replay, done: int,
               max_questions: int | None) -> dict[str, Any]:
    questions = _sample(year, t, max_questions)
    row: dict[str, Any] = {"at": t.strftime("%Y-%m-%d"), "memorized": done,
                           "before": store_counts(engine, replay, t)}
    row["ask_before"] = ask(engine, questions, t, replay)
    step = lifecycle_step(engine, mode, t, [q.text for q in questions])
    row["step"] = step
    if mode != "none":
        row["after"] = store_counts(engine, replay, t)
        row["ask_after"] = ask(engine, questions, t, replay)
    return row


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _holds(counts: dict[str, Any]) -> str:
    h = counts["active_holds"]
    return f"{h['stale']}/{h['noise']}/{h['tool']}"


def row_line(row: dict[str, Any]) -> str:
    b, a = row["before"], row.get("after", row["before"])
    qb, qa = row["ask_before"], row.get("ask_after", row["ask_before"])
    step = row["step"]
    added = step.get("during", {}).get("added_max_ms")
    if "cycle_s" in step:
        idle = step.get("idle_flush", {})
        cyc = (f"cycle {step['cycle_s']:.2f} s, search max {step['during']['max_ms']:.0f} ms "
               f"(p50 {step['during']['p50_ms']:.0f}; alone max {step['alone']['max_ms']:.0f}"
               + (f"; longest wait added {added:.0f}" if added is not None else "")
               + (f"; store flushes {', '.join(f'{ms:.0f}' for ms in step['flush_ms'])} ms" if step.get("flush_ms") else "")
               + (f"; {step['written']} points written" if "written" in step else "")
               + (f"; idle flush before: {idle['points']} points, {idle['ms']:.0f} ms" if idle.get("points") else "")
               + ")")
    else:
        cyc = f"no lifecycle (search alone max {step['alone']['max_ms']:.0f} ms)"
    extra = " [dream: not available]" if step.get("dream") == "not available" else ""
    if "dream_s" in step:
        extra += f" [dream {step['dream_s']:.2f} s{', ' + step['dream_error'] if 'dream_error' in step else ''}]"
    if row.get("between"):
        extra += f" [{row['between']['runs']:.0f} runs between, {row['between']['seconds']:.0f} s]"
        cycles = row["between"].get("cycles") or []
        if cycles:
            moves = [("fell" if c[2] < c[1] else "rose" if c[2] > c[1] else "held") for c in cycles]
            extra += (" [noise@5 across each dream between: " + ", ".join(
                f"{_pct(c[1])}->{_pct(c[2])}" for c in cycles) + f"; {moves.count('fell')} fell, "
                      f"{moves.count('held')} held, {moves.count('rose')} rose]")
            if all(len(c) > 5 for c in cycles):
                extra += (" [answers in the top 5 across each: " + ", ".join(
                    f"{c[3]}->{c[4]}/{c[5]}" for c in cycles) + "]")
    if step.get("during", {}).get("errors"):
        extra += f" [{step['during']['errors']} searches failed: {step['during']['first_error']}]"
    return (f"{row['at']} mem {row['memorized']:>6} | store {b['store']}->{a['store']} "
            f"valid {b['valid']}->{a['valid']} active {b['active']}->{a['active']} "
            f"(of which stale/noise/tool {_holds(b)}->{_holds(a)}) | Q {qb['questions']} R@5 {_pct(qb['recall5'])}->"
            f"{_pct(qa['recall5'])} stale@5 {_pct(qb['stale5'])}->{_pct(qa['stale5'])} noise@5 "
            f"{_pct(qb['noise5'])}->{_pct(qa['noise5'])} | {cyc}{extra}")


def compare(without: dict[str, Any], with_: dict[str, Any]) -> str:
    """Two runs' JSON side by side per checkpoint: the store and active set without the lifecycle
    (a `--mode none` run) and with it (after each step of a sweep or dream run)."""
    head = ("checkpoint | store without / with | active without / with | R@5 without / with | "
            f"stale@5 without / with | noise@5 without / with ({without['mode']} vs {with_['mode']})")
    lines = [head]
    for a, b in zip(without["rows"][:-1], with_["rows"][:-1]):
        sa, sb = a.get("after", a["before"]), b.get("after", b["before"])
        qa, qb = a.get("ask_after", a["ask_before"]), b.get("ask_after", b["ask_before"])
        lines.append(f"{a['at']} | {sa['store']} / {sb['store']} | {sa['active']} / {sb['active']} | "
                     f"{_pct(qa['recall5'])} / {_pct(qb['recall5'])} | {_pct(qa['stale5'])} / {_pct(qb['stale5'])} | "
                     f"{_pct(qa['noise5'])} / {_pct(qb['noise5'])}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mode", choices=("none", "sweep", "dream"), default="sweep")
    ap.add_argument("--quick", action="store_true", help=f"{QUICK_N} memories, quarterly checkpoints (smoke run)")
    ap.add_argument("-n", type=int, default=20_000, help="memories in the year (default 20,000)")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--cache-dir", type=Path, default=CACHE)
    ap.add_argument("--max-questions", type=int, help="questions asked per checkpoint at most (150; 60 --quick)")
    ap.add_argument("--every", type=float, default=7.0, metavar="DAYS",
                    help="also run the lifecycle (dream and sweep, or sweep) every DAYS between checkpoints, as the "
                         "daemon would (it dreams daily by default); 0 = only at checkpoints (default 7)")
    ap.add_argument("--each-cycle", action="store_true",
                    help="also measure noise@5 and the answers in the top 5 before and after each lifecycle run "
                         "between checkpoints, on the next checkpoint's questions, and keep in --json what each "
                         "run moved (slower: two rounds of searches per run)")
    ap.add_argument("--json", type=Path, help="write every figure to this file")
    ap.add_argument("--misses", action="store_true", help="print the questions missed at the last checkpoint")
    ap.add_argument("--compare", type=Path, nargs=2, metavar=("NONE_JSON", "WITH_JSON"),
                    help="print two runs' --json files side by side (without / with the lifecycle) and exit")
    args = ap.parse_args(argv)
    if args.compare:
        try:
            runs = [json.loads(p.read_text()) for p in args.compare]
        except (OSError, ValueError) as exc:
            print(f"error: cannot read a --compare file: {exc}", file=sys.stderr)
            return 2
        print(compare(*runs))
        return 0
    n = QUICK_N if args.quick else args.n
    if args.max_questions is None:
        args.max_questions = 60 if args.quick else 150
    if n < 100:
        print("error: -n must be at least 100", file=sys.stderr)
        return 2
    year = generate(n, args.seed)
    checkpoints = year.checkpoints[2::3] if args.quick else year.checkpoints
    print(f"year v{GENERATOR_VERSION}: {len(year.items)} items {year.counts}, "
          f"{sum(q.at in checkpoints for q in year.questions)} questions "
          f"(at most {args.max_questions} asked per checkpoint), {len(year.recalls)} recalls; "
          f"mode {args.mode}", flush=True)
    t0 = time.perf_counter()
    rows = run(year, args.mode, checkpoints, args.cache_dir, args.max_questions, args.every, args.each_cycle)
    for row in rows[:-1]:
        print(row_line(row))
    if args.misses:
        last = rows[-2].get("ask_after", rows[-2]["ask_before"])
        for miss in last["misses"]:
            print(f"MISS {miss['question']!r} -> {miss['answer']!r} ({miss['why']}): " + " | ".join(miss["top3"]))
    print(f"write actions {rows[-1]['actions']}, embedding cache misses {rows[-1]['embed_misses']}, "
          f"{time.perf_counter() - t0:.0f} s in all")
    if args.json:
        args.json.write_text(json.dumps({"version": GENERATOR_VERSION, "n": n, "mode": args.mode, "every": args.every,
                                         "rows": rows},
                                        indent=1, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
