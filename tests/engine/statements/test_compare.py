"""The statement comparator on hand-written pairs of other projects and wording than the
benchmark sets (`pairs.py`): what is replaced, what stays apart, what is restated; and the
reading it rests on (names, values, cues, what is left behind)."""

from __future__ import annotations

import pytest

from mnemex.engine.statements import (
    Relation,
    asks_for_older,
    asks_in_words,
    compare,
    conflict,
    evidence,
    leads_with_switch_off,
    read,
    tells_other_change,
)
from mnemex.engine.statements.reading import Value, normalise_name, shape
from tests.engine.statements.pairs import PAIRS


@pytest.fixture(scope="module")
def cosines(embedder):
    """Each pair's cosine by the real model, as the gate gets it."""
    out = {}
    for old, new, _ in PAIRS:
        a, b = embedder.embed_documents([old, new])
        out[(old, new)] = float(sum(x * y for x, y in zip(a, b)))
    return out


def _verdicts(cosines):
    return [(old, new, label, compare(read(old), read(new), cosines[(old, new)])) for old, new, label in PAIRS]


def test_supersede_precision_and_recall_on_hand_written_pairs(cosines):
    """Sure replacements are what a wrong supersede would cost a true fact for: precision first."""
    rows = _verdicts(cosines)
    tp = sum(1 for *_, label, v in rows if label == "S" and v.relation is Relation.REPLACES)
    fp = [(o, n) for o, n, label, v in rows if label != "S" and v.relation is Relation.REPLACES]
    updates = sum(1 for *_, label, _ in rows if label == "S")
    assert len(fp) <= 1, fp
    assert tp / updates >= 0.85, [(o, n, v) for o, n, label, v in rows if label == "S" and v.relation is not Relation.REPLACES]


@pytest.mark.parametrize("old,new", [
    ("The API listens on port 8080.", "The worker listens on port 9090."),
    ("Staging deploys happen on Fridays.", "Production deploys happen on Tuesdays."),
    ("Application logs are retained for 14 days.", "Audit logs are retained for 1 year."),
    ("Max upload size is 10 MB.", "Max avatar upload size is 2 MB."),
    ("The connect timeout of the payments client is 5 s.", "The read timeout of the payments client is 30 s."),
    ("Staging uses Postgres 15.", "Production uses Postgres 16."),
    # a switch-off: what the thing is, another place, another job
    ("The `reindex-search` job is owned by the search team.", "reindex-search is disabled until the cluster upgrade lands."),
    ("The nightly `reindex-search` job runs on staging and production.",
     "reindex-search is disabled on staging while the cluster is rebuilt."),
    ("The `reindex-orders` job rebuilds the order index every night.", "reindex-search is disabled until the cluster upgrade lands."),
    ("The `reindex-search` job is maintained by Dana.", "The reindex-search job is switched off for the freeze."),
    # "stop X before/after ..." is a step of a procedure, not a switch-off
    ("The dev server runs on port 3000 and restarts on file changes.", "Stop the dev server before running migrations."),
    ("The seed job loads fixtures into the local database.", "Stop the seed job first, then reset the database."),
    # "off by default" is a setting, not a switch-off
    ("The `dark-mode` flag is on for beta users in every release.", "dark-mode is off by default."),
    # the same template about another component (kebab-case names): never each other's change
    ("New owner of quote-builder is Ines Duarte (previously Omar Said).",
     "New owner of tile-cache is Lars Berg (previously Omar Said)."),
    ("Renamed the quote-builder database env var: DATABASE_URL is now QUOTE_BUILDER_DB_DSN.",
     "Renamed the tile-cache database env var: TILE_CACHE_DB_DSN is now DATABASE_URL."),
    # "the old API" is no left-behind piece of the name both give
    ("Alerts for quote-api go to #team-quotes.", "Until 2026-05-02, quote-api stays pinned to the old API while the partner migrates."),
    # numbered or lettered siblings, whatever the negation in a trailing clause
    ("The Press 3 controller polls the die temperature every 200 ms.",
     "The Press 5 controller polls the die temperature every 2 s; its old firmware cannot go faster."),
    ("Zone B freezers report to the gateway hourly.", "Zone D freezers report to the gateway every ten minutes now."),
    # a fact about the side environment is not replaced by one that names none
    ("In staging, the search indexer reads from the replica db-replica.staging.internal.",
     "The search indexer now consumes the orders.changed topic; a nightly job still backfills from Postgres."),
    # a switch-off of something the older one does not hold
    ("Database migrations are written as Flyway scripts under db/migration.",
     "Turned off auto-migrate-on-boot; an operator applies the migrations by hand before each release."),
    ("Invoice events are kept for 14 days on their stream.",
     "Readers should subscribe to billing.invoice-events; the v2 stream was retired with the schema cleanup."),
    ("Premium and free lobbies share one Redis cluster with different key prefixes.",
     "Premium lobbies never mix continents: cross-continent pairing is disabled for premium, free allows it."),
    # a tool's name only qualifies what was switched off
    ("Applies: run Pulumi up from your machine once the plan is approved in the PR.",
     "We turned off the hourly Pulumi cost estimate job for the shared stacks."),
    # an upper-case name tells one exporter from another of the same kind
    ("The GPX exporter writes elevations in metres, like 312.",
     "The Strava exporter writes elevations in feet, like 1024, rather than metres."),
    # a second setting of one thing, each a code name of its own with its value
    ("The ingest pods set maxRetries to 4.", "The ingest pods get requestTimeoutMs of 9000, nine seconds."),
    # a word of change in capitals is a value ("the REPLACE policy")
    ("SyncContactsJob uses unique job name `contact-sync` with the APPEND policy.",
     "SyncInvoicesJob uses unique job name `invoice-sync` with the REPLACE policy."),
    # a behaviour on a condition is no change ("when a tenant is deleted")
    ("Exports are written under <bucket>/<tenant>/<date>.csv.",
     "The `purge-exports` hook removes old export files when a tenant is deleted."),
    # "from X" says where the subject comes from, a verb follows
    ("Heads up: targetSdk is 34 for the courier app.", "Crash reports from the courier app go to Bugsnag."),
    # "from X" with a verb before "to": where the subject comes from, no move from X to Y
    ("checkout-api answers its liveness probe on `GET /livez` on the app port.",
     "Crash reports from checkout-api are sent to Sentry, project `shop-checkout`."),
    # "not even" widens a rule, it names nothing left behind
    ("Currency values always use `Decimal` with two places and ROUND_HALF_EVEN rounding.",
     "Reminder: amounts are Decimals with two places and ROUND_HALF_EVEN, never floats, not even in fixtures."),
    # a change verb of a habit ("is bumped by CI") tells no change; a platform alone is no subject
    ("iOS minimum is 15.0, set in the Podfile.",
     "The iOS build uses the `release-store` Fastlane lane, and the build number is bumped by CI."),
    # each opens with a code name of its own: two things of a kind, even with a bare "instead"
    ("The `ReportsImporter` module loads at `AfterNetwork` so it can reach the bucket.",
     "The `ReportsExporter` module loads at `Boot`, since it only reads settings."),
    ("In bronze, `orders_raw` partitions by (`shop_id`, `order_date`).",
     "Bronze `refunds_raw` partitions by (`shop_id`, `refund_date`) instead."),
    # a negation that shares only a name with the older statement says nothing of it
    ("billing-sync listens on :7070 in local dev since 7000 clashed with AirPlay.",
     "nobody runs billing-sync from a laptop anymore."),
])
def test_look_alikes_are_never_sure_replacements(old, new, cosines):
    assert compare(read(old), read(new), cosines.get((old, new), 0.8)).relation is not Relation.REPLACES


