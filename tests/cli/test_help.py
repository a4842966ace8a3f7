"""The CLI's help and argument errors, read from the parser itself (no store is opened)."""

from __future__ import annotations

import argparse

import pytest

from mnemex.cli import build_parser, main
from mnemex.cli.parser import KINDS, MAX_LIST, RELATIONS, SCOPES
from mnemex.models import MemoryKind, Scope


def commands() -> dict[str, argparse.ArgumentParser]:
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return {name: p for name, p in sub.choices.items()}


def test_every_command_has_a_summary_examples_and_described_options():
    missing = []
    for name, parser in commands().items():
        if not (parser.description and parser.epilog and "examples:" in parser.epilog and "mnemex " in parser.epilog):
            missing.append(f"{name}: no examples")
        for action in parser._actions:
            if not action.help or action.help == argparse.SUPPRESS:
                missing.append(f"{name} {'/'.join(action.option_strings) or action.dest}: no help")
            elif action.choices and action.metavar is not None:  # a metavar hides argparse's {a,b} list
                if not all(str(c) in action.help for c in action.choices):
                    missing.append(f"{name} {action.dest}: allowed values not in its help")
    assert not missing, missing


def test_the_verbs_of_every_tool_exist():
    assert {"add", "search", "show", "list", "recent", "update", "pin", "unpin", "forget", "link", "related",
            "timeline", "history", "stats", "import", "export", "reindex", "rate", "blocks", "block",
            "dream"} <= set(commands())


def test_the_parser_lists_are_the_models():
    from mnemex.engine.explore import MAX_LISTED

    assert KINDS == [k.value for k in MemoryKind] and SCOPES == [s.value for s in Scope]
    assert MAX_LIST == MAX_LISTED
    from mnemex.tools.graph_tools import RelationName

    assert RELATIONS == list(RelationName.__args__)


@pytest.mark.parametrize("argv, needle", [
    (["add", "x", "--kind", "gossip"], "invalid choice: 'gossip'"),
    (["search", "q", "--limit", "0"], "0 is out of range: give 1 to 50"),
    (["list", "--limit", "many"], "'many' is not a whole number"),
    (["list", "--since", "last tuesday"], "give a date (2026-05-01)"),
    (["add", "x", "--importance", "3"], "give 0 to 1"),
    (["link", "a1b2c3", "befriends", "d4e5f6"], "invalid choice: 'befriends'"),
])
def test_bad_values_are_one_line_that_says_what_to_change(capsys, argv, needle):
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and needle in err, err
    assert len(err.strip().splitlines()) == 1 and f"mnemex {argv[0]}" in err and "--help" in err
    assert "pydantic" not in err and "http" not in err


def test_building_the_parser_imports_nothing_heavy():
    """`mnemex serve` goes through this parser: it must stay a millisecond relay."""
    import subprocess
    import sys

    code = ("import sys; from mnemex.cli import build_parser; build_parser(); "
            "print([m for m in ('pydantic', 'mcp', 'httpx', 'tqdm', 'mnemex.models', 'mnemex.config') "
            "if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
