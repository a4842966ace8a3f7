"""The `mnemex` command. A composition root: it alone reads the settings for its process.

One module a group of verbs: `service` (serve, init, token, daemon, viewer, doctor, hook), `memories`
(add, show, update, pin, unpin, forget), `browse` (search, list/recent, timeline, history,
related, link, stats), `transfer` (export, import, reindex, sweep). Every verb goes through a
tool call to the store's daemon, starting it when none runs, or works in-process with
`--local`; export, import, reindex and sweep work in-process alone, stopping a running daemon
first (`access.py`).
Heavy modules (pydantic, the MCP SDK, the engine, fastembed, tqdm) are imported inside the
commands that need them, so `mnemex serve` (the stdio relay) starts in milliseconds.
"""

from __future__ import annotations

import sys
from typing import Sequence

from mnemex import __version__
from mnemex.cli import blocks, browse, memories, service, transfer
from mnemex.cli.parser import Parser
from mnemex.entry import run_hook
from mnemex.errors import MnemexError
from mnemex.private import private_umask

__all__ = ["build_parser", "main"]


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["hook"] and not {"-h", "--help"} & set(argv):
        return run_hook()  # the console script takes this path before importing this module
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    private_umask()  # whatever this command creates (store, journal, run files) is owner-only
    try:
        return int(args.func(args) or 0)
    except MnemexError as exc:
        print(f"mnemex: {_one_line(str(exc))}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:
        from mnemex.sqlite_files import is_damage

        if is_damage(exc):  # a page found damaged after the file opened
            print(f"mnemex: a data file is damaged ({exc}): run `mnemex doctor` (with the daemon stopped), which "
                  "sets it aside and starts a fresh one; the memories in the store are not affected", file=sys.stderr)
            return 1
        pydantic = sys.modules.get("pydantic")
        if pydantic is None or not isinstance(exc, pydantic.ValidationError):
            raise
        first = exc.errors()[0]  # a value the parser let through: name it, no validation dump
        where = ".".join(str(x) for x in first["loc"])
        print(f"mnemex: {where + ': ' if where else ''}{first['msg']}", file=sys.stderr)
        return 1


def _one_line(message: str) -> str:
    """An error as one line: a multi-line message (a tool's validation report) keeps its first line."""
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    return lines[0] if lines else message


def build_parser() -> Parser:
    p = Parser(prog="mnemex", description="Long-term memory MCP server for coding agents.",
               epilog="`mnemex COMMAND --help` describes a command, its options and examples. An ID is a memory "
                      "id or a unique prefix of one (6+ characters).")
    p.add_argument("--version", action="version", version=f"mnemex {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for group in (service, memories, blocks, browse, transfer):
        group.register(sub)
    return p
