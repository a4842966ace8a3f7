"""Knowledge that stays current, on the real stack: updates in the words developers use
supersede, look-alikes stay apart, the caller can say what a statement replaces, unsure cases
come back as candidates, restatements reinforce, and nothing the caller asked to store is lost."""

from __future__ import annotations

import pytest

from mnemex.engine.statements import SAID_OTHERWISE_BY, SAID_OTHERWISE_SIMS, said_otherwise
from mnemex.engine.write.replacing import MAYBE_OUTDATED_BY, _kept_otherwise
from mnemex.errors import InvalidInputError, NotFoundError
from mnemex.models import MemoryKind, MemoryStatus, WriteAction
from tests.helpers import remember


@pytest.mark.parametrize("old,new", [
    ("The unit tests run under nose.", "Unit tests now run under pytest instead of the old runner."),
    ("`fetch_user(id)` in users/api.py returns the user row as a dict.",
     "`fetch_user` was renamed to `load_user(id, *, include_deleted=False)` and returns a User model now."),
    ("The billing service listens on port 8443.", "Billing moved to port 9443 because 8443 clashed with the admin proxy."),
    ("Application logs are kept for 14 days in Loki.", "Loki log retention was extended to 30 days."),
    ("Errors are reported to Sentry.", "Error reporting moved off Sentry to Rollbar last sprint."),
    # a job switched off, far in wording from what said it runs: the shared name finds it (BM25)
    ("The `reindex-search` job rebuilds the product index every night at 02:00.",
     "reindex-search is disabled until the cluster upgrade lands; run it by hand if the index drifts."),
])
def test_an_update_in_other_words_supersedes(engine, old, new):
    a = remember(engine, old)
    b = remember(engine, new)
    assert b.action == WriteAction.SUPERSEDED and b.affected_ids == (a.id,), b.reason
    assert engine.recall([a.id], touch=False)[0].status == MemoryStatus.SUPERSEDED


@pytest.mark.parametrize("old,new", [
    ("The API listens on port 8080.", "The API exposes Prometheus metrics on port 9100."),
    ("The billing service listens on port 8443.", "The billing service's gRPC health check listens on port 8444."),
    ("Staging uses Postgres 15.", "Production uses Postgres 16."),
    ("Integration tests need the docker compose stack up.", "Integration tests also need STRIPE_MOCK_PORT=12111 set."),
    ("The `reindex-search` job is owned by the search team.", "reindex-search is disabled until the cluster upgrade lands."),
    # a numbered sibling; a side environment; a switch-off of something the older one does not hold
    ("The Press 3 controller polls the die temperature every 200 ms.",
     "The Press 5 controller polls the die temperature every 2 s; its old firmware cannot go faster."),
    ("In staging, the search indexer reads from the replica db-replica.staging.internal.",
     "The search indexer now consumes the orders.changed topic; a nightly job still backfills from Postgres."),
    ("Database migrations are written as Flyway scripts under db/migration.",
     "Turned off auto-migrate-on-boot; an operator applies the migrations by hand before each release."),
])
def test_look_alikes_stay_apart(engine, old, new):
    a = remember(engine, old)
    b = remember(engine, new)
    assert b.action == WriteAction.CREATED and b.id != a.id, b.reason
    assert engine.recall([a.id], touch=False)[0].status == MemoryStatus.ACTIVE


def test_the_caller_says_what_a_statement_replaces(engine):
    a = remember(engine, "Payments webhooks are verified with the v1 signing secret.")
    b = remember(engine, "Webhook signatures: check the `Stripe-Signature` header with the rotated key; "
                         "the previous one was revoked.", supersedes=(a.id.upper(),))
    assert b.action == WriteAction.SUPERSEDED and b.affected_ids == (a.id,) and "caller" in b.reason
    assert not b.also  # kept whole, as the caller wrote it
    old, new = engine.recall([a.id, b.id], touch=False)
    assert old.status == MemoryStatus.SUPERSEDED and old.superseded_by == new.id and new.supersedes == (a.id,)
    assert engine.journal.relations(b.id, types=["supersedes"])


