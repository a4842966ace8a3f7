"""Foresight: until when a plan is worth remembering.

`plan_valid_until(text, now)` reads the time expressions of a plan ("tomorrow", "by Friday",
"next week", "in 3 days", "by 2026-03-01", "March 3") and returns the end of the latest one:
the moment after which the plan is stale. Days end at midnight in `now`'s time zone; weeks end
on Sunday night. A plan with no time expression gets `now + plan_default_days`.
"""

from __future__ import annotations

import calendar
import re
from datetime import date, datetime, time, timedelta

from mnemex.config.observer import DEFAULT_OBSERVER, ObserverConfig

_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
# Not calendar.month_name: that follows the process locale.
_MONTHS = {m: i for i, m in enumerate(("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov",
                                       "dec"), start=1)}
_UNIT_DAYS = {"minute": 1 / 1440, "hour": 1 / 24, "day": 1, "week": 7, "month": 30}

_TODAY = re.compile(r"\b(?:today|tonight|later today|this (?:morning|afternoon|evening)|eod|end of (?:the )?day)\b", re.I)
_TOMORROW = re.compile(r"\b(?:the day after )?tomorrow\b", re.I)
_WEEKDAY = re.compile(r"\b(next |this |on |by |before |until )?(monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b", re.I)
_WEEK = re.compile(r"\b(this|next) week(?:end)?\b|\b(?:eow|end of (?:the )?week)\b", re.I)
_MONTH_REL = re.compile(r"\b(this|next) month\b|\bend of (?:the )?month\b", re.I)
_SPRINT = re.compile(r"\b(?:next|this|end of (?:the )?) ?sprint\b", re.I)
_QUARTER = re.compile(r"\b(?:next|this) quarter\b|\bend of (?:the )?quarter\b", re.I)
_IN_N = re.compile(r"\bin (\d+) (minute|hour|day|week|month)s?\b", re.I)
_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_MONTH_DAY = re.compile(r"\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?\b"
                        r"|\b(\d{1,2})(?:st|nd|rd|th)?\s+(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b", re.I)


def plan_valid_until(text: str, now: datetime, config: ObserverConfig = DEFAULT_OBSERVER) -> datetime:
    """When the plan in `text` stops being current (see module docstring)."""
    found = _moments(text, now, config)
    return max(found) if found else now + timedelta(days=config.plan_default_days)


def _end_of(day: date, now: datetime) -> datetime:
    """Midnight after `day`, in the time zone of `now`."""
    return datetime.combine(day + timedelta(days=1), time(0), tzinfo=now.tzinfo)


def _moments(text: str, now: datetime, config: ObserverConfig) -> list[datetime]:
    today = now.date()
    out: list[datetime] = []
    if _TODAY.search(text):
        out.append(_end_of(today, now))
    for m in _TOMORROW.finditer(text):
        out.append(_end_of(today + timedelta(days=2 if m.group().lower().startswith("the day") else 1), now))
    for m in _WEEKDAY.finditer(text):
        ahead = (_DAYS.index(m.group(2).lower()) - today.weekday()) % 7
        if (m.group(1) or "").strip().lower() == "next" and ahead == 0:
            ahead = 7
        out.append(_end_of(today + timedelta(days=ahead), now))
    for m in _WEEK.finditer(text):
        sunday = today + timedelta(days=6 - today.weekday())
        out.append(_end_of(sunday + timedelta(days=7 if (m.group(1) or "").lower() == "next" else 0), now))
    for m in _MONTH_REL.finditer(text):
        year, month = today.year, today.month
        if (m.group(1) or "").lower() == "next":
            year, month = (year + 1, 1) if month == 12 else (year, month + 1)
        out.append(_end_of(date(year, month, calendar.monthrange(year, month)[1]), now))
    if _SPRINT.search(text):
        out.append(now + timedelta(days=config.sprint_days))
    if _QUARTER.search(text):
        out.append(now + timedelta(days=91))
    for m in _IN_N.finditer(text):
        out.append(now + timedelta(days=int(m.group(1)) * _UNIT_DAYS[m.group(2).lower()]))
    for m in _ISO.finditer(text):
        day = _safe_date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        if day:
            out.append(_end_of(day, now))
    for m in _MONTH_DAY.finditer(text):
        month = _MONTHS[(m.group(1) or m.group(4)).lower()[:3]]
        day_of_month = int(m.group(2) or m.group(3))
        day = _safe_date(today.year, month, day_of_month)
        if day and day < today:  # "March 3" said in April means next year's
            day = _safe_date(today.year + 1, month, day_of_month)
        if day:
            out.append(_end_of(day, now))
    return out


def _safe_date(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None
