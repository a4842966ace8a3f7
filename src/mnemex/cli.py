"""The `mnemex` command. A composition root: it alone reads the settings for its process.

Heavy modules (the MCP SDK, the engine, fastembed) are imported inside the commands that
need them, so `mnemex serve` (the stdio relay) starts in milliseconds.
"""

from __future__ import annotations

import argparse
import json
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, Sequence

from mnemex import __version__
from mnemex.clients import CLIENTS
from mnemex.errors import MnemexError
from mnemex.entry import run_hook
from mnemex.private import private_umask


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
        print(f"mnemex: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="mnemex", description="Long-term memory MCP server for coding agents.")
    p.add_argument("--version", action="version", version=f"mnemex {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    hk = sub.add_parser("hook", help="handle one Claude Code hook event (JSON on stdin); installed by `mnemex init`",
                        description="Reads a Claude Code hook payload on stdin: captures Read/Edit/Write/Bash use "
                                    "(PostToolUse), injects memories (SessionStart, UserPromptSubmit), closes the "
                                    "session's episode (PreCompact, Stop, SessionEnd). Always exits 0.")
    hk.set_defaults(func=lambda _args: run_hook())

    s = sub.add_parser("serve", help="run the MCP server (stdio relays to the per-store daemon)")
    s.add_argument("--transport", choices=["stdio", "http", "sse"], default=None)
    s.add_argument("--host", default=None, help="http/sse bind address (default 127.0.0.1); any other "
                                                "address requires the bearer token (`mnemex token show`)")
    s.add_argument("--port", type=int, default=None)
    s.add_argument("--allow-host", action="append", default=[], metavar="NAME[:PORT]",
                   help="http/sse: also accept this Host header (repeatable; adds to server.allowed_hosts)")
    s.add_argument("--allow-origin", action="append", default=[], metavar="ORIGIN",
                   help="http/sse: accept requests from this browser origin, e.g. https://app.example:* "
                        "(repeatable; adds to server.allowed_origins)")
    s.add_argument("--no-daemon", action="store_true", help="stdio: serve in this process instead of the daemon")
    s.set_defaults(func=cmd_serve)

    ini = sub.add_parser("init", help="set up an MCP client to start this mnemex (Claude Code: and its hooks)")
    ini.add_argument("clients", nargs="+", metavar="CLIENT", choices=CLIENTS,
                     help=f"one or more of: {', '.join(CLIENTS)}")
    ini.add_argument("--scope", choices=["project", "user"], default=None,
                     help="project (default; the git root of this directory) or user (every project)")
    ini.add_argument("--path", type=Path, default=None, metavar="FILE", help="write the MCP config to FILE instead")
    ini.add_argument("--hooks-path", type=Path, default=None, metavar="FILE",
                     help="claude-code: write the hooks to FILE instead of .claude/settings.json")
    ini.add_argument("--no-hooks", action="store_true", help="claude-code: only the MCP server, no hooks")
    ini.add_argument("--undo", action="store_true", help="remove what init added, nothing else")
    how = ini.add_mutually_exclusive_group()
    how.add_argument("--yes", "-y", action="store_true", help="apply without asking")
    how.add_argument("--dry-run", action="store_true", help="show the changes, write nothing")
    ini.set_defaults(func=cmd_init)

    tk = sub.add_parser("token", help="the bearer token of `serve --transport http|sse` outside loopback")
    tk.add_argument("action", choices=["show", "rotate"],
                    help="show: print it (created on first use); rotate: replace it (running servers refuse "
                         "the old one at once)")
    tk.set_defaults(func=cmd_token)

    d = sub.add_parser("daemon", help="manage the per-store daemon")
    d.add_argument("action", choices=["run", "start", "status", "stop"])
    d.set_defaults(func=cmd_daemon)

    a = sub.add_parser("add", help="remember something")
    a.add_argument("content")
    a.add_argument("--kind", default=None)
    a.add_argument("--scope", default="project", choices=["project", "global", "session", "agent"])
    a.add_argument("--tags", default="", help="comma-separated")
    a.add_argument("--importance", type=float, default=None)
    a.add_argument("--pinned", action="store_true")
    a.add_argument("--json", action="store_true")
    a.set_defaults(func=cmd_add)

    q = sub.add_parser("search", help="search memories")
    q.add_argument("query")
    q.add_argument("--limit", type=int, default=10)
    q.add_argument("--kind", action="append", default=[])
    q.add_argument("--history", action="store_true", help="include superseded and forgotten memories")
    q.add_argument("--dormant", action="store_true", help="include dormant memories (`mnemex show` reactivates one)")
    q.add_argument("--json", action="store_true")
    q.set_defaults(func=cmd_search)

    sh = sub.add_parser("show", help="full entries of memories (after search)")
    sh.add_argument("ids", nargs="+")
    sh.add_argument("--json", action="store_true")
    sh.set_defaults(func=cmd_show)

    tl = sub.add_parser("timeline", help="what was recorded just before and after a memory")
    tl.add_argument("id")
    tl.add_argument("--before", type=int, default=3)
    tl.add_argument("--after", type=int, default=3)
    tl.add_argument("--json", action="store_true")
    tl.set_defaults(func=cmd_timeline)

    hi = sub.add_parser("history", help="a memory's versions, supersede chain and audit trail")
    hi.add_argument("id")
    hi.add_argument("--json", action="store_true")
    hi.set_defaults(func=cmd_history)

    st = sub.add_parser("stats", help="counts and model of the store")
    st.add_argument("--json", action="store_true")
    st.set_defaults(func=cmd_stats)

    e = sub.add_parser("export", help="write every memory as JSONL")
    e.add_argument("file", nargs="?", default="-")
    e.set_defaults(func=cmd_export)

    i = sub.add_parser("import", help="read memories from JSONL (as written by export)")
    i.add_argument("file")
    i.set_defaults(func=cmd_import)

    r = sub.add_parser("reindex", help="rebuild the search vectors of every memory with the current encoders")
    r.add_argument("--dense", action="store_true", help="also re-embed with the dense model (slower)")
    r.set_defaults(func=cmd_reindex)

    sw = sub.add_parser("sweep", help="move memories between lifecycle tiers now (promote; demote to dormant); "
                                      "the daemon does it when idle every lifecycle.sweep_every_hours")
    sw.add_argument("--max-moves", type=int, default=None, help="most memories to move (default lifecycle.sweep_max_moves)")
    sw.add_argument("--json", action="store_true")
    sw.set_defaults(func=cmd_sweep)

    doc = sub.add_parser("doctor", help="check model, store, daemon and config; say how to fix problems")
    doc.set_defaults(func=cmd_doctor)
    return p


def _settings(**overrides: Any):
    from mnemex.config import load_settings

    return load_settings(**overrides)


# ------------------------------------------------------------------ serve
def _serve_overrides(args: argparse.Namespace) -> dict[str, Any]:
    """`serve` flags as settings overrides, validated like the config (an error names the key)."""
    server: dict[str, Any] = {k: v for k, v in (("host", args.host), ("port", args.port)) if v is not None}
    if args.allow_host or args.allow_origin:
        configured = _settings().server
        if args.allow_host:
            server["allowed_hosts"] = [*configured.allowed_hosts, *args.allow_host]
        if args.allow_origin:
            server["allowed_origins"] = [*configured.allowed_origins, *args.allow_origin]
    return {"server": server} if server else {}


def cmd_serve(args: argparse.Namespace) -> int:
    settings = _settings(**_serve_overrides(args))
    transport = args.transport or settings.server.transport
    if transport == "stdio" and settings.server.daemon and not args.no_daemon:
        from mnemex.server import relay

        return relay.run_relay(settings)
    from mnemex.server.direct import serve_direct

    serve_direct(settings, transport, settings.server.host, settings.server.port)
    return 0


def cmd_init(args: argparse.Namespace) -> int:
    from mnemex.clients.init import run_init

    return run_init(args.clients, mode="yes" if args.yes else "dry-run" if args.dry_run else "ask",
                    scope=args.scope, path=args.path, hooks_path=args.hooks_path, hooks=not args.no_hooks,
                    undo=args.undo)


def cmd_token(args: argparse.Namespace) -> int:
    from mnemex.server.http_auth import ensure_token, rotate_token

    path = _settings().http_token_path
    if args.action == "rotate":
        print(rotate_token(path))
        print(f"mnemex: new HTTP token in {path}; running servers refuse the old one from their next request",
              file=sys.stderr)
    else:
        print(ensure_token(path))
        print(f"mnemex: HTTP token from {path}; clients send 'Authorization: Bearer <token>'", file=sys.stderr)
    return 0


def cmd_daemon(args: argparse.Namespace) -> int:
    settings = _settings()
    from mnemex.server import daemon_client

    if args.action == "run":
        from mnemex.server.daemon import run_daemon

        return run_daemon(settings) or 0
    if args.action == "start":
        path = daemon_client.ensure_daemon(settings)
        print(f"mnemex daemon running on {path}")
        return 0
    if args.action == "stop":
        stopped = daemon_client.stop_daemon(settings)
        print("mnemex daemon stopped" if stopped else "no mnemex daemon was running")
        return 0
    status = daemon_client.daemon_status(settings)
    print(json.dumps(status, indent=1, default=str))
    return 0 if status.get("running") else 3


# ----------------------------------------------------------- store access
class _Access:
    """The CLI's way to the store: in-process when no daemon owns it, else through the daemon."""

    def __init__(self, settings: Any, engine: Any = None):
        self.settings = settings
        self.engine = engine

    @property
    def local(self) -> bool:
        return self.engine is not None

    def call(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        from mnemex.projects import detect_project
        from mnemex.server.daemon_client import call_tool

        project = self.settings.project or detect_project()
        return call_tool(self.settings, tool, arguments, project=project)


@contextmanager
def store_access(settings: Any, *, require_local: bool = False) -> Iterator[_Access]:
    from mnemex.server.runfiles import RunFiles

    run = RunFiles.for_settings(settings)
    with run.try_owner_lock() as owned:
        if not owned:
            if require_local:
                raise MnemexError("the mnemex daemon owns this store: run `mnemex daemon stop` first, then retry")
            yield _Access(settings)
            return
        from mnemex.engine.factory import build_engine
        from mnemex.projects import detect_project

        engine = build_engine(settings, default_project=settings.project or detect_project())
        try:
            yield _Access(settings, engine)
        finally:
            engine.close()


def cmd_add(args: argparse.Namespace) -> int:
    settings = _settings()
    tags = [t.strip() for t in args.tags.split(",") if t.strip()]
    with store_access(settings) as acc:
        if acc.local:
            from mnemex.models import NewMemory, Provenance

            out = acc.engine.memorize(NewMemory(
                content=args.content, kind=args.kind, scope=args.scope, tags=tuple(tags),
                importance=args.importance, pinned=args.pinned, provenance=Provenance(source="cli"),
            )).model_dump(mode="json")
        else:
            arguments: dict[str, Any] = {"content": args.content, "scope": args.scope, "tags": tags,
                                         "pinned": args.pinned}
            if args.kind:
                arguments["kind"] = args.kind
            if args.importance is not None:
                arguments["importance"] = args.importance
            out = acc.call("memorize", arguments)
    if args.json:
        print(json.dumps(out, indent=1))
    else:
        print(f"{out['action']} {out.get('id') or ''} {out.get('reason') or ''}".rstrip())
    return 0


def cmd_search(args: argparse.Namespace) -> int:
    settings = _settings()
    with store_access(settings) as acc:
        if acc.local:
            from mnemex.models import ValidityMode
            from mnemex.views import ranked_hit

            flt = acc.engine.default_filter(
                kinds=tuple(args.kind), dormant=None if args.dormant else False,
                validity=ValidityMode.TIMELINE if args.history else ValidityMode.CURRENT)
            hits = [ranked_hit(r).model_dump(mode="json") for r in acc.engine.search(
                args.query, filter=flt, limit=args.limit, dormant=None)]
        else:
            hits = acc.call("search_memory", {"query": args.query, "limit": args.limit, "kinds": args.kind,
                                              "include_history": args.history,
                                              "include_dormant": args.dormant})["results"]
    if args.json:
        print(json.dumps(hits, indent=1))
        return 0
    if not hits:
        print("no matching memories")
    for h in hits:
        print(f"{h['score']:.3f}  {h['id']}  [{h['kind']}] {h['preview']}")
    return 0


def _print_hits(hits: list[dict[str, Any]], indent: str = "") -> None:
    for h in hits:
        day = str(h["created_at"])[:16].replace("T", " ")
        print(f"{indent}{h['id']}  {day}  [{h['kind']}] {h['preview']}  (~{h['tokens']} tokens)")


def cmd_show(args: argparse.Namespace) -> int:
    settings = _settings()
    with store_access(settings) as acc:
        if acc.local:
            memories = [m.model_dump(mode="json") for m in acc.engine.recall(args.ids)]
        else:
            memories = acc.call("recall_memory", {"ids": args.ids})["memories"]
    if args.json:
        print(json.dumps(memories, indent=1, ensure_ascii=False))
        return 0
    for m in memories:
        state = m["status"] + (f", valid until {m['valid_until']}" if m.get("valid_until") else "")
        print(f"{m['id']}  [{m['kind']}, {m['scope']}, {state}]  created {m['created_at']}")
        if m.get("tags"):
            print(f"  tags: {', '.join(m['tags'])}")
        print("  " + m["content"].replace("\n", "\n  "))
    return 0


def cmd_timeline(args: argparse.Namespace) -> int:
    settings = _settings()
    with store_access(settings) as acc:
        if acc.local:
            from mnemex.views import timeline_result

            out = timeline_result(*acc.engine.explore.timeline(args.id, before=args.before, after=args.after)
                                  ).model_dump(mode="json")
        else:
            out = acc.call("memory_timeline", {"id": args.id, "before": args.before, "after": args.after})
    if args.json:
        print(json.dumps(out, indent=1, ensure_ascii=False))
        return 0
    _print_hits(out["earlier"], "   ")
    _print_hits([out["anchor"]], ">> ")
    _print_hits(out["later"], "   ")
    return 0


def cmd_history(args: argparse.Namespace) -> int:
    settings = _settings()
    with store_access(settings) as acc:
        if acc.local:
            from mnemex.views import history_result

            out = history_result(acc.engine.explore.history(args.id)).model_dump(mode="json")
        else:
            out = acc.call("memory_history", {"id": args.id})
    if args.json:
        print(json.dumps(out, indent=1, ensure_ascii=False))
        return 0
    print("versions:")
    for v in out["versions"]:
        print(f"  v{v['version']}  {str(v['at'])[:19]}  ({v['reason']})  {v['content']}")
    print("supersede chain (oldest first):")
    _print_hits(out["chain"], "  ")
    print("audit (newest first):")
    for o in out["audit"]:
        print(f"  {str(o['at'])[:19]}  {o['op']}  by {o['actor']}")
    return 0


def cmd_stats(args: argparse.Namespace) -> int:
    from mnemex.capture.settings import HookSettings
    from mnemex.capture.spool import Spool

    settings = _settings()
    with store_access(settings) as acc:
        if acc.local:
            from mnemex.projects import detect_project
            from mnemex.views import stats_result

            stats = stats_result(acc.engine, settings.project or detect_project()).model_dump(mode="json")
        else:
            stats = acc.call("memory_stats", {})
    tool_use = stats.pop("tool_use", [])
    spool = Spool(HookSettings(data_dir=settings.data_dir).spool_dir)
    stats = {"data_dir": str(settings.data_dir), "backend": "qdrant" if settings.store.url else "qdrant-edge", **stats,
             "capture_waiting": spool.pending(), "capture_dropped": spool.dropped()}
    if args.json:
        print(json.dumps({**stats, "tool_use": tool_use}, indent=1))
        return 0
    for k, v in stats.items():
        print(f"{k:24} {v}")
    if tool_use:
        print("tool use (runs, failed, typical time):")
        for t in tool_use:
            took = f"{t['typical_ms'] / 1000:.1f} s" if t.get("typical_ms") is not None else "-"
            name = f"{t['tool']} `{t['command']}`" if t.get("command") else t["tool"]
            print(f"  {name:40} {t['runs']:>6} {t['failures']:>6}  {took}")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    settings = _settings()
    out = sys.stdout if args.file == "-" else open(args.file, "w", encoding="utf-8")
    n = 0
    try:
        with store_access(settings, require_local=True) as acc:
            for memory in acc.engine.export():
                out.write(json.dumps(memory.model_dump(mode="json"), ensure_ascii=False) + "\n")
                n += 1
    finally:
        if out is not sys.stdout:
            out.close()
    print(f"exported {n} memories", file=sys.stderr)
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from pydantic import ValidationError

    from mnemex.models import Memory

    settings = _settings()
    path = Path(args.file)
    if not path.is_file():
        raise MnemexError(f"import: no such file {path}")
    memories = []
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                memories.append(Memory.model_validate_json(line))
            except ValidationError as exc:
                first = exc.errors()[0]
                where = ".".join(str(x) for x in first["loc"])
                raise MnemexError(f"import: {path}:{lineno}: {where}: {first['msg']}; nothing imported") from None
    with store_access(settings, require_local=True) as acc:
        n = acc.engine.import_memories(memories)
    print(f"imported {n} memories", file=sys.stderr)
    return 0


def cmd_reindex(args: argparse.Namespace) -> int:
    settings = _settings()

    def progress(done: int, total: int) -> None:
        print(f"reindexed {done}/{total}", file=sys.stderr, flush=True)

    with store_access(settings, require_local=True) as acc:
        n = acc.engine.upkeep.reindex(dense=args.dense, progress=progress)
    print(f"reindexed {n} memories ({'BM25 and embeddings' if args.dense else 'BM25'})", file=sys.stderr)
    return 0


def cmd_sweep(args: argparse.Namespace) -> int:
    import dataclasses
    import json

    if args.max_moves is not None and args.max_moves < 1:
        raise MnemexError("sweep: --max-moves must be at least 1")
    settings = _settings()
    with store_access(settings, require_local=True) as acc:
        report = acc.engine.sweep(max_moves=args.max_moves)
    if args.json:
        print(json.dumps(dataclasses.asdict(report)))
        return 0
    moves = ", ".join(f"{k} {n}" for k, n in report.moves.items()) or "none"
    tiers = ", ".join(f"{k} {n}" for k, n in report.tiers.items())
    print(f"swept {report.scanned} memories: {report.promoted} promoted, {report.demoted} demoted"
          f"{f', {report.deferred} left for the next sweep' if report.deferred else ''} (moves: {moves}); tiers: {tiers}")
    return 0


def cmd_doctor(args: argparse.Namespace) -> int:
    from mnemex.doctor import run_doctor

    return run_doctor()


if __name__ == "__main__":
    sys.exit(main())