@pytest.mark.parametrize("old,new,why", [
    ("Unit tests run with nose.", "We replaced nose with pytest for the unit tests.", "left behind"),
    ("The billing service listens on port 8443.", "Billing moved to port 9443 because 8443 clashed with the proxy.",
     "port changed: 8443 -> 9443"),
    ("Node 18 is used for the build image.", "The build image was bumped from Node 18 to Node 20.", "left behind"),
    ("The API server listens on port 8080", "The API server listens on port 9090", "port changed"),
    ("The user prefers tabs over spaces", "The user prefers spaces over tabs", "reversal"),
    # the old value named again beside the new one, in a reason or an aside
    ("The game server takes UDP 4000; open it in the firewall.",
     "Game traffic is on UDP 4100 now: some routers were dropping 4000.", "port changed: 4000 -> 4100 (the old one named"),
    ("The scheduler API is on port 7000.", "scheduler's listener moved to 7400 because 7000 clashes with the profiler.",
     "7000 -> 7400"),
    # a port inside a URL is a value; a change verb with a changed value of its kind
    ("The mail catcher is at http://localhost:1080 in the dev stack.", "The mail catcher answers on port 1090 now.",
     "port changed: 1080 -> 1090"),
    ("The frontend is built with Node 18.14.", "Bumped the frontend build to Node 20.11.", "version changed: 18.14 -> 20.11"),
    ("The worker deployment runs 2 replicas in production.", "Scaled the worker-deployment to 6 replicas in production.",
     "count changed: 2 -> 6"),
    # a hand-over names the old owner as left behind
    ("The billing team owns the `invoices` table and its retention job.",
     "Payments took over the `invoices` table from the billing team.", "as left behind"),
    # a switch-off that refers to the older one's thing ("the old ..."), or mostly in its words
    ("The export entry point is `export_day()` in `Exporter.jl`.",
     "Run an export with `run_export(day)`; the old function name was removed in 1.4.", "a name was replaced"),
    ("The cache connection is configured with `SHOP_CACHE_HOST` and `SHOP_CACHE_PORT`.",
     "Use `CACHE_URL` (like `redis://cache:6379/1`) to reach the cache; we dropped the separate host and port variables.",
     "a name was replaced"),
    # "after ..." tells when a change happened: no condition, the old thing is still left behind
    ("Keep the map rendering code in the `AtlasKit` module, please.",
     "Map rendering lives in its own module, `TileForge`, after we split up the old kit module.", "as left behind"),
    # a change said with "We" (stored as "The team lowered ..."): "the team" is no article before a participle
    ("Max seats per booking is 6, set by MAX_SEATS_PER_BOOKING in the API config.",
     "The team lowered MAX_SEATS_PER_BOOKING to 4 for every event.", "number changed: 6 -> 4"),
    # a negation about what the other one says, beside a name both give
    ("Interns may push to `main` on the docs repo.", "Nobody pushes to `main` on the docs repo anymore; open a PR.",
     "negation flipped"),
])
def test_sure_replacements_say_why(old, new, why):
    verdict = compare(read(old), read(new), 0.7)
    assert verdict.relation is Relation.REPLACES and why in verdict.reason


def test_a_reminder_in_other_words_restates():
    old = read("Integration tests need the docker compose stack running.")
    new = read("Reminder: the integration tests still need the compose stack up.")
    assert compare(old, new, 0.8).relation is Relation.RESTATES
    # "still" beside a change is no reminder: the old channel keeping a copy does not undo the move
    moved = read("Deploy notifications now go to #releases; #general still gets a copy.")
    assert not moved.restating and moved.change >= 0.5


def test_reading_names_values_cues_and_what_is_left_behind():
    s = read("We migrated the job queue from RabbitMQ to Redis Streams because 3.8 was end-of-life.")
    assert "rabbitmq" in s.left and "rabbitmq" in s.names
    assert "3.8" in s.reason and "3.8" not in s.value_texts  # a reason's value is not asserted
    assert any(label == "migrated" for label, _ in s.cues)
    t = read("Sessions expire after 30 minutes; the limit is 20 requests per minute on port 8443.")
    assert {Value("30min", "duration"), Value("8443", "port")} <= t.values
    assert read("Database migrations run before the pods roll.").change == 0.0  # "migrations" is no move
    assert read("Nothing changed on the credentials.").change == 0.0
    assert normalise_name("fetch_user") == normalise_name("fetchUser") == "fetchuser"
    assert normalise_name("fetch_users") != normalise_name("fetch_user")
    assert shape("services/cards/") == "location" and shape("CardsApi.freeze(cardId)") == "code"
    assert shape("db1.internal") == "location" and shape("tokio-tungstenite") == "kebab"


def test_what_the_reading_takes_for_values_and_cues():
    # a cue word after a number is no unit ("27015 now" counts nothing); UDP/TCP ports are ports
    assert read("Game traffic is on UDP 27015 now.").values == {Value("27015", "port")}
    assert Value("8025", "port") in read("Mail is caught at http://localhost:8025.").values
    # "as well as" joins two things; it does not say the statement adds to another one
    assert not read("It takes S3 URIs as well as local paths.").additive
    assert read("The worker reads S3 URIs as well.").additive
    # "too" adds where a clause ends, not before what it qualifies
    assert read("The audit bucket gets a copy too.").additive and read("Staging, too, runs it.").additive
    assert not read("Billing events live in `ledger_events` now; the old name was too easy to mistype.").additive
    # "deleted" is a change only when something was deleted, not as what a rule does
    assert read("The old flag was deleted from the loader.").change >= 0.9
    assert read("Objects in the bucket are deleted after 30 days.").change == 0.0
    assert read("Nobody pushes to release branches.").negated


def _cosine(embedder, old: str, new: str) -> float:
    a, b = embedder.embed_documents([old, new])
    return float(sum(x * y for x, y in zip(a, b)))


def test_a_change_said_of_what_the_older_statement_is_about_replaces_it_however_reworded(embedder):
    """The newer sentence's subject is a word the older one is about, with a cue and a tool
    swapped: the same thing even at a cosine where the wording alone says little (0.48)."""
    old = "API docs are generated by Sphinx from the docstrings, with autodoc and napoleon."
    new = "Docs switched to mkdocs-material with mkdocstrings; `make docs` still builds them."
    sim = _cosine(embedder, old, new)
    assert sim < 0.55
    verdict = compare(read(old), read(new), sim)
    assert verdict.relation is Relation.REPLACES and "about the same doc" in verdict.reason


@pytest.mark.parametrize("old,new", [
    # "let us" is no region, and a platform alone is no subject: the old value is the other platform's
    ("Priya turned on R8 for Android and raised the iOS target to 16.0 in the same PR.",
     "Android now requires API 28, which let us drop the old camera shim."),
    ("The web app is bundled with Vite.", "The browser extension is bundled with webpack now."),
    ("The CLI is packaged with PyInstaller.", "The docs site is now built with mkdocs-material."),
    ("Releases are tagged by the `release.yml` workflow.", "Releases are announced in #releases by the bot now."),
])
def test_a_cue_about_another_subject_or_another_aspect_replaces_nothing(old, new, embedder):
    assert compare(read(old), read(new), _cosine(embedder, old, new)).relation is not Relation.REPLACES


def test_a_path_and_a_repo_of_the_same_words_are_different_names(embedder):
    """`proto/schemas/` (a folder) and `proto-schemas` (a repo) read as one name made the move
    below look like nothing changed."""
    assert normalise_name("proto/schemas/") == normalise_name("proto//schemas") == "proto/schemas"
    assert normalise_name("proto/schemas/") != normalise_name("proto-schemas")
    assert normalise_name("fetch_user") == normalise_name("fetchUser")
    old = "Protobuf schemas live under `proto/schemas/` in the monorepo."
    new = "Protobuf schemas were moved to their own repo, `proto-schemas`, so other teams can depend on them."
    assert compare(read(old), read(new), _cosine(embedder, old, new)).relation is Relation.REPLACES


@pytest.mark.parametrize("new,why", [
    # the old address named again, as the one that keeps a copy
    ("Build failures are posted to #ci-failures on Slack by the bot, and build-team@acme.dev still gets a copy.",
     "as left behind"),
    # a list named in other words: an address swapped for a channel, with "gets a copy" as the cue
    ("Build failures are posted to #ci-failures on Slack by the bot, and the build-team list still gets a copy.",
     "a name was replaced (copy kept)"),
])
def test_a_move_that_keeps_a_copy_for_the_old_channel_replaces_it(new, why, embedder):
    old = "Nightly build failures are emailed to build-team@acme.dev."
    verdict = compare(read(old), read(new), _cosine(embedder, old, new))
    assert verdict.relation is Relation.REPLACES and why in verdict.reason
    assert shape("build-team@acme.dev") == "location"