def test_supersedes_names_known_memories_of_the_same_project(engine):
    other = remember(engine, "The cache TTL is 60 seconds.", project="/another/project")
    before = engine.upkeep.stats()["memories_total"]
    with pytest.raises(NotFoundError):
        remember(engine, "The cache TTL is 5 minutes.", supersedes=("00000000-0000-4000-8000-00000000dead",))
    with pytest.raises(InvalidInputError, match="another project"):
        remember(engine, "The cache TTL is 5 minutes.", supersedes=(other.id,))
    with pytest.raises(InvalidInputError, match="not a memory id"):
        remember(engine, "The cache TTL is 5 minutes.", supersedes=("not-an-id",))
    assert engine.upkeep.stats()["memories_total"] == before  # nothing written


def test_a_pinned_memory_named_in_supersedes_is_kept_and_linked(engine):
    anchor = remember(engine, "Releases are cut from the main branch only.", pinned=True)
    out = remember(engine, "Releases are cut from release/* branches now.", supersedes=(anchor.id,))
    assert out.action == WriteAction.CREATED and out.affected_ids == (anchor.id,) and "pinned" in out.reason
    assert engine.recall([anchor.id], touch=False)[0].status == MemoryStatus.ACTIVE
    assert [r.dst for r in engine.journal.relations(out.id, types=["contradicts"])] == [anchor.id]


def test_an_unsure_replacement_comes_back_as_a_candidate_and_flags_the_older_memory(engine):
    a = remember(engine, "In production, deploy notifications are posted to #releases.")
    b = remember(engine, "Staging deploy notifications now go to #staging-releases.")
    assert b.action == WriteAction.CREATED, b.reason  # another environment: not sure, both stay
    assert [c.id for c in b.candidates] == [a.id]
    assert b.candidates[0].preview.startswith("In production, deploy notifications") and b.candidates[0].reason
    assert engine.recall([a.id], touch=False)[0].metadata[MAYBE_OUTDATED_BY] == b.id  # it says "now"
    assert engine.recall([b.id], touch=False)[0].metadata["may_replace"] == [a.id]
    # an unsure case without a change cue is reported, the older memory is not flagged
    c = remember(engine, "Sessions expire after 30 minutes of inactivity.")
    d = remember(engine, "Session cookies expire after 2 hours.")
    assert d.action == WriteAction.CREATED and [x.id for x in d.candidates] == [c.id], d.reason
    assert MAYBE_OUTDATED_BY not in engine.recall([c.id], touch=False)[0].metadata
    # the agent, as the judge, says what it replaces
    e = remember(engine, "Session cookies expire after 2 hours.", supersedes=(c.id,))
    assert e.action == WriteAction.SUPERSEDED and e.affected_ids == (c.id,)


def test_a_new_value_said_plainly_is_offered_to_the_agent_and_nothing_is_marked(engine):
    """No change word, so the rules cannot tell an update from a sibling: the neighbour it gives
    another value than is offered as a candidate (the agent judges), and stays unmarked."""
    a = remember(engine, "The documentation site is built with Docusaurus.")
    b = remember(engine, "The documentation site is generated with MkDocs Material.")
    assert b.action == WriteAction.CREATED, b.reason
    assert [c.id for c in b.candidates] == [a.id]
    assert "another value" in b.candidates[0].reason and b.candidates[0].preview.startswith("The documentation site")
    assert MAYBE_OUTDATED_BY not in engine.recall([a.id], touch=False)[0].metadata
    assert "may_replace" not in engine.recall([b.id], touch=False)[0].metadata


def test_a_far_reworded_new_value_is_offered_but_not_marked_below_mark_otherwise_at(engine):
    """A port moved, said in other words (cosine about 0.32): offered to the agent from offer_at
    (0.30), but the older memory is marked said_otherwise_by it only from mark_otherwise_at (0.35),
    so what the read path weighs is unchanged; raising offer_at to 0.35 drops the offer."""
    from mnemex.engine.statements import SAID_OTHERWISE_BY

    old, new = ("Start the Go API locally with `air`; it listens on port 3000.",
                "The local API comes up on 3005 these days, since the Grafana container took 3000.")
    a = remember(engine, old)
    b = remember(engine, new)
    assert b.action == WriteAction.CREATED and [c.id for c in b.candidates] == [a.id], (b.reason, b.candidates)
    assert "3005" in b.candidates[0].reason
    assert SAID_OTHERWISE_BY not in engine.recall([a.id], touch=False)[0].metadata
    from mnemex.config.gate import DEFAULT_GATE
    from mnemex.engine.write.prediction_gate import decide

    held = engine.recall([a.id], touch=False)[0]
    for gate, sim, offered, marks in [(DEFAULT_GATE, 0.32, True, False), (DEFAULT_GATE, 0.36, True, True),
                                      (DEFAULT_GATE.model_copy(update={"offer_at": 0.35}), 0.32, False, None)]:
        out = decide(new, None, 0.5, [(held, sim)], gate)
        assert [c.memory.id for c in out.candidates] == ([a.id] if offered else []), (gate.offer_at, sim)
        assert all(c.marks is marks for c in out.candidates)

