"""Long commands: export, import, reindex, recover, sweep (these need the store to themselves) and dream
(in-process, or through the daemon when it runs). Each shows a progress bar on a terminal and
ends with one summary line (`--json`: a JSON object on stdout)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from mnemex.cli.access import load, print_json, say, store_access
from mnemex.cli.parser import SCOPES, command, int_between, json_flag
from mnemex.cli.progress import progress

FORMATS = ("memory-jsonl", "markdown", "rules", "mnemex")


def register(sub: Any) -> None:
    e = command(sub, "export", "write every memory (all validity states) as JSONL",
                "mnemex export memories.jsonl", "mnemex export > memories.jsonl")
    e.add_argument("file", nargs="?", default="-", help="where to write (default: standard output)")
    json_flag(e)
    e.set_defaults(func=cmd_export)

    i = command(sub, "import", "bring memories in from mnemex JSONL, the MCP memory server, notes or rule files",
                "mnemex import memories.jsonl                    # an export: restored exactly",
                "mnemex import ~/.local/share/memory.jsonl        # the official MCP memory server",
                "mnemex import ~/notes/basic-memory --from markdown",
                "mnemex import .                                  # CLAUDE.md, AGENTS.md, .cursor/rules",
                "mnemex import ~/.claude/CLAUDE.md --scope global",
                details="Each item goes through the write path (redaction, dedupe, supersede); importing the "
                        "same source again adds nothing")
    i.add_argument("path", metavar="PATH", help="a file or folder")
    i.add_argument("--from", dest="fmt", choices=FORMATS, default=None, metavar="FORMAT",
                   help="memory-jsonl (MCP memory server), markdown (basic-memory / Obsidian folder), rules "
                        "(CLAUDE.md, AGENTS.md, .cursor/rules), mnemex (JSONL; rows without id are filled in); "
                        "default: detected from PATH")
    i.add_argument("--scope", choices=SCOPES, default="project",
                   help="scope of the new memories: project (default; this git repository), global, session, agent")
    i.add_argument("--dry-run", action="store_true", help="read and check PATH, count the items, write nothing")
    json_flag(i)
    i.set_defaults(func=cmd_import)

    r = command(sub, "reindex", "rebuild the search vectors of every memory with the current encoders "
                "(and rewrite its stored payload in the current layout, and a store of an older format "
                "in the current one)",
                "mnemex reindex", "mnemex reindex --dense")
    r.add_argument("--dense", action="store_true", help="also re-embed with the dense model (slower)")
    json_flag(r)
    r.set_defaults(func=cmd_reindex)

    rc = command(sub, "recover", "rebuild a damaged store from the journal: the store is set aside (never deleted) "
                 "and every memory the journal holds is stored and embedded again",
                 "mnemex recover --dry-run", "mnemex recover",
                 details="For a store that fails to read or lost memories (`mnemex doctor` says when). What is "
                         "lost: reads recorded only in the store since a memory's last write")
    rc.add_argument("--dry-run", action="store_true", help="count what the journal holds, change nothing")
    json_flag(rc)
    rc.set_defaults(func=cmd_recover)

    sw = command(sub, "sweep", "move memories between lifecycle tiers now (promote; demote to dormant)",
                 "mnemex sweep", "mnemex sweep --max-moves 100 --json",
                 details="The daemon sweeps by itself when idle, every lifecycle.sweep_every_hours")
    sw.add_argument("--max-moves", type=int_between(1, 100_000), default=None, metavar="N",
                    help="move at most N memories (default lifecycle.sweep_max_moves)")
    json_flag(sw)
    sw.set_defaults(func=cmd_sweep)

    dr = command(sub, "dream", "run the dream cycle now: consolidate near-duplicates, rehearse, send stale memories "
                               "dormant (never deleted)",
                 "mnemex dream", "mnemex dream --limit 100 --json",
                 details="The daemon dreams by itself when idle, every lifecycle.dream.every_hours")
    dr.add_argument("--limit", type=int_between(1, 100_000), default=None, metavar="N",
                    help="change at most N memories (default lifecycle.dream.max_changes)")
    json_flag(dr)
    dr.set_defaults(func=cmd_dream)


def _report(args: argparse.Namespace, text: str, data: dict[str, Any]) -> None:
    if args.json:
        print_json(data)
    else:
        say(text)


def cmd_export(args: argparse.Namespace) -> int:
    to_stdout = args.file == "-"
    n = 0
    with store_access(load(), require_local=True) as acc:
        total = acc.engine.upkeep.stats()["memories_total"]
        out = sys.stdout if to_stdout else open(args.file, "w", encoding="utf-8")
        try:
            with progress("exporting", total=total) as bar:
                for memory in acc.engine.export():
                    out.write(json.dumps(memory.model_dump(mode="json"), ensure_ascii=False) + "\n")
                    n += 1
                    bar.advance()
        finally:
            if not to_stdout:
                out.close()
    if args.json and to_stdout:
        say(json.dumps({"exported": n}))  # stdout holds the memories
    else:
        _report(args, f"exported {n} memories", {"exported": n, "file": args.file})
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from mnemex import importers
    from mnemex.importers.driver import ImportReport, run_import
    from mnemex.importers.items import Restore

    path = Path(args.path).expanduser()
    fmt = args.fmt or importers.detect(path)
    items = importers.parse(path, fmt, scope=args.scope)
    if args.dry_run:
        restores = sum(isinstance(i, Restore) for i in items)
        _report(args, f"{path} ({fmt}): {len(items)} items, nothing written (dry run)",
                {"format": fmt, "items": len(items), "restore": restores, "write": len(items) - restores})
        return 0
    with store_access(load(), require_local=True) as acc:
        with progress(f"importing {fmt}", total=len(items), unit="items") as bar:
            report: ImportReport = run_import(acc.engine, items, progress=bar.advance)
    _report(args, f"imported {path} ({fmt}): {report.summary()}", {"format": fmt, **report.as_dict()})
    return 0


def cmd_reindex(args: argparse.Namespace) -> int:
    with store_access(load(), require_local=True) as acc:
        with progress("reindexing") as bar:
            n = acc.engine.upkeep.reindex(dense=args.dense, progress=bar.to)
        rebuilt = acc.engine.upkeep.rebuild_outdated()
    what = "BM25 and embeddings" if args.dense else "BM25"
    rebuilt_note = "; the store was rebuilt in the current format" if rebuilt else ""
    _report(args, f"reindexed {n} memories ({what}){rebuilt_note}",
            {"reindexed": n, "dense": args.dense, "rebuilt": rebuilt})
    return 0


def cmd_recover(args: argparse.Namespace) -> int:
    from mnemex.cli.access import exclusive_lock
    from mnemex.engine.recovery import rebuild_from_journal
    from mnemex.server.runfiles import RunFiles

    settings = load()
    with exclusive_lock(settings, RunFiles.for_settings(settings)):
        if args.dry_run:
            done = rebuild_from_journal(settings, dry_run=True)
            _report(args, f"the journal holds {done.restored} memories to rebuild the store from; nothing changed",
                    {"memories": done.restored, "dry_run": True})
            return 0
        with progress("rebuilding from the journal", unit="memories") as bar:
            done = rebuild_from_journal(settings, progress=bar.to)
    notes = [f"the old store is kept as {done.set_aside}" if done.set_aside else "there was no store",
             *([f"{done.unreadable} journal rows were no memory and were skipped"] if done.unreadable else []),
             *(["audit.level is off: states changed since a memory's last content version were not "
                "journaled"] if done.audit_off else [])]
    _report(args, f"rebuilt the store with {done.restored} memories from the journal ({'; '.join(notes)})",
            {"restored": done.restored, "unreadable": done.unreadable,
             "set_aside": str(done.set_aside) if done.set_aside else None})
    return 0


def cmd_sweep(args: argparse.Namespace) -> int:
    import dataclasses

    with store_access(load(), require_local=True) as acc:
        report = acc.engine.sweep(max_moves=args.max_moves)
    moves = ", ".join(f"{k} {n}" for k, n in report.moves.items()) or "none"
    tiers = ", ".join(f"{k} {n}" for k, n in report.tiers.items())
    deferred = f", {report.deferred} left for the next sweep" if report.deferred else ""
    _report(args, f"swept {report.scanned} memories: {report.promoted} promoted, {report.demoted} demoted{deferred} "
                  f"(moves: {moves}); tiers: {tiers}", dataclasses.asdict(report))
    return 0


def cmd_dream(args: argparse.Namespace) -> int:
    with store_access(load()) as acc:
        if acc.local:
            from mnemex.engine.lifecycle.dream import STEPS
            from mnemex.views import DreamResult

            with progress("dreaming", total=len(STEPS), unit="steps") as bar:
                report = acc.engine.dream(limit=args.limit, progress=lambda step, done, total: bar.to(done, total))
            data = DreamResult.of(report).model_dump(mode="json")
        else:
            data = acc.call("dream", {"limit": args.limit} if args.limit else {})
    forgotten = ", ".join(f"{k} {v}" for k, v in data["forgotten"].items() if v) or "none"
    deferred = f", {data['deferred']} left for the next dream" if data["deferred"] else ""
    _report(args, f"dreamt over {data['scanned']} memories in {data['elapsed_seconds']:.1f} s: {data['themes']} themes "
                  f"merged {data['merged']}, {data['rehearsed']} rehearsed, {data['flashbulbs']} flashbulbs, "
                  f"{data.get('captured', 0)} captured, "
                  f"{data.get('summaries', 0)} category summaries, {data.get('schematic', 0)} schematic concepts, "
                  f"dormant: {forgotten}{deferred}", data)
    return 0
