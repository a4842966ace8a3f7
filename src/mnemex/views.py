"""What mnemex shows of memories, built once for the MCP tools and the CLI (no MCP here).

The result shapes are pydantic models, so MCP clients get an outputSchema and structuredContent
and the CLI prints the same fields: the compact index entry of a memory (`memory_hit`), search
results, the history, timeline and relations of a memory.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Sequence

from pydantic import BaseModel, Field

from mnemex.engine.retrieval.candidates import RankedMemory
from mnemex.engine.tokens import estimate_tokens
from mnemex.models import Memory, ReplaceCandidate, SearchHit, WriteAction, WriteOutcome

PREVIEW_CHARS = 200


def memory_hit(m: Memory, *, score: float = 0.0, confidence: float = 1.0, why: str = "",
               context_of: str | None = None, outdated_by: str | None = None,
               said_otherwise_by: str | None = None) -> SearchHit:
    """The compact index entry of a memory: id, preview, kind, date, token estimate."""
    preview = m.content if len(m.content) <= PREVIEW_CHARS else m.content[: PREVIEW_CHARS - 1] + "…"
    return SearchHit(id=m.id, preview=preview, kind=m.kind, scope=m.scope, created_at=m.created_at,
                     score=round(score, 6), confidence=round(confidence, 4), why=why,
                     tokens=estimate_tokens(m.content), context_of=context_of, outdated_by=outdated_by,
                     said_otherwise_by=said_otherwise_by)


def ranked_hit(ranked: RankedMemory) -> SearchHit:
    """A search result as an index entry, with why it matched (and, when a newer memory about the
    same subject says otherwise, its id in `outdated_by`)."""
    return memory_hit(ranked.memory, score=ranked.score, confidence=ranked.confidence,
                      why=", ".join(ranked.why) or "match", context_of=ranked.context_of,
                      outdated_by=ranked.outdated_by, said_otherwise_by=ranked.said_otherwise_by)


class MemorizeResult(BaseModel):
    action: WriteAction = Field(description="created, updated, reinforced, superseded or skipped.")
    id: str | None = Field(None, description="The memory that now holds the content.")
    affected_ids: list[str] = Field(default_factory=list, description="Other memories touched (superseded, merged).")
    reason: str = ""
    candidates: list[ReplaceCandidate] = Field(default_factory=list, description=(
        "Stored memories this statement may replace (the gate was not sure): if it does, memorize it again "
        "with supersedes=[their ids]."))
    also: list["MemorizeResult"] = Field(default_factory=list,
                                         description="When the content held several claims: what happened to the others.")

    @classmethod
    def of(cls, out: WriteOutcome) -> "MemorizeResult":
        return cls(action=out.action, id=out.id, affected_ids=list(out.affected_ids), reason=out.reason,
                   candidates=list(out.candidates), also=[cls.of(o) for o in out.also])


class RateResult(BaseModel):
    id: str
    verdict: str = Field(description="helped, misled or outdated, as given.")
    utility: float = Field(description="0..1 after this feedback; 0.5 = no evidence either way.")
    helped: int = Field(description="Times this memory was rated helpful.")
    misled: int = Field(description="Times this memory was rated misleading.")
    tier: str | None = Field(None, description="Its lifecycle tier (None = never moved).")

    @classmethod
    def of(cls, m: Memory, verdict: str) -> "RateResult":
        state = m.lifecycle
        return cls(id=m.id, verdict=verdict, utility=round(state.utility, 4), helped=state.helped,
                   misled=state.misled, tier=state.tier)


class SearchResult(BaseModel):
    results: list[SearchHit]
    count: int
    hint: str = Field("", description="What to do next, e.g. recall_memory for full entries.")


class RecallResult(BaseModel):
    memories: list[Memory]


class UpdateResult(BaseModel):
    memory: Memory


class ForgetResult(BaseModel):
    id: str
    action: str = Field(description="invalidated (kept in the timeline) or purged (removed everywhere).")
    valid_until: datetime | None = None


class ToolUse(BaseModel):
    """How a tool (for Bash: a command) has fared in the project, from the captured sessions."""

    tool: str
    command: str = Field("", description="For Bash: the command (program and first argument).")
    runs: int
    failures: int
    typical_ms: int | None = Field(None, description="Median duration of its recent runs, when known.")
    last_at: datetime


class StatsResult(BaseModel):
    memories_total: int
    memories_current: int
    memories_invalidated: int
    embedding_model: str
    embedding_dim: int
    model_loaded: bool
    writes_since_optimize: int
    writes_unflushed: int = Field(0, description=(
        "Points written since the embedded store last flushed; the daemon flushes them after a second without a call."))
    vocabulary_words: int = 0
    vocabulary_complete: bool = True
    project: str | None = Field(None, description="The caller's project, whose tool use is shown.")
    tool_use: list[ToolUse] = Field(default_factory=list, description=(
        "The project's captured tool use (Claude Code hooks): runs, failures, typical duration."))
    lifecycle: dict[str, Any] = Field(default_factory=dict, description=(
        "Current memories per kind and scope, dormant ones, per tier and average retention (as the last dream "
        "found them), promotions and demotions, and what the last dream did."))


def stats_result(engine: Any, project: str | None, *, most: int = 20) -> StatsResult:
    """The store's counts, its lifecycle and, for `project`, the statistics of the agent's captured tool use."""
    journal = engine.journal
    stats = journal.tool_stats(project, limit=most) if journal is not None and project else []
    return StatsResult(**engine.upkeep.stats(), project=project, lifecycle=engine.lifecycle_stats(), tool_use=[
        ToolUse(tool=t.tool, command=t.key, runs=t.runs, failures=t.failures, typical_ms=t.typical_ms,
                last_at=t.last_at) for t in stats])


class Version(BaseModel):
    version: int
    at: datetime
    content: str
    reason: str | None = None


class AuditEntry(BaseModel):
    at: datetime
    op: str
    actor: str | None = None


class HistoryResult(BaseModel):
    id: str
    versions: list[Version] = Field(description="Content versions of this memory, oldest first.")
    chain: list[SearchHit] = Field(description="The supersede chain this memory is in, oldest first.")
    audit: list[AuditEntry] = Field(description="Writes and reads that touched it, newest first.")


class RelatedHit(BaseModel):
    memory: SearchHit
    hops: int
    relation: str = Field(description="Type of the last edge on the path.")
    path: list[str]


class RelatedResult(BaseModel):
    results: list[RelatedHit]
    count: int


class LinkResult(BaseModel):
    src: str
    dst: str
    relation: str


class TimelineResult(BaseModel):
    anchor: SearchHit
    earlier: list[SearchHit] = Field(description="Memories just before the anchor, oldest first.")
    later: list[SearchHit] = Field(description="Memories just after the anchor, oldest first.")


def search_result(ranked: Sequence[RankedMemory]) -> SearchResult:
    hits = [ranked_hit(r) for r in ranked]
    hint = "Use recall_memory with ids for full entries." if hits else "Nothing relevant stored yet."
    return SearchResult(results=hits, count=len(hits), hint=hint)


def history_result(history: dict[str, Any]) -> HistoryResult:
    """`Explorer.history` as shown: versions, the supersede chain as index entries, the audit trail."""
    return HistoryResult(
        id=history["memory"].id,
        versions=[Version(version=v.version, at=v.ts, content=v.content, reason=v.reason) for v in history["versions"]],
        chain=[memory_hit(m) for m in history["chain"]],
        audit=[AuditEntry(at=o.ts, op=o.op, actor=o.actor) for o in history["ops"]],
    )


def timeline_result(earlier: Sequence[Memory], anchor: Memory, later: Sequence[Memory]) -> TimelineResult:
    return TimelineResult(anchor=memory_hit(anchor), earlier=[memory_hit(m) for m in earlier],
                          later=[memory_hit(m) for m in later])


def related_result(walk: Sequence[tuple[Memory, int, tuple[str, ...], str]]) -> RelatedResult:
    """`Explorer.related` (memory, hops, path, relation) as shown."""
    results = [RelatedHit(memory=memory_hit(m), hops=h, relation=rel, path=list(p)) for m, h, p, rel in walk]
    return RelatedResult(results=results, count=len(results))


def entity_result(memories: Sequence[Memory]) -> RelatedResult:
    """Every memory about an entity, as related hits one hop away."""
    results = [RelatedHit(memory=memory_hit(m), hops=1, relation="mentions", path=[m.id]) for m in memories]
    return RelatedResult(results=results, count=len(results))


class DreamResult(BaseModel):
    """What one dream cycle did (`MemoryEngine.dream`)."""

    scanned: int = Field(description="Memories looked at (active, dormant ones included).")
    utility_drifted: int = Field(description="Memories whose unjudged utility drifted back toward 0.5 (applied as it is read).")
    rehearsed: int = Field(description="Endangered memories (retention under the threshold) strengthened.")
    flashbulbs: int = Field(description="High-arousal memories (incidents, outages, security findings) kept vivid.")
    captured: int = Field(0, description="Weak memories captured by a strong one of their session (synaptic tagging): storage strength raised.")
    coactivated: int = Field(description="Pairs of memories recalled together whose relation was strengthened.")
    working_promoted: int = Field(description="Working-memory promotion candidates moved one tier up.")
    compared: int = Field(description="Memories compared with their nearest neighbours (new or changed since the last dream first).")
    clusters: int = Field(description="Groups of near-duplicates found.")
    themes: int = Field(description="Theme memories written, each superseding its cluster.")
    merged: int = Field(description="Memories superseded by a theme memory.")
    forgotten: dict[str, int] = Field(description="Memories sent dormant (never deleted), per forgetting rule.")
    summaries: int = Field(0, description="Category summaries written (per project and kind), refreshed ones included.")
    summaries_refreshed: int = Field(0, description="Of those, summaries that superseded an older one whose members had changed.")
    concepts: int = Field(0, description="Concepts (entity names, near-identical ones merged) the current memories name.")
    concepts_merged: int = Field(0, description="Entity names merged into another concept's.")
    schematic: int = Field(0, description="Concepts named by enough memories to be schematic (core concepts; see memory_stats).")
    scope_promoted: int = Field(description="Project memories promoted to global scope.")
    scope_proposed: int = Field(description="Project memories proposed for global scope.")
    hot: int = Field(description="Memories in the hot tier after the dream.")
    deferred: int = Field(description="Changes left for the next dream (over the per-run limit).")
    average_retention: float = Field(description="Mean FSRS retention of the active memories.")
    tiers: dict[str, int] = Field(description="Memories per tier, as the dream found them.")
    elapsed_seconds: float

    @classmethod
    def of(cls, report: Any) -> "DreamResult":
        return cls(**{k: v for k, v in report.as_dict().items() if k in cls.model_fields})


class Cluster(BaseModel):
    ids: list[str] = Field(description="The near-duplicate memories, to pass to consolidate_memories.")
    kind: str
    scope: str
    previews: list[str] = Field(description="Each memory's text on one line, in the order of ids.")


class ConsolidateResult(BaseModel):
    clusters: list[Cluster] = Field(default_factory=list, description="Asked without ids: groups of near-duplicates to summarize.")
    id: str | None = Field(None, description="Given ids and a summary: the theme memory now holding them.")
    superseded: list[str] = Field(default_factory=list, description="The memories it replaces (kept in the timeline).")
    hint: str = ""

    @classmethod
    def of_clusters(cls, groups: Sequence[Sequence[Memory]]) -> "ConsolidateResult":
        return cls(clusters=[Cluster(ids=[m.id for m in g], kind=g[0].kind.value, scope=g[0].scope.value,
                                     previews=[" ".join(m.content.split())[:PREVIEW_CHARS] for m in g]) for g in groups],
                   hint="Write one statement holding what a cluster says and call consolidate_memories again with "
                        "its ids and that summary." if groups else "")