def test_a_copy_for_someone_about_another_thing_replaces_nothing(embedder):
    old, new = "Security advisories are emailed to sec@acme.dev.", "Release notes are emailed to eng@acme.dev and product gets a copy."
    assert compare(read(old), read(new), _cosine(embedder, old, new)).relation is not Relation.REPLACES


def test_reading_host_ports_spaced_settings_and_who_changed_a_setting():
    hp = read("The cache is the managed cluster `ember-lb.cache.internal:6380` over TLS.")
    assert Value("6380", "port") in hp.values and "emberlbcacheinternal" in hp.names
    assert ("maxpartysize", "4") in read("Parties are capped (`max_party_size = 4` in `matchmaker.toml`).").settings
    assert ("loglevel", "debug") in read("Staging sets `log_level: debug`.").settings
    said = lambda text: dict(read(text).cues).get("changed", 0.0)  # noqa: E731
    assert said("Gave the trino pool 20 slots after the upgrade.") >= 0.8
    assert said("Set the connect timeout to 30s.") >= 0.8
    assert said("`max_active_runs_per_dag` is set to 3 in airflow.cfg.") == 0.0  # a description, not a change
    assert "slack" in read("Failures page on-call; the Slack channel keeps receiving a copy.").left
    # a one-word host gives its port too; a short number after a name is an image tag, not a port
    local = read("Point the app at localhost:5433 while the other Postgres holds 5432.")
    assert Value("5433", "port") in local.values and "localhost" in local.names
    assert not any(v.kind == "port" for v in read("The compose file pins postgres:16 for the test database.").values)
    assert "email" in read("Requests show in the inbox; email only goes out as a daily digest.").left


def test_a_port_moved_with_the_old_one_named_far_from_the_old_wording_replaces_it():
    """The old port named again in a reason, in a sentence whose subject (game traffic) the older one
    is about, at a cosine (0.40) below the one a plain change cue needs (0.45)."""
    old = "edge-proxy accepts game traffic on UDP 5555; open that port in the firewall for new regions."
    new = "Game traffic is on UDP 26000 now: some carriers were throttling 5555."
    verdict = compare(read(old), read(new), 0.40)
    assert verdict.relation is Relation.REPLACES and "about the same game" in verdict.reason
    other = "Voice chat is on UDP 26000 now: some carriers were throttling 5555."  # another subject
    assert compare(read(old), read(other), 0.40).relation is not Relation.REPLACES


def test_product_names_and_switch_values_are_not_code():
    """PagerDuty is a product (swappable for Slack), not a code name; `catchup=True` names the
    setting, not a thing called 'true' that another statement could swap away."""
    assert shape("PagerDuty") == "name" and shape("fetchUser") == "code"
    assert read("No DAG may set `catchup=True`.").names == frozenset({"catchup"})
    assert ("catchup", "true") in read("No DAG may set `catchup=True`.").settings


def test_a_name_described_by_a_compound_is_the_name_not_a_kebab_name():
    """"Postgres-based", "Redis-backed": prose about Postgres and Redis, not a kebab-case name that
    could stand for a path. Read as a name, a reminder about one aspect of a service superseded the
    fact of where its config lives (a simulated year, May); a cued change of the described thing
    still replaces the older statement."""
    reminder = read("Remember that media-resizer is Postgres-based.")
    assert normalise_name("Postgres") in reminder.names and not any("-" in n or "based" in n for n in reminder.names)
    moved = read("media-resizer config moved from deploy/media-resizer/values-prod.yaml to "
                 "services/media-resizer/settings.yaml.", ("file:deploy/media-resizer/values-prod.yaml",
                                                           "file:services/media-resizer/settings.yaml"))
    assert compare(moved, reminder, 0.6).relation is not Relation.REPLACES
    assert compare(read("The worker queue is Redis-backed."), read("The worker queue is now RabbitMQ-backed."),
                   0.85).relation is Relation.REPLACES


def test_a_left_behind_name_with_a_colon_is_named_as_left_behind():
    """"from python:3.12-slim-bookworm to python:3.12-alpine3.20": an image tag (or host:port) left
    behind is read whole, so the change replaces the statement holding it and only may replace
    another fact of the same service (a simulated year: the base-image switch superseded "ledger-core
    is written in Kotlin", the tool name `python` read as swapped for Kotlin)."""
    switch = read("ledger-core switched its base image from python:3.12-slim-bookworm to python:3.12-alpine3.20.",
                  ("tool:python",))
    assert normalise_name("python:3.12-slim-bookworm") in switch.left
    assert compare(read("ledger-core is written in Kotlin."), switch, 0.6).relation is Relation.MAY_REPLACE
    assert compare(read("ledger-core is built on the python:3.12-slim-bookworm base image."), switch,
                   0.6).relation is Relation.REPLACES
    assert normalise_name("localhost:8080") in read("The API moved from localhost:8080 to localhost:9090.").left


def test_moved_off_one_thing_onto_another_leaves_only_the_first_behind():
    new = read("The mobile builds moved off Bitrise onto Codemagic last month.")
    assert new.left == {"bitris"} and "codemagic" in new.names  # (stemmed)
    assert compare(read("Mobile builds run on Bitrise."), new, 0.6).relation is Relation.REPLACES


def test_stopping_a_practice_is_a_change_cue():
    assert dict(read("We stopped writing `down()` methods.").cues).get("disabled") == 0.9
    assert dict(read("Nightly fuzzing stopped running on every push.").cues).get("disabled") == 0.9
    assert read("The worker stops when the queue is empty.").cues == ()



def test_how_developers_say_a_thing_is_gone_or_swapped_is_a_change_cue():
    """"No more X", "X is gone", "swapped X out for Y", "publish to Y instead", a key "revoked": each
    says the older state no longer holds; a limit ("no more than six") and a name that holds a cue
    word (`tariff-changed`) say nothing changed."""
    for text, label in (("No more Nx. Turborepo owns the task graph.", "no longer"),
                        ("Sentry is gone, use Crashlytics for crash reports.", "no longer"),
                        ("The shared signing key was revoked.", "no longer"),
                        ("Swapped urfave/cli out for cobra; shell completions come for free.", "replaced"),
                        ("Publish status changes to `claims.v2` instead.", "instead"),
                        ("We moved the nightly exports over to the reporting bucket.", "moved")):
        assert label in dict(read(text).cues), text
    assert read("Swapped urfave/cli out for cobra.").left_spans[0][1] == "urfave/cli"
    assert read("Parties can have no more than six players.").cues == ()
    assert read("The cache refreshes whenever a tariff-changed event arrives.").cues == ()
    assert dict(read("The flag was re-enabled for beta users.").cues).get("re-enabled") == 0.8


def test_a_written_name_said_to_be_another_now_is_left_behind():
    """"Renamed the env var: DATABASE_URL is now ADMIN_CONSOLE_DB_DSN" names the old name as left
    behind, so it replaces the statement that gave it (it was stored beside it, both current)."""
    old = read("admin-console reads its database connection string from the DATABASE_URL environment variable.")
    new = read("Renamed the admin-console database env var: DATABASE_URL is now ADMIN_CONSOLE_DB_DSN.")
    assert new.left_spans and compare(old, new, 0.73).relation is Relation.REPLACES
    assert not read("The API is now faster than before.").left_spans  # not a written name


def test_a_copy_kept_says_the_main_one_moved_even_with_still():
    """"Logs go to Loki first; the old host still gets a copy" is a move with a copy kept, not a
    reminder: the statement stays whole (`says_a_change`) and keeps its cue; "Reminder: staging
    still gets a copy" restates."""
    moved = read("Build logs go to Loki first; the old hosted log service still gets a weekly copy until March.")
    assert moved.change >= 0.5 and not moved.restating
    assert read("Backups go to the EU vault; the US bucket still receives a nightly copy.").change >= 0.5
    assert read("Reminder: staging still gets a copy of the prod alerts.").restating


