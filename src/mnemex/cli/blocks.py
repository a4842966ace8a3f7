"""The core memory blocks on the command line: `mnemex blocks` shows them, `mnemex block append|replace|
rewrite` edits one, as the block tools do. Blocks head every session's context in the `context` and
`self_editing` strategies; this is how a user keeps them right whatever the strategy.

Through a running daemon the block tools are called when the daemon serves them (`self_editing`);
otherwise the command works in-process (`--local`), since the store holds the blocks either way."""

from __future__ import annotations

import argparse
from typing import Any

from mnemex.cli.access import CLIENT, load, print_json, store_access
from mnemex.cli.parser import command, json_flag, local_flag
from mnemex.errors import DaemonError, InvalidInputError

LABEL_HELP = "the block: user, project, persona, or a label of your own"


def register(sub: Any) -> None:
    b = command(sub, "blocks", "show the core memory blocks (always in the agent's context) with their size and limit",
                "mnemex blocks", "mnemex blocks --json")
    json_flag(b)
    local_flag(b)
    b.set_defaults(func=cmd_blocks)

    e = command(sub, "block", "edit a core memory block: append a line, replace a passage, or rewrite it whole",
                'mnemex block append user "Prefers answers with the code first"',
                'mnemex block replace project "Python 3.11" "Python 3.12"',
                'mnemex block rewrite persona "Be brief; ask before large refactors."')
    ops = e.add_subparsers(dest="op", metavar="OP", required=True, parser_class=type(e),
                           help="append: add a line; replace: change one passage; rewrite: replace the whole text")
    for name, what, args in (("append", "add a line to the block", (("text", "the line to add"),)),
                             ("replace", "replace one passage of the block (it must occur exactly once)",
                              (("old", "the passage as it stands"), ("new", "what it becomes ('' removes it)"))),
                             ("rewrite", "replace the block's whole text", (("text", "the new text"),))):
        op = ops.add_parser(name, help=what, description=f"{what[:1].upper()}{what[1:]}.")
        op.add_argument("label", metavar="LABEL", help=LABEL_HELP)
        for arg, helptext in args:
            op.add_argument(arg, help=helptext)
        json_flag(op)
        local_flag(op)
        op.set_defaults(func=cmd_block)


def _call(acc: Any, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    try:
        return acc.call(tool, arguments)
    except DaemonError as exc:
        if f"unknown tool: {tool}" in str(exc).lower():  # the daemon's strategy does not serve it
            raise InvalidInputError("the running daemon serves the block tools only with retrieval.strategy = "
                                    "self_editing: stop it (`mnemex daemon stop`) and add --local") from None
        raise


def cmd_blocks(args: argparse.Namespace) -> int:
    with store_access(load(), local=args.local) as acc:
        if acc.local:
            blocks = [b.model_dump(mode="json") for b in acc.engine.blocks.list(acc.project)]
        else:
            blocks = _call(acc, "memory_blocks", {})["blocks"]
    if args.json:
        print_json(blocks)
        return 0
    for b in blocks:
        where = b["project"] or "global"
        print(f"[{b['label']}] {where}, {b['chars']}/{b['limit']} characters: {b['description']}")
        for line in (b["value"] or "(empty)").splitlines():
            print(f"    {line}")
    return 0


def cmd_block(args: argparse.Namespace) -> int:
    with store_access(load(), local=args.local) as acc:
        if acc.local:
            blocks = acc.engine.blocks
            block = (blocks.append(args.label, args.text, acc.project, CLIENT) if args.op == "append" else
                     blocks.replace(args.label, args.old, args.new, acc.project, CLIENT) if args.op == "replace" else
                     blocks.rewrite(args.label, args.text, acc.project, CLIENT)).model_dump(mode="json")
        else:
            arguments = ({"label": args.label, "old": args.old, "new": args.new} if args.op == "replace" else
                         {"label": args.label, ("text" if args.op == "append" else "value"): args.text})
            block = _call(acc, f"memory_block_{args.op}", arguments)["block"]
    if args.json:
        print_json(block)
    else:
        done = {"append": "appended to", "replace": "replaced in", "rewrite": "rewrote"}[args.op]
        print(f"{done} {block['label']}: {block['chars']}/{block['limit']} characters")
    return 0
