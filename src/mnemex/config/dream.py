"""The active half of the lifecycle as configuration: the dream cycle, strategic forgetting,
working memory, the hot tier and promotion across scopes (`engine/lifecycle/`).

Every number starts from seed 001 (dream cycle, forgetting, working memory, hot tier, flashbulb
memories, Hebbian co-activation) or seed 004 (promotion of project facts to the global channel);
where mnemex departs from a seed the field says so.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from mnemex.config.base import Frozen


class DreamConfig(Frozen):
    """The dream cycle (`mnemex dream`, the `dream` tool, the daemon when idle): bounded work per run."""

    every_hours: float = Field(24.0, ge=0, description="The daemon dreams when idle this often (seed: daily); 0 = only `mnemex dream` and the tool.")
    max_changes: int = Field(500, ge=1, description="Most memories one run changes (seed: a 500-memory cap per batch); the rest wait for the next run.")
    batch: int = Field(16, ge=1, le=512, description="Most changes made per hold of the write lock; a client's call makes the dream let go sooner.")
    rehearse_below: float = Field(0.3, ge=0, le=1, description="Rehearsal: memories whose FSRS retention fell under this are endangered (seed: 0.3).")
    rehearse_boost: float = Field(1.5, ge=1, description="Rehearsal multiplies an endangered memory's storage strength by this (seed: stability x1.5).")
    rehearse_max: int = Field(50, ge=0, description="Most memories rehearsed per run (seed: 50), the most important and useful first.")
    coactivation_step: float = Field(0.1, gt=0, le=1, description="Hebbian co-activation: each recall together moves the pair's relation weight this far toward 1.")
    hit_window_minutes: float = Field(60.0, gt=0, description="Hit rate: a recall of a memory a search or the context injection offered this recently follows it.")
    coactivation_window_minutes: float = Field(10.0, ge=0, description="Memories recalled within this many minutes of each other (or in one recall) count as recalled together.")
    flashbulb_arousal: float = Field(0.8, gt=0, le=1, description="Flashbulb: a memory whose arousal (incident, outage, security cues) reaches this is kept vivid (seed: 0.8).")
    flashbulb_importance: float = Field(0.9, ge=0, le=1, description="A flashbulb memory's least importance (seed: 0.9).")
    flashbulb_boost: float = Field(1.5, ge=1, description="A flashbulb memory's storage strength is multiplied by this once (seed: x1.5).")
    flashbulb_pin: bool = Field(False, description=(
        "Also pin flashbulb memories (seed: pinned). Off by default: pinned memories head every session's context, "
        "and a year of incidents would crowd it; flashbulb memories are exempt from forgetting and demotion either way."))
    tag_below: float = Field(0.5, ge=0, le=1, description="Synaptic tagging: a memory stored with importance under this is weak and tagged (seed: 0.5) ...")
    tag_hours: float = Field(4.0, ge=0, description="... for this many hours (seed: 4 h); 0 = no tagging and capture.")
    capture_importance: float = Field(0.7, ge=0, le=1, description="Capture: a memory at least this important (seed: 0.7), stored in the same session while a tag lasts, ...")
    capture_boost: float = Field(1.3, ge=1, description="... multiplies the tagged memory's storage strength by this, once (seed: stability x1.3).")
    cluster_min: int = Field(3, ge=2, description="Least members of a cluster consolidated into a theme memory (seed: 3).")
    merge_similarity: float = Field(0.85, gt=0, le=1, description="Cosine at which memories of one kind and scope are near-duplicates, clustered for consolidation.")
    max_compared: int = Field(1000, ge=0, description="Memories (new or changed since the last run first) compared with their nearest neighbours per run.")
    neighbours: int = Field(6, ge=1, le=50, description="Nearest neighbours each compared memory is checked against.")
    theme_importance: float = Field(0.8, ge=0, le=1, description="Importance of a theme memory (seed: 0.8).")
    theme_max_chars: int = Field(800, ge=100, description="Longest text a deterministic theme merge makes (the representative first, then the members' distinct sentences).")
    consolidation: Literal["deterministic", "llm", "agent", "off"] = Field("deterministic", description=(
        "How the dream turns clusters into theme memories: deterministic (pick and merge text, no model); llm (the "
        "write gate's judge endpoint, `gate.judge`, within its timeout and hourly caps, writes the theme; the "
        "deterministic merge when it gives no answer; needs gate.judge.url and model); agent (the dream leaves them "
        "to the agent: consolidate_memories lists them and takes the summaries back); off."))
    llm_max_calls: int = Field(5, ge=0, description="Most themes asked of the language model per dream (seed: 5 calls per cycle).")
    llm_max_tokens: int = Field(200, ge=16, le=2000, description="Longest answer asked of the language model for one theme.")


class SummaryConfig(Frozen):
    """Category summaries (seed 001): per project and kind, one memory listing what the category holds,
    rewritten (superseding the old one) when its members changed; the members are left as they are."""

    min_members: int = Field(10, ge=2, description="A category (project or scope, and kind) gets a summary once it holds this many current memories (seed: 10+).")
    kinds: tuple[str, ...] = Field(("decision", "convention", "procedure", "preference", "correction", "fact"),
                                   description="Kinds summarised (records such as episodes and tool events never are).")
    max_chars: int = Field(1200, ge=200, le=8000, description="Longest summary: its members' first lines, the most important first, then how many more.")
    line_chars: int = Field(160, ge=40, le=1000, description="Longest line one member gets in a summary.")
    importance: float = Field(0.8, ge=0, le=1, description="Importance of a summary memory (seed: 0.8).")
    max_per_run: int = Field(20, ge=0, description="Most summaries written per dream (0 = off); the others wait for the next run.")


class EpisodeConfig(Frozen):
    """Semantic-shift episode boundaries (seed 003, after GAM): a captured session whose topic changes
    becomes several episodes, cut where a window of its events drifts away from the episode so far."""

    shift_similarity: float = Field(0.5, ge=0, le=1, description=(
        "A window of events whose cosine with the centroid of its episode so far is under this starts a new episode; "
        "0 = one episode per session. The seed's 0.70 (distance 0.30) splits single-topic sessions with the default "
        "MiniLM model (its windows of one topic meet at 0.57-0.78; of two topics at 0.20-0.25)."))
    window: int = Field(6, ge=2, le=100, description="Events per window compared (their one-line texts embedded together).")
    min_windows: int = Field(2, ge=1, description="Least windows in an episode before a shift may end it.")
    max_windows: int = Field(64, ge=2, description="Most windows of one session embedded (a bound on the work); later events join its last episode.")


class ConceptConfig(Frozen):
    """Concept nodes (seed 003): the entities memories name, merged when their names are near-identical,
    counted; the frequent ones are schematic (core concepts), listed in `memory_stats`."""

    enabled: bool = Field(True, description="The dream counts concepts (no memory is changed; the result goes to the audit log and the stats).")
    merge_similarity: float = Field(0.9, gt=0, le=1, description=(
        "Two normalised entity names (type prefix, case, separators and plural s dropped) at least this similar "
        "(string ratio) are one concept; names with different digits never merge. The seed merges at embedding cosine 0.85."))
    schematic_min: int = Field(5, ge=2, description="A concept named by at least this many current memories is schematic (seed: frequency 5).")
    listed: int = Field(50, ge=0, le=1000, description="Most schematic concepts kept in the audit log and shown in the stats, the most used first.")


class ForgettingConfig(Frozen):
    """Strategic forgetting, in the seed's order with records expiry and repeated runs after foresight: contradiction
    cleanup, foresight expiry, records expiry, repeated runs, utility floor, redundancy, capacity trim. Always to dormant, never
    deleted; pinned, immutable and flashbulb memories never."""

    contradictions: bool = Field(True, description="The older side of a `contradicts` relation goes dormant (unless it is a truth anchor).")
    foresight: bool = Field(True, description="A memory whose validity ended (a plan's `valid_until` in the past) goes dormant.")
    record_idle_days: float | None = Field(7.0, gt=0, description=(
        "Records of what happened (the kinds in record_kinds: captured tool runs) that nobody recalled for this many days "
        "go dormant: still found by a search that asks for dormant or past-session memories, reactivated when recalled. "
        "A year of tool runs outnumbers a project's facts ten to one and crowds them out of the top results. 7 (30 until "
        "the twenty-eighth session; the seeds keep tool events a minute to a week): in the simulated year "
        "(`benchmarks/lifecycle_year.py`) the dream then lowers noise in the top 5 at 43 of 63 dreams instead of 25, "
        "the active set ends the year at 943 instead of 1,477, recall of valid facts unchanged. Unset = kept."))
    record_kinds: tuple[Literal["episode", "tool_event", "chatter"], ...] = Field(("tool_event", "chatter"), description=(
        "What records expiry applies to: any of episode, tool_event, and chatter (lines of conversation the observer "
        "flagged as carrying no knowledge: 'ok, thanks', 'let me check the logs first'); episodes, the lasting "
        "account of a session, are kept by default."))
    repeat_keep: int = Field(1, ge=0, description=(
        "A routine run recorded again (the same command, file read or wording succeeding: 'CI pipeline #812 for api: "
        "passed' after #797): all but the newest this many of its records go dormant, unless recalled since the newest "
        "was recorded. Failures, edits and runs recorded once are never repeats. 0 = off."))
    utility_floor: float = Field(0.15, ge=0, le=1, description="Utility floor: a memory whose utility (as feedback left it) is under this and ... (seed: 0.15)")
    utility_idle_days: float = Field(30.0, ge=0, description="... that was unused this many days goes dormant (seed: 30).")
    redundancy: float = Field(0.9, gt=0, le=1, description="Cosine above which two memories are redundant: the less useful goes dormant (seed: 0.9).")
    capacity: int | None = Field(5000, ge=1, description=(
        "Most active memories per scope (a project, global, ...); beyond it the weakest go dormant. The seed's 500 "
        "is one person's memory; a team's coding project holds far more knowledge. Unset = no cap."))
    trim_to: float = Field(0.9, gt=0, le=1, description="A trim brings a scope over its cap down to this share of it (seed: 500 -> 450).")


class WorkingMemoryConfig(Frozen):
    """Per session, the few memories in use now (seed 001: Miller's 7 +/- 2)."""

    size: int = Field(9, ge=1, le=100, description="Items per session (seed: 9).")
    half_life_minutes: float = Field(30.0, gt=0, description="Recency half-life of the eviction score importance x recency x (1 + 0.1 x uses) (seed: 30 min).")
    promote_uses: int = Field(2, ge=1, description="An evicted item used this often is a promotion candidate (seed: 2) ...")
    promote_importance: float = Field(0.6, ge=0, le=1, description="... or one at least this important (seed: 0.6).")
    sessions: int = Field(256, ge=1, description="Sessions held at once; the least recently active is cleared first.")


class HotTierConfig(Frozen):
    """The few memories of high utility and frequent recent use, offered to the agent with every session (seed 001)."""

    min_utility: float = Field(0.8, ge=0, le=1, description="Least utility (seed: 0.8).")
    min_recalls: int = Field(10, ge=1, description="Least recalls (seed: 10) ...")
    window_days: float = Field(30.0, gt=0, description="... the last of them within this many days (seed: 30).")
    max_items: int = Field(15, ge=0, description="Most memories in the hot tier (seed: 15); 0 = off.")
    inject: int = Field(5, ge=0, description="Most hot memories the context strategy adds to a session's context (one line each).")
    inject_tokens: int = Field(150, ge=0, description="Token budget of that section.")
    cache_minutes: float = Field(5.0, gt=0, description="The hot tier is recomputed after this (seed: 5 min).")


class ScopePromotionConfig(Frozen):
    """A project memory confirmed often enough is proposed or promoted to global (seed 004: thresholds in the audit log)."""

    mode: Literal["propose", "promote", "off"] = Field("propose", description=(
        "propose: mark it (metadata `promote_to_global`, audit `propose-global`) for a person to confirm; "
        "promote: move it to global scope (audit `promote-global`); off."))
    min_confidence: float = Field(0.85, ge=0, le=1, description="Least source confidence (seed: 0.85).")
    min_recalls: int = Field(5, ge=0, description="Least recalls (seed: access count 5).")
    min_sessions: int = Field(2, ge=1, description="Least conversations that stated it: the first and each one that said it again (seed: 2).")
    kinds: tuple[str, ...] = Field(("preference", "convention", "correction", "procedure"), description=(
        "Kinds that may leave their project: standing rules, not project facts."))
