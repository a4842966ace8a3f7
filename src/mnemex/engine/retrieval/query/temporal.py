"""Temporal expressions in a query → a time window relative to `now`.

"yesterday", "last week", "2 days ago", "in May 2023", "on 8 May, 2023", "2023-05-08",
"in April" (the latest April up to now), "late May", "early June 2023", "since March",
"before 2024" become a `TimeWindow` that the pipeline uses as a soft
boost (or, when configured, a filter) on `created_at`. "before/after <event>" with no
date yields an `anchor` phrase: the pipeline looks the event up and uses its time.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass, replace
from datetime import datetime, timedelta, timezone

MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
MONTHS.update({name.lower(): i for i, name in enumerate(calendar.month_abbr) if name})
MONTHS["sept"] = 9
_FULL_NAMES = frozenset(name.lower() for name in calendar.month_name if name)
_MONTH = r"(?P<month>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_UNITS = {"minute": timedelta(minutes=1), "hour": timedelta(hours=1), "day": timedelta(days=1),
          "week": timedelta(weeks=1), "month": timedelta(days=30), "year": timedelta(days=365)}
_NUMBER_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
                 "seven": 7, "eight": 8, "nine": 9, "ten": 10, "a couple of": 2, "a few": 3, "few": 3}


@dataclass(frozen=True, slots=True)
class TimeWindow:
    """[start, end) in UTC; either bound may be open. `anchor` is an event phrase to resolve."""

    start: datetime | None = None
    end: datetime | None = None
    anchor: str | None = None
    anchor_side: str | None = None  # "before" or "after" the anchor event
    text: str = ""                   # the expression that produced it
    # the words of the expression that would only mislead the search: a deictic expression
    # ("yesterday", "3 weeks ago") never appears in the memory it points to, nor does a part of
    # a month ("late" in "late May"); an absolute date may be written in the memory, so it stays
    noise: str = ""

    def contains(self, when: datetime, slack: timedelta = timedelta(0)) -> bool:
        if self.start is not None and when < self.start - slack:
            return False
        if self.end is not None and when >= self.end + slack:
            return False
        return True


def _utc(value: datetime) -> datetime:
    return value.replace(tzinfo=timezone.utc) if value.tzinfo is None else value.astimezone(timezone.utc)


def _day(value: datetime) -> datetime:
    return value.replace(hour=0, minute=0, second=0, microsecond=0)


def _month_span(year: int, month: int) -> tuple[datetime, datetime]:
    start = datetime(year, month, 1, tzinfo=timezone.utc)
    end = datetime(year + (month == 12), month % 12 + 1, 1, tzinfo=timezone.utc)
    return start, end


def _safe_date(year: int, month: int, day: int) -> datetime | None:
    try:
        return datetime(year, month, day, tzinfo=timezone.utc)
    except ValueError:
        return None


_ISO = re.compile(r"\b(?P<year>\d{4})-(?P<m>\d{1,2})-(?P<d>\d{1,2})\b")
_DAY_MONTH_YEAR = re.compile(rf"\b(?P<day>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH},?\s+(?P<year>\d{{4}})\b", re.I)
_MONTH_DAY_YEAR = re.compile(rf"\b{_MONTH}\s+(?P<day>\d{{1,2}})(?:st|nd|rd|th)?,?\s+(?P<year>\d{{4}})\b", re.I)
_PART = r"(?:(?P<part>early|mid|late|(?:the\s+)?(?:start|beginning|middle|end)\s+of)[\s-]+)?"
_MONTH_YEAR = re.compile(rf"\b{_PART}{_MONTH},?\s+(?P<year>\d{{4}})\b", re.I)
# a month without a year needs a preposition or a part word before it ("in April", "late May")
_MONTH_ALONE = re.compile(rf"\b(?P<cue>(?:in|during|since|before|after|until|by|from|through)\s+)?{_PART}{_MONTH}"
                         r"(?![\w@/]|\.\w)(?!\s*\d)", re.I)
_PART_WORD = re.compile(r"early|mid|late|start|beginning|middle|end", re.I)
_PART_DAYS = {"early": (1, 11), "start": (1, 11), "beginning": (1, 11), "mid": (11, 21), "middle": (11, 21),
              "late": (21, None), "end": (21, None)}
_YEAR = re.compile(r"\b(?:in|during|of|since|before|after|until)\s+(?P<year>(?:19|20)\d{2})\b", re.I)
_AGO = re.compile(r"\b(?P<n>\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten|a couple of|a few|few)\s+"
                  r"(?P<unit>minute|hour|day|week|month|year)s?\s+ago\b", re.I)
_LAST = re.compile(r"\b(?P<which>last|past|previous|this|current|next)\s+(?P<unit>week|month|year|weekend)\b", re.I)
_PAST_N = re.compile(r"\b(?:last|past)\s+(?P<n>\d+|two|three|four|five|six|seven|few|couple of)\s+"
                     r"(?P<unit>day|week|month|year)s\b", re.I)
_RELDAY = re.compile(r"\b(?P<word>today|tonight|yesterday|the day before yesterday|recently|lately)\b", re.I)
_BOUND = re.compile(r"\b(?P<side>before|after|since|until|prior to)\s+(?P<rest>[^?.,;!]+)", re.I)
_LEADING_ARTICLE = re.compile(r"^(?:the|a|an|my|our|we|i|you)\s+", re.I)


def _number(text: str) -> int:
    text = text.lower()
    return int(text) if text.isdigit() else _NUMBER_WORDS.get(text, 1)


def _month_window(year: int, month: int, part: str | None, text: str) -> TimeWindow:
    """The month, or its first/middle/last third for early/mid/late (start of, end of, ...)."""
    start, end = _month_span(year, month)
    if part:
        first, last = _PART_DAYS[_PART_WORD.search(part)[0].lower()]
        end = start + timedelta(days=last - 1) if last else end
        start = start + timedelta(days=first - 1)
    return TimeWindow(start, end, text=text, noise=part or "")


def _month_alone(text: str, now: datetime) -> tuple[TimeWindow | None, str]:
    """"in April", "late May", "since March": the latest such month (or part) that has begun by `now`.

    Month words are also verbs and names ("may", "march", "Jan", "June"): with a part word
    ("late May", "end of may") any spelling counts; with only a preposition, the full month name
    must be capitalised ("in April", not "in may" or "from Jan")."""
    for m in _MONTH_ALONE.finditer(text):
        word = m["month"]
        name = word.lower()
        if not m["part"]:
            if not m["cue"] or not word[0].isupper() or name not in _FULL_NAMES:
                continue
        month = MONTHS[name]
        window = _month_window(now.year, month, m["part"], m.group(0))
        if window.start is not None and window.start > now:
            window = _month_window(now.year - 1, month, m["part"], m.group(0))
        return window, m.group(0)
    return None, ""


def _absolute(text: str, now: datetime | None = None) -> tuple[TimeWindow | None, str]:
    """The first absolute date expression: (window, matched text). A month without a year
    ("in April") needs `now` to pick its year."""
    for rx in (_ISO, _DAY_MONTH_YEAR, _MONTH_DAY_YEAR):
        m = rx.search(text)
        if m:
            if rx is _ISO:
                day = _safe_date(int(m["year"]), int(m["m"]), int(m["d"]))
            else:
                day = _safe_date(int(m["year"]), MONTHS[m["month"].lower()], int(m["day"]))
            if day is not None:
                return TimeWindow(day, day + timedelta(days=1), text=m.group(0)), m.group(0)
    m = _MONTH_YEAR.search(text)
    if m:
        return _month_window(int(m["year"]), MONTHS[m["month"].lower().rstrip(".")], m["part"], m.group(0)), m.group(0)
    if now is not None:
        window, matched = _month_alone(text, now)
        if window is not None:
            return window, matched
    m = _YEAR.search(text)
    if m:
        year = int(m["year"])
        return (TimeWindow(datetime(year, 1, 1, tzinfo=timezone.utc), datetime(year + 1, 1, 1, tzinfo=timezone.utc),
                           text=m.group(0)), m.group(0))
    return None, ""


def _relative(text: str, now: datetime) -> TimeWindow | None:
    today = _day(now)
    m = _RELDAY.search(text)
    if m:
        word = m["word"].lower()
        if word in ("today", "tonight"):
            return TimeWindow(today, today + timedelta(days=1), text=m.group(0))
        if word == "yesterday":
            return TimeWindow(today - timedelta(days=1), today, text=m.group(0))
        if word == "the day before yesterday":
            return TimeWindow(today - timedelta(days=2), today - timedelta(days=1), text=m.group(0))
        return TimeWindow(now - timedelta(days=14), None, text=m.group(0))  # recently, lately
    m = _AGO.search(text)
    if m:
        span = _UNITS[m["unit"].lower()]
        center = now - _number(m["n"]) * span
        half = max(span / 2, timedelta(days=1)) if span >= timedelta(days=1) else span
        return TimeWindow(center - half, center + half, text=m.group(0))
    m = _PAST_N.search(text)
    if m:
        return TimeWindow(now - _number(m["n"]) * _UNITS[m["unit"].lower()], None, text=m.group(0))
    m = _LAST.search(text)
    if m:
        which, unit = m["which"].lower(), m["unit"].lower()
        if unit == "weekend":
            saturday = today - timedelta(days=(today.weekday() - 5) % 7 or 7)
            return TimeWindow(saturday, saturday + timedelta(days=2), text=m.group(0))
        if unit == "week":
            monday = today - timedelta(days=today.weekday())
            start = {"this": monday, "current": monday, "next": monday + timedelta(weeks=1)}.get(
                which, monday - timedelta(weeks=1))
            return TimeWindow(start, start + timedelta(weeks=1), text=m.group(0))
        if unit == "month":
            year, month = today.year, today.month
            if which in ("last", "past", "previous"):
                year, month = (year - 1, 12) if month == 1 else (year, month - 1)
            elif which == "next":
                year, month = (year + 1, 1) if month == 12 else (year, month + 1)
            start, end = _month_span(year, month)
            return TimeWindow(start, end, text=m.group(0))
        year = today.year + {"last": -1, "past": -1, "previous": -1, "next": 1}.get(which, 0)
        return TimeWindow(datetime(year, 1, 1, tzinfo=timezone.utc), datetime(year + 1, 1, 1, tzinfo=timezone.utc),
                          text=m.group(0))
    return None


def parse_time_window(query: str, now: datetime) -> TimeWindow | None:
    """The time the query is about, or None. "before X"/"after X" bound one side."""
    now = _utc(now)
    bound = _BOUND.search(query)
    if bound:
        side = "after" if bound["side"].lower() in ("after", "since") else "before"
        rest = bound["rest"].strip()
        window, _ = _absolute(bound.group(0), now)
        if window is None:
            window = _relative(rest, now)
            window = replace(window, noise=window.text) if window is not None else None
        if window is not None:
            noise = window.noise
            if side == "before":
                return TimeWindow(None, window.start or window.end, text=bound.group(0), noise=noise)
            return TimeWindow(window.end if bound["side"].lower() == "after" else window.start,
                              None, text=bound.group(0), noise=noise)
        anchor = _LEADING_ARTICLE.sub("", rest)
        if anchor and len(anchor.split()) <= 6:
            return TimeWindow(anchor=anchor, anchor_side=side, text=bound.group(0))
    window, _ = _absolute(query, now)
    if window is not None:
        return window
    window = _relative(query, now)
    return replace(window, noise=window.text) if window is not None else None


def strip_time_expression(query: str, window: TimeWindow | None) -> str:
    """The query without the misleading words of its time expression (`TimeWindow.noise`), so
    "yesterday" or the "late" of "late May" does not steer BM25 or the embedding. Only the
    expression itself is edited, once: "why was the deploy late in late May" keeps its first "late"."""
    if window is None or not window.noise or window.text not in query:
        return query
    cleaned = re.sub(rf"{re.escape(window.noise)}[\s-]*", " ", window.text, count=1)
    stripped = query.replace(window.text, cleaned, 1)
    return re.sub(r"\s+", " ", stripped).strip() or query