def test_a_rule_made_stricter_in_other_words_is_offered(engine):
    """No value, name or negation changed: what it lets happen did ("can ... anywhere" -> "must ...
    only"). The rules cannot read that as the same rule, so the agent is asked."""
    a = remember(engine, "Contractors can push feature branches to any repository in the org.")
    b = remember(engine, "Contractors must now open pull requests from forks; pushing branches is for staff only.")
    assert b.action == WriteAction.CREATED and [c.id for c in b.candidates] == [a.id], (b.reason, b.candidates)
    assert "less allowed" in b.candidates[0].reason
    assert MAYBE_OUTDATED_BY not in engine.recall([a.id], touch=False)[0].metadata


def test_a_change_said_in_other_words_is_offered(engine):
    """No value or name the rules can compare, but the new statement says something changed about
    much the same thing: the agent is asked. A cued statement about something else is not offered."""
    a = remember(engine, "Nightly backups are copied to the shared NAS in the server room.")
    other = remember(engine, "The release checklist lives in docs/RELEASING.md.")
    b = remember(engine, "Backups moved to object storage in another region after the flood scare.")
    assert b.action == WriteAction.CREATED and [c.id for c in b.candidates] == [a.id], (b.reason, b.candidates)
    assert "a change said" in b.candidates[0].reason and other.id not in {c.id for c in b.candidates}
    # a word of change alone reaches the agent; it does not mark the older memory for read-time resolution
    assert not said_otherwise(engine.recall([a.id], touch=False)[0].metadata)


def test_a_name_opening_the_statement_is_offered(engine):
    """A person or tool named only as the first word ("Wojciech owns ...") is read as a name for the
    offer, not for a supersede, and marks nothing; a first word of common English offers nothing."""
    a = remember(engine, "Query planner reviews go to Marisol; she wrote most of the cost model.")
    b = remember(engine, "Wojciech owns query planner reviews and the cost model.")
    assert b.action == WriteAction.CREATED and a.id in [c.id for c in b.candidates], (b.reason, b.candidates)
    assert "opens with another name: wojciech" in next(c.reason for c in b.candidates if c.id == a.id)
    assert not said_otherwise(engine.recall([a.id], touch=False)[0].metadata)
    c = remember(engine, "The nightly vacuum job is scheduled by pg_cron on the primary.")
    d = remember(engine, "Telemetry for the vacuum job goes nowhere; it only logs locally on the primary.")
    assert c.id not in [x.id for x in d.candidates if "opens with" in x.reason]


def test_a_change_said_outright_far_in_the_embedding_is_offered_when_a_rare_word_is_shared(engine):
    """Under offer_at in the embedding, but BM25 finds the older statement by a rare word and the new
    one says outright it replaced something: the agent is asked; nothing is marked."""
    a = remember(engine, "The Kotlin sources are formatted with ktfmt plus detekt as pre-commit hooks.")
    b = remember(engine, "Spotless replaced both hooks: one Gradle task, roughly ten times faster in CI.")
    offered = {c.id: c.reason for c in b.candidates}
    assert b.action == WriteAction.CREATED and offered.get(a.id) == "shares a rare word, a change said", offered
    assert not said_otherwise(engine.recall([a.id], touch=False)[0].metadata)
    c = remember(engine, "Release notes are written by hand in CHANGELOG.md before tagging.")
    d = remember(engine, "The GPU runners replaced the old CPU pool for the nightly model training job.")
    assert c.id not in {x.id for x in d.candidates}


