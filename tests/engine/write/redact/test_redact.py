"""Secret redaction against a corpus of realistic (fake) secrets and look-alikes.

Each corpus line: `text`, `kinds` (expected finding kinds; [] for a look-alike that must be
kept byte for byte), `secrets` (substrings that must be gone) and `keep` (context that must
survive, e.g. the user and host of a connection string).
"""

from __future__ import annotations

import json

import pytest

from mnemex.config.redaction import RedactionConfig
from mnemex.engine.write.redact import Finding, find_secrets, redact
from tests.helpers import DATA

CORPUS = [json.loads(line) for line in (DATA / "secrets_corpus.jsonl").read_text().splitlines()
          if line.strip()]
SECRETS = [row for row in CORPUS if row["kinds"]]
LOOKALIKES = [row for row in CORPUS if not row["kinds"]]


def _problems(row: dict) -> list[str]:
    result = redact(row["text"])
    if not row["kinds"]:
        return [f"wrongly caught {result.kinds}: {result.text!r}"] if result.text != row["text"] else []
    problems = [f"secret left in text: {s[:24]!r}" for s in row["secrets"] if s in result.text]
    problems += [f"context lost: {k!r}" for k in row["keep"] if k not in result.text]
    missing = set(row["kinds"]) - set(result.kinds)
    if missing:
        problems.append(f"kinds {sorted(missing)} not reported (got {list(result.kinds)})")
    return problems


def test_corpus_is_big_enough():
    assert len(SECRETS) >= 40
    assert len(LOOKALIKES) >= 30


def test_corpus_every_secret_caught_every_lookalike_kept(capsys):
    caught = sum(not _problems(r) for r in SECRETS)
    missed = [(r["text"][:60], _problems(r)) for r in SECRETS if _problems(r)]
    kept = sum(not _problems(r) for r in LOOKALIKES)
    wrong = [(r["text"][:60], _problems(r)) for r in LOOKALIKES if _problems(r)]
    with capsys.disabled():
        print(f"\nredaction corpus | secrets {len(SECRETS)} | caught {caught} | missed {len(missed)} "
              f"| look-alikes {len(LOOKALIKES)} | kept {kept} | wrongly caught {len(wrong)}")
    assert not missed, "missed secrets:\n" + "\n".join(f"{t!r}: {p}" for t, p in missed)
    assert not wrong, "look-alikes redacted:\n" + "\n".join(f"{t!r}: {p}" for t, p in wrong)


@pytest.mark.parametrize("row", SECRETS, ids=lambda r: r["kinds"][0])
def test_findings_point_at_the_secrets(row):
    findings = find_secrets(row["text"])
    spans = [row["text"][f.start:f.end] for f in findings]
    for secret in row["secrets"]:
        assert any(secret in s or s in secret for s in spans), (secret, spans)


@pytest.mark.parametrize("row", CORPUS, ids=lambda r: (r["kinds"] or ["keep"])[0])
def test_redaction_is_idempotent(row):
    once = redact(row["text"]).text
    assert redact(once).text == once


def test_marker_and_spans():
    text = "DATABASE_URL=postgres://app:Zq8vN2mXp4Lr@db:5432/app and AKIA2QW7XK9MZP4LT3VB"
    result = redact(text)
    assert result.text == "DATABASE_URL=postgres://app:[REDACTED:connection_string]@db:5432/app and [REDACTED:aws_access_key]"
    assert result.findings == (Finding("connection_string", 28, 40), Finding("aws_access_key", 57, 77))
    assert result.kinds == ("connection_string", "aws_access_key")
    assert result.redacted


def test_specific_rule_wins_over_generic_assignment():
    token = "ghp_" + "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dF3hJ5"
    assert redact(f"GITHUB_TOKEN={token}").findings == (Finding("github_token", 13, 13 + len(token)),)


def test_clean_text_is_returned_untouched():
    text = "We use Postgres 16 and the API runs on port 8080."
    result = redact(text)
    assert result.text is text and result.findings == () and not result.redacted


def test_entropy_threshold_is_configurable():
    text = "the datadog api key is 9fK2mQ7xL1pZ4vR8tY3wB6nD"
    assert redact(text).kinds == ("high_entropy",)
    assert redact(text, RedactionConfig(min_entropy=5.0)).findings == ()
    assert redact(text, RedactionConfig(context_window=2)).findings == ()


def test_multiline_env_file():
    env = "\n".join([
        "DEBUG=true",
        "DB_HOST=db.internal",
        "DB_PASSWORD=Vx7!kQ2mPz",
        "API_KEY=",
        "SENTRY_DSN=$SENTRY_DSN",
        "STRIPE_SECRET_KEY=sk_live_4eC39HqLyjWDarjtT1zdp7dc",
    ])
    result = redact(env)
    assert result.text.splitlines() == [
        "DEBUG=true",
        "DB_HOST=db.internal",
        "DB_PASSWORD=[REDACTED:password]",
        "API_KEY=",
        "SENTRY_DSN=$SENTRY_DSN",
        "STRIPE_SECRET_KEY=[REDACTED:stripe_key]",
    ]


@pytest.mark.parametrize("text", ["a." * 10_000, "token:" * 3_000, "password_" * 2_000, "x=" * 8_000,
                                  "the key token secret " * 900, "postgres://" + "u" * 9_000 + ":"])
def test_adversarial_input_stays_linear(text):
    import time

    start = time.perf_counter()
    redact(text)
    assert time.perf_counter() - start < 1.5
