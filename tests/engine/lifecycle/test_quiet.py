"""Lifecycle runs step aside for a client's calls (`quiet.Foreground`, `quiet.background_run`)."""

from __future__ import annotations

import sys
import threading
import time

from mnemex.engine.lifecycle.quiet import (
    SWITCH_INTERVAL,
    Foreground,
    Yielding,
    background_run,
)
from mnemex.engine.lifecycle.slices import SLICE, sorted_in_slices
from mnemex.models import MemoryKind, NewMemory, utcnow
from tests.helpers import import_aged


def _held_call(foreground: Foreground) -> tuple[threading.Event, threading.Event, threading.Thread]:
    """A client's call in another thread, open until `release` is set; `inside` once it runs."""
    inside, release = threading.Event(), threading.Event()

    def serve() -> None:
        with foreground.call():
            inside.set()
            release.wait(10)

    thread = threading.Thread(target=serve)
    thread.start()
    assert inside.wait(5)
    return inside, release, thread


def test_a_checkpoint_passes_at_once_when_no_call_runs_and_waits_while_one_does():
    foreground = Foreground(most=10.0)
    started = time.perf_counter()
    foreground.checkpoint()
    assert time.perf_counter() - started < 0.5 and not foreground.busy()

    _, release, thread = _held_call(foreground)
    passed = threading.Event()
    waiter = threading.Thread(target=lambda: (foreground.checkpoint(), passed.set()))
    waiter.start()
    assert foreground.busy() and not passed.wait(0.3)  # held back while the call runs
    release.set()
    assert passed.wait(5)  # let through as soon as it ends, long before `most`
    thread.join()
    waiter.join()
    assert not foreground.busy()


def test_a_checkpoint_waits_at_most_its_bound_then_grants_a_slice_and_a_call_never_waits_for_a_call():
    foreground = Foreground(most=0.2, grant=1.5)
    _, release, thread = _held_call(foreground)
    try:
        started = time.perf_counter()
        foreground.checkpoint()  # background work is slowed by a stream of calls, not stopped
        waited = time.perf_counter() - started
        assert 0.15 <= waited < 5
        started = time.perf_counter()
        foreground.checkpoint()  # within the slice granted after a wait that ran out
        assert time.perf_counter() - started < 0.1
        time.sleep(1.6)
        started = time.perf_counter()
        foreground.checkpoint()  # the slice is over: it steps aside again
        assert time.perf_counter() - started >= 0.15
        with foreground.call():  # a second client call in this thread
            with foreground.call():  # nested: still one call
                assert not foreground.busy()
                started = time.perf_counter()
                foreground.checkpoint()
                assert time.perf_counter() - started < 0.1
    finally:
        release.set()
        thread.join()
    assert not foreground.busy()


def test_a_yielding_store_steps_aside_except_under_the_write_lock():
    foreground, lock = Foreground(most=10.0), threading.RLock()
    calls: list[str] = []

    class Store:
        size = 3

        def count(self) -> int:
            calls.append("count")
            return self.size

    store = Yielding(Store(), foreground, lock)
    assert store.size == 3  # attributes pass through
    _, release, thread = _held_call(foreground)
    try:
        with lock:  # a client's write may be waiting for this lock: never wait while holding it
            assert store.count() == 3
        done = threading.Event()
        reader = threading.Thread(target=lambda: (store.count(), done.set()))
        reader.start()
        assert not done.wait(0.3) and calls == ["count"]
    finally:
        release.set()
        thread.join()
    assert done.wait(5) and calls == ["count", "count"]
    reader.join()


def test_the_switch_interval_is_finer_during_a_run_and_restored_after():
    before = sys.getswitchinterval()
    with background_run():
        with background_run():
            assert sys.getswitchinterval() == min(SWITCH_INTERVAL, before)
        assert sys.getswitchinterval() == min(SWITCH_INTERVAL, before)  # the outer run still holds it
    assert sys.getswitchinterval() == before


