"""Statements compared: what a statement is about, which values it asserts or leaves behind,
and whether a later statement replaces or restates an earlier one. Pure functions of text
(they read only `models` and `config`), shared by the write path's gate and the read path's
resolution so both agree on what "the same subject" and "a changed value" mean."""

from mnemex.engine.statements.apart import conflict
from mnemex.engine.statements.compare import (
    DEFAULT_THRESHOLDS,
    Relation,
    Thresholds,
    Verdict,
    adds_nothing,
    asks_for_older,
    asks_in_words,
    swaps_words,
    compare,
    evidence,
    holds_all,
    tells_other_change,
)
from mnemex.engine.statements.reading import Statement, leads_with_switch_off, read

#: Metadata keys the write path sets and the read path reads: on a new memory, the ids of the
#: memories it may replace; on an older one, the id of the newer memory that may make it outdated.
MAY_REPLACE = "may_replace"
MAYBE_OUTDATED_BY = "maybe_outdated_by"
#: On an older memory: the ids of the newer memories about much the same thing that gave another
#: value without saying anything changed (the gate offered each as a possible replacement, uncued),
#: the `SAID_OTHERWISE_KEPT` most alike of them (their cosines under `SAID_OTHERWISE_SIMS`, in the
#: same order), oldest first.
SAID_OTHERWISE_BY = "said_otherwise_by"
SAID_OTHERWISE_SIMS = "said_otherwise_sims"
SAID_OTHERWISE_KEPT = 4
#: On a memory kept as one atom of a compound statement: the statement as it was said (its first
#: 200 characters), so a reader can still see the change cue another atom carried.
ATOM_OF = "atom_of"


def said_otherwise(metadata: dict) -> list[str]:
    """The ids a memory's metadata holds under `SAID_OTHERWISE_BY`, oldest first (nothing else)."""
    held = metadata.get(SAID_OTHERWISE_BY)
    return [i for i in held if isinstance(i, str)] if isinstance(held, list) else []


__all__ = ["ATOM_OF", "DEFAULT_THRESHOLDS", "MAY_REPLACE", "MAYBE_OUTDATED_BY", "Relation", "SAID_OTHERWISE_BY", "SAID_OTHERWISE_KEPT", "SAID_OTHERWISE_SIMS", "Statement", "Thresholds", "Verdict", "adds_nothing", "asks_for_older", "asks_in_words", "compare", "conflict", "evidence", "holds_all", "leads_with_switch_off", "read", "said_otherwise", "swaps_words", "tells_other_change"]
