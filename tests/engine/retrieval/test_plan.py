"""The query plan: what the query names, read once."""

from __future__ import annotations

from mnemex.engine.retrieval.plan import query_entities


def test_query_entities_names_identifiers_paths_codes():
    ents = query_entities("What did Alice say about src/app/config.py and parseConfig (E1101)?")
    assert {"alice", "src/app/config.py", "parseconfig", "e1101"} <= ents
    assert "what" not in ents
