"""The read path never loses an exact term: a memory holding a rare code, flag, path or quoted
phrase of the question ranks at least where plain BM25 puts it, and routine tool runs do not
crowd out the knowledge about the command they ran."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from mnemex.config.retrieval import BM25_ONLY, DEFAULT
from mnemex.engine.retrieval.candidates import Candidate
from mnemex.engine.retrieval.query import asks_about_runs
from mnemex.engine.retrieval.query.exact import ExactTerm, exact_terms, holds
from mnemex.engine.retrieval.stages.exact import exact_floor
from mnemex.engine.statements.runs import run_key
from mnemex.models import Memory, MemoryKind, Provenance, Scope
from mnemex.store.base import Hit

NOW = datetime(2026, 9, 1, tzinfo=timezone.utc)


# ------------------------------------------------------------------ reading the query
def test_exact_terms_are_what_the_query_quotes_or_writes_like_code():
    texts = lambda q: [t.text for t in exact_terms(q)]  # noqa: E731
    assert texts("what does ERR-PAY-4021 mean and how do we fix it?") == ["ERR-PAY-4021"]
    assert texts('we got "connection reset by peer during handshake" again') == ["connection reset by peer during handshake"]
    assert exact_terms('we got "connection reset" again')[0].phrase
    assert texts("is it ok to pass --skip-fraud-scoring or -PskipContract?") == ["--skip-fraud-scoring", "-PskipContract"]
    assert texts("E0502 in the planner, 40P01 under load, P2002 on signup") == ["E0502", "40P01", "P2002"]
    assert texts("what belongs in dags/_shared/sensors.py?") == ["dags/_shared/sensors.py"]
    assert texts("what is AIRFLOW__CORE__PARALLELISM and spark.sql.shuffle.partitions") == [
        "AIRFLOW__CORE__PARALLELISM", "spark.sql.shuffle.partitions"]
    assert texts("the cronjob died with exit code 137") == ["137"]
    # a name led by capitals is written like code; a plural acronym is not
    assert texts("which FPort do the sensors uplink on, and which JUnit do we pin?") == ["FPort", "JUnit"]
    assert texts("do the IDEs and the APIs agree?") == []
    # prose, years, quantities, ordinals, plural acronyms and contractions are no exact terms
    for prose in ("When did Caroline go to the support group in 2022?", "It's Jon's 3rd trip at 10am, 64GB",
                  "a follow-up on the long-term plan", "it took 1.5 hours", "are the URLs right?", "what's wrong?"):
        assert exact_terms(prose) == (), prose


def test_holds_means_verbatim_not_a_near_miss():
    code = ExactTerm("ERR-PAY-4021")
    assert holds(code, "ERR-PAY-4021 is raised by the settlement job")
    assert not holds(code, "ERR-PAY-4012 means the card token expired")
    assert not holds(ExactTerm("137"), "took 137.5 s; build 1370")
    assert holds(ExactTerm("137"), "it died with exit code 137.")
    # a code name also in another case style; a phrase across line breaks and case
    assert holds(ExactTerm("poll_carrier_status"), "pollCarrierStatus() polls every carrier")
    assert holds(ExactTerm("Manifest checksum does not match", phrase=True), "stops with 'manifest checksum\ndoes not match remote'")
    assert not holds(ExactTerm("checksum mismatch", phrase=True), "the checksum does not match")


def test_the_floor_lifts_a_holder_to_its_bm25_rank_and_leaves_the_rest_in_order():
    def cand(key: str, bm25: float) -> Candidate:
        return Candidate(hit=Hit(key, 0.0, {"content": key}), bm25=bm25)

    cands = {k: cand(k, b) for k, b in (("a", 2.0), ("b", 1.0), ("c", 0.0), ("holder", 9.0), ("d", 3.0))}
    term = ExactTerm("X-1")
    for rel, key in enumerate(("d", "c", "b", "a")):
        cands[key].relevance = float(rel + 1)
    assert exact_floor(["a", "b", "c", "d", "holder"], cands, {"holder": [term]}) == ["holder", "a", "b", "c", "d"]
    assert cands["holder"].relevance == cands["a"].relevance  # scores still fall down the list
    # already above its BM25 rank: untouched
    assert exact_floor(["d", "holder", "a"], cands, {"d": [term]}) == ["d", "holder", "a"]
    assert "exact:X-1" in cands["holder"].why


def test_routine_runs_are_repeated_successes_and_questions_about_runs_are_told_apart():
    def event(text: str, **fields) -> Memory:
        return Memory(id="e", content=text, kind=MemoryKind.TOOL_EVENT, **fields)

    assert run_key(event("Ran `make build` → exit 0 in 41.3 s")) == "make build"
    assert run_key(event("ran `pytest -q tests/dags`: 86 passed, 0 failed in 14.3 s")) == "pytest -q tests/dags"
    assert run_key(event("Read src/app/config.py")) == "src/app/config.py"
    for failed in ("Ran `make build` → exit 2 in 12.8 s; error: spotlessJavaCheck FAILED",
                   "ran `pytest`: 3 failed, 20 passed", "Edited src/a.py: `x = 1` → `x = 2`"):
        assert run_key(event(failed)) is None, failed
    assert run_key(event("Ran `make build` → exit 0", tags=("failed",))) is None
    assert run_key(Memory(id="f", content="Ran `make build` → exit 0", kind=MemoryKind.FACT)) is None
    # free text from a client or a script: the same wording with its run numbers, versions and hashes masked
    ci = run_key(event("CI pipeline #89331 for shipping-quotes: passed"))
    assert ci == run_key(event("CI pipeline #58204 for shipping-quotes: passed")) is not None
    assert ci != run_key(event("CI pipeline #58204 for cart-service: passed"))
    assert run_key(event("docker build cart-service:3.12.3 finished in 292s, image 690 MB")) == run_key(
        event("docker build cart-service:1.0.7 finished in 326s, image 198 MB"))
    assert run_key(event("deployed i18n-service v2.3.1 to prod at 14:02")) != run_key(
        event("deployed i28n-service v2.3.1 to prod at 14:02"))  # a digit inside a name is part of it
    assert run_key(event("git commit 340df92 on main: refactor config in orders-service")) != run_key(
        event("git commit 9a1be07 on main: tidy models in orders-service"))  # another change, another message
    assert run_key(event("CI pipeline #19633 for email-relay: failed at unit stage")) is None
    assert run_key(event("build ok 12")) is None  # too little wording to tell one run from another
    assert asks_about_runs("when did we last run the migration?") and asks_about_runs("did the build pass?")
    assert not asks_about_runs("what does `make build` check before I push?")
    # "runs" as a noun asks about runs; as a verb it asks what does a job
    for about in ("how many runs failed this week?", "show the last runs of the migration", "did the nightly runs pass?",
                  "which commit added the retry?", "who committed the lockfile?"):
        assert asks_about_runs(about), about
    for knowledge in ("What CI system runs the pipelines?", "which service runs on port 8080?",
                      "where does the importer run?", "What is the commit message style?"):
        assert not asks_about_runs(knowledge), knowledge


# ------------------------------------------------------------------ with the real engine
def _memories(project: str, rows: list[tuple[str, MemoryKind, int, str]]) -> list[Memory]:
    """(key, kind, minutes before NOW, content) -> memories of one session, in time order."""
    out = []
    for key, kind, minutes, content in rows:
        at = NOW - timedelta(minutes=minutes)
        out.append(Memory(id=key, content=content, kind=kind, scope=Scope.PROJECT, project=project,
                          provenance=Provenance(source="test", session_id="s1"),
                          created_at=at, recorded_at=at, valid_from=at))
    return out


def _ids(n: int) -> list[str]:
    return [f"00000000-0000-4000-8000-{i:012d}" for i in range(n)]


@pytest.fixture
def payments(engine):
    """A payments project: two near-miss error codes among memories about settlement, fixes and
    the vault, told in one session (neighbours in time share relevance)."""
    ids = _ids(9)
    rows = [
        (ids[0], MemoryKind.FACT, 90, "Settlement mismatches between acquirer batch totals and the ledger are reviewed by finance every Monday."),
        (ids[1], MemoryKind.FACT, 80, "ERR-VAULT-0007 from the token vault means the HSM session pool is exhausted; restart the vault-proxy pod."),
        (ids[2], MemoryKind.FACT, 79, "The real fix for the vault, a bigger pool, is tracked in PAY-881."),
        (ids[3], MemoryKind.FACT, 70, "ERR-PAY-4021 is raised by the settlement job when the acquirer's batch total does not match our ledger sum."),
        (ids[4], MemoryKind.FACT, 60, "ERR-PAY-4012 means the card token expired before capture; checkout retries once with a fresh token."),
        (ids[5], MemoryKind.DECISION, 50, "We fix settlement problems by rerunning the reconcile job after finance confirms the numbers."),
        (ids[6], MemoryKind.FACT, 40, "How we fix a failed payout: re-queue it from the admin page, never by hand in the database."),
        (ids[7], MemoryKind.FACT, 30, "The acquirer's corrected settlement file lands in the SFTP inbox the next morning."),
        (ids[8], MemoryKind.FACT, 20, "Fix flaky checkout tests by resetting the sandbox acquirer before each run."),
    ]
    engine.import_memories(_memories("/work/proj", rows))
    return ids


def _rank(engine, query: str, want: str, config=DEFAULT) -> int | None:
    got = [r.memory.id for r in engine.search(query, limit=10, now=NOW, config=config)]
    return got.index(want) if want in got else None


def test_a_quoted_error_code_ranks_at_least_where_bm25_puts_it(engine, payments):
    query = "what does ERR-PAY-4021 mean and how do we fix it?"  # compound: its second part has no code
    assert _rank(engine, query, payments[3], BM25_ONLY) == 0
    assert _rank(engine, query, payments[3]) == 0
    scores = [r.score for r in engine.search(query, limit=10, now=NOW)]
    assert scores == sorted(scores, reverse=True)
    # split into parts fused by rank (`decomposition`, off by default) and without the floor, "the real
    # fix ... PAY-881" (a fix, a PAY- code, a neighbour in time) comes first; the floor holds either way
    split = DEFAULT.model_copy(update={"decomposition": True})
    assert _rank(engine, query, payments[3], split.model_copy(update={"exact_floor": False})) == 1
    assert _rank(engine, query, payments[3], split) == 0
    # the near miss asks for the other memory
    assert _rank(engine, "checkout logs are full of ERR-PAY-4012, what is that one?", payments[4]) == 0


def test_routine_runs_do_not_crowd_out_the_procedure_about_the_command(engine, payments):
    ids = _ids(40)[20:]
    rows = [(ids[0], MemoryKind.PROCEDURE, 600, "Releasing: bump the version in gradle.properties, update "
                                                "CHANGELOG.md, run `make build`, then push a v* tag once CI is green."),
            (ids[1], MemoryKind.FACT, 590, "The OpenAPI spec lives in api/openapi.yaml and is linted in CI.")]
    rows += [(ids[2 + i], MemoryKind.TOOL_EVENT, 500 - 40 * i, f"Ran `make build` for the release → exit 0 in {40 + i}.2 s")
             for i in range(9)]
    rows += [(ids[11], MemoryKind.TOOL_EVENT, 5, "Ran `make build` → exit 2 in 12.8 s; error: spotlessJavaCheck FAILED")]
    engine.import_memories(_memories("/work/proj", rows))
    query = "what do I do after `make build` when releasing?"
    assert _rank(engine, query, ids[0]) == 0
    flat = DEFAULT.model_copy(update={"routine_run_weight": 1.0, "record_share": 1.0})
    assert _rank(engine, query, ids[0], flat) > 3  # without the rules the runs come first
    # the share alone keeps the procedure among the first places, not first
    assert _rank(engine, query, ids[0], DEFAULT.model_copy(update={"routine_run_weight": 1.0})) == 1
    # a question about runs gets the runs
    got = engine.search("did make build pass last time we ran it?", limit=5, now=NOW)
    assert got[0].memory.kind == MemoryKind.TOOL_EVENT and "routine" not in got[0].why


def test_a_rare_quoted_phrase_held_keeps_bm25_from_being_outvoted(engine, monkeypatch):
    """Most words of the question are in no memory (the vocabulary rule would let the embedding
    lead), but the phrase it quotes is held verbatim by one memory: BM25 keeps its weight."""
    from mnemex.engine.retrieval.stages import search

    ids = _ids(3)
    engine.import_memories(_memories("/work/proj", [
        (ids[0], MemoryKind.FACT, 90, 'The panic "there is no reactor running" in the integration tests came from '
                                      "calling the S3 client inside a plain #[test]."),
        (ids[1], MemoryKind.FACT, 80, "Integration tests need MinIO on localhost:9000; start it before cargo test."),
        (ids[2], MemoryKind.DECISION, 70, "We use tokio with the multi-thread runtime for every async test helper."),
    ]))
    leaned: list[str] = []
    original = search.lean_on_embedding
    monkeypatch.setattr(search, "lean_on_embedding", lambda *a: leaned.append("lean") or original(*a))
    query = 'CI blew up: "there is no reactor running" — remedy?'
    assert _rank(engine, query, ids[0]) == 0 and leaned == []
    assert _rank(engine, query, ids[0], DEFAULT.model_copy(update={"exact_anchor": False})) == 0 and leaned == ["lean"]


def test_chatter_does_not_crowd_out_what_is_known_unless_the_question_is_about_the_talk(engine):
    from mnemex.models import NewMemory

    said = [engine.memorize(NewMemory(content=text, project="/work/proj")).id for text in (
        "Marco asked if invoicing-service is affected, told him I'd check",
        "reading through the invoicing-service code to get oriented",
        "ok, will look at invoicing-service after lunch",
    )]
    known = engine.memorize(NewMemory(content="Priya is responsible for invoicing-service and its on-call rota",
                                      project="/work/proj")).id
    stored = engine.recall(said, touch=False)
    assert all(m.is_chatter for m in stored) and not engine.recall([known], touch=False)[0].is_chatter
    flt = engine.default_filter(project="/work/proj")
    query = "who is responsible for invoicing-service?"
    flat = DEFAULT.model_copy(update={"chatter_weight": 1.0})
    got = {r.memory.id: r for r in engine.search(query, filter=flt, limit=10, config=flat)}
    kept = {r.memory.id: r for r in engine.search(query, filter=flt, limit=10)}
    for key in said:
        assert "chatter" in kept[key].why and kept[key].score < got[key].score
    assert next(iter(kept)) == known
    # a question about the talk itself keeps the chatter's weight
    talk = engine.search("who asked whether invoicing-service is affected?", filter=flt, limit=5)
    assert talk[0].memory.id == said[0] and "chatter" not in talk[0].why


def test_a_question_about_what_was_decided_favours_the_decision(engine):
    from mnemex.engine.retrieval.stages.asked_kind import asks_for_decision

    assert asks_for_decision("What did we decide about the cache?") and asks_for_decision("which queue did we choose")
    assert not asks_for_decision("where does the cache live?")
    ids = _ids(4)
    engine.import_memories(_memories("/work/proj", [
        (ids[0], MemoryKind.FACT, 50, "pricing-engine reads its settings from etc/pricing-engine/pricing-engine.ini."),
        (ids[1], MemoryKind.FACT, 40, "pricing-engine is written in Python and deployed with helm."),
        (ids[2], MemoryKind.DECISION, 30, "We settled that pricing-engine ships on its own schedule, not with the monorepo."),
        (ids[3], MemoryKind.FACT, 20, "Edit etc/pricing-engine/pricing-engine.ini to change pricing-engine settings."),
    ]))
    query = "What did we decide about pricing-engine?"
    flat = DEFAULT.model_copy(update={"decision_boost": 1.0})
    with_boost = {r.memory.id: r for r in engine.search(query, limit=10, now=NOW)}
    without = {r.memory.id: r for r in engine.search(query, limit=10, now=NOW, config=flat)}
    assert "a decision, asked for" in with_boost[ids[2]].why and with_boost[ids[2]].score > without[ids[2]].score
    assert next(iter(with_boost)) == ids[2]
    assert all("a decision, asked for" not in r.why for r in engine.search("where are the pricing-engine settings?",
                                                                            limit=10, now=NOW))


def test_a_question_asking_what_one_should_do_favours_the_rule(engine):
    from mnemex.engine.retrieval.stages.asked_kind import asks_for_rule

    assert asks_for_rule("How should services log?") and asks_for_rule("what's our convention for branch names")
    assert asks_for_rule("are we allowed to push to main?") and not asks_for_rule("where do services log to?")
    assert not asks_for_rule("what are the firewall rules for the gateway?")
    assert not asks_for_rule("whom should I ask about i18n-service changes?") and asks_for_rule("should I mock the store?")
    ids = _ids(4)
    engine.import_memories(_memories("/work/proj", [
        (ids[0], MemoryKind.FACT, 50, "orders-service is written in TypeScript and serves the storefront."),
        (ids[1], MemoryKind.FACT, 40, "orders-service ships its logs to Loki through the sidecar."),
        (ids[2], MemoryKind.CONVENTION, 30, "Use structlog with bound request ids; never print()."),
        (ids[3], MemoryKind.FACT, 20, "The storefront calls orders-service over gRPC."),
    ]))
    query = "How should orders-service write its logs?"
    flat = DEFAULT.model_copy(update={"rule_boost": 1.0})
    with_boost = {r.memory.id: r for r in engine.search(query, limit=10, now=NOW)}
    without = {r.memory.id: r for r in engine.search(query, limit=10, now=NOW, config=flat)}
    assert "a rule, asked for" in with_boost[ids[2]].why and with_boost[ids[2]].score > without[ids[2]].score
    assert list(with_boost).index(ids[2]) < list(without).index(ids[2]), (list(with_boost), list(without), ids)
    assert all("a rule, asked for" not in r.why for r in engine.search("where do orders-service logs go?",
                                                                        limit=10, now=NOW))


def test_a_single_run_record_gives_way_to_knowledge_unless_the_question_is_about_runs(engine):
    """A failed pipeline or a coverage report names the component a question asks about and says
    what ran, not what is known: outside questions about runs it weighs `record_weight`."""
    ids = _ids(3)
    engine.import_memories(_memories("/work/proj", [
        (ids[0], MemoryKind.FACT, 300, "Priya Raman owns ledger-api; ask her before changing its schema."),
        (ids[1], MemoryKind.TOOL_EVENT, 20, "CI pipeline #2231 for ledger-api: failed at unit stage"),
        (ids[2], MemoryKind.TOOL_EVENT, 10, "coverage for ledger-api: 71.2% lines, 14 uncovered branches in models"),
    ]))
    query = "who is responsible for ledger-api?"
    weighted = {r.memory.id: r for r in engine.search(query, limit=5, now=NOW)}
    flat = {r.memory.id: r for r in engine.search(query, limit=5, now=NOW,
                                                   config=DEFAULT.model_copy(update={"record_weight": 1.0}))}
    assert next(iter(weighted)) == ids[0]
    for key in ids[1:]:
        assert "a record" in weighted[key].why and weighted[key].score < flat[key].score
        assert "a record" not in flat[key].why
    about_runs = engine.search("did the ledger-api pipeline fail last time it ran?", limit=3, now=NOW)
    assert about_runs[0].memory.id == ids[1] and "a record" not in about_runs[0].why


def test_records_take_at_most_a_share_of_the_first_places_unless_the_question_is_about_runs(engine):
    """A component's commits each hold its name and the word the question uses; however weighed,
    four of them filled a top 5 (`record_share`). Past the share the knowledge comes first, the
    records follow it, scores still fall; a question about commits gets them all."""
    ids = _ids(12)
    rows = [(ids[0], MemoryKind.CONVENTION, 900, "Outbound HTTP calls retry idempotent requests up to 3 times with "
                                                 "jittered exponential backoff; POSTs are never retried."),
            (ids[1], MemoryKind.FACT, 800, "coupon-service calls the pricing API with a 2 s timeout."),
            (ids[2], MemoryKind.FACT, 700, "coupon-service is written in Go and owns the coupons table."),
            (ids[8], MemoryKind.FACT, 650, "coupon-service deploys with Argo CD from the platform repo.")]
    rows += [(ids[3 + i], MemoryKind.TOOL_EVENT, 60 - 5 * i, f"git commit {sha} on feat/{topic}: {message}")
             for i, (sha, topic, message) in enumerate((
                 ("3f67e3e", "sso-saml", "add retry to coupon-service HTTP calls"),
                 ("a91c002", "pricing-v2", "coupon-service: retry HTTP calls to pricing on 503"),
                 ("77d0b1f", "retry-tuning", "tune retry backoff of coupon-service HTTP calls"),
                 ("c0ffee1", "coupon-cleanup", "log each retry of coupon-service HTTP calls"),
                 ("5e5e5e5", "http-timeouts", "coupon-service retries HTTP calls at most 3 times")))]
    engine.import_memories(_memories("/work/proj", rows))
    query = "how does coupon-service retry its HTTP calls?"
    records = lambda got: sum(r.memory.kind == MemoryKind.TOOL_EVENT for r in got[:5])  # noqa: E731
    flat = engine.search(query, limit=10, now=NOW, config=DEFAULT.model_copy(update={"record_share": 1.0}))
    assert records(flat) >= 3, [r.memory.content for r in flat]  # without the share the commits crowd in
    got = engine.search(query, limit=10, now=NOW)
    assert records(got) == 2 and records(got[:2]) <= 1, [r.memory.content for r in got]
    assert got[:4] == flat[:4] and got[4].memory.kind == MemoryKind.FACT  # the first places as they were, then knowledge
    scores = [r.score for r in got]
    assert scores == sorted(scores, reverse=True)
    assert any("records capped" in r.why for r in got)
    assert len(got) == len(flat) and {r.memory.id for r in got} == {r.memory.id for r in flat}  # moved, never dropped
    about = engine.search("which commit added retry to coupon-service?", limit=5, now=NOW)
    assert records(about) >= 4 and all("records capped" not in r.why for r in about)