def test_much_the_same_thing_said_in_other_words_is_offered_and_marks_nothing(engine):
    """No value, name or word of change, but very close in the embedding and with words of its own:
    an update stated plainly or a reminder, which only the agent can tell apart."""
    a = remember(engine, "Spare filter cartridges are kept in the basement storeroom.")
    b = remember(engine, "Filter cartridge spares live in the cupboard beside the loading bay.")
    offered = {c.id: c.reason for c in b.candidates}
    assert b.action == WriteAction.CREATED
    assert offered.get(a.id) == "about much the same thing in other words: an update said plainly, or a reminder"
    assert not said_otherwise(engine.recall([a.id], touch=False)[0].metadata)
    assert not engine.recall([a.id], touch=False)[0].metadata.get("maybe_outdated_by")


def test_a_tool_written_as_a_word_replaced_by_another_is_offered_and_marks_nothing(engine):
    """Lower-case tool names are words to the reading of names; each statement giving one that is no
    English word and that the other lacks is likely one tool for another."""
    a = remember(engine, "Static checks for the driver code use cppcheck in the nightly job.")
    b = remember(engine, "The driver code is checked by clang-tidy with the modernize checks on every merge.")
    offered = {c.id: c.reason for c in b.candidates}
    assert b.action == WriteAction.CREATED and offered.get(a.id, "").startswith("about much the same thing, another name")
    assert not said_otherwise(engine.recall([a.id], touch=False)[0].metadata)


def test_what_replaced_a_stop_is_offered_before_closer_neighbours_and_marks_nothing(engine):
    """A practice said to be stopped or waiting is replaced later by how it is done now, in other
    words: that stop is offered first, even with closer neighbours that give other values."""
    stop = remember(engine, "The Friday invoice export is on hold until the new VAT codes are agreed.")
    for text in ("Invoices are numbered INV-YYYY-NNNN and never reused.",
                 "Invoice PDFs are rendered by WeasyPrint from the Jinja templates in billing/templates.",
                 "Credit notes reference the invoice they correct by its number."):
        remember(engine, text)
    b = remember(engine, "Accountants get invoices from a nightly SFTP drop that the billing worker writes.")
    offered = {c.id: c.reason for c in b.candidates}
    assert b.action == WriteAction.CREATED
    assert offered.get(stop.id) == "about what was stopped: how it is done now, or something else", offered
    assert list(offered)[0] == stop.id
    assert not said_otherwise(engine.recall([stop.id], touch=False)[0].metadata)


def test_a_statement_that_gives_nothing_new_is_not_offered(engine):
    remember(engine, "Pull requests need one approving review before merging.")
    b = remember(engine, "CI must be green before a pull request is merged.")
    assert b.action == WriteAction.CREATED and not b.candidates, (b.reason, b.candidates)


def _holding(engine, words: str) -> list[str]:
    """The current memories whose content is `words`."""
    return [r.memory.id for r in engine.search(words, limit=10) if r.memory.content == words]


def test_memorizing_again_with_supersedes_keeps_one_copy_of_the_statement(engine):
    """The flow the server tells the agent: memorize, read the candidates, memorize it again with
    supersedes. The statement stored the first time becomes the newer one; no second copy."""
    old = remember(engine, "The mobile app talks to the backend through the v1 REST gateway.")
    text = "The iOS app uses the GraphQL endpoint at /graphql for every screen."
    first = remember(engine, text)
    assert first.action == WriteAction.CREATED
    again = remember(engine, text, supersedes=(old.id,))
    assert again.action == WriteAction.SUPERSEDED and again.id == first.id and again.affected_ids == (old.id,)
    assert "already stored" in again.reason
    before, held = engine.recall([old.id, first.id], touch=False)
    assert before.status == MemoryStatus.SUPERSEDED and before.superseded_by == first.id
    assert held.status == MemoryStatus.ACTIVE and held.supersedes == (old.id,)
    assert engine.journal.relations(first.id, types=["supersedes"])
    assert _holding(engine, text) == [first.id]


def test_memorizing_again_what_the_rules_already_superseded_stores_nothing_new(engine):
    old = remember(engine, "Session cookies expire after 30 minutes.")
    first = remember(engine, "Session cookies expire after 2 hours.")
    assert first.action == WriteAction.SUPERSEDED and first.affected_ids == (old.id,), first.reason
    total = engine.upkeep.stats()["memories_total"]
    again = remember(engine, "Session  cookies expire after 2 hours.", supersedes=(old.id,))
    assert again.action == WriteAction.SKIPPED and again.affected_ids == (first.id,) and "already stored" in again.reason
    assert engine.upkeep.stats()["memories_total"] == total
    assert _holding(engine, "Session cookies expire after 2 hours.") == [first.id]


