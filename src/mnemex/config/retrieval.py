"""The read path as data: a frozen `RetrievalConfig` plus named recipes.

Override per call with `DEFAULT.model_copy(update={...})`; recipes are never mutated.
Every number starts from the seed documents (RRF K=60, MMR λ=0.7, entity +0.1 per
entity, episode +0.15, intent weight table) or from what was measured on the LoCoMo dev
conversations (benchmarks/RESULTS.md); the measured choices are noted field by field.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import Field

from mnemex.config.base import Frozen


class Intent(StrEnum):
    """What a query asks for (`engine/retrieval/query/intent.py` classifies); profiles are keyed by it."""

    TEMPORAL = "temporal"
    HYPOTHETICAL = "hypothetical"
    CAUSAL = "causal"
    PROCEDURAL = "procedural"
    PREFERENCE = "preference"
    ENTITY = "entity"
    FACTUAL = "factual"
    GENERAL = "general"


class CompositeWeights(Frozen):
    """Boosts added to the fused relevance (which is about 0..1.5) by `scoring.composite_score`."""

    entity: float = Field(0.08, ge=0, description="Per entity the query names that the memory is about (speaker, entities, tags, reference).")
    entity_cap: int = Field(2, ge=0, description="At most this many entities count.")
    session: float = Field(0.15, ge=0, description="Memory from the caller's current session (seed: episode boost 0.15).")
    temporal: float = Field(0.15, ge=0, description="Memory created inside the query's time window.")
    temporal_slack_days: float = Field(3.0, ge=0, description="Window widened by this much on both sides.")
    activation: float = Field(0.05, ge=0, description="ACT-R activation (recency and use), 0..1.")
    importance: float = Field(0.05, ge=0, description="Times (importance - 0.5).")
    importance_decay: bool = Field(False, description="The importance term uses importance after its half-life decay (`lifecycle.importance_half_life_days`, by the memory's tier; permanent kinds keep theirs). Off: on coding set 1 MRR 77.3 -> 77.1, set 2 R@3 86.6 -> 85.6 (it acts as a second recency boost by kind); the tier policy still reads the decayed importance.")
    utility: float = Field(0.2, ge=0, description="Times (utility - 0.5), once feedback has judged a memory (rate_memory: helped / misled; drifting back to 0.5 while unjudged). Seed 001 weighs utility 0.2 beside 0.6 relevance; a memory never judged gets 0.")
    strength: float = Field(0.1, ge=0, description="Times R x (storage - 1) / (max - 1): recalls held (storage strength, `lifecycle.storage_*`) as far as the memory is still retrievable (FSRS R). 0 for a memory never recalled.")
    pinned: float = Field(0.05, ge=0, description="Pinned memories (truth anchors).")
    low_trust_below: float = Field(0.3, ge=0, le=1, description="Source confidence under which a memory is deprioritised.")
    low_trust_factor: float = Field(0.8, ge=0, le=1, description="Score factor for low-trust memories.")


class IntentProfile(Frozen):
    """Per-intent overrides of the fusion weights and candidate pool."""

    dense_weight: float = Field(ge=0, description="Weight of the dense signal for this intent.")
    sparse_weight: float = Field(ge=0, description="Weight of the BM25 signal for this intent.")
    candidates: int = Field(ge=1, le=1000, description="Candidates per search for this intent.")


#: The seed's router table (vector/FTS weights, limits). Not the default: on LoCoMo dev a single
#: balanced profile did as well (see RESULTS.md); kept as the `SEED_ROUTER` recipe.
SEED_INTENT_PROFILES: dict[Intent, IntentProfile] = {
    Intent.FACTUAL: IntentProfile(dense_weight=0.6, sparse_weight=0.4, candidates=100),
    Intent.TEMPORAL: IntentProfile(dense_weight=0.4, sparse_weight=0.6, candidates=150),
    Intent.HYPOTHETICAL: IntentProfile(dense_weight=0.6, sparse_weight=0.4, candidates=100),
    Intent.CAUSAL: IntentProfile(dense_weight=0.5, sparse_weight=0.5, candidates=200),
    Intent.ENTITY: IntentProfile(dense_weight=0.5, sparse_weight=0.5, candidates=150),
    Intent.PREFERENCE: IntentProfile(dense_weight=0.5, sparse_weight=0.5, candidates=100),
    Intent.PROCEDURAL: IntentProfile(dense_weight=0.5, sparse_weight=0.5, candidates=100),
    Intent.GENERAL: IntentProfile(dense_weight=0.5, sparse_weight=0.5, candidates=100),
}


#: Default routing: only hypothetical questions ("would X enjoy ...", "what might ...") lean on the
#: embedding; every other intent keeps the balanced weights (the seed's table measured no better).
#: On LoCoMo dev: open-domain R@10 +3 (31 such questions), nothing else moves.
DEFAULT_INTENT_PROFILES: dict[Intent, IntentProfile] = {
    Intent.HYPOTHETICAL: IntentProfile(dense_weight=0.7, sparse_weight=0.3, candidates=50),
}


class RetrievalConfig(Frozen):
    """The read path: which stages run and with which numbers (named recipes in `config/retrieval.py`)."""

    # -- how memories reach the agent (seed 002's three strategies; `strategies/`)
    strategy: Literal["context", "tool_based", "self_editing"] = Field("context", description=(
        "context: relevant memories are injected at session start and with each prompt (hooks, the "
        "memory_context prompt); tool_based: the agent searches and memorizes through the tools, told when "
        "in the server's instructions; self_editing: core memory blocks always in context, edited by the agent, "
        "with search over memories and past sessions."))

    # -- query stages
    gate: bool = Field(True, description="Skip retrieval for trivial messages ('ok', 'thanks', '/clear').")
    intent_routing: bool = Field(True, description="Pick fusion weights per intent from `intent_profiles`.")
    intent_profiles: dict[Intent, IntentProfile] = Field(
        default_factory=lambda: dict(DEFAULT_INTENT_PROFILES),
        description="Fusion weights and pool per query intent (temporal, hypothetical, causal, procedural, preference, "
                    "entity, factual, general); an intent not listed uses the weights above. A table here replaces the "
                    "default table whole.")
    hyde: bool = Field(False, description="Template HyDE: average the query embedding with 2 declarative rewrites (measured neutral on LoCoMo; costs an embedding batch).")
    hyde_weight: float = Field(0.5, ge=0, description="Weight of the rewrites' mean vector against the query vector.")
    decomposition: bool = Field(False, description=(
        "Split compound questions into sub-queries fused by RRF. Off (on until the thirty-ninth session): fused by "
        "rank, a memory that matches every part a little outranks the one that answers the question; off, the "
        "update sets R@5 stay or rise (set 13: 93.8 -> 96.4), LoCoMo dev 71.3/79.5/60.4 -> 71.5/79.6/60.6, the coding "
        "sets R@3 83.5 -> 84.0 and 86.6 -> 88.0 (benchmarks/RESULTS.md)."))
    max_subqueries: int = Field(4, ge=1, le=8, description="Most sub-queries a compound question is split into.")
    temporal: bool = Field(True, description="Parse time expressions ('last week', 'in May 2023', 'before the migration').")
    temporal_filter: bool = Field(False, description="Use the time window as a hard filter instead of a boost.")

    # -- candidate generation and fusion
    use_dense: bool = Field(True, description="Run the dense (embedding) search.")
    use_sparse: bool = Field(True, description="Run the BM25 search.")
    fusion: Literal["score", "rrf"] = Field("score", description="score: weighted max-normalised BM25 + cosine (measured +8 R@10 over RRF); rrf: weighted reciprocal rank fusion.")
    dense_weight: float = Field(0.5, ge=0.0, description="Weight of the dense signal.")
    sparse_weight: float = Field(0.5, ge=0.0, description="Weight of the BM25 signal.")
    candidates: int = Field(50, ge=1, le=1000, description="Candidates per search (100: +0.7 R@10 on LoCoMo dev, about 1.4x the latency).")
    agreement_floor: float = Field(0.2, ge=0.0, le=1.0, description="Score fusion: when the best BM25 match has a cosine below this (MiniLM's level for unrelated text), its matched words are taken as incidental and `unanchored_dense_weight` applies; 0 = off.")
    vocabulary_floor: float = Field(0.8, ge=0.0, le=1.0, description="Score fusion: when fewer than this share of the query's words occur in any memory, BM25 cannot represent the question and `unanchored_dense_weight` applies; 0 = off.")
    vocabulary_idf: bool = Field(False, description="The vocabulary rule weighs each query word by its IDF under the filter (a rare word found counts for more than a common one; a word no memory holds weighs as the rarest) instead of counting words. Off: on LoCoMo dev R@5 71.4 -> 70.7 (the embedding leads more often), the coding sets unchanged; rare exact terms anchor through `exact_anchor` instead.")
    anchor_max_df: int = Field(0, ge=0, le=100, description="Any query word (not only an exact term) that at least one and at most this many memories hold anchors its text: the rules that let the embedding lead are skipped. 0 = off: at 3, coding set 2 R@5 91.2 -> 87.5 and set 1 86.1 -> 84.0 (a rare prose word is no evidence the way a code is), LoCoMo dev unchanged.")
    unanchored_dense_weight: float = Field(0.8, ge=0.0, le=1.0, description="Dense weight (BM25 gets the rest) for a query whose best lexical match is semantically unrelated or whose words memory mostly lacks.")
    rrf_k: int = Field(60, ge=1, description="RRF constant K: score = w / (K + rank).")
    expansion: bool = Field(True, description="BM25 also looks for the memory words nearest in meaning to the query's words (`embed/vocabulary.py`).")
    expansion_floor: float = Field(0.6, ge=0.0, le=1.0, description="Least cosine between a query word and a memory word it expands to (MiniLM: 'career'~'jobs' 0.75, 'career'~'skills' 0.58).")
    expansion_terms: int = Field(3, ge=0, le=20, description="At most this many memory words per query word.")
    expansion_weight: float = Field(0.5, ge=0.0, le=1.0, description="Weight of an expansion word times its cosine; the query's own words weigh 1.")

    # -- neighbours in time (same session, adjacent created_at)
    propagation: bool = Field(True, description="A memory inherits part of its neighbours' relevance (answers follow questions). A tool-run record or chatter line neither gives a share nor takes one, so a dream that puts one to sleep moves no other memory's score.")
    propagate_top: int = Field(30, ge=1, le=200, description="Neighbours are looked up for this many top candidates.")
    answer_weight: float = Field(0.5, ge=0, description="Share of the previous memory's relevance when that memory asks a question.")
    follow_weight: float = Field(0.1, ge=0, description="Share of the previous memory's relevance otherwise.")
    lead_weight: float = Field(0.2, ge=0, description="Share of the next memory's relevance.")
    context_neighbours: bool = Field(False, description="Also return the neighbours of the top hits, marked context_of.")
    context_hits: int = Field(3, ge=0, description="How many top hits get their neighbours attached.")

    # -- re-scoring and diversification
    composite: bool = Field(True, description="Add entity/session/temporal/activation/importance/utility boosts.")
    coactivation_boost: float = Field(0.0, ge=0, le=1, description=(
        "Hebbian co-activation in the read path: a candidate wired to one of the top 3 hits by recalls together "
        "(a `related_to` relation the dream strengthened) has its score raised by this x the relation's weight "
        "(relative). 0 = off (the default: the coding sets hold no recall history to measure it on)."))
    weights: CompositeWeights = Field(CompositeWeights(), description="The composite re-score's boosts.")
    mmr: bool = Field(False, description="MMR diversity re-rank (measured -0.3 R@10 on LoCoMo: off by default).")
    mmr_lambda: float = Field(0.7, ge=0.0, le=1.0, description="MMR trade-off: 1 = relevance only.")
    mmr_pool: int = Field(40, ge=1, le=500, description="Top candidates MMR chooses from.")
    dedupe_above: float = Field(1.0, ge=0.0, le=1.0, description="Drop a result whose cosine to a better one is above this; 1 = off (the write path already merges near-duplicates).")
    min_score: float = Field(0.0, ge=0.0, description="Drop results whose final score is below this.")

    # -- what stays current and what is exact
    exact_floor: bool = Field(True, description="Rare exact terms (`engine/retrieval/stages/exact.py`): a memory holding verbatim a term the query quotes or writes like code (error code, flag, path, env var, config key, identifier, number of 3+ digits) that at most `exact_max_df` memories hold ranks at least as high as BM25 alone ranks it among the candidates — the embedding, the boosts, neighbours and a compound question's parts never push it below.")
    exact_anchor: bool = Field(True, description="A searched text with a rare exact term that a candidate holds keeps BM25's weight: the rules that let the embedding lead (`agreement_floor`, `vocabulary_floor`) are skipped for it, as for a text that names code.")
    decision_boost: float = Field(1.25, ge=1.0, le=3.0, description="Relevance factor for decisions when the question asks what was decided ('what did we decide about X', 'which database did we choose'; `engine/retrieval/stages/asked_kind.py`): facts about the same component otherwise outrank the decision on the shared name alone. 1 = off.")
    store_boost: float = Field(1.25, ge=1.0, le=3.0, description="Relevance factor for memories naming a datastore product (the observer's `service:` entities of `asked_kind.DATASTORES`: Postgres, Redis, Kafka, S3, ...) when the question asks which datastore or database something uses or where it keeps its data ('which database does the storefront use?'): the embedding ranks 'cdn-purger keeps its state in Kafka.' below the component's port and connection-string lines for such a question. 1 = off.")
    rule_boost: float = Field(1.25, ge=1.0, le=3.0, description="Relevance factor for conventions and preferences when the question asks what one should do or what the convention is ('how should services log?', 'are we allowed to push to main?'; `engine/retrieval/stages/asked_kind.py`): a fact naming the same component otherwise outranks the rule, whose wording rarely repeats the question's. 1 = off.")
    chatter_weight: float = Field(0.5, ge=0.0, le=1.0, description="Relevance factor for chatter (lines of conversation the observer flagged as carrying no knowledge: 'ok, thanks', 'X asked whether Y is affected'; `engine/retrieval/stages/records.py`), unless the question asks who said or asked what: a remark that names a component must not crowd out what is known about it. 1 = off.")
    routine_run_weight: float = Field(0.5, ge=0.0, le=1.0, description="Relevance factor for routine tool runs (`engine/retrieval/stages/records.py`: tool events recording a command that succeeded, or a file read, when another candidate records the same success), unless the question asks about runs ('when did we last run', 'did the build pass'): the same build passing again and again must not crowd out the knowledge about it. Failed runs, edits and runs recorded once keep their relevance; 1 = off.")
    record_weight: float = Field(0.8, ge=0.0, le=1.0, description="Relevance factor for the other tool-run records (a failed run, a coverage report, a run recorded once; `engine/retrieval/stages/records.py`), unless the question asks about runs: a record says what ran, not what is known, and must not take the last of the top places from knowledge about the same component. 1 = off.")
    record_share: float = Field(0.4, ge=0.0, le=1.0, description="Most share of the first places tool-run records may take, in each prefix of the results (rounded up: one of the first two, two of the first five, four of the first ten), unless the question asks about runs (`engine/retrieval/stages/records.py`): a component's commits, pipeline runs and coverage reports all hold its name and, however weighed, filled four of a top 5 in a year-long store, leaving one place for what is known about it. A record past the share follows the best knowledge candidate below it. 1 = off.")
    exact_max_df: int = Field(3, ge=1, le=100, description="Most memories (under the search's filter) that may hold a term for it to count as rare.")
    resolution: bool = Field(True, description="Read-time resolution: a top result the write gate flagged maybe_outdated_by a newer memory (that statement said something changed about it) is marked outdated_by it and the newer one is put just above it (brought in if the search missed it), never dropped; only when the two are still similar (resolution_floor), not about another environment or component, the newer one does not name as replaced an alternative the older one never mentions ('instead of #team-x' beside a database statement), and the newer one answers the query about as well (resolution_relevance).")
    resolution_otherwise: bool = Field(True, description="Read-time resolution also of a result the write gate marked said_otherwise_by a newer memory (much the same thing, another value, no word of change: a candidate offered to the agent), with the same guards, only when the search found the newer one too (it is never brought in), the query shares a word with it and not only a name (`statements.asks_in_words`), and the query does not name more of what only the older one holds than of what only the newer one holds (`statements.asks_for_older`: 'how are Eastgate's kiosks locked down?' asks about the older statement, not about Northfield's beside it).")
    resolution_hints: bool = Field(True, description="Read-time resolution: where the write gate linked a result to a later one (maybe_outdated_by, said_otherwise_by) and both are shown, but the query's wording kept their order (it names what only the older one holds), the older one carries said_otherwise_by the later one when the later one answers the query about as well (resolution_relevance), and the reader judges. Never for a later one about another environment or component, or telling a change of something the older one never mentions.")
    resolution_window: int = Field(10, ge=2, le=50, description="How many top results are resolved (at least the limit).")
    history_candidates: int = Field(20, ge=0, le=200, description="Successors (`engine/retrieval/stages/successors.py`): this many superseded or dormant memories that match the query are looked up, and the current memory that replaced each one (the one that superseded it, to the end of the chain, or the newer one a dormant memory was flagged maybe_outdated_by) ranks at least as high as the old statement would; the old one is never shown. 0 = off.")
    history_floor: float = Field(1.0, ge=0.0, le=2.0, description="Successors: a superseded or dormant memory leads to the one that replaced it only when its query cosine is at least this share of the best current candidate's (its relevance, when the dense signal is off): no current memory is closer to what the question asks. On set 2 of the update benchmark the old statements of changed facts asked about were 1.06-2.3 times as close as the best current memory; those lifted for look-alike questions or by the component's name alone 0.78-0.92, and in the year such lifts cost R@5 at 5 checkpoints at a floor on relevance.")
    resolution_otherwise_cued: float = Field(0.5, ge=0.0, le=1.01, description="With resolution_otherwise: a newer memory that says something changed (a change cue at least this strong in its own words or in the whole statement it was split from: 'now', 'instead', 'no longer', 'moved off', 'still gets a copy'; `Statement.change`) leads even when the query names more of what only the older one holds (`statements.asks_for_older`), needs no resolution_floor (the link was made at the gate's offer_at cosine) and answers the query well enough at resolution_cued_relevance. A question about a changed fact is usually worded as the fact was first written; a look-alike beside it (another environment, a sibling, a second setting) rarely says it changed anything. Over the texts of update sets 1-4, of the pairs asks_for_older held back (and `conflict` did not), 91 of 176 updates carry such a cue and 4 of 133 look-alikes. Update sets 2-4 (default): stale above current 46.2/30.0/38.0 -> 45.2/26.7/35.9 with the floor and relevance relaxed, for one look-alike question. 1.01 = off.")
    resolution_cued_relevance: float = Field(0.5, ge=0.0, le=1.0, description="resolution_relevance for a newer memory that says something changed (resolution_otherwise_cued). On update sets 1-4, 0.6 / 0.5 / 0.4: stale above current 46.2, 30.0 / 45.2, 26.7 / 44.1, 26.7 on sets 2 and 3; look-alike R@1 of set 1 86.9 / 86.2 / 85.5, of set 2 87.2 / 87.2 / 86.5.")
    history_likeness: float = Field(0.2, ge=0.0, le=1.0, description="Successors: least cosine between an old statement and the memory found to have replaced it (MiniLM's level for unrelated text), so that a wrong supersede, or a chain of them ending in another component's line, lifts nothing. The agent's true supersedes in update set 2 were 0.27 and more alike; a chain in the year from an ownership line to another component's port check 0.10. `resolution_floor` (0.45) would have lost a fifth of the agent's true supersedes.")
    history_stop_yields: bool = Field(True, description="Successors: one whose first sentence says the old thing was switched off, stopped or removed (`statements.leads_with_switch_off`; not 'now runs as X. The previous DAG is paused') is put just below the best ranked later memory about what the old statement said (written after it, cosine to the old statement at least `resolution_floor`), such as the workflow that replaced the one switched off, when it stood above all of them: the newer leads, nothing is dropped. Without it, a switch-off line found through the old workflow's words ranked above its replacement on update sets 1, 2, 3 and 5.")
    resolution_floor: float = Field(0.45, ge=0.0, le=1.0, description="Least cosine between two results for one to outdate the other.")
    resolution_relevance: float = Field(0.6, ge=0.0, le=1.0, description="Unless the rules are sure the newer memory replaces the older one, its query cosine must be at least this share of the older one's: a look-alike the query is not about scores lower.")
    resolution_compare: bool = Field(False, description="Also compare the top results with each other by the write gate's rules (pairs the gate never compared: imported memories, or not neighbours when written). Off: on the coding sets (all memories current) it marked current ones outdated and cost about 5 points of R@1; on the knowledge-update benchmark it did no better than the flags alone.")
    resolution_uncued: bool = Field(False, description="With resolution_compare: also resolve two results with no change cue and no sure rule that are about the same thing and give different values (the later holds). Off: it marks second settings and siblings.")
    resolution_about: float = Field(0.5, ge=0.0, le=1.0, description="With resolution_uncued: least aboutness (shared subject, or cosine mapped 0.35-0.7 -> 0-1).")
    resolution_same: float = Field(1.0, ge=0.0, le=1.0, description="With resolution_uncued, experimental: two results at least this similar count as the same thing changed even with no value told apart (1 = off).")


DEFAULT = RetrievalConfig()
#: Dense and BM25 fused by plain RRF (K=60), nothing else: the naive hybrid baseline.
PLAIN_RRF = RetrievalConfig(
    fusion="rrf", dense_weight=1.0, sparse_weight=1.0, candidates=50, propagation=False, composite=False,
    decomposition=False, temporal=False, dedupe_above=1.0, intent_routing=False, expansion=False,
    resolution=False, exact_floor=False, exact_anchor=False, routine_run_weight=1.0, chatter_weight=1.0, decision_boost=1.0, record_weight=1.0,
    record_share=1.0, rule_boost=1.0, store_boost=1.0,
)
BM25_ONLY = PLAIN_RRF.model_copy(update={"use_dense": False})
DENSE_ONLY = PLAIN_RRF.model_copy(update={"use_sparse": False})
#: The seed's intent router table on top of the default pipeline.
SEED_ROUTER = DEFAULT.model_copy(update={"intent_routing": True, "intent_profiles": SEED_INTENT_PROFILES})
#: Fastest useful path: one hybrid store query, no neighbour lookups, no re-scoring.
FAST = DEFAULT.model_copy(update={"propagation": False, "composite": False, "decomposition": False})

RECIPES: dict[str, RetrievalConfig] = {
    "default": DEFAULT, "plain_rrf": PLAIN_RRF, "bm25_only": BM25_ONLY, "dense_only": DENSE_ONLY,
    "seed_router": SEED_ROUTER, "fast": FAST,
}