def test_a_dream_waits_while_a_search_or_a_write_is_served_and_finishes_after(engine):
    """The real engine: while a client's call runs, the dream reads nothing; it goes on once the
    call ends, and a write made during the dream (which takes the write lock) is not held up."""
    for text in ("The staging database is reset every Sunday night",
                 "Deploys go through the release-train pipeline on Tuesdays"):
        import_aged(engine, text, project="/work/proj", kind=MemoryKind.FACT, days=20)
    engine.dreamer.foreground.most = 10.0
    scrolls: list[float] = []
    scroll = engine.store.scroll

    def counted(*args, **kwargs):
        scrolls.append(time.perf_counter())
        return scroll(*args, **kwargs)

    engine.store.scroll = counted
    try:
        _, release, thread = _held_call(engine.foreground)
        reports = []
        dreamer = threading.Thread(target=lambda: reports.append(engine.dream(now=utcnow())))
        dreamer.start()
        time.sleep(0.3)
        assert not scrolls and not reports  # the dream stepped aside before its first read
        outcome = engine.memorize(NewMemory(content="CI runs the suite on two cores", kind="fact"))
        assert outcome.id  # a write during the (waiting) dream goes through
        release.set()
        thread.join()
        dreamer.join(60)
    finally:
        del engine.store.scroll
    assert reports and reports[0].scanned >= 3 and scrolls


def test_release_empties_what_a_run_read_a_slice_at_a_time_stepping_aside_between():
    from mnemex.engine.lifecycle.quiet import release

    class Counting(Foreground):
        checks = 0

        def checkpoint(self) -> None:
            Counting.checks += 1

    listed = list(range(2000))
    by_tier = {"episodic": list(range(1500)), "semantic": list(range(10))}
    by_id = {i: object() for i in range(1100)}
    release(Counting(), listed, by_tier, by_id)
    assert listed == [] and by_tier == {} and by_id == {}
    assert Counting.checks >= 4 + 3 + 2  # 2,000 in slices of 512; 1,500 the same; 1,100 pops


def test_sorting_in_slices_gives_the_order_sorted_gives_ties_included():
    import random

    rnd = random.Random(7)
    items = [(rnd.randint(0, 40), i) for i in range(5 * SLICE + 17)]  # many ties on the key
    for reverse in (False, True):
        for first in (None, 1, 300, 10 * SLICE):
            assert sorted_in_slices(items, key=lambda t: t[0], reverse=reverse, first=first) == \
                sorted(items, key=lambda t: t[0], reverse=reverse)[:first]
    assert sorted_in_slices(iter(["b", "a", "c"])) == ["a", "b", "c"]
    assert sorted_in_slices([], key=len) == []


def test_paced_checks_every_pace_items_and_entity_sessions_steps_aside_in_both_passes():
    from mnemex.engine.lifecycle.keeper import entity_sessions
    from mnemex.engine.lifecycle.quiet import PACE_EVERY
    from mnemex.models import Memory

    class Counting(Foreground):
        def __init__(self) -> None:
            super().__init__()
            self.checks = 0

        def checkpoint(self) -> None:
            self.checks += 1

    fg = Counting()
    assert list(fg.paced(range(10 * PACE_EVERY))) == list(range(10 * PACE_EVERY))
    assert fg.checks == 10
    now = utcnow()
    memories = [Memory(id=f"m{i}", content=f"note {i} about billing-api", entities=["billing-api"],
                       created_at=now, recorded_at=now) for i in range(4 * PACE_EVERY)]
    fg.checks = 0
    paced_out = entity_sessions(memories, fg.paced)
    assert fg.checks == 8  # each of the two passes over the memories checks in
    assert paced_out == entity_sessions(memories)  # and finds the same counts as unpaced


def test_a_dream_steps_aside_inside_its_forgetting_rules(engine):
    """Each forgetting rule reads every memory in Python: the dream checks for a client's call
    within them, not only between store calls."""
    for i in range(3 * 64):
        import_aged(engine, f"Ran `make build-{i % 7}` -> exit 0 in the worker container", project="/work/proj",
                    kind=MemoryKind.TOOL_EVENT, days=40)
    checks: list[str] = []
    checkpoint = engine.dreamer.foreground.checkpoint

    def counted() -> None:
        caller = sys._getframe(1)  # a loop's pacing, not a store call or a batch of changes
        frame = caller
        while frame is not None and frame.f_code.co_name != "_forget":
            frame = frame.f_back
        if frame is not None and caller.f_code.co_name == "paced":
            checks.append(frame.f_code.co_name)
        checkpoint()

    engine.dreamer.foreground.checkpoint = counted
    try:
        engine.dream(now=utcnow())
    finally:
        del engine.dreamer.foreground.checkpoint
    assert len(checks) >= 4  # records, run groups, utility floor (and foresight) each check in
