"""Commands that write or read single memories: add, show, update, pin, unpin, rate, forget.

Every ID may be a full id or a unique prefix of one (6+ characters; the lists print 8)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from mnemex.cli.access import CLIENT, load, print_json, short, store_access
from mnemex.cli.parser import (
    KINDS,
    SCOPES,
    command,
    fraction,
    json_flag,
    local_flag,
    tag_list,
)
from mnemex.errors import InvalidInputError

ID_HELP = "a memory id, or a unique prefix of one (6+ characters; lists print 8)"


def register(sub: Any) -> None:
    a = command(sub, "add", "remember something (through the write path: redaction, dedupe, supersede)",
                'mnemex add "We deploy with ArgoCD from the main branch" --kind decision --tags deploy,ci',
                'mnemex add "The user prefers answers with the code first" --scope global --pinned',
                'mnemex add "The API listens on port 9090" --supersedes 3f2a9c1e')
    a.add_argument("content", help="the fact, decision, convention or preference, self-contained")
    a.add_argument("--kind", choices=KINDS, default=None, metavar="KIND",
                   help=f"one of: {', '.join(KINDS)} (default: classified from the text)")
    a.add_argument("--scope", default="project", choices=SCOPES,
                   help="project (default; this git repository), global, session or agent")
    a.add_argument("--tags", type=tag_list, default=[], metavar="A,B", help="comma-separated labels")
    a.add_argument("--importance", type=fraction, default=None, metavar="0..1",
                   help="how much it matters, 0 to 1 (default: estimated)")
    a.add_argument("--pinned", action="store_true", help="never forgotten, shown first in context")
    a.add_argument("--immutable", action="store_true", help="never edited, merged or superseded")
    a.add_argument("--supersedes", action="append", default=[], metavar="ID",
                   help="a memory this statement replaces (repeatable): " + ID_HELP)
    json_flag(a)
    local_flag(a)
    a.set_defaults(func=cmd_add)

    sh = command(sub, "show", "full entries of memories (ids from search or list)",
                 "mnemex show 3f2a9c1e", "mnemex show 3f2a9c1e 77b01d4a --json")
    sh.add_argument("ids", nargs="+", metavar="ID", help=ID_HELP)
    json_flag(sh)
    local_flag(sh)
    sh.set_defaults(func=cmd_show)

    up = command(sub, "update", "correct a memory in place (the old text stays in its history)",
                 'mnemex update 3f2a9c1e --content "The API listens on port 9090"',
                 "mnemex update 3f2a9c1e --kind decision --tags api,ports --importance 0.9")
    up.add_argument("id", metavar="ID", help=ID_HELP)
    up.add_argument("--content", default=None, help="the new text")
    up.add_argument("--kind", choices=KINDS, default=None, metavar="KIND", help=f"one of: {', '.join(KINDS)}")
    up.add_argument("--tags", type=tag_list, default=None, metavar="A,B",
                    help="replace the tags (comma-separated; '' clears them)")
    up.add_argument("--importance", type=fraction, default=None, metavar="0..1", help="how much it matters, 0 to 1")
    json_flag(up)
    local_flag(up)
    up.set_defaults(func=cmd_update, pinned=None)

    for name, pinned, what in (("pin", True, "pin a memory: never forgotten, shown first in context"),
                               ("unpin", False, "unpin a memory (it can then be forgotten or superseded)")):
        p = command(sub, name, what, f"mnemex {name} 3f2a9c1e")
        p.add_argument("id", metavar="ID", help=ID_HELP)
        json_flag(p)
        local_flag(p)
        p.set_defaults(func=cmd_update, pinned=pinned, content=None, kind=None, tags=None, importance=None)

    r = command(sub, "rate", "say a memory helped, misled you or is outdated (moves its utility; outdated also invalidates it)",
                "mnemex rate 3f2a9c1e helped", "mnemex rate 3f2a9c1e outdated   # no longer holds: hidden, kept in its history")
    r.add_argument("id", metavar="ID", help=ID_HELP)
    r.add_argument("verdict", choices=("helped", "misled", "outdated"),
                   help="helped: right and useful; misled: wrong or misleading; outdated: true once, no longer")
    json_flag(r)
    local_flag(r)
    r.set_defaults(func=cmd_rate)

    f = command(sub, "forget", "invalidate a memory (hidden from search, kept in its history); --purge erases it",
                'mnemex forget 3f2a9c1e --reason "we moved to GitHub Actions"',
                "mnemex forget 3f2a9c1e --purge --yes   # a leaked secret: removed everywhere")
    f.add_argument("id", metavar="ID", help=ID_HELP)
    f.add_argument("--reason", default="", help="why it no longer holds (kept in the history)")
    f.add_argument("--purge", action="store_true",
                   help="remove it and its content from the store, the journal and the word list; irreversible")
    f.add_argument("--yes", "-y", action="store_true", help="purge without asking (needed when not on a terminal)")
    json_flag(f)
    local_flag(f)
    f.set_defaults(func=cmd_forget)


def cmd_add(args: argparse.Namespace) -> int:
    with store_access(load(), local=args.local) as acc:
        if acc.local:
            from mnemex.models import NewMemory, Provenance

            replaced = tuple(acc.engine.get(i).id for i in args.supersedes)
            out = acc.engine.memorize(NewMemory(
                content=args.content, kind=args.kind, scope=args.scope, tags=tuple(args.tags),
                importance=args.importance, pinned=args.pinned, immutable=args.immutable, supersedes=replaced,
                provenance=Provenance(source="cli", client=CLIENT),
            )).model_dump(mode="json")
        else:
            arguments: dict[str, Any] = {"content": args.content, "scope": args.scope, "tags": args.tags,
                                         "pinned": args.pinned, "immutable": args.immutable,
                                         "supersedes": args.supersedes}
            if args.kind:
                arguments["kind"] = args.kind
            if args.importance is not None:
                arguments["importance"] = args.importance
            out = acc.call("memorize", arguments)
    if args.json:
        print_json(out)
    else:
        print(outcome_lines(out))
    return 0


def outcome_lines(out: dict[str, Any]) -> str:
    """A write's outcome as printed: what was done with each claim, then what it may replace."""
    from mnemex import render  # lazy: the parser must not load the models
    from mnemex.models import ReplaceCandidate

    def one(o: dict[str, Any]) -> str:
        return f"{o['action']} {o.get('id') or ''} {o.get('reason') or ''}".rstrip()

    parts = [out, *out.get("also", [])]
    lines = [one(out), *(f"also: {one(o)}" for o in parts[1:])]
    candidates = [ReplaceCandidate.model_validate(c) for o in parts for c in o.get("candidates", [])]
    return "\n".join(lines + render.replace_lines(candidates, "it may replace (if it does, add it again with --supersedes ID):"))