def test_a_change_named_of_something_else_is_reported_and_never_flags(engine):
    """"alerts now route to #x instead of #y" names as left behind a channel the database statement
    never mentions: whatever changed, it is not what that statement holds."""
    a = remember(engine, "ledger-sync reads its database connection string from the LEDGER_DB_URL environment variable.")
    b = remember(engine, "ledger-sync alerts now route to #oncall-payments instead of #team-ledger.")
    assert b.action == WriteAction.CREATED, b.reason
    assert all("leaves behind" in c.reason for c in b.candidates if c.id == a.id)
    assert MAYBE_OUTDATED_BY not in engine.recall([a.id], touch=False)[0].metadata
    assert a.id not in engine.recall([b.id], touch=False)[0].metadata.get("may_replace", [])
    # the same cue about what the older statement holds still flags it
    c = remember(engine, "search-api alerts go to #team-search.")
    d = remember(engine, "search-api alerts now route to #oncall-web instead of #team-search.")
    assert d.action == WriteAction.SUPERSEDED and d.affected_ids == (c.id,), d.reason

def test_a_restatement_reinforces_the_current_memory_and_never_revives_the_old_one(engine):
    old = remember(engine, "Integration tests run against the docker compose stack.")
    new = remember(engine, "Integration tests run against the kind cluster now, not docker compose.")
    assert new.action == WriteAction.SUPERSEDED and new.affected_ids == (old.id,)
    again = remember(engine, "Reminder: the integration tests still run against the kind cluster.")
    assert again.action == WriteAction.REINFORCED and again.id == new.id, again.reason
    assert engine.recall([old.id], touch=False)[0].status == MemoryStatus.SUPERSEDED
    assert engine.upkeep.stats()["memories_current"] == 1


@pytest.mark.parametrize("first,again", [
    ("billing-gateway is written in TypeScript.", "billing-gateway uses TypeScript, as noted before."),
    ("The invoice-renderer is written in Rust.", "Remember that invoice-renderer is Rust-based."),
    ("Sessions are kept in Redis.", "For the record, sessions are kept in Redis, as we said earlier."),
])
def test_a_reminder_in_other_words_reinforces_and_adds_no_second_memory(engine, first, again):
    """The words of a reminder's own phrase ("as noted before") and a "V-based" that says "uses V"
    are not new content: the restatement reinforces the fact instead of filling a second slot."""
    held = remember(engine, first)
    out = remember(engine, again)
    assert out.action == WriteAction.REINFORCED and out.id == held.id, out.reason
    assert engine.upkeep.stats()["memories_current"] == 1


def test_a_restatement_in_other_words_keeps_its_wording_findable(engine):
    """The reinforced memory keeps the other wording for search (not in its content): a question in
    the restatement's words finds the one memory that holds the fact."""
    from mnemex.config.retrieval import BM25_ONLY
    from mnemex.engine.write.path import ALSO_SAID

    held = remember(engine, "auth-gateway keeps its state in DynamoDB.")
    remember(engine, "The checkout flow stores carts in Redis.")
    out = remember(engine, "auth-gateway uses DynamoDB, as noted before.")
    assert out.action == WriteAction.REINFORCED and out.id == held.id, out.reason
    memory = engine.recall([held.id], touch=False)[0]
    assert memory.content == "auth-gateway keeps its state in DynamoDB."
    assert memory.metadata[ALSO_SAID] == ["auth-gateway uses DynamoDB, as noted before."]
    found = engine.search("uses noted", limit=3, config=BM25_ONLY)
    assert found and found[0].memory.id == held.id
    again = remember(engine, "auth-gateway uses DynamoDB, as noted before.")  # nothing new: not kept twice
    assert again.id == held.id and engine.recall([held.id], touch=False)[0].metadata[ALSO_SAID] == \
        ["auth-gateway uses DynamoDB, as noted before."]


def test_the_parts_of_a_compound_statement_never_skip_each_other(engine):
    out = remember(engine, "STRIPE_MOCK_PORT=12111 is set for the test suite; stripe-mock must run first.",
                   importance=0.1)
    parts = [out, *out.also]
    assert len(parts) == 2 and all(p.action == WriteAction.CREATED for p in parts), [p.reason for p in parts]