def test_a_value_said_to_have_moved_is_a_change_cue():
    """"went up to", "grew to", "cut X to 8": a value moved, said as developers say it."""
    for text in ("Max message length went up to 10,000 characters after users kept splitting snippets.",
                 "Retention on tracking_events grew to 400 days.",
                 "The team cut the policy-service timeout to 8 seconds."):
        assert dict(read(text).cues).get("changed") == 0.8, text
    old, new = "Chat messages are capped at 4,000 characters.", "Max message length went up to 10,000 characters."
    assert compare(read(old), read(new), 0.66).relation is Relation.REPLACES
    # a release cut, or a price that is up to some amount, moves no value
    assert read("We cut a release yesterday.").cues == ()
    assert read("Plans cost up to 40 euros a month.").cues == ()


def test_now_as_the_time_of_a_check_is_no_change_cue(embedder):
    """"checked with curl just now" says when, not that a state holds from now on; read as a cue it
    had a port check replace an ownership line and another component's port check (the year,
    dream store)."""
    for text in ("search-indexer answers on port 9617, checked with curl just now.",
                 "The build was green until now.", "By now every service logs JSON."):
        assert "now" not in dict(read(text).cues), text
    for text in ("Alerts now go to #ops.", "From now on we lint with ruff.", "As of now, staging listens on 8080."):
        assert dict(read(text).cues).get("now") == 0.5, text
    for old, new in (("Code owner for search-indexer: Aiko Tanaka.",
                      "search-indexer answers on port 9617, checked with curl just now."),
                     ("search-indexer answers on port 9617, checked with curl just now.",
                      "pricing-engine answers on port 7692, checked with curl just now.")):
        assert compare(read(old), read(new), _cosine(embedder, old, new)).relation is not Relation.REPLACES, new


def test_a_thing_left_behind_is_named_as_the_old_one():
    new = read("The team left FreeRTOS behind: Beacon is built on Zephyr 3.7.")
    assert dict(new.cues).get("left behind") == 0.9 and "freertos" in new.left
    verdict = compare(read("The Beacon firmware runs on FreeRTOS with one task per sensor."), new, 0.63)
    assert verdict.relation is Relation.REPLACES and "freertos" in verdict.reason
    assert read("Nobody gets left behind in onboarding.").cues == ()

def test_the_subject_is_what_people_acted_on_and_follows_a_leading_clause():
    assert {"dbt", "project"} <= read("The team merged the dbt project into the monorepo under `transform/`.").head
    assert read("After the latency tests, EU realm servers run in Amsterdam.").head == {"eu", "realm", "server"}
    assert "trinopool" in read("Gave trino_pool 20 slots after the upgrade.").head
    assert {"crat", "spectator"} == read("The `spectator` crate uses tokio.").head


def test_a_phrase_naming_the_words_inside_a_code_name_leaves_it_behind():
    """"the ledger module" is what `Billing.Ledger` is: renaming it leaves the old one behind."""
    old = read("Invoice totals are computed in the `Billing.Ledger` module, which wraps Decimal.")
    assert {"bill", "ledger"} <= old.parts  # stems
    new = read("Renamed the ledger module to `Billing.Journal` since people kept confusing it with the GL export.")
    verdict = compare(old, new, 0.45)
    assert verdict.relation is Relation.REPLACES and "ledger" in verdict.reason


def test_a_warning_not_to_change_it_and_a_restated_fact_replace_nothing():
    old = "Workspace exports are generated as gzipped JSON Lines, one file per channel."
    warned = read("Reminder: when you touch exports, the format is gzipped JSON Lines, so don't switch it to CSV.")
    assert warned.change < 0.5
    assert compare(read(old), warned, 0.6).relation is not Relation.REPLACES
    restated = read("Just to restate it: the server mints a UUIDv7 for every message and clients never pick IDs.")
    assert restated.restating
    assert compare(read("Message IDs are UUIDv7s generated on the server."), restated, 0.6).relation is not Relation.REPLACES
    # however close: a statement that says it restates is no uncued change ("never" is no flip of it)
    again = read("Just to restate it: the billing service mints a ULID for every invoice and clients never pick numbers.")
    for cos in (0.6, 0.75, 0.95):
        assert compare(read("Invoice numbers are ULIDs assigned by the billing service when the invoice is created."),
                       again, cos).relation is Relation.NONE
    assert compare(read("Order IDs are generated by the database."),
                   read("Order IDs are never generated by the database."), 0.95).relation is Relation.REPLACES
    assert read("The `billing-worker` service exposes its metrics on 9091.").head == {"billingworker", "servic"}


def test_like_things_told_apart_by_a_number_in_the_subject_stay_apart():
    """An import of 'Service number N listens on port 9000+N' rows chain-superseded 499 of 500."""
    old, new = read("Service number 5 listens on port 9005."), read("Service number 6 listens on port 9006.")
    assert compare(old, new, 0.9).relation is not Relation.REPLACES
    assert compare(read("The API listens on port 8080."), read("The API listens on port 9090 now."), 0.8).relation \
        is Relation.REPLACES
    # a one-letter designator tells them apart as a number does: two board revisions, two zones
    c, d = read("Board rev C uses the STM32F4 as its main controller."), read("Board rev D moved to the STM32H7 for its FPU.")
    assert d.change >= 0.5 and compare(c, d, 0.8).relation is not Relation.REPLACES
    assert compare(read("Zone B backups run at 02:00."), read("Zone C backups now run at 03:00."), 0.9).relation \
        is not Relation.REPLACES
    assert compare(read("Zone B backups run at 02:00."), read("Zone B backups now run at 03:00."), 0.9).relation \
        is Relation.REPLACES
    assert read("A cron job prunes old builds.").head_numbers == frozenset()  # an article is no designator


@pytest.mark.parametrize("old,new", [
    ("The audit-db service uses httpx rather than requests because the team already knows it.",
     "The audit-api service uses OpenTelemetry rather than StatsD because it integrates with our SSO."),
    ("The audit-cron service uses ruff rather than flake8 because it keeps the image small.",
     "The audit-cron service uses pydantic rather than attrs because licensing of the alternative changed."),
    ("Deploys of the mobile app go through Fastlane lanes.",
     "The web app now deploys with Vercel instead of Netlify."),
])
def test_a_change_that_names_another_thing_left_behind_is_at_most_possible(old, new):
    """'X rather than StatsD' replaces a statement about StatsD, not a like sentence about something else."""
    assert compare(read(old), read(new), 0.8).relation is not Relation.REPLACES


@pytest.mark.parametrize("old,new", [
    ("Alerts go to PagerDuty.", "Alerts now go to Opsgenie instead of PagerDuty."),
    ("tracking-ingest publishes every scan event to the RabbitMQ exchange `tracking.events`.",
     "We retired the RabbitMQ cluster: tracking-ingest publishes to NATS JetStream, subject `tracking.events.v2`."),
    ("The home screen gets the balance from `LedgerRepository.fetchBalance(accountId)`.",
     "fetchBalance is gone. Call `BalanceReader.currentBalance(accountId)` instead of fetchBalance."),
])
def test_a_change_that_names_what_the_older_one_holds_still_replaces_it(old, new):
    assert compare(read(old), read(new), 0.7).relation is Relation.REPLACES


def test_two_like_statements_that_trade_words_are_neither_restated_nor_merged():
    """Bulk rows ('Aiko owns the metrics-cron service's database' / '... the search-sdk service's dashboards')
    were reinforced into each other in a bulk import (`benchmarks/importing.py --gate`)."""
    from mnemex.engine.statements import swaps_words

    a = read("Aiko is the on-call owner of the metrics-cron service's database.")
    b = read("Aiko is the on-call owner of the search-sdk service's dashboards.")
    assert swaps_words(a, b) and compare(a, b, 0.9).relation is not Relation.RESTATES
    c, d = read("Ravi prefers small, separate PRs for integration tests."), read(
        "Priya prefers small, separate PRs for integration tests.")
    assert swaps_words(c, d) and compare(c, d, 0.9).relation is not Relation.RESTATES
    reminder = read("Reminder: the integration tests still need the compose stack up.")
    assert not swaps_words(read("The integration tests need the compose stack up."), reminder)