def cmd_show(args: argparse.Namespace) -> int:
    with store_access(load(), local=args.local) as acc:
        if acc.local:
            memories = [m.model_dump(mode="json") for m in acc.engine.recall(args.ids, client=CLIENT)]
        else:
            memories = acc.call("recall_memory", {"ids": args.ids})["memories"]
    if args.json:
        print_json(memories)
        return 0
    for m in memories:
        state = m["status"] + (f", valid until {m['valid_until']}" if m.get("valid_until") else "")
        pinned = ", pinned" if m.get("pinned") else ""
        print(f"{m['id']}  [{m['kind']}, {m['scope']}, {state}{pinned}]  created {m['created_at']}")
        if m.get("tags"):
            print(f"  tags: {', '.join(m['tags'])}")
        print("  " + m["content"].replace("\n", "\n  "))
    return 0


def cmd_update(args: argparse.Namespace) -> int:
    fields = {"content": args.content, "kind": args.kind, "tags": args.tags, "importance": args.importance,
              "pinned": args.pinned}
    fields = {k: v for k, v in fields.items() if v is not None}
    if not fields:
        raise InvalidInputError("nothing to change: give --content, --kind, --tags or --importance")
    with store_access(load(), local=args.local) as acc:
        if acc.local:
            from mnemex.models import MemoryChanges

            changes = MemoryChanges(**{k: tuple(v) if k == "tags" else v for k, v in fields.items()})
            memory = acc.engine.update(args.id, changes, actor="user", client=CLIENT).model_dump(mode="json")
        else:
            memory = acc.call("update_memory", {"id": args.id, **fields})["memory"]
    if args.json:
        print_json(memory)
        return 0
    verb = {True: "pinned", False: "unpinned"}.get(args.pinned, "updated") if set(fields) == {"pinned"} else "updated"
    print(f"{verb} {short(memory['id'])}  [{memory['kind']}] {' '.join(memory['content'].split())[:120]}")
    return 0


def cmd_rate(args: argparse.Namespace) -> int:
    with store_access(load(), local=args.local) as acc:
        if acc.local:
            from mnemex.views import RateResult

            memory = acc.engine.rate(args.id, helped=args.verdict == "helped", actor="user", client=CLIENT)
            if args.verdict == "outdated":
                memory = acc.engine.forget(memory.id, reason="rated outdated", actor="user", client=CLIENT)
            out = RateResult.of(memory, args.verdict).model_dump(mode="json")
        else:
            out = acc.call("rate_memory", {"id": args.id, "verdict": args.verdict})
    if args.json:
        print_json(out)
        return 0
    gone = "; invalidated, kept in its history" if args.verdict == "outdated" else ""
    print(f"rated {short(out['id'])} {args.verdict}: utility {out['utility']:.2f} "
          f"({out['helped']} helped, {out['misled']} misled){gone}")
    return 0


def _confirm_purge(args: argparse.Namespace) -> None:
    if args.yes:
        return
    if not sys.stdin.isatty():
        raise InvalidInputError("--purge erases the memory everywhere and cannot be undone: add --yes to confirm")
    answer = input(f"Purge {args.id} from the store, the journal and the word list? This cannot be undone [y/N] ")
    if answer.strip().lower() not in ("y", "yes"):
        raise InvalidInputError("purge cancelled; nothing changed")


def cmd_forget(args: argparse.Namespace) -> int:
    if args.purge:
        _confirm_purge(args)
    with store_access(load(), local=args.local) as acc:
        if acc.local:
            from mnemex.views import ForgetResult

            canonical = acc.engine.get(args.id).id  # before a purge removes what a prefix finds
            after = acc.engine.forget(args.id, purge=args.purge, reason=args.reason, actor="user", client=CLIENT)
            out = (ForgetResult(id=canonical, action="purged") if after is None else
                   ForgetResult(id=after.id, action="invalidated", valid_until=after.valid_until)).model_dump(mode="json")
        else:
            out = acc.call("forget", {"id": args.id, "reason": args.reason, "purge": args.purge})
    if args.json:
        print_json(out)
    elif out["action"] == "purged":
        print(f"purged {out['id']}: removed from the store, the journal and the word list")
    else:
        print(f"forgot {out['id']}: hidden from search, kept in its history (`mnemex history {short(out['id'])}`)")
    return 0
