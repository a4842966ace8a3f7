"""Third-person rewriting and the split of compound statements into atomic claims."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from mnemex.config.observer import DEFAULT_OBSERVER
from mnemex.engine.write.observe import observe
from mnemex.engine.write.observe.entities import Entity, EntityType
from mnemex.engine.write.observe.rewrite import (
    split_atoms,
    third_person_verb,
    to_third_person,
)
from mnemex.models import MemoryKind as K

NOW = datetime(2026, 3, 4, 10, 0, tzinfo=timezone.utc)  # a Wednesday


# --------------------------------------------------------------------- rewriting
REWRITE_CASES = [
    ("I prefer tabs", "User prefers tabs"),
    ("I'm using uv now.", "User is using uv now."),
    ("my favourite editor is vim", "User's favourite editor is vim"),
    ("We use Postgres; we don't use MySQL.", "The team uses Postgres; the team doesn't use MySQL."),
    ("Our CI runs on GitHub Actions and we've pinned it.", "The team's CI runs on GitHub Actions and the team has pinned it."),
    ("I really like it and I do not like magic", "User really likes it and User does not like magic"),
    ("Remind me: I always run tests before pushing", "Remind User: User always runs tests before pushing"),
    ("I chose Rust and I'll try Go", "User chose Rust and User will try Go"),
    ("Let us know. We'll ship on Friday", "Let the team know. The team will ship on Friday"),
    ("- we use black\n- I prefer ruff", "- The team uses black\n- User prefers ruff"),
    ('I said "I hate spaces" and `I = my_var` stays', 'User said "I hate spaces" and `I = my_var` stays'),
    ("I/O is slow in us-east-1", "I/O is slow in us-east-1"),
    ("We chose Postgres because we need multi-row transactions.",
     "The team chose Postgres because the team needs multi-row transactions."),
    ("We need not pin it; we embed the docs and we agreed on it.",
     "The team need not pin it; the team embeds the docs and the team agreed on it."),
]


@pytest.mark.parametrize(("text", "expected"), REWRITE_CASES, ids=[t[:30] for t, _ in REWRITE_CASES])
def test_third_person(text, expected):
    assert to_third_person(text) == expected


@pytest.mark.parametrize(("verb", "expected"), [
    ("prefer", "prefers"), ("do", "does"), ("go", "goes"), ("have", "has"), ("try", "tries"), ("push", "pushes"),
    ("fix", "fixes"), ("play", "plays"), ("decided", "decided"), ("chose", "chose"), ("can", "can"),
    ("need", "needs"), ("agreed", "agreed"), ("embed", "embeds")])
def test_third_person_verb(verb, expected):
    assert third_person_verb(verb) == expected


# ------------------------------------------------------------------------- atoms
ATOM_CASES = [
    ("We use Postgres 16 and the API runs on port 8080; deploys go through ArgoCD.",
     ("We use Postgres 16.", "The API runs on port 8080.", "Deploys go through ArgoCD.")),
    ("We use Postgres and Redis.", ("We use Postgres and Redis.",)),  # one claim about two things
    ("Tom and Jerry are cats.", ("Tom and Jerry are cats.",)),
    ("The service reads and writes files and the cache is cleared nightly",
     ("The service reads and writes files.", "The cache is cleared nightly.")),
    ("e.g. use v1.2.3 of node.js. Then run `make a; make b` and npm run build.",
     ("e.g. use v1.2.3 of node.js.", "Then run `make a; make b` and npm run build.")),
    ("Config is at C:\\Users\\x.y\\conf.ini. Done!", ("Config is at C:\\Users\\x.y\\conf.ini.", "Done!")),
    ("See https://x.io/a.b?c=1. Then go", ("See https://x.io/a.b?c=1.", "Then go.")),
    ("- tabs for Go\n- spaces for Python", ("Tabs for Go.", "Spaces for Python.")),
    ('He said "stop; wait. and go" and left', ('He said "stop; wait. and go" and left.',)),
    # a part that points back with a pronoun is no claim on its own: it stays with what it points to
    ("Jonas owns orders-service; ask them before changing its API.",
     ("Jonas owns orders-service; ask them before changing its API.",)),
    ("The API runs on port 8080. It restarts nightly. Logs go to Loki.",
     ("The API runs on port 8080. It restarts nightly.", "Logs go to Loki.")),
    ("We need MinIO on localhost:9000; start it with `make minio`. That is why CI is slow.",
     ("We need MinIO on localhost:9000; start it with `make minio`. That is why CI is slow.",)),
    ("The service restarts its workers nightly; logs go to Loki.",  # its own subject: still two claims
     ("The service restarts its workers nightly.", "Logs go to Loki.")),
]


@pytest.mark.parametrize(("text", "atoms"), ATOM_CASES, ids=[t[:30] for t, _ in ATOM_CASES])
def test_split_atoms(text, atoms):
    assert split_atoms(text) == atoms


def test_observe_atoms_are_third_person_and_classified_each():
    obs = observe("We use Postgres 16 and the API runs on port 8080; deploys go through ArgoCD.", now=NOW)
    assert [(a.text, a.kind) for a in obs.atoms] == [
        ("The team uses Postgres 16.", K.FACT), ("The API runs on port 8080.", K.FACT),
        ("Deploys go through ArgoCD.", K.FACT)]
    assert [a.entities for a in obs.atoms] == [
        (Entity(EntityType.SERVICE, "postgres"),), (), (Entity(EntityType.SERVICE, "argocd"),)]
    assert obs.standalone == "The team uses Postgres 16 and the API runs on port 8080; deploys go through ArgoCD."


def test_procedures_and_code_stay_one_atom():
    steps = "To release, first run `make test`, then tag the commit and push the tag."
    assert [a.text for a in observe(steps).atoms] == [steps]
    code = "```python\nx = 1; y = 2\nprint(x and y)\n```"
    assert len(observe(code).atoms) == 1
    off = DEFAULT_OBSERVER.model_copy(update={"split_atoms": False})
    assert len(observe("We use Postgres. The API runs on port 8080.", off).atoms) == 1