def test_a_reminders_own_phrase_and_a_v_based_adds_no_word():
    """"as noted before" is how a reminder speaks, not what it says; "Rust-based" says it uses Rust.
    A different value or name still tells the two apart."""
    from mnemex.engine.statements import swaps_words

    old = read("ledger-sync is written in Kotlin.")
    for again in ("ledger-sync uses Kotlin, as noted before.", "Remember that ledger-sync is Kotlin-based.",
                  "ledger-sync uses Kotlin, as we mentioned earlier."):
        assert not swaps_words(old, read(again)) and compare(old, read(again), 0.93).relation is Relation.RESTATES
    assert "befor" not in read("ledger-sync uses Kotlin, as noted before.").words
    assert "befor" in read("ledger-sync starts before the gateway.").words
    assert compare(old, read("ledger-sync uses Scala, as noted before."), 0.9).relation is not Relation.RESTATES


@pytest.mark.parametrize("old,new,similarity", [
    ("The `reindex-search` job rebuilds the product index every night at 02:00.",
     "reindex-search is disabled until the cluster upgrade lands; run it by hand if the index drifts.", 0.3),
    ("Coverage reports are uploaded to Codecov on every push.",
     "We turned off coverage uploads because the Codecov token kept expiring.", 0.3),
    ("Pushing a tag triggers `release-notes.yml`, which drafts the GitHub release.",
     "release-notes.yml is switched off; the release manager drafts the notes by hand for now.", 0.3),
    # no recurrence said: a habit, named by the words of what it does
    ("Schema docs are regenerated by hand with `make schema-docs` and committed.",
     "No more regenerating schema docs by hand; CI publishes them from the migrations.", 0.3),
    ("Designers export icons from Figma and drop the SVGs into assets/icons.",
     "Stop the Figma icon exports: the icon font package is the source now.", 0.3),
])
def test_a_job_switched_off_replaces_what_said_it_runs_even_in_far_wording(old, new, similarity):
    """The name of the job (or the words of what it does) is the evidence: the rest of the newer
    statement moves on to why and what to do meanwhile, so its cosine can be low."""
    verdict = compare(read(old), read(new), similarity)
    assert verdict.relation is Relation.REPLACES and "switched off" in verdict.reason, verdict
    # below the least cosine it is about something else
    assert compare(read(old), read(new), 0.2).relation is not Relation.REPLACES


def test_a_query_asks_for_the_older_statement_when_it_names_more_of_what_only_the_older_one_holds():
    older = read("Thumbnail jobs run on a dedicated worker pool with 8 processes.")
    newer = read("Webhook deliveries share the default worker pool, which has 2 processes.")
    assert asks_for_older(read("how many processes does the thumbnail worker pool have?"), older, newer)
    assert not asks_for_older(read("how many processes does the webhook worker pool have?"), older, newer)
    # a question about what both are about names as much of each: the newer one may lead
    flags_old = read("Feature flags in the mobile app are read from a JSON file bundled with each release.")
    flags_new = read("The mobile app fetches its feature flags from LaunchDarkly at startup.")
    assert not asks_for_older(read("where does the mobile app get its feature flags?"), flags_old, flags_new)


def test_a_query_asks_in_words_when_it_shares_more_than_a_name():
    query = read("What datastore does ledger-sync use?")
    assert not asks_in_words(query, read("ledger-sync needs LEDGER_TOKEN set or it refuses to start."))
    assert not asks_in_words(query, read("ledger-sync is written in Go."))
    assert asks_in_words(query, read("The ledger-sync datastore moved to CockroachDB."))
    assert asks_in_words(read("where do the mobile app's feature flags come from?"),
                         read("The mobile app fetches its feature flags from LaunchDarkly at startup."))


@pytest.mark.parametrize(("text", "stop"), [
    ("The Jenkins release job is switched off. Until the new pipeline exists, Priya builds releases by hand.", True),
    ("Stop the Monday CSV uploads: the import corrupted two sailings.", True),
    ("Inline indexing is off for now; it was adding 40 ms to every send.", True),
    ("No more laptop uploads, Sam's machine is gone.", True),
    # a new value first, the old thing's switch-off in passing: a replacement, not a stop
    ("Nightly sales aggregation now runs as `sales_rollup_v2`. The previous DAG is paused until month end.", False),
    ("Deploys are blue-green via Fly.io machines.", False),
])
def test_a_statement_leads_with_a_switch_off_only_when_its_first_clause_says_so(text, stop):
    assert leads_with_switch_off(text) is stop


@pytest.mark.parametrize(("text", "halted"), [
    ("The Friday invoice export is on hold until the new VAT codes are agreed.", True),
    ("Manual cache purges are forbidden from now on; the CDN bill doubled.", True),
    ("Don't rebuild the fixtures by hand anymore, the script drifted from the schema.", True),
    ("Freeze on schema migrations until the replica lag is fixed.", True),
    ("Release notes are no longer written by hand.", True),
    # "is off:" with its reason after the colon
    ("Manual hotfix branches are off: the release bot now rejects anything not cut from main.", True),
    ("Dark mode is off by default: users turn it on in settings.", False),
    # a stop said after the first sentence, or no stop: how things are done
    ("Invoices reach the accountants through a nightly SFTP drop. The old export is paused.", False),
    ("The invoice export runs every Friday at 06:00 and mails a CSV to the accountants.", False),
])
def test_a_statement_halts_a_practice_when_its_first_sentence_says_it_stopped_or_waits(text, halted):
    assert read(text).halted is halted


def test_an_arrow_inside_a_code_span_is_a_signature_not_a_change():
    s = read("The router's entry point is `Routing.pick : Order -> Carrier -> Route`, called from the dispatcher.")
    assert not s.left and not s.left_spans
    assert read("Renamed: `fetch_user` -> `load_user`.").left == {"fetchuser"}


@pytest.mark.parametrize("text", [
    "Hosts are named by rack and slot, so a host that gets moved to another rack is given a new name.",
    "If a bucket is renamed, its lifecycle rules must be applied again.",
    "The build agents have swap disabled in their base image.",
])
def test_a_rule_about_any_one_of_a_kind_or_a_state_kept_says_no_change(text):
    assert read(text).change == 0


def test_something_that_has_been_disabled_is_still_a_change():
    assert read("Force pushes to main have been disabled in the repo settings.").change >= 0.9


def test_what_nobody_uses_anymore_is_left_behind_and_a_statement_without_it_is_not_replaced():
    new = read("Reports are built by the Airflow DAG; nobody opens the Jupyter notebook for them anymore.")
    assert "jupyter" in new.left
    assert read("We don't use Jest anymore, Vitest runs the unit tests.").left == {"jest"}
    old = read("Reports are rendered with pandas 2.1 on the analytics box.")
    assert compare(old, new, 0.55).relation is not Relation.REPLACES


def test_a_component_named_in_kebab_case_in_each_subject_tells_two_statements_apart():
    old = read("New owner of quote-builder is Ines Duarte (previously Omar Said).")
    assert old.head_kebabs == {"quote-builder"}
    assert conflict(old, read("New owner of tile-cache is Lars Berg (previously Omar Said).")).startswith("about another component")
    # the same component changed, and a channel or flag is no component
    assert not conflict(old, read("New owner of quote-builder is Lars Berg (previously Ines Duarte)."))
    assert read("Alerts for the gateway go to #team-edge-alerts; run it with --dry-run first.").kebabs == frozenset()


def test_a_switch_off_names_the_thing_not_a_tool_that_qualifies_it():
    from mnemex.engine.statements.compare import switched_off

    assert switched_off(read("The Jenkins release job signs the APK and uploads it to Play."),
                        read("The Jenkins release job is switched off.")) == "jenkin"
    assert switched_off(read("Applies: run Pulumi up from your machine once the plan is approved in the PR."),
                        read("We turned off the hourly Pulumi cost estimate job for the shared stacks.")) == ""


