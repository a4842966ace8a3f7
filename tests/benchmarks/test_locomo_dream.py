"""benchmarks/locomo_dream.py: which questions a dream moved, by conversation and text."""

from __future__ import annotations

from benchmarks.locomo_dream import moved, summary


def _row(conv: str, question: str, r5: float, r10: float, mrr: float) -> dict:
    return {"conv": conv, "question": question, "recall@5": r5, "recall@10": r10, "mrr": mrr}


def test_only_the_questions_whose_metrics_differ_are_moved() -> None:
    without = [_row("c1", "when?", 1.0, 1.0, 1.0), _row("c1", "who?", 0.0, 1.0, 0.2), _row("c2", "when?", 0.5, 0.5, 0.5)]
    dream = [_row("c2", "when?", 0.5, 0.5, 0.5), _row("c1", "who?", 0.0, 0.0, 0.0), _row("c1", "when?", 1.0, 1.0, 1.0)]
    changed = moved(without, dream)
    assert [(b["conv"], b["question"], a["recall@10"]) for b, a in changed] == [("c1", "who?", 0.0)]
    assert moved(without, without) == []
    assert moved(without, dream[:1])[0][1] == {}  # a question the other run lacks counts as moved
    assert summary(without) == "50.0 / 83.3 / 56.7"
