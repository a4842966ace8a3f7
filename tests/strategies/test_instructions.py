"""What every strategy's instructions tell the agent about changes: the agent is the judge where
the write gate's rules are unsure (issue 12: they catch only part of the ways a change is written)."""

from __future__ import annotations

import pytest

from mnemex.strategies import strategy_for


@pytest.mark.parametrize("name", ["context", "tool_based", "self_editing"])
def test_every_strategy_says_to_find_the_old_statement_and_pass_supersedes(name):
    text = strategy_for(name).instructions()
    assert "search_memory for the old statement" in text and "supersedes" in text
    assert "memorize lists candidates" in text  # what to do with the gate's unsure cases
