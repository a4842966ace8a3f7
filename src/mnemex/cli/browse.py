"""Commands that look around the store: search, list/recent, timeline, history, related, link, stats."""

from __future__ import annotations

import argparse
from typing import Any

from mnemex.cli.access import CLIENT, load, print_json, short, store_access
from mnemex.cli.memories import ID_HELP
from mnemex.cli.parser import (
    KINDS,
    MAX_LIST,
    RELATIONS,
    SCOPES,
    command,
    int_between,
    json_flag,
    local_flag,
    moment,
)


def register(sub: Any) -> None:
    q = command(sub, "search", "search memories (hybrid: meaning and exact words)",
                'mnemex search "how do we deploy"', 'mnemex search "ERR-PAY-4021" --kind fact --kind procedure',
                'mnemex search "which port" --history --json', 'mnemex search "deploy target" --as-of 2026-03-01')
    q.add_argument("query", help="what you want to know, in words or identifiers")
    q.add_argument("--limit", type=int_between(1, 50), default=10, metavar="N", help="at most N results, 1 to 50 (default 10)")
    _filter_options(q)
    q.add_argument("--as-of", type=moment, default=None, metavar="WHEN",
                   help="answer as memory stood at WHEN (a date, a date-time or an age like 3d)")
    json_flag(q)
    local_flag(q)
    q.set_defaults(func=cmd_search)

    ls = command(sub, "list", "the most recent memories, newest first, with filters", "mnemex list",
                 "mnemex recent --limit 5", "mnemex list --kind decision --kind convention --tag deploy",
                 "mnemex list --pinned --scope global", "mnemex list --since 3d --history --json",
                 aliases=("recent",))
    ls.add_argument("--limit", type=int_between(1, MAX_LIST), default=20, metavar="N",
                    help=f"at most N memories, 1 to {MAX_LIST} (default 20)")
    _filter_options(ls)
    pin = ls.add_mutually_exclusive_group()
    pin.add_argument("--pinned", dest="pinned", action="store_const", const=True, default=None, help="only pinned memories")
    pin.add_argument("--unpinned", dest="pinned", action="store_const", const=False, help="only memories not pinned")
    json_flag(ls)
    local_flag(ls)
    ls.set_defaults(func=cmd_list)

    tl = command(sub, "timeline", "what was recorded just before and after a memory",
                 "mnemex timeline 3f2a9c1e", "mnemex timeline 3f2a9c1e --before 10 --after 0")
    tl.add_argument("id", metavar="ID", help=ID_HELP)
    tl.add_argument("--before", type=int_between(0, 20), default=3, metavar="N", help="memories before it, 0 to 20 (default 3)")
    tl.add_argument("--after", type=int_between(0, 20), default=3, metavar="N", help="memories after it, 0 to 20 (default 3)")
    tl.add_argument("--history", action="store_true", help="include superseded and forgotten memories")
    json_flag(tl)
    local_flag(tl)
    tl.set_defaults(func=cmd_timeline)

    hi = command(sub, "history", "a memory's versions, supersede chain and audit trail", "mnemex history 3f2a9c1e")
    hi.add_argument("id", metavar="ID", help=ID_HELP)
    json_flag(hi)
    local_flag(hi)
    hi.set_defaults(func=cmd_history)

    rel = command(sub, "related", "follow a memory's relations, or everything about an entity",
                  "mnemex related 3f2a9c1e", "mnemex related 3f2a9c1e --hops 3 --relation causes",
                  "mnemex related --entity payments/service.py")
    rel.add_argument("id", nargs="?", default=None, metavar="ID", help=ID_HELP + " (or give --entity)")
    rel.add_argument("--entity", default=None, metavar="NAME", help="a file, module, tool or service instead of an id")
    rel.add_argument("--hops", type=int_between(1, 5), default=2, metavar="N", help="how far to follow, 1 to 5 (default 2)")
    rel.add_argument("--relation", action="append", default=[], choices=RELATIONS, metavar="TYPE",
                     help=f"only follow this relation (repeatable): {', '.join(RELATIONS)}")
    json_flag(rel)
    local_flag(rel)
    rel.set_defaults(func=cmd_related)

    ln = command(sub, "link", "record that one memory relates to another", "mnemex link 3f2a9c1e causes 77b01d4a",
                 "mnemex link 77b01d4a elaborates 3f2a9c1e")
    ln.add_argument("src", metavar="SRC", help=ID_HELP)
    ln.add_argument("relation", choices=RELATIONS, metavar="RELATION", help=f"one of: {', '.join(RELATIONS)}")
    ln.add_argument("dst", metavar="DST", help=ID_HELP)
    json_flag(ln)
    local_flag(ln)
    ln.set_defaults(func=cmd_link)

    st = command(sub, "stats", "counts and model of the store, tool use in this project, capture backlog",
                 "mnemex stats", "mnemex stats --json")
    json_flag(st)
    local_flag(st)
    st.set_defaults(func=cmd_stats)


