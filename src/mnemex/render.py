"""The compact text of each tool result: what the model reads (the structured content carries the
same data for programs). One line per hit, short ids (the tools accept them), no internal fields
— a lean rendering is cheaper to read and leaves less to misread. MCP-free: the CLI prints it too.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from mnemex.models import Memory, ReplaceCandidate, SearchHit, WriteOutcome

SHORT = 8
#: Metadata the write path keeps for itself; a recall shows it only when asked (`verbose`).
INTERNAL_METADATA = frozenset({"importance_channels", "kind_confidence", "atom_of", "reinforced", "flags",
                               "redacted", "event_id", "novelty", "also_said",
                               "said_otherwise_sims"})


def short(memory_id: str | None) -> str:
    return (memory_id or "")[:SHORT]


def _day(value) -> str:
    return value.date().isoformat() if value is not None else "?"


def hit_line(h: SearchHit, *, with_score: bool = True) -> str:
    score = f"  {h.confidence:.2f}" if with_score else ""
    preview = " ".join(h.preview.split())
    extra = []
    if h.why and with_score:
        extra.append(h.why)
    extra += marks(getattr(h, "outdated_by", None), getattr(h, "said_otherwise_by", None))
    if h.context_of:
        extra.append(f"context of {short(h.context_of)}")
    tail = f"  ({'; '.join(extra)})" if extra else ""
    return f"{short(h.id)}  {h.kind.value:<10} {_day(h.created_at)}{score}  {preview}{tail}"


def marks(outdated_by: str | None, said_otherwise_by: str | None) -> list[str]:
    """What read-time resolution marked on a result, as the reader sees it beside the memory."""
    out = [f"possibly outdated by {short(outdated_by)}"] if outdated_by else []
    return out + ([f"later {short(said_otherwise_by)} may say otherwise"] if said_otherwise_by else [])


def search_text(hits: Sequence[SearchHit], *, hidden: int = 0, floor: float = 0.0) -> str:
    if not hits:
        more = f" ({hidden} weak matches under confidence {floor:.2f}; min_confidence=0 shows them)" if hidden else ""
        return "No relevant memories." + more
    head = f"{len(hits)} memor{'y' if len(hits) == 1 else 'ies'}, best first"
    if hidden:
        head += f" ({hidden} weaker left out; min_confidence=0 shows them)"
    lines = [head + ":", *(hit_line(h) for h in hits), "recall_memory takes these ids for the full entries."]
    return "\n".join(lines)


def public_metadata(metadata: dict) -> dict:
    return {k: v for k, v in metadata.items() if k not in INTERNAL_METADATA}


def memory_text(m: Memory, *, verbose: bool = False) -> str:
    state = m.status.value
    if m.valid_until is not None:
        state += f", valid until {_day(m.valid_until)}"
    if m.superseded_by:
        state += f", superseded by {short(m.superseded_by)}"
    flags = [name for name, on in (("pinned", m.pinned), ("immutable", m.immutable)) if on]
    lines = [f"{short(m.id)}  {m.kind.value} · {m.scope.value} · {state}{' · ' + ', '.join(flags) if flags else ''}"
             f" · {_day(m.created_at)}", m.content]
    if m.tags:
        lines.append("tags: " + ", ".join(m.tags))
    meta = m.metadata if verbose else public_metadata(m.metadata)
    if meta:
        lines.append("metadata: " + ", ".join(f"{k}={v}" for k, v in meta.items()))
    if verbose:
        lines.append(f"id {m.id} · importance {m.importance:.2f} · confidence {m.confidence:.2f} · "
                     f"accessed {m.access_count}× · project {m.project or '-'}")
    return "\n".join(lines)


def memories_text(memories: Iterable[Memory], *, verbose: bool = False) -> str:
    return "\n\n".join(memory_text(m, verbose=verbose) for m in memories)


def outcome_text(out: WriteOutcome) -> str:
    def one(o: WriteOutcome) -> str:
        target = f" {short(o.id)}" if o.id else ""
        affected = f" (affects {', '.join(short(i) for i in o.affected_ids)})" if o.affected_ids else ""
        reason = f" — {o.reason}" if o.reason else ""
        return f"{o.action.value}{target}{affected}{reason}"

    lines = [one(out), *(f"also: {one(o)}" for o in out.also)]
    candidates = [c for o in (out, *out.also) for c in o.candidates]
    return "\n".join(lines + replace_lines(candidates, "It may replace (if so, memorize it again with supersedes=[ids]):"))


def replace_lines(candidates: Sequence[ReplaceCandidate], heading: str) -> list[str]:
    """The memories a write may replace, one line each under `heading` (which says how to act on
    them); nothing when there are none."""
    if not candidates:
        return []
    return [heading, *(f"  {short(c.id)}  {c.preview}" + (f"  ({c.reason})" if c.reason else "") for c in candidates)]


def lines(items: Iterable[str]) -> str:
    return "\n".join(items)


def stats_text(stats) -> str:  # type: ignore[no-untyped-def]
    """The store's counts, then the project's tool use (one line per tool or command)."""
    out = [f"{k}: {v}" for k, v in stats.model_dump().items() if k not in ("tool_use", "project", "lifecycle")]
    out += [f"lifecycle {k}: {v}" for k, v in stats.lifecycle.items() if k != "last_dream"]
    last = stats.lifecycle.get("last_dream")
    if last:
        out.append(f"last dream ({last.get('now', '?')}): {last.get('themes', 0)} themes, {last.get('merged', 0)} merged, "
                   f"dormant {sum((last.get('forgotten') or {}).values())}, {last.get('rehearsed', 0)} rehearsed")
    if stats.tool_use:
        out.append(f"tool use in {stats.project} (runs, failures, typical time):")
        for t in stats.tool_use:
            took = f"{t.typical_ms / 1000:.1f} s" if t.typical_ms is not None else "-"
            name = f"{t.tool} `{t.command}`" if t.command else t.tool
            out.append(f"  {name}: {t.runs} runs, {t.failures} failed, {took}")
    return "\n".join(out)