@pytest.mark.parametrize("text,leeway", [
    ("Interns may deploy to the sandbox on their own.", 1),
    ("Feature flags are on by default for internal users.", 1),
    ("Only release managers deploy to production.", -1),
    ("Crash reporting is opt-in: the first launch asks.", -1),
    ("The docs site is built with MkDocs.", 0),
    ("Anyone can read the dashboards, but only admins can edit them.", 0),
    # a second pair of eyes is a restriction, said however
    ("Since the outage, schema changes need a second approver in the migration tool.", -1),
    ("Infra PRs require two approvals before merge.", -1),
    ("A second person watches the console during every failover drill.", -1),
    ("Two people from the platform team own the cluster.", 0),
])
def test_reading_what_a_statement_lets_happen(text, leeway):
    assert read(text).leeway == leeway


@pytest.mark.parametrize("text,changed", [
    ("The team extended log retention to 90 days.", True),
    ("Retention is extended to 90 days.", True),
    ("The timeout is now bumped to 30 s.", True),
    ("The build number is bumped by CI on every merge.", False),
    ("Prices are raised every January.", False),
    ("The operator supports every maintained minor, plus EKS extended support.", False),
    ("The settings page has a reduced motion mode.", False),
    ("The pool size is increased by 4 at peak.", True),
])
def test_a_word_of_change_tells_a_change_only_when_one_happened(text, changed):
    assert any(label == "changed" for label, _ in read(text).cues) is changed


def test_a_pronoun_is_no_region_and_an_acronyms_plural_is_the_acronym():
    assert read("Let us drop the shim on Android.").places == {"android"}
    assert "us" in read("Traffic from the US goes to us-east-1.").places
    assert normalise_name("EUIs") == normalise_name("EUI") == "eui"
    assert normalise_name("URLs") == "url"


@pytest.mark.parametrize("text,name", [
    ("Wojciech owns query planner reviews.", "wojciech"),
    ("Renata's platform squad owns the ingress.", "renata"),
    ("Dependabot PRs get merged within a week.", "dependabot"),
    ("Telemetry is opt-in.", ""),
    ("Checkout requires an account.", ""),
    ("Backups run nightly.", ""),
    ("Deploys go out with Capistrano.", ""),
    ("The team owns the ingress.", ""),
    ("Rails.cache talks to Valkey.", ""),
])
def test_a_capitalised_first_word_that_is_no_english_word_is_read_as_a_name_to_offer(text, name):
    assert read(text).opens_with == name


def test_a_consequence_is_what_a_statement_tells_when_nothing_else_is_said():
    told = read("The nightly jobs kept overrunning, so the batch window is 300s.")
    assert "300s" in told.value_texts and not told.reason
    # beside a claim of its own, "so ..." stays a reason
    assert read("Minimum target is Android 12, so we can use the splash API 2.").value_texts == {"12"}


def test_a_setting_written_shorter_is_the_same_setting():
    old, new = read("The web tier runs 4 VMs of Standard_B2ms."), read("Web tier: 6 VMs of B2ms across two zones.")
    assert not conflict(old, new)
    # two keys that are not one another still tell two settings apart
    assert conflict(read("Backup Jobs set backoffLimit to 2."), read("Backup Jobs get activeDeadlineSeconds of 21600."))


@pytest.mark.parametrize("text", [
    "Self-service refunds are off during the migration; support issues them by hand.",
    "Manual cert renewals are off: cert-manager owns every certificate now.",
])
def test_off_for_a_while_or_with_a_reason_is_a_switch_off(text):
    assert read(text).off
    assert not read("Dark mode is off by default.").off


@pytest.mark.parametrize("text,moved", [
    ("Everything the worker needs from Vault has to go through the sidecar.", False),
    ("Anything the plugin wants from the host must go through the RPC layer.", False),
    ("Alerts moved from email to the #ops channel.", True),
    ("We went from nightly builds to builds on every merge.", True),
])
def test_from_then_a_verb_before_to_is_no_move(text, moved):
    assert any(label == "from X to Y" for label, _ in read(text).cues) is moved


def test_a_leading_source_with_a_colon_is_no_time_of_change():
    assert not read("From the postmortem: retries are capped at three, with jitter.").cues
    assert read("Since the outage, retries are capped at three.").change >= 0.5


def test_both_saying_a_thing_does_not_hold_is_no_flip():
    old = read("Order totals are integer pence in the ledger, never floats.")
    new = read("Per the audit: totals are kept as integer pence, not strings and certainly not floats.")
    assert not evidence(old, new).negation_flip
    # the opposite said is still a flip
    assert evidence(old, read("Order totals are stored as floats now, not integer pence.")).negation_flip


def test_one_standing_for_a_thing_counts_nothing():
    assert read("We run about 30 stores; the largest one has 900 staff.").value_texts == {"30", "900"}
    assert "1" in read("Merges need one approval.").value_texts


def test_more_on_a_subject_adds_to_it():
    new = read("More on the rate limiter: tenants above 500 rps fall back to a token bucket per node.")
    assert new.additive
    assert conflict(read("The rate limiter allows 200 rps per tenant."), new)


def test_two_statements_each_opening_with_another_place_are_about_two_places():
    old = read("On the build farm, compilers come from `module load gcc/13`.")
    new = read("On developer laptops, the devcontainer ships clang 18 instead of the farm modules.")
    assert conflict(old, new).startswith("about another place")
    assert compare(old, new, 0.5).relation is not Relation.REPLACES
    # "For now," is a time, no place
    assert not read("For now, compilers come from the devcontainer.").scope
    assert not conflict(old, read("On the build farm, compilers now come from Spack instead of the modules."))


def test_a_glob_is_a_pattern_no_piece_of_code():
    assert shape("tar_health_*") == "pattern"
    old = read("Jobs for the billing module are named `job_billing_*`.")
    new = read("Everything runs through the scheduler now: `sched_run()` rebuilds whatever is stale.")
    assert compare(old, new, 0.55).relation is not Relation.REPLACES


def test_lower_case_words_that_are_no_english_word_are_read_as_likely_names():
    assert read("Static analysis for the firmware is cppcheck, run nightly.").unknown == {"cppcheck"}
    assert "clang" in read("clang-tidy is our static analyzer, and it gates every merge.").unknown
    # English words the tokenizer splits, code spans and URLs are none
    assert not read("Formatting runs synchronously in `ormolu` from https://hooks.example.org/fmt.").unknown


@pytest.mark.parametrize("text,cued", [
    ("A subscription can be paused by the customer and resumed later.", False),
    ("Debug tracing is turned on with TRACE=1.", False),
    ("No interest accrues while paused.", False),
    ("The billing export is paused while the ledger migration runs.", True),
    ("The nightly export was paused.", True),
])
def test_what_can_be_done_or_holds_on_a_condition_is_no_event(text, cued):
    assert (read(text).change >= 0.5) is cued


def test_switch_as_a_noun_and_now_in_a_label_are_no_words_of_change():
    assert not read("The upload service has its own kill switch: UPLOADS_OFF=1.").cues
    assert read("We switch to the new runner next week.").change == 1.0
    assert read("Switch off the nightly cron before the migration.").change >= 0.9
    assert not read("Orders are placed from the Buy Now button.").cues
    assert read("Orders go through the new checkout now.").change >= 0.5
    assert read("Now orders go through the new checkout.").change >= 0.5


def test_a_flow_from_one_place_to_another_is_no_move():
    old = read("We chose to record telemetry on the base station rather than on the drone.")
    new = read("Telemetry files sync from the base station to the `fleet-telemetry` bucket nightly.")
    assert not new.left
    assert compare(old, new, 0.5).relation is not Relation.REPLACES
    assert read("We moved recording from the base station to the drone.").left