def _filter_options(p: argparse.ArgumentParser) -> None:
    """The filters search and list share."""
    p.add_argument("--kind", action="append", default=[], choices=KINDS, metavar="KIND",
                   help=f"only this kind (repeatable): {', '.join(KINDS)}")
    p.add_argument("--tag", action="append", default=[], metavar="TAG", help="only memories with this tag (repeatable: any of them)")
    p.add_argument("--scope", action="append", default=[], choices=SCOPES, metavar="SCOPE",
                   help=f"only this scope (repeatable): {', '.join(SCOPES)}")
    p.add_argument("--history", action="store_true", help="include superseded and forgotten memories")
    p.add_argument("--dormant", action="store_true",
                   help="include dormant memories (long unused and rated unhelpful; `mnemex show` reactivates one)")
    p.add_argument("--since", type=moment, default=None, metavar="WHEN",
                   help="only memories created after WHEN: a date (2026-05-01), a date-time or an age (12h, 3d, 2w)")
    p.add_argument("--until", type=moment, default=None, metavar="WHEN", help="only memories created before WHEN (same forms)")


def _filter_arguments(args: argparse.Namespace) -> dict[str, Any]:
    """The shared filters as tool arguments (search_memory and list_memories name them alike)."""
    out: dict[str, Any] = {"kinds": args.kind, "tags": args.tag, "scopes": args.scope, "include_history": args.history,
                           "include_dormant": args.dormant}
    for key, value in (("after", args.since), ("before", args.until), ("as_of", getattr(args, "as_of", None)),
                       ("pinned", getattr(args, "pinned", None))):
        if value is not None:
            out[key] = value.isoformat() if hasattr(value, "isoformat") else value
    return out


def _filter(args: argparse.Namespace, project: str | None, *, searching: bool = False) -> Any:
    """The shared filters as the engine's MemoryFilter (what the tools build from the same arguments;
    a search without --kind leaves out tool events, as search_memory does)."""
    from mnemex.models import MemoryFilter, MemoryKind, ValidityMode

    as_of = getattr(args, "as_of", None)
    kinds = tuple(args.kind) or (tuple(k for k in MemoryKind if k != MemoryKind.TOOL_EVENT) if searching else ())
    return MemoryFilter(project=project, kinds=kinds, tags=tuple(args.tag), scopes=tuple(args.scope),
                        pinned=getattr(args, "pinned", None), created_after=args.since, created_before=args.until,
                        as_of=as_of, validity=(ValidityMode.AS_OF if as_of else ValidityMode.TIMELINE if args.history
                                               else ValidityMode.CURRENT), dormant=None if args.dormant else False)


def _print_hits(hits: list[dict[str, Any]], mark: str = "   ") -> None:
    for h in hits:
        day = str(h["created_at"])[:10]
        print(f"{mark}{short(h['id'])}  {h['kind']:<10} {day}  {' '.join(h['preview'].split())}")


def cmd_search(args: argparse.Namespace) -> int:
    with store_access(load(), local=args.local) as acc:
        if acc.local:
            from mnemex.views import ranked_hit

            flt = _filter(args, acc.project, searching=True)
            hits = [ranked_hit(r).model_dump(mode="json")
                    for r in acc.engine.search(args.query, filter=flt, limit=args.limit, client=CLIENT,
                                               dormant=None if args.dormant else False)]
        else:
            hits = acc.call("search_memory", {"query": args.query, "limit": args.limit, "min_confidence": 0,
                                              **_filter_arguments(args)})["results"]
    if args.json:
        print_json(hits)
        return 0
    if not hits:
        print("no matching memories")
    from mnemex import render  # lazy: render pulls in the models; the parser must stay light

    for h in hits:
        marked = render.marks(h.get("outdated_by"), h.get("said_otherwise_by"))
        tail = f"  ({'; '.join(marked)})" if marked else ""
        print(f"{h['score']:.3f}  {h['id']}  [{h['kind']}] {h['preview']}{tail}")
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    with store_access(load(), local=args.local) as acc:
        if acc.local:
            from mnemex.views import memory_hit

            recent = acc.engine.explore.recent(_filter(args, acc.project), limit=args.limit)
            hits = [memory_hit(m).model_dump(mode="json") for m in recent]
        else:
            hits = acc.call("list_memories", {"limit": args.limit, **_filter_arguments(args)})["results"]
    if args.json:
        print_json(hits)
    elif not hits:
        print("no memories match")
    else:
        _print_hits(hits, "")
    return 0


