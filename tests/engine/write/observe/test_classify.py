"""The observer's classification: kinds, their cues, false positives, confidences."""

from __future__ import annotations

import pytest

from mnemex.config.observer import DEFAULT_OBSERVER
from mnemex.engine.write.observe.classify import classify
from mnemex.models import MemoryKind as K

# ---------------------------------------------------------------- classification
KIND_CASES = [
    # corrections
    ("Actually, the API runs on port 8081, not 8080.", K.CORRECTION),
    ("No, it's `pnpm`, not npm.", K.CORRECTION),
    ("That's wrong: the config file is pyproject.toml.", K.CORRECTION),
    ("The README is outdated; the flag is --frozen now.", K.CORRECTION),
    ("I meant the staging cluster, not prod.", K.CORRECTION),
    ("You're wrong about the timeout, it should be 30s.", K.CORRECTION),
    ("We don't use Jenkins anymore.", K.CORRECTION),
    ("Wrong file: the handler lives in src/api/routes.py.", K.CORRECTION),
    # preferences
    ("I prefer tabs over spaces.", K.PREFERENCE),
    ("I don't like long functions.", K.PREFERENCE),
    ("Always use type hints in new code.", K.PREFERENCE),
    ("My favourite test runner is pytest.", K.PREFERENCE),
    ("Please don't add comments that restate the code.", K.PREFERENCE),
    ("I'd rather have small PRs.", K.PREFERENCE),
    ("I really hate it when you reformat files I didn't touch.", K.PREFERENCE),
    # decisions
    ("We decided to use Postgres instead of MySQL.", K.DECISION),
    ("We chose Qdrant over Pinecone because it runs offline.", K.DECISION),
    ("Going with FastAPI for the new service.", K.DECISION),
    ("Let's go with uv for dependency management.", K.DECISION),
    ("We switched from Poetry to uv last month.", K.DECISION),
    ("The team agreed on monthly releases.", K.DECISION),
    # conventions
    ("We always squash-merge PRs.", K.CONVENTION),
    ("Never commit .env files.", K.CONVENTION),
    ("Test files must be named test_*.py.", K.CONVENTION),
    ("All migrations go in db/migrations.", K.CONVENTION),
    ("Branch names should follow feat/<ticket>-<slug>.", K.CONVENTION),
    ("We use conventional commits for commit messages.", K.CONVENTION),
    ("By convention, React components are PascalCase.", K.CONVENTION),
    # procedures
    ("To deploy, run `make deploy ENV=prod`.", K.PROCEDURE),
    ("Steps: 1) bump version 2) tag 3) push the tag.", K.PROCEDURE),
    ("First run `docker compose up -d`, then run `pytest -q`.", K.PROCEDURE),
    ("1. git fetch\n2. git rebase origin/main\n3. git push --force-with-lease", K.PROCEDURE),
    ("How to reset the dev DB: run `make db-reset`.", K.PROCEDURE),
    ("To regenerate the client, run npm run codegen and commit the output.", K.PROCEDURE),
    # plans
    ("I will refactor the auth module tomorrow.", K.PLAN),
    ("We plan to migrate to Postgres 17 next month.", K.PLAN),
    ("I'm going to fix the flaky test by Friday.", K.PLAN),
    ("TODO: add retries to the S3 uploader.", K.PLAN),
    ("We'll cut the release next week.", K.PLAN),
    ("Next steps: wire the journal into the engine.", K.PLAN),
    # entities
    ("ArgoCD is our deployment tool.", K.ENTITY),
    ("Qdrant is a vector database written in Rust.", K.ENTITY),
    ("Sarah owns the billing service.", K.ENTITY),
    ("PR stands for pull request.", K.ENTITY),
    ("`MemoryEngine` is the facade every entry point uses.", K.ENTITY),
    # facts
    ("The API runs on port 8080.", K.FACT),
    ("The default timeout is 30 seconds.", K.FACT),
    ("Postgres 16 runs on db.internal.", K.FACT),
    ("The auth service depends on Redis.", K.FACT),
    ("The build takes about 4 minutes.", K.FACT),
    ("My name is Dana.", K.FACT),
]


@pytest.mark.parametrize(("text", "kind"), KIND_CASES, ids=[t[:40] for t, _ in KIND_CASES])
def test_classification(text, kind):
    result = classify(text)
    assert result.kind == kind, result
    assert DEFAULT_OBSERVER.kind_base.of(kind) <= result.confidence <= 1.0
    assert result.scores[0] == (kind, result.confidence) and result.cues


def test_every_kind_has_at_least_five_cases():
    counts = {k: sum(1 for _, kind in KIND_CASES if kind == k) for k in set(k for _, k in KIND_CASES)}
    assert len(counts) == 8 and min(counts.values()) >= 5, counts


FALSE_POSITIVES = [
    ("The function will return None when the key is missing.", K.FACT),  # "will" about code is no plan
    ("The client will retry three times on a 503.", K.FACT),
    ("I actually like the new layout.", K.PREFERENCE),  # "actually" as filler, not a correction
    ("No problem, the migration ran fine.", K.FACT),
    ("We will decide about the ORM next week.", K.PLAN),  # a decision still to be made
    ("This is a good idea.", K.FACT),  # not an entity definition
    ("Don't worry about the lint warnings.", K.FACT),
    # a hunch is no correction: corrections are kept for good, a guess is a moment of debugging
    ("I think the test in services/billing/config.py is wrong, not the code", K.FACT),
    ("Maybe the retry count is wrong", K.FACT),
]


@pytest.mark.parametrize(("text", "kind"), FALSE_POSITIVES, ids=[t[:40] for t, _ in FALSE_POSITIVES])
def test_classification_false_positives(text, kind):
    assert classify(text).kind == kind


def test_no_cue_gives_fallback_and_confidence_adds_up():
    assert (classify("ok thanks").kind, classify("ok thanks").confidence) == (K.FACT, 0.2)
    # one correction cue: 1 - (1 - 0.4) * (1 - 0.3) = 0.58
    assert classify("Actually, the API runs on port 8081.").scores[0] == (K.CORRECTION, 0.58)
    assert classify("I prefer tabs", config=DEFAULT_OBSERVER.model_copy(
        update={"kind_base": DEFAULT_OBSERVER.kind_base.model_copy(update={"preference": 0.0})})).confidence == 0.771


def test_entity_rich_text_gets_the_entity_base():
    result = classify("Redis, Postgres", entity_count=2)
    assert (result.kind, result.confidence, result.cues) == (K.ENTITY, 0.3, ("entity-rich",))