def test_a_sibling_opening_with_its_own_code_name_leaves_behind_nothing_of_the_other():
    old = read("`InvoiceMath` rounds with Decimal.js to avoid float drift.")
    new = read("`TaxMath` uses big.js instead of Decimal.js.")
    assert compare(old, new, 0.6).relation is not Relation.REPLACES
    # naming the older one's own code name, it is a rename
    renamed = read("`TaxMath` replaces `InvoiceMath`, and rounds with big.js instead of Decimal.js.")
    assert compare(old, renamed, 0.6).relation is Relation.REPLACES


def test_a_version_template_is_a_pattern():
    assert shape("vX.Y.Z") == shape("app-vYYYY.MM.N") == shape("<dir>") == "pattern"
    assert shape("v1.2.3") != "pattern"


def test_an_arrow_written_as_code_outside_a_code_span_is_no_rename():
    old = read("Handlers reply with `$self->json(...)`; never build JSON strings by hand.")
    new = read("Handlers reply through $self->json(data => $rows), and hand-written JSON gets rejected in review.")
    assert not new.left and new.change < 0.5
    assert compare(old, new, 0.85).relation is not Relation.REPLACES
    assert read("Renamed the env var: DB_URL -> DATABASE_URL.").left  # spaced, outside parentheses: a rename


def test_leaving_behind_what_the_older_one_already_refuses_is_the_same_rule_again():
    old = read("Never call `sleep()` in interrupt handlers; defer the work to `irq_work_queue`.")
    new = read("Reminder from the review: interrupt handlers defer to irq_work_queue, not sleep().")
    assert compare(old, new, 0.8).relation is not Relation.REPLACES
    # what the older one said is used, left behind, is a change
    used = read("Interrupt handlers call `sleep()` while waiting for the bus.")
    assert compare(used, new, 0.6).relation is Relation.REPLACES


def test_attaching_a_report_from_a_tool_to_a_review_is_no_move():
    new = read("If your change touches the schema, attach the dry-run report from Flyway to the pull request.")
    assert not new.left


def test_nobody_doing_a_thing_any_more_leaves_it_behind():
    new = read("Releases are cut by the GitLab pipeline on merge; nobody tags releases in SVN for this repo anymore.")
    assert "releas" in new.left
    old = read("To release, tag the revision in SVN and email the ops list.")
    assert compare(old, new, 0.5).relation is Relation.REPLACES
    other = read("The GitLab runner for this repo is pinned to ubuntu-22.04.")
    assert compare(other, new, 0.5).relation is not Relation.REPLACES


@pytest.mark.parametrize("text,cued", [
    ("Raw events are kept in S3 for 30 days, then dropped by a lifecycle rule.", False),
    ("Crash dumps are removed after 14 days.", False),
    ("The old crash dumps were deleted last week.", True),
])
def test_what_a_retention_rule_removes_is_no_change(text, cued):
    assert (read(text).change >= 0.5) is cued



def test_a_double_colon_inside_a_code_name_does_not_end_the_subject():
    assert "recordingscreate" in read("The `Recordings::Create` action takes uploads at POST /recordings.").head


def test_a_thing_named_after_a_release_is_no_time_of_change():
    assert not read("Nightly builds are triggered from the release branch and signed on the build server.").cues
    assert read("Since the release, builds are signed on the build server.").change >= 0.5


def test_the_old_thing_named_as_a_cause_is_not_left_behind():
    new = read("`Clinic.exe` is built for Win32 because of the old Wacom signature pad SDK.")
    assert not new.left
    old = read("The signature pad integration still depends on a 32-bit Wacom SDK from 2015.")
    assert compare(old, new, 0.6).relation is not Relation.REPLACES
    assert "jenkin" in read("Builds run on GitHub Actions; the old Jenkins box is gone.").left


def test_where_a_thing_may_be_changed_from_is_no_move():
    new = read("Feature flags are changed only from the admin console, which writes through `FlagStore.set`.")
    assert not new.left
    old = read("The admin console is smoke-tested by hand before each release.")
    assert compare(old, new, 0.4).relation is not Relation.REPLACES
    assert "30s" in read("The request timeout was raised from 30s to 60s.").left


def test_a_name_swapped_under_a_weak_cue_needs_more_of_the_same_thing_than_the_names():
    # only the kind of a name (a channel) is shared: another fact, however close the embeddings
    old = read("Nightly results land in #crane-dev.")
    new = read("After the bad 2.1 release, only two maintainers can publish packages, and each publish "
               "needs an approval in #crane-release.")
    assert compare(old, new, 0.61).relation is not Relation.REPLACES
    # a word of the older statement said again besides the swapped names: the same thing
    old = read("RMW on every robot is Fast DDS (rmw_fastrtps_cpp), default profile.")
    new = read("Since the discovery storms, RMW_IMPLEMENTATION=rmw_cyclonedds_cpp is set on every robot.")
    assert compare(old, new, 0.65).relation is Relation.REPLACES


@pytest.mark.parametrize("text,cued", [
    ("The metrics endpoint is `http://mon-01.lab.local:9100` after the lab network renumbering.", True),
    ("After the vendor consolidation every service ships logs to `logs.corp.example`.", True),
    ("Run the smoke tests after the release build.", False),
    ("Restart the worker after each migration.", False),
    ("The billing composite is called `AcBillingNode` after the refactor.", True),
    ("Mira leads the data team since the restructure.", True),
    # said to hold across the event: no time of change
    ("Still true after the refactor: money rounding is HALF_EVEN.", False),
])
def test_a_state_said_to_hold_after_a_one_off_event_says_it_changed(text, cued):
    assert (read(text).change >= 0.5) is cued


@pytest.mark.parametrize("text,leeway", [
    ("Only Priya and Omar can push release tags.", -1),
    ("In the prod account only the deploy role may create buckets.", -1),
    # "only" and "can" each said, neither of who alone may: no side taken
    ("PRs that only touch docs/ can merge with one approval now.", 0),
    ("The update check is the only outbound call and it can be switched off.", 0),
    ("The domain-only grouper is gone, so user rules can match paths too.", 0),
])
def test_who_alone_may_do_a_thing_is_a_restriction(text, leeway):
    assert read(text).leeway == leeway


@pytest.mark.parametrize("text,cued", [
    # what must be done each time is a rule, not a change that happened
    ("Every plugin carries a manifest version that must be bumped with any API change.", False),
    ("The lockfile pin has to be upgraded along with the SDK.", False),
    ("The team bumped the manifest version to 3.", True),
])
def test_what_must_be_done_each_time_says_no_change(text, cued):
    assert (read(text).change >= 0.5) is cued


@pytest.mark.parametrize("text,cued", [
    # a state on a condition put after it: how the thing behaves, not a switch-off
    ("The quick-save hotkey defaults to F5 and is disabled when a modal dialog is open.", False),
    ("Uploads are paused if the battery drops under 15 percent.", False),
    # for the time being: a switch-off
    ("The nightly export job is disabled while the storage migration runs.", True),
    ("The nightly export job is disabled until the fix lands.", True),
])
def test_a_state_on_a_condition_is_no_switch_off(text, cued):
    assert (read(text).change >= 0.9) is cued


def test_a_manner_left_behind_about_another_subject_replaces_nothing():
    old = read("Thumbnails in the gallery grid are cached in an LRU map capped at 500 entries.")
    new = read("Full-resolution photos are streamed from disk with `mmap` instead of being cached.")
    assert compare(old, new, 0.55).relation is not Relation.REPLACES
    # the same subject: the way it is done changed
    new = read("Thumbnails are streamed from disk with `mmap` now instead of being cached.")
    assert compare(old, new, 0.6).relation is Relation.REPLACES


def test_a_name_swapped_under_a_weak_cue_about_another_subject_replaces_nothing():
    old = read("Beta builds ship through the Sparkle beta channel (`sparkle:channel=beta`), so testers update in-app.")
    new = read("The team changed the bundle identifier to `com.acme.viewer` for the store listing; Sparkle feeds "
               "need the new ID.")
    assert compare(old, new, 0.55).relation is not Relation.REPLACES


