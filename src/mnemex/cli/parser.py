"""argparse as the CLI uses it: one-line errors that say what to change, typed values checked
before anything opens the store, and examples under each command's help."""

from __future__ import annotations

import argparse
import re
from datetime import datetime, timedelta, timezone
from typing import Any, Callable

#: The values of models.MemoryKind and models.Scope (a test keeps them equal): written out so that
#: building the parser imports no pydantic, and `mnemex serve` starts in milliseconds.
KINDS = ["fact", "decision", "preference", "convention", "correction", "procedure", "episode", "tool_event",
         "entity", "plan", "note"]
SCOPES = ["project", "global", "session", "agent"]
RELATIONS = ["supersedes", "contradicts", "causes", "elaborates", "same_entity", "related_to"]
MAX_LIST = 200  # engine.explore.MAX_LISTED (a test keeps them equal)


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line naming the command and what to change."""

    def __init__(self, *args: Any, **kwargs: Any):
        kwargs.setdefault("formatter_class", argparse.RawDescriptionHelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: {message} (see `{self.prog} --help`)\n")


def command(sub: Any, name: str, summary: str, *examples: str, aliases: tuple[str, ...] = (),
            details: str = "") -> Parser:
    """A subcommand with its one-line summary and an `examples:` block in its --help."""
    shown = "\n".join(f"  {e}" for e in examples)
    return sub.add_parser(name, help=summary, aliases=list(aliases),
                          description=f"{summary[:1].upper()}{summary[1:]}." + (f" {details}." if details else ""),
                          epilog=f"examples:\n{shown}" if examples else None)


def json_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print the result as JSON (for scripts)")


def local_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--local", action="store_true",
                   help="work in this process (loads the model here) instead of starting the store's daemon when "
                        "none runs; also MNEMEX_LOCAL=1. A running daemon is used either way")


def int_between(lo: int, hi: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number: give {lo} to {hi}") from None
        if not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"{value} is out of range: give {lo} to {hi}")
        return value
    return parse


def fraction(text: str) -> float:
    """A number from 0 to 1 (importance)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number: give 0 to 1, e.g. 0.8") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"{value} is out of range: give 0 to 1, e.g. 0.8")
    return value


_AGO = re.compile(r"^(\d+)\s*([mhdw])$")
_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def moment(text: str) -> datetime:
    """A time: ISO date or date-time (UTC unless it says), or an age like 30m, 12h, 3d, 2w."""
    ago = _AGO.match(text.strip().lower())
    if ago:
        return datetime.now(timezone.utc) - timedelta(**{_UNITS[ago.group(2)]: int(ago.group(1))})
    try:
        value = datetime.fromisoformat(text.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is no time: give a date (2026-05-01), a date-time (2026-05-01T14:00) or an age (3d, 12h)"
        ) from None
    return value if value.tzinfo else value.replace(tzinfo=timezone.utc)


def tag_list(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()]