def test_a_skip_never_drops_the_callers_kind_or_tags(engine):
    held = remember(engine, "Use ruff for linting the backend", kind=MemoryKind.FACT)
    tagged = remember(engine, "Lint backend code using ruff", tags=("lint",), importance=0.1)
    if tagged.action != WriteAction.CREATED:  # held by the first: its tags must be kept there
        assert tagged.id == held.id and "lint" in engine.recall([held.id], touch=False)[0].tags
    kinded = remember(engine, "Lint backend code using ruff", kind=MemoryKind.CONVENTION, importance=0.1)
    assert kinded.action in (WriteAction.CREATED, WriteAction.SUPERSEDED) or (
        kinded.action == WriteAction.REINFORCED and engine.recall([kinded.id], touch=False)[0].kind
        == MemoryKind.CONVENTION), kinded.reason


@pytest.mark.parametrize("text", [
    "The staging database is restored from the nightly snapshot every Monday",
    "Billing moved to port 9443 because 8443 clashed with the admin proxy.",
    "Unit tests now run under pytest instead of nose.",
])
def test_the_same_statement_said_again_reinforces_even_with_a_change_cue(engine, text):
    first = remember(engine, text)
    again = remember(engine, text)
    assert again.action == WriteAction.REINFORCED and again.id == first.id, again.reason
    assert engine.recall([first.id], touch=False)[0].content == text  # not merged into itself
    assert engine.upkeep.stats()["memories_current"] == 1


def test_the_seed_gate_still_merges_an_overlapping_statement(settings, engine):
    from mnemex.config.gate import SEED_GATE
    from mnemex.engine.write.prediction_gate import decide
    from mnemex.models import Memory
    old = remember(engine, "The billing service uses Postgres for invoices.")
    held = engine.recall([old.id], touch=False)[0]
    out = decide("The billing service uses Postgres for invoices and for refunds.", None, 0.5,
                 [(held, 0.8)], SEED_GATE)
    assert out.action == WriteAction.UPDATED and out.target.id == held.id
    assert isinstance(held, Memory)


@pytest.mark.parametrize("cut", ["after the newer statement is stored", "before it is stored"])
def test_a_supersede_cut_short_is_finished_or_undone_on_the_next_open(settings, embedder, monkeypatch, cut):
    """A crash between storing the newer statement and marking what it replaces would leave both
    current; the next open finishes the supersede (or, when nothing was stored, leaves all as it was)."""
    from mnemex.engine.factory import build_engine
    from mnemex.engine.write.replacing import Replacements

    engine = build_engine(settings, default_project="/work/proj", embedder=embedder)
    old = remember(engine, "The billing service listens on port 8443.")
    other = remember(engine, "Billing health checks hit /healthz every 10 seconds.")

    def crash(*args, **kwargs):
        raise KeyboardInterrupt("killed")

    if cut.startswith("after"):
        monkeypatch.setattr(Replacements, "_mark", crash)
    else:
        monkeypatch.setattr(engine.writer._replacing, "_store_points", crash)
    with pytest.raises(KeyboardInterrupt):
        remember(engine, "Billing now listens on port 9443.", supersedes=[old.id, other.id])
    monkeypatch.undo()
    assert engine.journal.pending_supersedes()
    engine.close()

    engine = build_engine(settings, default_project="/work/proj", embedder=embedder)
    try:
        newer = [m for m in engine.export() if "9443" in m.content]
        olds = engine.recall([old.id, other.id], touch=False)
        if cut.startswith("after"):
            assert len(newer) == 1 and newer[0].status == MemoryStatus.ACTIVE
            assert set(newer[0].supersedes) == {old.id, other.id}
            assert all(m.status == MemoryStatus.SUPERSEDED and m.superseded_by == newer[0].id for m in olds)
            assert [o.actor for o in engine.journal.ops(old.id) if o.op == "supersede"] == ["recovery"]
        else:
            assert newer == [] and all(m.status == MemoryStatus.ACTIVE for m in olds)
        assert engine.journal.pending_supersedes() == []
        found = engine.search("which port does billing listen on?", limit=3)
        assert sum(r.memory.id == old.id for r in found) == (0 if cut.startswith("after") else 1)
    finally:
        engine.close()


