"""Foresight: until when a plan holds."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from mnemex.config.observer import DEFAULT_OBSERVER
from mnemex.engine.write.observe import observe
from mnemex.engine.write.observe.foresight import plan_valid_until
from mnemex.models import MemoryKind as K

NOW = datetime(2026, 3, 4, 10, 0, tzinfo=timezone.utc)  # a Wednesday


def _midnight(y: int, m: int, d: int) -> datetime:
    return datetime(y, m, d, tzinfo=timezone.utc)


# --------------------------------------------------------------------- foresight
FORESIGHT_CASES = [
    ("I will refactor the auth module tomorrow.", _midnight(2026, 3, 6)),
    ("I'm going to fix the flaky test by Friday.", _midnight(2026, 3, 7)),
    ("We plan to ship it next Wednesday.", _midnight(2026, 3, 12)),
    ("We'll cut the release next week.", _midnight(2026, 3, 16)),
    ("We plan to migrate to Postgres 17 next month.", _midnight(2026, 5, 1)),
    ("I will deploy it by 2026-03-20.", _midnight(2026, 3, 21)),
    ("We are going to rotate the keys in 3 days.", NOW + timedelta(days=3)),
    ("I plan to look at the cache later.", NOW + timedelta(days=7)),  # no date: the default week
    ("We intend to archive the repo on March 3.", _midnight(2027, 3, 4)),  # already past this year
    ("We will demo it next sprint.", NOW + timedelta(days=14)),
]


@pytest.mark.parametrize(("text", "until"), FORESIGHT_CASES, ids=[t[:30] for t, _ in FORESIGHT_CASES])
def test_foresight(text, until):
    obs = observe(text, now=NOW)
    assert obs.kind == K.PLAN and obs.valid_until == until


def test_only_plans_get_valid_until_and_atoms_get_their_own():
    assert observe("The cert expired yesterday.", now=NOW).valid_until is None
    obs = observe("I will deploy it by 2026-03-20 and we'll demo next week.", now=NOW)
    assert [(a.text, a.valid_until) for a in obs.atoms] == [
        ("User will deploy it by 2026-03-20.", _midnight(2026, 3, 21)),
        ("The team will demo next week.", _midnight(2026, 3, 16))]
    assert obs.valid_until == _midnight(2026, 3, 21)  # the later of the two
    week = DEFAULT_OBSERVER.model_copy(update={"plan_default_days": 3})
    assert plan_valid_until("plan to do it", NOW, week) == NOW + timedelta(days=3)


def test_foresight_follows_the_time_zone_of_now():
    tz = timezone(timedelta(hours=-5))
    assert plan_valid_until("tomorrow", datetime(2026, 3, 4, 23, 0, tzinfo=tz)) == datetime(2026, 3, 6, tzinfo=tz)
