"""A question asking which datastore something uses favours the memory naming one, on the real
stack (the observer's entities, the real embedding and BM25)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from mnemex.config.retrieval import DEFAULT
from mnemex.engine.retrieval.stages.asked_kind import asks_for_store
from tests.helpers import remember

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
NOW = T0 + timedelta(days=30)


def test_which_datastore_questions_are_told_from_other_questions_about_databases():
    for asked in ("What datastore does cdn-purger use?", "Which database does the storefront use?",
                  "Where does ledger-service store its data?", "what DB is billing on?"):
        assert asks_for_store(asked), asked
    for other in ("What is the database connection string env var?", "Which queue does GradeExport run on?",
                  "Which store did Caroline visit?", "Which database version does prod run?",
                  "Where does Melanie keep her paintings?"):
        assert not asks_for_store(other), other


def test_a_question_asking_which_datastore_favours_the_memory_naming_one(engine):
    """The embedding ranks "keeps its state in Kafka" below the component's port, language and
    connection-string lines for "what datastore"; naming a datastore product is what answers it."""
    around = ("The cdn-purger service runs on port 7139 in dev and staging.",
              "cdn-purger is written in Rust.",
              "cdn-purger reads its database connection string from the DATABASE_URL environment variable.",
              "cdn-purger is built on the python:3.11-slim-bookworm base image.",
              "To deploy cdn-purger, run `make deploy-cdn-purger` from the repo root.",
              "cdn-purger needs DATABASE_URL set or it refuses to start.")
    for i, text in enumerate(around):
        remember(engine, text, created_at=T0 + timedelta(days=i))
    answer = remember(engine, "cdn-purger keeps its state in Kafka.", created_at=T0 + timedelta(days=7))
    query = "What datastore does cdn-purger use?"
    flat = [r.memory.id for r in engine.search(query, limit=5, now=NOW,
                                                config=DEFAULT.model_copy(update={"store_boost": 1.0}))]
    got = engine.search(query, limit=5, now=NOW)
    assert got[0].memory.id == answer.id and "names a datastore, asked for" in got[0].why
    assert flat[0] != answer.id  # the counterfactual: without the boost another line of cdn-purger leads
    other = engine.search("Which port does cdn-purger run on?", limit=5, now=NOW)
    assert all("names a datastore, asked for" not in r.why for r in other)