def test_an_environment_alone_is_no_subject():
    old = read("To reproduce a prod bug locally, pull the latest database dump and open it with Postico on the 14.2 VM.")
    new = read("Prod runs on Render in the `fra` region now; the rented Linode box was cancelled last week.")
    assert compare(old, new, 0.4).relation is not Relation.REPLACES


def test_an_alternative_of_the_subjects_own_kind_is_told_by_its_other_words():
    old = read("Handler names are prefixed `Ac` and live under `handlers/<Name>/` with a matching test file.")
    new = read("New handlers are written as async classes rather than callback-based legacy handlers.")
    assert compare(old, new, 0.42).relation is not Relation.REPLACES
    assert tells_other_change(old, new)


@pytest.mark.parametrize("text,leeway", [
    ("Haptics are switched on by default at strength 0.4.", 1),
    ("Haptics default to off since the handheld feedback.", -1),
    ("Crash uploads are enabled by default.", 1),
    ("The sync flag defaults to false.", -1),
])
def test_a_default_said_on_or_off_is_what_a_statement_lets_happen(text, leeway):
    assert read(text).leeway == leeway


def test_a_default_said_off_is_no_switch_off():
    said = read("Crash uploads are disabled by default.")
    assert said.change < 0.5 and not said.off
    assert read("Crash uploads are disabled.").change >= 0.9


def test_a_camel_case_piece_of_a_dotted_name_is_a_name_of_its_own():
    # "the OnePassword file" names the piece `OnePassword` of `Vault.OnePassword`: left behind
    old = read("Tokens come from the `Vault.OnePassword` provider file on the runner.")
    new = read("CI tokens are read from AWS Secrets Manager `ci-tokens` through Vault, not the OnePassword file "
               "on the runner.")
    assert "onepassword" in old.parts
    assert evidence(old, new).left_hit


def test_a_noun_that_is_also_a_verb_ends_the_subject_only_before_the_way_it_goes():
    assert read("Crash reports upload to Sentry first; the support mailbox is cc'd.").head == {"crash", "report"}
    assert "upload" in read("Student uploads are stored on the app server under /srv/media.").head
    # a bucket for a bucket, the two subjects apart: another thing's storage
    old = read("Photo thumbnails are kept for 30 days in the `app-thumbs` bucket.")
    new = read("Crash dumps upload to the `app-crash-archive` bucket on Backblaze every night now; the NAS still gets "
               "a copy for a month.")
    assert compare(old, new, 0.54).relation is not Relation.REPLACES


def test_a_name_in_the_event_a_state_holds_since_is_not_what_it_is_about():
    old = read("Policy analysts reach the rules sandbox at `https://rules.apps.example.org` after the Kubernetes move.")
    assert "kubernet" not in old.names and old.change >= 0.5
    new = read("Policy analysts now write rule changes directly as Prolog facts in the rules sandbox, and a developer "
               "only reviews the merge request.")
    assert compare(old, new, 0.45).relation is not Relation.REPLACES


def test_also_inside_a_relative_clause_adds_nothing_to_another_statement():
    assert not read("The ledger class was replaced by `AcCirculationLog`, which also tracks returns.").additive
    assert not read("Cache maintainer: Ana Ruiz, who also reviews anything touching the eviction code.").additive
    assert read("Staging also gets a copy.").additive
    old = read("Dr. Felix Moreau maintains the cache eviction code.")
    new = read("Cache eviction maintainer: Ana Ruiz, who also reviews anything touching the LRU module.")
    assert not conflict(old, new)


def test_legacy_alone_names_a_thing_still_there_not_one_left_behind():
    assert not read("Dana maintains the legacy XML importer and its fixtures.").left
    # with a word of change beside it, the legacy thing is what was left
    assert "shim" in read("Hand-written bindings are gone now: the legacy shim was converted to the generator.").left


def test_a_name_kept_as_a_piece_of_a_new_name_is_not_swapped_away():
    old = read("Set sizes are counted via `ncard`, so finite sets are covered.")
    new = read("Renaming pass: the size bound is `Finset.card_le_ncard`, with a deprecated alias kept for one release.")
    assert not evidence(old, new).swapped
    assert compare(old, new, 0.65).relation is not Relation.REPLACES


def test_a_word_glued_to_a_code_span_by_a_dash_is_no_flag():
    assert read("Ranks are `ℕ`-valued throughout.").names == frozenset()
    assert "pnpm" in read("Builds are `pnpm`-managed.").names


def test_besides_that_adds_to_another_statement():
    new = read("Besides that, the build script turns on `strict` so warnings fail instead of passing.")
    assert new.additive
    old = read("The build script sets `incremental = false` for the whole repo.")
    assert compare(old, new, 0.55).relation is not Relation.REPLACES


def test_what_befalls_any_one_of_a_kind_is_left_behind_by_nothing():
    assert not read("Order numbers are never reused, not even after an order is deleted.").left
    assert read("The order export was deleted after the audit.").left


def test_a_like_setting_of_another_thing_changes_nothing_without_a_word_of_change():
    old = read("Zone valve loops are PI with kp=0.8 and ti=90 s, acting on the room temperature.")
    new = read("The boiler's mixing-valve controller uses kp=0.2, ti=240 s, so it doesn't fight the zones.")
    assert compare(old, new, 0.66).relation is not Relation.REPLACES
    # the same loop with a word of change is a reset
    assert compare(old, read("Zone valve loops now run kp=0.5, ti=90 s."), 0.8).relation is Relation.REPLACES


def test_still_doing_one_thing_not_another_way_is_a_contrast_not_a_change():
    new = read("We still pin the lint tools in requirements-dev.txt, not through the CI image.")
    assert new.contrasts
    assert not read("Parsing moved to polars; the old csv crate only remains for exports.").contrasts
    old = read("CI pins Python 3.12.4 through the `python:3.12.4-slim` image, so a broken upstream never reaches builds.")
    assert compare(old, new, 0.5).relation is not Relation.REPLACES


def test_an_older_statement_about_a_side_environment_is_not_replaced_by_one_naming_none():
    old = read("Staging sends build alerts to the `ci-staging` channel, which nobody reads at night.")
    new = read("Build alerts go out through Slack now, channel `ci-builds`; the email digest ended.")
    assert conflict(old, new).startswith("the older one is about staging")
    assert compare(old, new, 0.6).relation is not Relation.REPLACES


def test_the_place_the_older_one_holds_in_is_not_its_subject():
    old = read("On the Play internal track, the checkout uses license-test accounts with fast renewals.")
    new = read("Internal track builds come from the Bitrise 'Internal' workflow on every merge to `release/*`.")
    assert compare(old, new, 0.45).relation is not Relation.REPLACES


def test_who_looks_after_a_thing_is_a_person_before_the_verb():
    old = read("Marta Kowalczyk looks after the Zebra printer and the Dock scanner, including the toner orders.")
    assert old.agent and old.head == {"marta", "kowalczyk"}
    assert read("Priya Natarajan maintains the release scripts.").head == {"priya", "natarajan"}
    assert not read("Full-size screenshots are memory-mapped.").agent
    assert not read("The Sync Service runs on the tools cluster.").agent
    assert not read("Laravel Mix is out; assets build with Vite.").agent
    assert read("Priya Raman is the on-call owner for the ingest pipeline.").agent
    # another person for the same things, under a weak cue: who does it changed
    new = read("Tomas Berg is responsible for the Dock scanner and Zebra printer these days.")
    assert compare(old, new, 0.46).relation is Relation.REPLACES


def test_a_subject_that_only_qualifies_the_older_ones_named_thing_is_not_the_same_subject():
    old = read("Jupyter Hub for the ML interns is at http://hub.lab.local:8000; log in with your SSO account.")
    assert {"ml", "intern"} <= old.head_tail
    new = read("ML is trained on the shared GPU box these days and tracked with `mlflow`; notebooks stay for demos only.")
    assert compare(old, new, 0.5).relation is not Relation.REPLACES
    # a subject qualified by what the newer one is about, with no named thing, stays the same subject
    assert not read("The retention for audit events is 30 days.").head_tail - {"audit", "event"}
