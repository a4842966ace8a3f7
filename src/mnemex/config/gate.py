"""The prediction-error gate's bands and rules (seed 001), as configuration.

Similarity bands are cosines of a new statement to its nearest current neighbours in the same
scope; see `engine/write/prediction_gate.py` for how they are applied, and
`engine/statements/compare.py` for the subject rules that decide a supersede.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from mnemex.config.base import Frozen
from mnemex.config.judge import JudgeConfig


class GateConfig(Frozen):
    """The prediction-error gate: what a new statement does to its nearest stored neighbours (seed 001)."""

    reinforce_at: float = Field(0.92, ge=0, le=1, description="At or above, and adding no value, name or negation: near-identical, the neighbour is reinforced.")
    update_at: float = Field(0.75, ge=0, le=1, description="At or above (and below reinforce_at): overlapping, merged into the neighbour when it repeats most of it.")
    gap_low: float = Field(0.70, ge=0, le=1, description="From here up to update_at: borderline; skipped when of low importance and it adds nothing the neighbour lacks.")
    gap_min_importance: float = Field(0.5, ge=0, le=1, description="Borderline statements at least this important are stored anyway.")
    update_coverage: float = Field(0.75, ge=0, le=1, description="Share of the old text's content words the new one must hold to merge into it.")

    rules: Literal["subject", "seed"] = Field("subject", description=(
        "How a conflict is recognised. subject: what the two statements are about (shared code names, paths, "
        "entities, the component or setting) and change cues, the old value named as left behind "
        "(`engine/statements`); seed: the first rules (shared-word share plus a changed value, negation flip or "
        "'switched to'; `SEED_GATE`)."))
    compare_floor: float = Field(0.3, ge=0, le=1, description="subject rules: neighbours less similar than this are compared only when they share a name or a rare word with the new statement.")
    lexical_neighbours: int = Field(5, ge=0, le=50, description="subject rules: the new statement is also compared with this many BM25 neighbours (real updates change the wording; shared code names still find the old statement).")
    left_behind: float = Field(0.3, ge=0, le=1, description="subject rules: least aboutness (shared subject, or the cosine mapped 0.35-0.7 -> 0-1) when the new statement names the old value as left behind ('instead of X', 'replaced X with', 'X is deprecated').")
    left_similarity: float = Field(0.35, ge=0, le=1, description="subject rules: ... and least cosine for it.")
    named_again: float = Field(0.25, ge=0, le=1, description="subject rules: least aboutness when the new statement names the old statement's value again beside a new value of the same kind, with a change cue ('moved to 8600 because 8000 clashes'); the same least cosine as left_similarity.")
    same_head: float = Field(0.35, ge=0, le=1, description="subject rules: least cosine when the new statement's subject (the words before its first verb) is something the old statement is about and it says, with a change cue, that a name of it was swapped for one of its kind or a value changed ('Bundling moved to Vite' after 'The extension is bundled with webpack'); the subject is then the same thing however much the rest is reworded.")
    min_similarity: float = Field(0.45, ge=0, le=1, description="subject rules: least cosine for a change cue to count; farther, the new statement is about something else.")
    strong_cue_change: float = Field(0.35, ge=0, le=1, description="subject rules: least aboutness for a changed value with a change verb ('moved to', 'bumped', 'upgraded', 'renamed'), or a name swapped for one of its kind with a strong cue ('moved to', 'renamed', 'switched', 'no longer').")
    cued_change: float = Field(0.5, ge=0, le=1, description="subject rules: the same with a weaker cue ('now', 'as of today').")
    parallel: float = Field(0.7, ge=0, le=1, description="subject rules: least shared subject, both ways, for a changed value without any cue ('X is 8080' -> 'X is 9090').")
    negation: float = Field(0.7, ge=0, le=1, description="subject rules: least shared subject for a negation flip without a cue.")
    maybe: float = Field(0.4, ge=0, le=1, description="subject rules: least aboutness for a possible replacement, reported to the caller as a candidate.")
    off_similarity: float = Field(0.25, ge=0, le=1, description="subject rules: least cosine when the new statement says a job, workflow or habit the old statement describes, by its name or all the words of what it does, was switched off, disabled, removed or stopped ('no more X', 'stop X') ('validate-registry is turned off for now' after 'the `validate-registry` job checks ... on every pull request'): the name is the evidence, the rest moves on to why. Never for what the thing is (owned by, written in) or for places the switch-off does not name.")
    restate_at: float = Field(0.6, ge=0, le=1, description="subject rules: least similarity for a restatement (no new value, name or negation) to reinforce the memory it restates.")
    offer_at: float = Field(0.30, ge=0, le=1, description="subject rules: least cosine for a neighbour the rules see no change of, but which the new statement gives another value, name or polarity than, to be reported to the caller as a candidate it may replace (the agent judges). 0.30 (0.35 until the thirty-third session, 0.45 until the twenty-fourth): an agent judging the offers supersedes 83-96% of the updates of the five update sets instead of 79-94%, with 1.2-1.6 candidates per write instead of 0.9-1.3; on the sixth set, written blind, 85.8% instead of 84.0% (benchmarks/RESULTS.md). 1 = off.")
    offer_cued_at: float = Field(0.40, ge=0, le=1, description="subject rules: least cosine for a neighbour the rules see no change of, and the new statement gives no other value or name than, to be still offered to the caller when the new statement says something changed ('moved to', 'instead', 'switched', 'now'): 'Backups moved to object storage in another region' of 'Nightly backups are copied to the shared NAS'. 0.40: an agent judging the offers supersedes 87-90% of the updates of sets 2-7 instead of 83-90%, stale above current 3.3-9.7% instead of 5.4-10.8%, offers per write up by at most 0.03 (benchmarks/RESULTS.md, thirty-fifth session). Such an offer only reaches the caller: it never marks the older memory said_otherwise_by (marked, it put look-alikes under 'After a PLC firmware update, ...' at read time). 1 = off.")
    offer_strong_cue_at: float = Field(0.20, ge=0, le=1, description="subject rules: least cosine for a neighbour under offer_at, found by BM25 (it shares a name or a rare word), to be still offered to the caller when the new statement says outright that something changed (a cue of 0.9 or more: 'replaced', 'switched', 'no longer', 'instead of', 'renamed', 'moved to'): 'Ruff replaced both linters on the backend' of 'The Python backend is linted with flake8 plus isort' (0.26), or when the neighbour says a practice stopped or waits and the new statement says nothing stopped ('Holds are released by a scheduled job per hold' of 'We turned off the cron hold sweeper'). Such an offer only reaches the caller and marks nothing. 0.20: an agent judging the offers supersedes 89.0/89.4% of the updates of sets 2/5 instead of 88.0/88.5%, the other sets unchanged, offers per write up by at most 0.03 (benchmarks/RESULTS.md, thirty-sixth session). 1 = off.")
    offer_near_at: float = Field(0.60, ge=0, le=1, description="subject rules: least cosine for a neighbour the rules see no change of, no other value, name or word of change in, to be still offered to the caller when the new statement has words of its own (not `holds_all`): much the same thing in other words is an update stated plainly or a reminder, which only the agent can tell apart ('Filter cartridge spares live in the cupboard beside the loading bay' of '... kept in the basement storeroom'). Such an offer only reaches the caller and marks nothing. 0.60: an agent judging the offers supersedes 93.1/91.3/90.6/89.5/85.0% of the updates of sets 4-8 instead of 91.1/89.4/89.6/87.7/84.1%, stale above current 2.2/4.2/3.1/3.0% on sets 4-7 instead of 3.3/6.2/4.2/4.0%, sets 1-3 and 9 unchanged, offers per write up by at most 0.02 (benchmarks/RESULTS.md, thirty-seventh session); 0.50 offered look-alike rules of one another ('CI must be green before a pull request is merged' of 'Pull requests need one approving review', 0.59). 1 = off.")
    mark_otherwise_at: float = Field(0.35, ge=0, le=1, description="subject rules: least cosine for a neighbour offered at offer_at to be also marked said_otherwise_by the new statement, which read-time resolution weighs against the query; below it the offer only reaches the caller. 0.35: marking the offers from 0.30 up left the update sets' read figures within a point and marked a few more look-alike answers (benchmarks/RESULTS.md). 1 = never marked.")
    max_candidates: int = Field(3, ge=0, le=10, description="Most possible replacements reported with a write (one more when the nearest ones all mark and a stop said earlier qualifies: see offer_strong_cue_at).")
    judge: JudgeConfig = Field(JudgeConfig(), description=(
        "An optional language model asked about the possible replacements the rules were unsure of (off by default)."))

    conflict_at: float = Field(0.62, ge=0, le=1, description="seed rules: at or above, a changed value about the same subject supersedes the neighbour.")
    correction_at: float = Field(0.50, ge=0, le=1, description="seed rules: the conflict threshold for statements classified as corrections.")
    same_subject: float = Field(0.7, ge=0, le=1, description="seed rules: share of the old statement's non-value words the new one must repeat for a value change.")
    switch_subject: float = Field(0.5, ge=0, le=1, description="seed rules: the same share for 'switched to' / 'instead of' statements.")


DEFAULT_GATE = GateConfig()
#: The first gate (issue 3): shared-word share 0.7 plus a changed value, negation flip or "switched to"; dense
#: neighbours only; the 0.70-0.75 band skipped whatever it held. On the held-out coding histories it superseded
#: 1 update of 28 (see benchmarks/RESULTS.md, "Knowledge that stays current"); kept to measure against.
SEED_GATE = GateConfig(rules="seed", lexical_neighbours=0)