def test_when_full_the_least_alike_statement_that_said_otherwise_goes():
    """A memory many later statements come near keeps the nearest: the real successor, offered
    first and most alike, is not pushed out by later, looser notes about the same component."""
    md: dict = {}
    for i, sim in enumerate([0.76, 0.41, 0.39, 0.52, 0.36, 0.61]):
        md = {**md, **_kept_otherwise(md, md.get(SAID_OTHERWISE_BY, []), f"n{i}", sim)}
    assert md[SAID_OTHERWISE_BY] == ["n0", "n1", "n3", "n5"]  # oldest first; 0.39 and 0.36 went
    assert md[SAID_OTHERWISE_SIMS] == [0.76, 0.41, 0.52, 0.61]
    from mnemex import render

    assert SAID_OTHERWISE_SIMS not in render.public_metadata(md)  # bookkeeping, not shown
    # marks kept before the cosines were stored count as the least alike
    old = {SAID_OTHERWISE_BY: ["a", "b", "c", "d"]}
    assert _kept_otherwise(old, old[SAID_OTHERWISE_BY], "e", 0.5)[SAID_OTHERWISE_BY] == ["b", "c", "d", "e"]


def test_a_stop_of_what_the_older_statement_says_is_done_is_offered_and_marks_nothing(engine):
    """The newer statement says the practice waits ("on hold", "frozen"), of much the same thing the
    older one says is done: the agent is asked whether it outdates it; nothing is marked."""
    from mnemex.config.gate import DEFAULT_GATE
    from mnemex.engine.write.prediction_gate import STOP_SAID, decide

    a = remember(engine, "Release builds are made on the studio iMac with Xcode and uploaded to TestFlight by hand.")
    new = "Release builds are on hold this week while the studio iMac is being reimaged."
    b = remember(engine, new)
    offered = {c.id: c.reason for c in b.candidates}
    assert b.action == WriteAction.CREATED and a.id in offered, (b.reason, offered)
    assert not said_otherwise(engine.recall([a.id], touch=False)[0].metadata)
    held = engine.recall([a.id], touch=False)[0]
    out = decide(new, None, 0.5, [(held, 0.45)], DEFAULT_GATE)
    assert [(c.memory.id, c.reason, c.marks) for c in out.candidates] == [(a.id, STOP_SAID, False)]
    # both say the practice waits: no stop of what the older one says is done
    waits = remember(engine, "TestFlight uploads are paused until the new certificate arrives.")
    out = decide(new, None, 0.5, [(engine.recall([waits.id], touch=False)[0], 0.45)], DEFAULT_GATE)
    assert all(c.reason != STOP_SAID for c in out.candidates)


def test_a_rule_made_stricter_far_in_the_embedding_is_offered_when_a_rare_word_is_shared(engine):
    """Under offer_at in the embedding, found by BM25, and the newer statement lets less happen than
    the older one ("anyone ... can" / "only ... can"): the agent is asked; not without the shared word."""
    from mnemex.config.gate import DEFAULT_GATE
    from mnemex.engine.write.prediction_gate import LEEWAY_FAR, decide

    a = remember(engine, "Anyone on the team can tag a release from main when CI is green.")
    held = engine.recall([a.id], touch=False)[0]
    new = "After the broken 2.3 build only Priya and Omar can push release tags; each one needs a thumbs-up in #rel."
    out = decide(new, None, 0.5, [(held, 0.25)], DEFAULT_GATE, lexical=frozenset({held.id}))
    assert [(c.memory.id, c.reason, c.marks) for c in out.candidates] == [(a.id, LEEWAY_FAR.format("less"), False)]
    assert not decide(new, None, 0.5, [(held, 0.25)], DEFAULT_GATE).candidates


def test_a_default_turned_from_on_to_off_is_offered(engine):
    """"... switched on by default" and later "... defaults to off": a default turned around, with no
    value or name of its own, reaches the agent as less allowed."""
    a = remember(engine, "Controller haptics are switched on by default at strength 0.4.")
    b = remember(engine, "Haptics default to off since the handheld playtest feedback.")
    offered = {c.id: c.reason for c in b.candidates}
    assert a.id in offered and "less allowed" in offered[a.id], (b.action, b.reason, offered)