def cmd_timeline(args: argparse.Namespace) -> int:
    with store_access(load(), local=args.local) as acc:
        if acc.local:
            from mnemex.views import timeline_result

            out = timeline_result(*acc.engine.explore.timeline(args.id, before=args.before, after=args.after,
                                                               include_history=args.history)).model_dump(mode="json")
        else:
            out = acc.call("memory_timeline", {"id": args.id, "before": args.before, "after": args.after,
                                               "include_history": args.history})
    if args.json:
        print_json(out)
        return 0
    _print_hits(out["earlier"])
    _print_hits([out["anchor"]], ">> ")
    _print_hits(out["later"])
    return 0


def cmd_history(args: argparse.Namespace) -> int:
    with store_access(load(), local=args.local) as acc:
        if acc.local:
            from mnemex.views import history_result

            out = history_result(acc.engine.explore.history(args.id)).model_dump(mode="json")
        else:
            out = acc.call("memory_history", {"id": args.id})
    if args.json:
        print_json(out)
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


def cmd_related(args: argparse.Namespace) -> int:
    from mnemex.errors import InvalidInputError

    if (args.id is None) == (args.entity is None):
        raise InvalidInputError("give a memory ID or --entity NAME (one of them)")
    with store_access(load(), local=args.local) as acc:
        if acc.local:
            from mnemex.views import entity_result, related_result

            if args.entity is not None:
                out = entity_result(acc.engine.explore.about_entity(args.entity)).model_dump(mode="json")
            else:
                out = related_result(acc.engine.explore.related(args.id, max_hops=args.hops,
                                                                types=args.relation or None)).model_dump(mode="json")
        else:
            arguments: dict[str, Any] = ({"entity": args.entity} if args.entity is not None else
                                         {"id": args.id, "max_hops": args.hops, "relations": args.relation})
            out = acc.call("related_memories", arguments)
    if args.json:
        print_json(out)
    elif not out["results"]:
        print("no related memories")
    for r in [] if args.json else out["results"]:
        h = r["memory"]
        print(f"{r['relation']:<12} {r['hops']}  {short(h['id'])}  {h['kind']:<10} {' '.join(h['preview'].split())}")
    return 0


def cmd_link(args: argparse.Namespace) -> int:
    with store_access(load(), local=args.local) as acc:
        if acc.local:
            from mnemex.views import LinkResult

            engine = acc.engine
            engine.explore.link(args.src, args.dst, args.relation, actor="user")
            out = LinkResult(src=engine.get(args.src).id, dst=engine.get(args.dst).id,
                             relation=args.relation).model_dump(mode="json")
        else:
            out = acc.call("link_memories", {"src": args.src, "dst": args.dst, "relation": args.relation})
    if args.json:
        print_json(out)
    else:
        print(f"linked {short(out['src'])} {out['relation']} {short(out['dst'])}")
    return 0


def cmd_stats(args: argparse.Namespace) -> int:
    from mnemex.capture.settings import HookSettings
    from mnemex.capture.spool import Spool

    settings = load()
    with store_access(settings, local=args.local) as acc:
        if acc.local:
            from mnemex.views import stats_result

            stats = stats_result(acc.engine, acc.project).model_dump(mode="json")
        else:
            stats = acc.call("memory_stats", {})
    tool_use = stats.pop("tool_use", [])
    lifecycle = stats.pop("lifecycle", {})
    spool = Spool(HookSettings(data_dir=settings.data_dir).spool_dir)
    stats = {"data_dir": str(settings.data_dir), "backend": "qdrant" if settings.store.url else "qdrant-edge", **stats,
             "capture_waiting": spool.pending(), "capture_dropped": spool.dropped()}
    if args.json:
        print_json({**stats, "lifecycle": lifecycle, "tool_use": tool_use})
        return 0
    for k, v in stats.items():
        print(f"{k:24} {v}")
    last = lifecycle.pop("last_dream", None)
    found = lifecycle.pop("concepts", None)
    for k, v in lifecycle.items():
        print(f"{'lifecycle ' + k:24} {v}")
    if last:
        forgotten = ", ".join(f"{k} {n}" for k, n in (last.get("forgotten") or {}).items() if n) or "none"
        print(f"{'last dream':24} {last.get('now', '?')}: {last.get('themes', 0)} themes merged {last.get('merged', 0)}, "
              f"{last.get('rehearsed', 0)} rehearsed, {last.get('summaries', 0)} summaries, dormant: {forgotten}, "
              f"{last.get('elapsed_seconds', 0)} s")
    if found:
        core = ", ".join(f"{c['name']} ({c['memories']})" for c in found.get("schematic", [])[:10]) or "none"
        print(f"{'concepts':24} {found.get('concepts', 0)}, schematic {found.get('schematic_count', 0)}: {core}")
    if tool_use:
        print("tool use (runs, failed, typical time):")
        for t in tool_use:
            took = f"{t['typical_ms'] / 1000:.1f} s" if t.get("typical_ms") is not None else "-"
            name = f"{t['tool']} `{t['command']}`" if t.get("command") else t["tool"]
            print(f"  {name:40} {t['runs']:>6} {t['failures']:>6}  {took}")
    return 0
